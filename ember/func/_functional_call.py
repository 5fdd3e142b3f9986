"""functional_call: run a module with some of its parameters and buffers replaced."""
import contextlib

__all__ = ['functional_call']


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors named in ``parameter_and_buffer_dicts``
    (a dict, or a tuple/list of dicts, of dotted names such as ``'0.weight'``) standing for
    the module's own for the duration of the call; the module is left as it was. With
    ``tie_weights``, a parameter shared under several names is replaced under all of them;
    ``strict`` requires every parameter and buffer to be given, and nothing else."""
    if isinstance(parameter_and_buffer_dicts, dict):
        given = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        given, seen = {}, set()
        for d in parameter_and_buffer_dicts:
            repeated = seen & set(d)
            if repeated:
                raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            seen |= set(d)
            given.update(d)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, given, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _owner(module, name):
    """(submodule, attribute name) of a dotted name."""
    *path, attr = name.split('.')
    for p in path:
        module = getattr(module, p)
    return module, attr


@contextlib.contextmanager
def _reparametrized(module, given, tie_weights, strict):
    named = list(module.named_parameters(remove_duplicate=False)) + \
        list(module.named_buffers(remove_duplicate=False))
    if strict:
        names = {n for n, _ in named}
        missing = sorted(names - set(given))
        unexpected = sorted(set(given) - names)
        if missing or unexpected:
            lines = []
            if unexpected:
                lines.append(f"\tUnexpected key(s): {', '.join(map(repr, unexpected))}.")
            if missing:
                lines.append(f"\tMissing key(s): {', '.join(map(repr, missing))}.")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n" +
                               "\n".join(lines))
    given = dict(given)
    if tie_weights:  # a tensor known under several names is replaced under all of them
        by_id = {}
        for n, t in named:
            by_id.setdefault(id(t), []).append(n)
        for n, t in named:
            if n in given:
                for other in by_id[id(t)]:
                    given.setdefault(other, given[n])
    saved = []
    try:
        for name, value in given.items():
            owner, attr = _owner(module, name)
            for table in ('_parameters', '_buffers'):
                if attr in owner.__dict__[table]:
                    saved.append((owner.__dict__[table], attr, owner.__dict__[table][attr]))
                    owner.__dict__[table][attr] = value
                    break
            else:  # a plain attribute (or a new name): set, and put back or removed after
                saved.append((owner.__dict__, attr, owner.__dict__.get(attr, _ABSENT)))
                owner.__dict__[attr] = value
        yield
    finally:
        for table, attr, old in reversed(saved):
            if old is _ABSENT:
                table.pop(attr, None)
            else:
                table[attr] = old


_ABSENT = object()
