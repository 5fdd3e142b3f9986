"""Runs one generated call in ember and in torch and says how they differ.

``check(target, call)`` returns a list of findings ``(category, detail)``; an empty list
means the two libraries agree on raise-or-not, exception class, output structure, dtype,
shape, requires_grad, values (tolerance by dtype) and the gradients of every input (a
backward seeded with the same random weights on both sides). ``outcome(found)`` says, for
the summary's class-match line, whether torch rejected the call and ember matched its class.
"""
import warnings

import numpy as np
import torch

import ember

HANG = 'hangs'
CRASH = 'crashes (the worker process died)'
# torch itself died or hung on a call ember answered (a torch bug, e.g. native_batch_norm
# with a mis-sized bias segfaults): reported, not gated.
TORCH_CRASH = 'torch crashes or hangs (ember answers)'
VALUES = 'wrong values on finite inputs'
VALUES_NONFINITE = 'wrong values on non-finite inputs'
GRAD = 'clearly wrong gradients'
STRUCT = 'wrong dtype / shape / structure'
ACCEPT = 'silent acceptance of bad input'
SPURIOUS = 'spurious errors'
EXC_CLASS = 'both raise, different exception class'
ARGL_ACCEPT = 'argl: type/dtype strictness (silent acceptance)'
ARGL_CLASS = 'argl: different exception class on a type/dtype/dim error'
ARGL_LEAK = 'argl: a NumPy/Python exception leaks where torch raises'
# torch's class, but the message is NumPy's or Python's own text; or another first line
# than torch's (often another check coming first): reported, not gated.
MESSAGE_LEAK = "torch's class, NumPy's/Python's message"
MESSAGE_DIFF = "torch's class, another first line of message"
CATEGORIES = [HANG, CRASH, VALUES, GRAD, STRUCT, ACCEPT, SPURIOUS, EXC_CLASS, VALUES_NONFINITE,
              ARGL_ACCEPT, ARGL_CLASS, ARGL_LEAK, MESSAGE_LEAK, MESSAGE_DIFF, TORCH_CRASH]
# What the CI sweep fails on when not listed in known.py (the bar plus the value
# checks this helper owns); the rest is reported only.
GATED = {HANG, CRASH, VALUES, GRAD, STRUCT, ACCEPT, SPURIOUS}

# torch errors that belong to the shared argument layer (types, dtype support, dims,
# keywords) rather than to an op's own value checks -- a heuristic, for the table only.
_ARGL_WORDS = ('not implemented for', 'Dimension out of range', 'unexpected keyword',
               'expected scalar type', 'result type', "can't be cast", 'dtype',
               'not supported for', 'does not support', 'Boolean', 'bool', 'complex',
               'Complex', 'Integral', 'integer', 'floating point', 'Float', 'Long', 'Half',
               'BFloat16', 'Byte', 'Char', 'Short', 'Int', 'Double', 'must be a tuple',
               'argument', 'got an invalid combination')

# Ops whose integer outputs (indices) depend on how ties are broken.
_TIE_WORDS = ('sort', 'unique', 'searchsorted', 'nonzero', 'histc', 'bucketize', 'quantile')

# Outputs defined only up to a sign or phase (singular/eigen vectors): for these targets
# only the outputs at the listed positions are compared by value, and only they seed the
# backward.
GAUGE = {'svd': (1,), 'linalg.svd': (1,), 'Tensor.svd': (1,), 'linalg.eigh': (0,),
         'linalg.eig': (0,), 'eig': (0,), 'Tensor.eig': (0,),
         'linalg.qr': None, 'qr': None, 'Tensor.qr': None, 'lobpcg': (0,)}

TOL = {'float16': (2e-2, 2e-2), 'complex32': (2e-2, 2e-2), 'bfloat16': (3e-2, 3e-2),
       'float32': (2e-4, 2e-5),
       'float64': (1e-7, 1e-9), 'complex64': (2e-4, 2e-5), 'complex128': (1e-7, 1e-9)}


def _dtype_name(d):
    return str(d).split('.')[-1]


