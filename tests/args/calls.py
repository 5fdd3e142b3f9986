"""Bad calls built from the op registry and the signature table, run in ember and torch."""
import torch

import ember
from ember import overrides
from ember._ops._args import signatures

_SAMPLES = {'int': 0, 'Number': 1, 'float': 0.5, 'bool': False, 'tuple of ints': [0]}


# Called without arguments these move a tensor to an accelerator: what they raise then is
# about the machine (torch built without CUDA raises AssertionError, ember RuntimeError),
# not about the arguments.
_DEVICE_MOVES = {'Tensor.cuda', 'Tensor.xpu', 'Tensor.mps', 'Tensor.ipu', 'Tensor.mtia'}


class Case:
    """One bad call: ``key`` (``add``, ``Tensor.add``, ``linalg.norm``) and a function
    ``make(lib)`` giving (args, kwargs) in library ``lib``."""

    def __init__(self, key, kind, make):
        self.key, self.kind, self.make = key, kind, make
        self.id = f'{key}-{kind}'


def registered():
    """The table keys of every public op in the registry."""
    for funcs in overrides.get_overridable_functions().values():
        for f in funcs:
            name = overrides.resolve_name(f)
            if name and not name.endswith('.__get__'):
                yield name[len('ember.'):]


def _public(lib, key):
    obj = lib
    for part in key.split('.'):
        obj = getattr(obj, part)
    return obj


def _tensor(lib):
    return lib.ones(2, 3)


def _required(sig, lib):
    """Arguments for ``sig``'s required positional parameters, or None if one has a type
    without a sample."""
    args = []
    for p in sig.params:
        if p.has_default or p.kwonly:
            break
        if p.display == 'Tensor':
            args.append(_tensor(lib))
        elif p.display == 'tuple of Tensors':
            args.append([_tensor(lib), _tensor(lib)])
        elif p.display == 'torch.dtype':
            args.append(lib.float32)
        elif p.display in _SAMPLES:
            args.append(_SAMPLES[p.display])
        else:
            return None
    return args


# Ops ember registers only to refuse them (a dtype or layout it deliberately lacks, listed in
# the README's omissions): their "bad" calls are good calls in torch.
DELIBERATELY_REFUSED = {'Tensor.chalf': 'ember has no complex32 (ComplexHalf) dtype'}


def bad_calls():
    """Every bad call for every registered op that has a signature."""
    cases = []
    for key in sorted(set(registered())):
        sigs = signatures(key)
        if sigs is None or key in DELIBERATELY_REFUSED:
            continue
        method = key.startswith('Tensor.')
        first = next((s for s in sigs[1] if not s.hidden), sigs[1][0])
        if first.noargs:
            cases.append(Case(key, 'one-argument', lambda lib: ([1], {})))
            continue
        if key not in _DEVICE_MOVES:
            cases.append(Case(key, 'no-arguments', lambda lib: ([], {})))
        cases.append(Case(key, 'forty-arguments', lambda lib: ([object()] * 40, {})))
        if first.params:
            cases.append(Case(key, 'object-first', lambda lib: ([object()], {})))
        if _required(first, torch) is not None:
            cases.append(Case(key, 'unexpected-keyword', lambda lib, s=first: (
                _required(s, lib), {'zz_not_a_parameter': 1})))
            ints = [p for p in first.params if p.display == 'int']
            if ints:
                cases.append(Case(key, 'str-for-int', lambda lib, s=first, p=ints[0]: (
                    _required_without(s, lib, p.name), {p.name: 'a'})))
            dims = [p for p in first.params if p.name == 'dim' and p.display == 'int']
            if dims and (method or first.params[0].display == 'Tensor') and \
                    _runs_in_torch(key, _required_without(first, torch, 'dim'), {'dim': 0}):
                cases.append(Case(key, 'dim-out-of-range', lambda lib, s=first: (
                    _required_without(s, lib, 'dim'), {'dim': 5})))
    return cases


def _runs_in_torch(key, args, kwargs):
    """True if torch runs the call (then the same call with a bad dim tests the dim)."""
    if key.startswith('Tensor.'):
        args = [_tensor(torch)] + list(args)
    try:
        _public(torch, key)(*args, **kwargs)
    except Exception:  # noqa: BLE001 - any refusal: the call is no test of the dim
        return False
    return True


def _required_without(sig, lib, name):
    """The required positional arguments before parameter ``name`` (which the call then
    gives by keyword)."""
    args = []
    for p, a in zip(sig.params, _required(sig, lib) or []):
        if p.name == name:
            break
        args.append(a)
    return args


def _outcome(lib, case):
    fn = _public(lib, case.key)
    args, kwargs = case.make(lib)
    if case.key.startswith('Tensor.'):
        args = [_tensor(lib)] + list(args)
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        text = (str(e).splitlines() or [''])[0]
        return type(e).__name__, text
    return 'ran', ''


def run_both(case):
    """(ember's outcome, torch's): ('ran', '') or (exception class, first line). The
    first lines are compared where torch's argument parser speaks (the message names the
    op, or a list's element), and where ember's does: not for the arity of the operators
    built inline (``overrides._CHECKS_INLINE``), whose arity Python itself checks. ember runs
    the call twice: its first call of an op takes the checked path, later ones the fast path."""
    ours = _outcome(ember, case)
    # (again, now that the op's first call has settled its fast path: a call that path
    # judges alone must meet the same end)
    again = _outcome(ember, case)
    assert again[0] == ours[0], f"{case.id}: first call {ours[0]}, second {again[0]}"
    theirs = _outcome(torch, case)
    if ours[0] == 'ran' or theirs[0] == 'ran' or ours[0] != theirs[0]:
        return ours[0], theirs[0]
    cname = signatures(case.key)[0]
    parser = theirs[0] == 'TypeError' and theirs[1].startswith(
        (cname + '(', 'TensorBase.', 'expected Tensor as element'))
    inline = _public(ember, case.key) in overrides._CHECKS_INLINE and case.kind in (
        'no-arguments', 'forty-arguments', 'unexpected-keyword', 'one-argument',
        'object-first')
    if not parser or inline:
        return ours[0], theirs[0]
    return ours, theirs

