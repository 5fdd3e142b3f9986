"""The one oracle helper: run the same code on ember and on real torch, compare everything.

``check(fn, *args)`` calls ``fn(lib, *args_as_lib_tensors)`` for lib in (ember, torch), where
NumPy arrays in ``args`` become tensors of that library (floating ones requiring grad unless
``grad=False``). It compares: raised exception type (and message prefix with
``match_message``), output values, dtype, shape, ``requires_grad``, ``grad_fn`` name; then
the gradients of every input after a backward seeded with fixed random weights, and with
``double=True`` the gradients of those gradients too.
"""
import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed; "
                            "`pip install -e '.[test]'` brings it")
import ember  # noqa: E402

torch.set_num_threads(1)

# ml_dtypes' bfloat16: an array of it becomes a bfloat16 tensor of each library (_to_lib).
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

TOL = {np.float16: (1e-2, 1e-2), np.float32: (1e-5, 1e-5), np.float64: (1e-10, 1e-10),
       np.complex64: (1e-5, 1e-5), np.complex128: (1e-10, 1e-10),
       'bfloat16': (1.6e-2, 1e-2),  # (two ulps: ops composed of several rounded steps)
       'complex32': (1e-2, 1e-2)}


def values(t):
    """A tensor's values as a NumPy array; bfloat16 and complex32 (which torch cannot hand
    to NumPy) as float32 and complex64, which hold them exactly."""
    t = t.detach()
    if str(t.dtype) == 'torch.bfloat16':
        t = t.float()
    elif str(t.dtype) == 'torch.complex32':
        t = t.cfloat()
    return t.numpy(force=True) if isinstance(t, torch.Tensor) else np.asarray(t._data)


def _tol_key(t):
    if str(t.dtype) in ('torch.bfloat16', 'torch.complex32'):
        return str(t.dtype)[len('torch.'):]
    return values(t).dtype.type


def show(x):
    """A readable description of a result that does not depend on ember's repr."""
    if isinstance(x, ember.Tensor):
        return f"ember tensor {x._data!r} grad_fn={type(x.grad_fn).__name__}"
    if isinstance(x, Raised):
        return f"raised {type(x.exc).__name__}: {x.exc}"
    return repr(x) if not isinstance(x, (list, tuple)) else '[' + ', '.join(map(show, x)) + ']'


class Raised:
    """Stands for an exception an op raised, so both sides can be compared."""

    def __init__(self, exc):
        self.exc = exc


def _to_lib(lib, a, grad):
    if isinstance(a, np.ndarray):
        if a.dtype.name == 'bfloat16':  # an ml_dtypes array (torch takes none)
            t = lib.tensor(a.astype(np.float32)).to(lib.bfloat16)
        else:
            t = lib.tensor(a)
        if grad and a.dtype.kind in 'fcV':
            t.requires_grad_(True)
        return t
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, np.ndarray) for x in a):
        return type(a)(_to_lib(lib, x, grad) for x in a)
    return a


def run(lib, fn, args, grad):
    ins = [_to_lib(lib, a, grad) for a in args]
    try:
        out = fn(lib, *ins)
    except NameError:
        raise  # a bug in the test itself, never behaviour to compare
    except Exception as e:  # noqa: BLE001 - the exception itself is what we compare
        return ins, Raised(e)
    return ins, out


def _leaves(ins):
    for t in ins:
        if isinstance(t, (list, tuple)):
            yield from _leaves(t)
        elif hasattr(t, 'requires_grad') and hasattr(t, 'grad_fn'):
            yield t


def _outputs(out):
    if isinstance(out, (list, tuple)):
        r = []
        for o in out:
            r.extend(_outputs(o))
        return r
    return [out]


