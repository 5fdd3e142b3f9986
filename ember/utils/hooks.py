"""``RemovableHandle``, the handle every ``register_*_hook`` of modules and optimizers
returns (and that code keeping its own table of hooks makes itself), and the marker for
hooks that need not be serialized."""
import itertools

__all__ = ['RemovableHandle', 'unserializable_hook', 'warn_if_has_hooks']

_next_id = itertools.count()


class RemovableHandle:
    """Removes the entry ``id`` (a fresh number) from ``hooks_dict`` -- and from
    ``extra_dict`` (a dict or a list of them) -- on ``remove()`` or at the end of a
    ``with``. The caller puts the hook in ``hooks_dict[handle.id]``."""

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.id = next(_next_id)
        self._hooks = hooks_dict
        if isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self._extra = tuple(extra_dict) if isinstance(extra_dict, (list, tuple)) else ()

    def hooks_dict_ref(self):
        """The table the hook is registered in."""
        return self._hooks

    def remove(self):
        """Unregisters the hook (removing twice is harmless)."""
        for table in (self._hooks,) + self._extra:
            table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def unserializable_hook(f):
    """Marks ``f`` as a hook that saving a tensor may drop without a warning."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Warns for each backward hook on ``tensor`` not marked ``unserializable_hook`` (saving
    the tensor drops them)."""
    import warnings
    for hook in (getattr(tensor, '_backward_hooks', None) or {}).values():
        if not hasattr(hook, '__torch_unserializable__'):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this "
                          "is expected, you can decorate the function with "
                          "@torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)