def build(lib, call, inplace):
    """The call's arguments as ``lib`` objects, and the leaves whose gradients are compared."""
    leaves = []

    def one(v):
        if isinstance(v, list) and v and hasattr(v[0], 'array'):
            return [one(x) for x in v]
        if isinstance(v, str) and v.startswith('dtype:'):
            return getattr(lib, v[6:])
        if not hasattr(v, 'array'):
            return v
        a = v.array
        if v.layout == 'transposed':
            base = a.transpose(tuple(reversed(range(a.ndim))))
        elif v.layout == 'strided':
            base = np.repeat(a, 2, axis=-1)
        elif v.layout.startswith('expanded'):
            base = a.take([0], axis=int(v.layout.split(':')[1]))
        else:
            base = a
        base = np.array(base, order='C')  # (ascontiguousarray makes a 0-dim array 1-dim)
        if v.dtype == 'bfloat16':
            t = lib.tensor(base.astype(np.float32)).to(lib.bfloat16)
        elif v.dtype == 'complex32':
            t = lib.tensor(base).to(lib.complex32)
        else:
            t = lib.tensor(base)
        if base.size == 0:
            # (torch.tensor of an empty NumPy array gives it strides of 0, which no tensor
            # torch makes itself has -- x.view(int8) refuses them; the inputs are torch's own)
            t = lib.zeros(base.shape, dtype=t.dtype)
        if v.grad:
            t.requires_grad_(True)
            leaves.append(t)
            if inplace:
                t = t.clone()
        if v.layout == 'transposed':
            t = t.permute(*reversed(range(a.ndim)))
        elif v.layout == 'strided':
            t = t[..., ::2]
        elif v.layout.startswith('expanded'):
            t = t.expand(*a.shape)
        return t

    args = [one(a) for a in call.args]
    kwargs = {k: one(v) for k, v in call.kwargs.items()}
    return args, kwargs, leaves


class Raised:
    """An exception an op raised."""

    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        return f'{type(self.exc).__name__}: {str(self.exc)[:160]}'


class NotOut:
    """A result that is not the ``out=`` tensor the call passed (or, with ``inplace=True``,
    its input)."""

    def __init__(self, value):
        self.value = value


def invoke(lib, target, call):
    """Runs the call in ``lib``: (result or Raised, leaves)."""
    inplace = target.attr.endswith('_') and not target.attr.endswith('__') or \
        call.kwargs.get('inplace') is True
    try:
        args, kwargs, leaves = build(lib, call, inplace)
    except Exception as e:  # noqa: BLE001 - building inputs failed in this library
        return Raised(e), []
    lib.manual_seed(call.seed)
    fn = target.resolve(lib)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            out = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception itself is what we compare
        return Raised(e), leaves
    if 'out' in kwargs and out is not kwargs['out']:
        return NotOut(out), leaves  # (torch returns the out tensor itself)
    if kwargs.get('inplace') is True and args and out is not args[0]:
        return NotOut(out), leaves  # (... and an activation with inplace=True its input)
    return out, leaves


def values(t):
    """A tensor's values as a NumPy array (bfloat16 as float32, complex32 as complex64 --
    NumPy has neither --, conj resolved, a sparse
    tensor of any layout -- gather's sparse_grad gradient, a to_sparse_csr result --
    densified)."""
    t = t.detach()
    if str(t.layout) != 'torch.strided':
        t = t.to_dense()
    if _dtype_name(t.dtype) == 'bfloat16':
        t = t.float()
    elif _dtype_name(t.dtype) == 'complex32':
        t = t.cfloat()
    if isinstance(t, torch.Tensor):
        return t.resolve_conj().resolve_neg().numpy(force=True)
    return np.asarray(t.resolve_conj()._data)


def _norm(x):
    """A library-independent description of a result."""
    if isinstance(x, (torch.Tensor, ember.Tensor)):
        return ('tensor', _dtype_name(x.dtype), tuple(x.shape), x.requires_grad, x)
    if isinstance(x, (torch.Size, ember.Size)):
        return ('size', tuple(x))
    if isinstance(x, (torch.dtype, ember.dtype)):
        return ('dtype', _dtype_name(x))
    if isinstance(x, (torch.device, ember.device)):
        return ('device', str(x))
    if isinstance(x, (tuple, list)):
        return ('seq', len(x), [_norm(e) for e in x])
    if x is None or isinstance(x, (bool, int, float, complex, str)):
        return (type(x).__name__, x)
    return ('object', type(x).__name__)


def _input_tol(call):
    """The loosest tolerance among the call's floating inputs: an output is as precise as
    the least precise value it was computed from (a float64 result of float16 inputs)."""
    # (an out= tensor of a wider dtype holds a result computed in the op's own, at least
    # float32's precision)
    worst = TOL['float32'] if 'out' in call.kwargs else (0, 0)
    for v in list(call.args) + list(call.kwargs.values()):
        for p in (v if isinstance(v, list) else [v]):
            if hasattr(p, 'array') and p.dtype in TOL:
                worst = max(worst, TOL[p.dtype])
    return worst


