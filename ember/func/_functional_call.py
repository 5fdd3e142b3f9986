"""Modules as functions of their state: functional_call (a module run with some of its
parameters and buffers replaced), stack_module_state (the state of M models stacked, for
vmap over an ensemble) and replace_all_batch_norm_modules_."""
import contextlib

__all__ = ['functional_call', 'stack_module_state', 'replace_all_batch_norm_modules_']


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors named in ``parameter_and_buffer_dicts``
    (a dict, or a tuple/list of dicts, of dotted names such as ``'0.weight'``) standing for
    the module's own for the duration of the call; the module is left as it was. With
    ``tie_weights``, a tensor the module holds under several names is replaced under all of
    them; ``strict`` requires every parameter and buffer to be given, and nothing else. A
    buffer the module reassigns during the call is written back into a lone dict given."""
    if isinstance(parameter_and_buffer_dicts, dict):
        given = parameter_and_buffer_dicts
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


def _untied(module, given):
    """``given`` extended to every other name of a tensor the module holds under several
    names (torch's error when two different values are given for one such tensor)."""
    names = {}
    for n, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names.setdefault(id(t), []).append(n)
    out = dict(given)
    for group in names.values():
        named = [n for n in group if n in given]
        if len(group) < 2 or not named:
            continue
        if len({id(given[n]) for n in named}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, "
                             "which are tied. Consider using tie_weights=False")
        for n in group:
            out[n] = given[named[0]]
    return out


def _check_keys(module, given):
    names = {n for n, _ in list(module.named_parameters(remove_duplicate=False)) +
             list(module.named_buffers(remove_duplicate=False))}
    errors = []
    unexpected, missing = sorted(set(given) - names), sorted(names - set(given))
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" +
                           "\n\t".join(errors))


@contextlib.contextmanager
def _reparametrized(module, given, tie_weights, strict):
    swapped = _untied(module, given) if tie_weights else dict(given)
    if strict:
        _check_keys(module, swapped)
    saved = []  # (table, key, original value), to put back in reverse order
    try:
        for name, value in swapped.items():
            owner, attr = _owner(module, name)
            table = next((owner.__dict__[t] for t in ('_parameters', '_buffers')
                          if attr in owner.__dict__[t]), owner.__dict__)
            saved.append((name, table, attr, table.get(attr, _ABSENT)))
            table[attr] = value
        yield
    finally:
        for name, table, attr, old in reversed(saved):
            now = table.get(attr, _ABSENT)
            if name in given and now is not _ABSENT:
                given[name] = now  # (what the module assigned during the call)
            if old is _ABSENT:
                table.pop(attr, None)
            else:
                table[attr] = old


_ABSENT = object()


def stack_module_state(models):
    """``(params, buffers)``: dicts mapping each name of ``models`` (M modules of one class,
    all training or all evaluating) to the M tensors stacked along a new dimension 0 -- new
    leaves that require grad when the originals do."""
    import ember
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named):
        tables = [dict(n) for n in named]
        out = {}
        for name in tables[0]:
            tensors = [t[name] for t in tables]
            wants = {t.requires_grad for t in tensors}
            if len(wants) > 1:
                raise RuntimeError(f"Expected {name} from each model to have the same "
                                   ".requires_grad")
            s = ember.stack(tensors)
            out[name] = s.detach().requires_grad_() if wants == {True} else s
        return out
    return (stacked(m.named_parameters() for m in models),
            stacked(m.named_buffers() for m in models))


def replace_all_batch_norm_modules_(root):
    """Makes every batch-norm module under ``root`` (in place) keep no running statistics
    (so that it can run under vmap without updating shared buffers); returns ``root``."""
    from ..nn.modules.batchnorm import _BatchNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