def assert_same_tensor(e, t, what='output', rtol=None, atol=None):
    """Compares an ember tensor with a torch tensor: shape, dtype, values, requires_grad and
    grad_fn name."""
    assert isinstance(e, ember.Tensor), f"{what}: ember returned {type(e).__name__}"
    assert tuple(e.shape) == tuple(t.shape), f"{what}: shape {tuple(e.shape)} != {tuple(t.shape)}"
    assert str(e.dtype) == str(t.dtype), f"{what}: dtype {e.dtype} != {t.dtype}"
    ev, tv = values(e), values(t)  # (resolves conj)
    r, a = TOL.get(_tol_key(t), (1e-5, 1e-5))
    r, a = rtol or r, atol or a
    if tv.dtype.kind in 'fc':
        np.testing.assert_allclose(ev, tv, rtol=r, atol=a, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(ev, tv, err_msg=what)
    assert e.requires_grad == t.requires_grad, \
        f"{what}: requires_grad {e.requires_grad} != {t.requires_grad}"
    en = type(e.grad_fn).__name__ if e.grad_fn is not None else None
    tn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    assert en == tn, f"{what}: grad_fn {en} != {tn}"


def _same(e, t, what, rtol, atol):
    if isinstance(t, torch.Tensor):
        assert_same_tensor(e, t, what, rtol, atol)
    elif isinstance(t, (list, tuple)):
        assert isinstance(e, (list, tuple)), f"{what}: ember returned {type(e).__name__}"
        assert len(e) == len(t), f"{what}: {len(e)} results != {len(t)}"
        for i, (a, b) in enumerate(zip(e, t)):
            _same(a, b, f"{what}[{i}]", rtol, atol)
    elif isinstance(t, torch.dtype):
        assert str(e) == str(t), f"{what}: dtype {e} != {t}"
    elif isinstance(t, float):
        assert e == pytest.approx(t, rel=1e-5, abs=1e-6, nan_ok=True), f"{what}: {e} != {t}"
    else:
        assert e == t, f"{what}: {show(e)} != {t!r}"


def check(fn, *args, grad=True, double=False, match_message=False, rtol=None, atol=None,
          seed=0):
    """Runs ``fn(lib, *args)`` on ember and torch and compares everything (see module doc)."""
    e_in, e_out = run(ember, fn, args, grad)
    t_in, t_out = run(torch, fn, args, grad)
    if isinstance(t_out, Raised):
        assert isinstance(e_out, Raised), \
            f"torch raised {type(t_out.exc).__name__}: {t_out.exc}; ember returned {show(e_out)}"
        assert type(e_out.exc) is type(t_out.exc) or isinstance(e_out.exc, type(t_out.exc)), \
            f"ember raised {type(e_out.exc).__name__}({e_out.exc}) where torch raised " \
            f"{type(t_out.exc).__name__}({t_out.exc})"
        if match_message:
            tm = str(t_out.exc).split('\n')[0]
            assert str(e_out.exc).startswith(tm), f"message {e_out.exc!s} != {tm}"
        return None
    if isinstance(e_out, Raised):
        raise AssertionError("ember raised where torch did not") from e_out.exc
    _same(e_out, t_out, 'output', rtol, atol)
    if not grad:
        return e_out
    t_outs = [o for o in _outputs(t_out) if isinstance(o, torch.Tensor) and o.requires_grad]
    e_outs = [o for o, t in zip(_outputs(e_out), _outputs(t_out))
              if isinstance(t, torch.Tensor) and t.requires_grad]
    if not t_outs:
        return e_out
    rng = np.random.default_rng(seed)
    ws = _weights(rng, t_outs)
    t_leaves = [t for t in _leaves(t_in) if t.requires_grad]
    e_leaves = [t for t in _leaves(e_in) if t.requires_grad]
    t_loss = _loss(torch, t_outs, ws)
    e_loss = _loss(ember, e_outs, ws)
    try:
        t_g = torch.autograd.grad(t_loss, t_leaves, allow_unused=True, create_graph=double)
    except RuntimeError as exc:  # e.g. "derivative for ... is not implemented"
        with pytest.raises(type(exc)):
            ember.autograd.grad(e_loss, e_leaves, allow_unused=True, create_graph=double)
        return e_out
    e_g = ember.autograd.grad(e_loss, e_leaves, allow_unused=True, create_graph=double)
    out_dtypes = [_tol_key(o) for o in t_outs]
    for i, (a, b) in enumerate(zip(e_g, t_g)):
        if b is None:
            assert a is None or not np.any(np.asarray(a._data)), \
                f"grad[{i}]: torch None, ember {show(a)}"
            continue
        assert a is not None, f"grad[{i}]: ember gave None, torch {b!r}"
        # A gradient is as precise as the least precise dtype it went through: a float64
        # input added to a float32 tensor gets a float32 sum (whose order differs by a ulp).
        r, at = max(TOL.get(d, (1e-5, 1e-5)) for d in [_tol_key(b)] + out_dtypes)
        np.testing.assert_allclose(values(a), values(b),
                                   rtol=rtol or r * 10, atol=atol or at * 10,
                                   err_msg=f"grad of input {i}")
    if double:
        _check_second_order(e_g, t_g, e_leaves, t_leaves, rng, rtol, atol)
    return e_out


def _weights(rng, tensors):
    """Fixed random weights, one array per torch tensor (complex for a complex tensor, so
    both its real and imaginary parts reach the loss)."""
    ws = []
    for t in tensors:
        dt = values(t).dtype
        w = rng.standard_normal(t.shape)
        if dt.kind == 'c':
            w = w + 1j * rng.standard_normal(t.shape)
        ws.append(w.astype(dt))
    return ws


def _loss(lib, tensors, ws):
    """The real scalar ``sum(t * w)`` over all tensors (its real part if complex): what the
    gradients compared are gradients of."""
    loss = sum((t * lib.tensor(w).to(t.dtype)).sum() for t, w in zip(tensors, ws))
    return loss.real if loss.is_complex() else loss


def _check_second_order(e_g, t_g, e_leaves, t_leaves, rng, rtol, atol):
    """Differentiates the first-order gradients again (seeded with fixed random weights) and
    compares. A gradient that does not require grad in ember stands for a zero second
    derivative (torch sometimes keeps a structurally-zero graph), so torch's must be zero."""
    pairs = [(a, b) for a, b in zip(e_g, t_g) if b is not None and b.requires_grad]
    if not pairs:
        return
    ws = _weights(rng, [b for _, b in pairs])
    t2 = torch.autograd.grad(_loss(torch, [b for _, b in pairs], ws), t_leaves,
                             allow_unused=True)
    live = [(a, w) for (a, _), w in zip(pairs, ws) if a is not None and a.requires_grad]
    if live:
        e2 = ember.autograd.grad(_loss(ember, *zip(*live)), e_leaves, allow_unused=True)
    else:
        e2 = [None] * len(e_leaves)
    for i, (a, b) in enumerate(zip(e2, t2)):
        if b is None:
            continue
        expected = values(b)
        got = np.zeros_like(expected) if a is None else values(a)
        r, at = TOL.get(_tol_key(b), (1e-5, 1e-5))
        np.testing.assert_allclose(got, expected, rtol=rtol or r * 100, atol=atol or at * 100,
                                   err_msg=f"second-order grad of input {i}")


def arr(*shape, dtype=np.float64, seed=0, low=None, high=None):
    """A reproducible random array (uniform in [low, high) if given, else normal; a complex
    one has random real and imaginary parts)."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in 'iu':
        a = rng.integers(low if low is not None else -5, high or 6, shape)
    elif np.dtype(dtype).kind == 'b':
        a = rng.random(shape) < 0.5
    elif low is not None:
        a = rng.uniform(low, high, shape)
    else:
        a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == 'c':
        a = a + 1j * (rng.uniform(low, high, shape) if low is not None else
                      rng.standard_normal(shape))
    # np.asarray: a 0-d draw is a NumPy scalar, which torch would take as a Python number.
    return np.asarray(a).astype(dtype)