def _isclose(ev, tv, r, a):
    """Elementwise closeness, NaN equal to NaN (a complex value with a NaN part is NaN). A
    complex element with an infinite part and no NaN on one side is compared part by part
    (its distance is NaN: inf + 1j against inf + 1j is close, against inf + nanj not)."""
    with np.errstate(all='ignore'):
        ok = np.isclose(ev, tv, rtol=r, atol=a, equal_nan=True)
        if tv.dtype.kind == 'c':
            inf = (np.isinf(ev) | np.isinf(tv)) & ~(np.isnan(ev) & np.isnan(tv))
            if inf.any():
                parts = np.isclose(ev.real, tv.real, rtol=r, atol=a, equal_nan=True) & \
                    np.isclose(ev.imag, tv.imag, rtol=r, atol=a, equal_nan=True)
                ok = np.where(inf, parts, ok)
    return ok


def _close(ev, tv, dtype, floor=(0, 0)):
    if ev.shape != tv.shape:
        return False
    if tv.dtype.kind in 'fc':
        r, a = max(TOL.get(dtype, (1e-5, 1e-6)), floor)
        return bool(np.all(_isclose(ev.astype(tv.dtype), tv, r, a)))
    return np.array_equal(ev, tv)


def _compare(e, t, call, ties, random, path, found, gauge=None):
    if e[0] != t[0]:
        found.append((STRUCT, f'{path}: ember gives {e[0]}, torch {t[0]}'))
        return
    if t[0] == 'seq':
        if e[1] != t[1]:
            found.append((STRUCT, f'{path}: {e[1]} results, torch {t[1]}'))
            return
        for i, (a, b) in enumerate(zip(e[2], t[2])):
            _compare(a, b, call, ties, random or (gauge is not None and i not in gauge),
                     f'{path}[{i}]', found)
        return
    if t[0] != 'tensor':
        if t[0] == 'float' and isinstance(e[1], float):
            ok = np.allclose(e[1], t[1], rtol=1e-6, equal_nan=True) or random
        else:
            ok = e == t or random and t[0] in ('int', 'float', 'complex')
        if not ok:
            found.append((VALUES if call.finite else VALUES_NONFINITE,
                          f'{path}: {e[1]!r} != torch {t[1]!r}'))
        return
    _, edt, esh, erg, et = e
    _, tdt, tsh, trg, tt = t
    if (edt, esh) != (tdt, tsh):
        found.append((STRUCT, f'{path}: ember {edt}{list(esh)}, torch {tdt}{list(tsh)}'))
        return
    if erg != trg:
        found.append((STRUCT, f'{path}: requires_grad {erg}, torch {trg}'))
    if random or (ties and tdt in ('int64', 'int32')):
        return
    ev, tv = values(et), values(tt)
    if not _close(ev, tv, tdt, _input_tol(call)):
        r, a = max(TOL.get(tdt, (1e-5, 1e-6)), _input_tol(call))
        bad = ~_isclose(ev.astype(tv.dtype), tv, r, a) if tv.dtype.kind in 'fc' else ev != tv
        idx = tuple(np.argwhere(bad)[0]) if bad.ndim and bad.any() else ()
        found.append((VALUES if call.finite else VALUES_NONFINITE,
                      f'{path}{list(idx)}: {ev[idx]!r} != torch {tv[idx]!r}'))


def _tensors(out):
    if isinstance(out, (torch.Tensor, ember.Tensor)):
        return [out]
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _tensors(o)]
    return []


def _grads(lib, out, leaves, weights):
    loss = None
    for o, (w, w2) in zip(_tensors(out), weights):
        if w is None or not o.requires_grad:
            continue
        if o.is_complex():
            term = (o.real * lib.tensor(w)).sum() + (o.imag * lib.tensor(w2)).sum()
        else:
            term = (o * lib.tensor(w).to(o.dtype)).sum()
        loss = term if loss is None else loss + term
    if loss is None:
        return None
    return lib.autograd.grad(loss, leaves, allow_unused=True)


