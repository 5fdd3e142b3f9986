"""``allow_mutation_on_saved_tensors``: in-place changes to tensors saved for backward.

Inside the context every tensor made gets a watched version counter (``_WatchedVersion``, a
list subclass, so reading and bumping it cost what a plain counter costs), and a
saved_tensors_hooks pair packs each saved tensor as a handle registered on its counter.
In-place ops call ``before_write`` on any counter that is not a plain list before they write:
for each live handle saved at the counter's current version the context first clones the
saved tensor (once; the clone keeps its place in the graph), and unpacking the handle gives
that clone. A clone goes away with its handle (when the graph that saved it is freed), and
all of them at the context's exit. Tensors made before the context keep plain counters:
modifying one of them after saving it still fails at backward, as outside the context.
"""
import contextlib
import weakref

from .grad_mode import SPECIAL_VC_OPEN, WATCHED_VC, _OPEN_LOCK
from .graph import saved_tensors_hooks

__all__ = ['allow_mutation_on_saved_tensors']

_ACTIVE = [None]  # the open context (they do not nest)


class _Handle:
    """What the pack hook stores for one saved tensor at one version."""
    __slots__ = ('version', '__weakref__')

    def __init__(self, version):
        self.version = version


class _WatchedVersion(list):
    """The version counter of a tensor made inside the context."""
    __slots__ = ('context', 'handles')

    def __init__(self, init, context):
        super().__init__(init)
        self.context = context
        self.handles = None  # a WeakSet of the handles saved with this counter, once any

    def before_write(self):
        """Called by in-place ops before they write into memory this counter covers."""
        self.context.before_write(self)


class _AllowMutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors`` yields; ``cloned``, ``original`` and
    ``tid_to_weakhandle`` are its tables, under torch's names."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()    # handle -> clone made before a write
        self.original = weakref.WeakKeyDictionary()  # handle -> the tensor saved
        # (tensor identity, version) -> its handle, so that saving the same tensor at the
        # same version twice shares one handle (and one clone)
        self.tid_to_weakhandle = weakref.WeakValueDictionary()

    def new_counter(self, init):
        """The version counter of a tensor made inside this context."""
        return _WatchedVersion(init, self)

    def pack(self, t):
        vc = t._vc
        tid = (id(t), vc[0])  # (the handle keeps t alive, so its id is not reused meanwhile)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:
            handle = _Handle(vc[0])
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = t
            if type(vc) is _WatchedVersion:
                if vc.handles is None:
                    vc.handles = weakref.WeakSet()
                vc.handles.add(handle)
        return handle

    def unpack(self, handle):
        if _ACTIVE[0] is not self:
            raise AssertionError("Trying to backward outside of the "
                                 "'allow_mutation_on_saved_tensors' context")
        clone = self.cloned.get(handle)
        return self.original[handle] if clone is None else clone

    def before_write(self, vc):
        """Clones, before they change, the tensors saved with counter ``vc`` at its current
        version."""
        if _ACTIVE[0] is not self or not vc.handles:
            return
        from .._ops._core import _alias
        version = vc[0]
        for handle in list(vc.handles):
            if handle.version == version and handle not in self.cloned:
                self.cloned[handle] = _alias(self.original[handle])


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which a tensor saved for backward may be modified in place (the
    first change clones it, and backward uses the clone). Backward must run inside the same
    context; contexts do not nest."""
    if _ACTIVE[0] is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        _ACTIVE[0] = ctx
        WATCHED_VC[0] = ctx.new_counter
        with _OPEN_LOCK:
            SPECIAL_VC_OPEN[0] += 1
        try:
            yield ctx
        finally:
            with _OPEN_LOCK:
                SPECIAL_VC_OPEN[0] -= 1
            WATCHED_VC[0] = None
            _ACTIVE[0] = None
            ctx.cloned.clear()