def _grad_check(target, call, eout, eleaves, tout, tleaves, found):
    g = np.random.default_rng(call.seed + 7)
    weights = []
    gauge = GAUGE.get(target.name)
    tol = max((1e-6, 1e-8), tuple(10 * t for t in _input_tol(call)))
    for i, o in enumerate(_tensors(tout)):
        if gauge is not None and i not in gauge:
            weights.append((None, None))
            continue
        if o.requires_grad and (o.dtype.is_floating_point or o.is_complex()):
            # A gradient is as precise as the least precise output it went through.
            r, a = TOL.get(_dtype_name(o.dtype), (1e-5, 1e-6))
            tol = max(tol, (r * 10, a * 10))
            weights.append((g.standard_normal(tuple(o.shape)), g.standard_normal(tuple(o.shape))))
        else:
            weights.append((None, None))
    try:
        tg = _grads(torch, tout, tleaves, weights)
    except Exception:  # noqa: BLE001 - torch cannot differentiate this: nothing to compare
        return
    if tg is None:
        return
    try:
        eg = _grads(ember, eout, eleaves, weights)
    except Exception as exc:  # noqa: BLE001
        found.append((SPURIOUS, f'backward raised {type(exc).__name__}: {str(exc)[:120]}'))
        return
    if eg is None:
        return
    for i, (a, b, leaf) in enumerate(zip(eg, tg, tleaves)):
        bv = values(b) if b is not None else np.zeros(tuple(leaf.shape))
        av = values(a) if a is not None else np.zeros(tuple(leaf.shape))
        if av.shape != bv.shape:
            found.append((GRAD, f'grad of input {i}: shape {av.shape}, torch {bv.shape}'))
            continue
        with np.errstate(all='ignore'):
            # (inf against NaN where both are non-finite is not "clearly wrong")
            both = ~np.isfinite(av) & ~np.isfinite(bv)
            av, bv = np.where(both, 0, av), np.where(both, 0, bv)
            ok = np.allclose(av, bv, rtol=tol[0], atol=tol[1], equal_nan=True)
        if not ok:
            idx = tuple(np.argwhere(~np.isclose(av, bv, rtol=tol[0], atol=tol[1],
                                                equal_nan=True))[0]) if bv.ndim else ()
            found.append((GRAD if call.finite else VALUES_NONFINITE,
                          f'grad of input {i}{list(idx)}: {av[idx]!r} != torch {bv[idx]!r}'))


_LEAK_WORDS = ('operands could not be broadcast', 'read-only', 'repeated axis',
               'negative dimensions are not allowed', 'too many indices', 'not enough values',
               'has no attribute', 'out of bounds for', 'ufunc', 'invalid literal',
               'cannot reshape', 'tuple index out of range', 'shape mismatch',
               'object cannot be interpreted', 'takes', 'unexpected keyword')


def _same_class(e, t):
    """Exception classes agree: the same class, or the same name (ember's LinAlgError is
    torch's _LinAlgError), or torch's NotImplementedError met by a RuntimeError, or torch's
    internal assert met by an error of its class."""
    if type(e) is type(t) or type(e).__name__.lstrip('_') == type(t).__name__.lstrip('_'):
        return True
    if 'INTERNAL ASSERT FAILED' in str(t) and isinstance(e, type(t)):
        # (torch's own "please report a bug" in place of an error of its op -- ldl_factor of
        # a singular matrix, gelsy of a non-finite one: an error of that class, such as
        # ember's LinAlgError, which is a RuntimeError as torch's is, is as good)
        return True
    return isinstance(t, NotImplementedError) and isinstance(e, RuntimeError)


def _leak(exc):
    """An exception of NumPy or of Python itself rather than one of ember's own."""
    return type(exc).__module__.startswith('numpy') or (
        type(exc).__module__ == 'builtins' and not isinstance(exc, RuntimeError)
        and any(w in str(exc) for w in _LEAK_WORDS))


_NUMPY_TEXT = ('could not be broadcast', 'cannot be broadcast to a single shape', 'ufunc', 'did not contain a loop', 'numpy',
               'ndarray', 'AxisError', 'axis ', 'cannot reshape array', 'zero-size array',
               "has no attribute '_data'", 'NoneType', 'repeated axis', 'invalid literal')


def _message_leak(eexc, texc):
    """ember raised torch's class with text of NumPy's or Python's own that torch's
    message does not have."""
    e, t = str(eexc), str(texc)
    return any(w in e and w not in t for w in _NUMPY_TEXT)


def _first_line(exc):
    return str(exc).split('\n', 1)[0].strip()


def _argl(exc):
    return isinstance(exc, TypeError) or any(w in str(exc) for w in _ARGL_WORDS)


_SPECTRAL_WORDS = ('svd', 'eig', 'pinv', 'matrix_norm', 'lstsq', 'cond', 'nuclear', 'norm')


def _degenerate_spectrum(call):
    """Whether an input matrix has repeated singular values: there the singular/eigen
    vectors, and so the gradients of spectral ops, are not unique."""
    for v in list(call.args) + list(call.kwargs.values()):  # (A may come by keyword)
        a = getattr(v, 'array', None)
        if a is None or a.ndim < 2 or a.size == 0 or a.dtype.kind not in 'fc':
            continue
        with np.errstate(all='ignore'):
            try:
                s = np.sort(np.linalg.svd(a.astype(np.complex128), compute_uv=False), -1)
            except np.linalg.LinAlgError:
                return True
        if s.shape[-1] > 1 and (np.diff(s, axis=-1) <= 1e-6 * (1 + s[..., -1:])).any():
            return True
        # (a non-square matrix has |m - n| more zero singular values, not listed: a listed
        # zero one repeats them, and its vectors span a null space of several dims)
        if a.shape[-1] != a.shape[-2] and (s[..., :1] <= 1e-6 * (1 + s[..., -1:])).any():
            return True
        if a.shape[-1] == a.shape[-2]:
            w = np.linalg.eigvals(a.astype(np.complex128))
            d = np.abs(w[..., :, None] - w[..., None, :]) + np.eye(w.shape[-1])
            if (d <= 1e-6).any():
                return True
    return False


def _has_ties(call):
    for v in list(call.args) + list(call.kwargs.values()):
        if hasattr(v, 'array') and v.array.size != len(np.unique(v.array.astype(np.float64)
                                                                  if v.dtype == 'bfloat16'
                                                                  else v.array)):
            return True
    return False


# What a call that torch rejects came to in ember (``check`` reports it under this key, the
# sweep counts it): torch's class, or one of the mismatch categories below.
REJECTED = 'torch rejects'
MATCHED = 'torch rejects, ember raises the same class'
_REJECT_MISSES = (EXC_CLASS, ARGL_CLASS, ARGL_LEAK, ACCEPT, ARGL_ACCEPT)


def outcome(found):
    """(torch rejected the call, ember raised torch's class) from ``check``'s findings."""
    cats = {c for c, _ in found}
    if REJECTED not in cats:
        return False, False
    return True, not cats & set(_REJECT_MISSES)


def check(target, call, ember_done=None):
    """The findings of one call: a list of (category, detail); a call torch rejects adds
    (REJECTED, '') for the class-match tally (``outcome``). Ember runs first and
    ``ember_done()`` is called after it, so a sweep whose worker then dies or hangs knows
    the crash is torch's."""
    eout, eleaves = invoke(ember, target, call)
    if ember_done is not None:
        ember_done()
    tout, tleaves = invoke(torch, target, call)
    found = []
    t_raised, e_raised = isinstance(tout, Raised), isinstance(eout, Raised)
    if t_raised:
        found.append((REJECTED, ''))
    if t_raised and e_raised:
        if not _same_class(eout.exc, tout.exc):
            cat = ARGL_LEAK if _leak(eout.exc) else \
                ARGL_CLASS if _argl(tout.exc) or _argl(eout.exc) else EXC_CLASS
            found.append((cat, f'ember {eout!r}; torch {tout!r}'))
        elif _message_leak(eout.exc, tout.exc):
            found.append((MESSAGE_LEAK, f'ember {eout!r}; torch {tout!r}'))
        elif _first_line(eout.exc) != _first_line(tout.exc):
            found.append((MESSAGE_DIFF, f'ember {eout!r}; torch {tout!r}'))
        return found
    if t_raised:
        cat = ARGL_ACCEPT if _argl(tout.exc) else ACCEPT
        found.append((cat, f'torch raises {tout!r}'))
        return found
    if e_raised:
        found.append((SPURIOUS, f'ember raises {eout!r}'))
        return found
    if isinstance(eout, NotOut) or isinstance(tout, NotOut):
        if not (isinstance(eout, NotOut) and isinstance(tout, NotOut)):
            found.append((STRUCT, 'out: the out= (or inplace=) tensor is ' +
                          ('not returned' if isinstance(eout, NotOut) else 'returned') +
                          (' (torch returns it)' if isinstance(eout, NotOut) else
                           ' (torch returns another)')))
            return found
        eout, tout = eout.value, tout.value
    ties = any(w in target.attr for w in _TIE_WORDS) and _has_ties(call)
    gauge = GAUGE.get(target.name, 'none')
    # (qr: unique up to signs only for a full-rank input: shapes and dtypes only)
    _compare(_norm(eout), _norm(tout), call, ties, target.random or gauge is None, 'out',
             found, None if gauge in ('none', None) else gauge)
    if call.grad and not found and not target.random and gauge is not None and not ties \
            and not (any(w in target.attr for w in _SPECTRAL_WORDS)
                     and _degenerate_spectrum(call)):
        _grad_check(target, call, eout, eleaves, tout, tleaves, found)
    return found
