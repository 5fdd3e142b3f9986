"""The oracle for distributions: run the same code on ember and torch, compare values,
shapes, dtypes, requires_grad and gradients (grad_fn names are not compared: a log_prob is
a composition whose last op is an implementation detail), and exceptions (class and
message)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")
import ember  # noqa: E402

TOL = {np.float32: (2e-5, 2e-5), np.float64: (1e-9, 1e-9)}


class Raised:
    """An exception a library raised, kept for comparison."""

    def __init__(self, exc):
        self.exc = exc


def to_lib(lib, a, grad):
    if isinstance(a, np.ndarray):
        t = lib.tensor(a)
        if grad and a.dtype.kind == 'f':
            t.requires_grad_(True)
        return t
    return a


def run(lib, fn, args, grad):
    ins = [to_lib(lib, a, grad) for a in args]
    try:
        return ins, fn(lib, *ins)
    except NameError:
        raise
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ins, Raised(e)


def flat(out):
    if isinstance(out, (list, tuple)):
        return [x for o in out for x in flat(o)]
    return [out]


def same(e, t, what, rtol=None, atol=None):
    """Compares one ember result with torch's (tensors, sizes, numbers, strings)."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"{what}: ember gave {type(e).__name__}"
        assert tuple(e.shape) == tuple(t.shape), f"{what}: shape {tuple(e.shape)} != " \
                                                 f"{tuple(t.shape)}"
        assert str(e.dtype) == str(t.dtype), f"{what}: dtype {e.dtype} != {t.dtype}"
        tv = t.detach().numpy()
        ev = np.asarray(e.detach()._data)
        r, a = TOL.get(tv.dtype.type, (1e-5, 1e-5))
        if tv.dtype.kind == 'f':
            np.testing.assert_allclose(ev, tv, rtol=rtol or r, atol=atol or a,
                                       equal_nan=True, err_msg=what)
        else:
            np.testing.assert_array_equal(ev, tv, err_msg=what)
        assert e.requires_grad == t.requires_grad, f"{what}: requires_grad"
    elif isinstance(t, (list, tuple)):
        assert len(e) == len(t), f"{what}: {len(e)} results != {len(t)}"
        for i, (a, b) in enumerate(zip(e, t)):
            same(a, b, f"{what}[{i}]", rtol, atol)
    elif isinstance(t, float):
        assert e == pytest.approx(t, rel=1e-6, abs=1e-9, nan_ok=True), f"{what}: {e} != {t}"
    else:
        assert e == t if not isinstance(t, torch.Size) else tuple(e) == tuple(t), \
            f"{what}: {e!r} != {t!r}"


def check(fn, *args, grad=True, rtol=None, atol=None, message=True, seed=0, double=False):
    """Runs ``fn(lib, *args)`` (NumPy arrays become tensors, floating ones requiring grad)
    on both libraries and compares results, then the gradients of ``sum(w * out)`` for
    fixed random weights ``w`` (and with ``double``, the gradients of those gradients).
    Exceptions must match in class and (if ``message``) text. Returns ember's result."""
    e_in, e_out = run(ember, fn, args, grad)
    t_in, t_out = run(torch, fn, args, grad)
    if isinstance(t_out, Raised):
        assert isinstance(e_out, Raised), \
            f"torch raised {type(t_out.exc).__name__}: {t_out.exc}; ember did not"
        # (torch.linalg.LinAlgError is the class torch._C._LinAlgError)
        assert type(e_out.exc).__name__.lstrip('_') == type(t_out.exc).__name__.lstrip('_'), \
            f"ember raised {type(e_out.exc).__name__}({e_out.exc}), torch " \
            f"{type(t_out.exc).__name__}({t_out.exc})"
        if message:
            assert str(e_out.exc) == str(t_out.exc), f"{e_out.exc!s} != {t_out.exc!s}"
        return e_out
    if isinstance(e_out, Raised):
        raise AssertionError("ember raised where torch did not") from e_out.exc
    same(e_out, t_out, 'output', rtol, atol)
    pairs = [(e, t) for e, t in zip(flat(e_out), flat(t_out))
             if isinstance(t, torch.Tensor) and t.requires_grad]
    t_leaves = [t for t in t_in if isinstance(t, torch.Tensor) and t.requires_grad]
    e_leaves = [t for t in e_in if isinstance(t, ember.Tensor) and t.requires_grad]
    if not pairs or not t_leaves:
        return e_out
    rng = np.random.default_rng(seed)
    ws = [rng.standard_normal(tuple(t.shape)) for _, t in pairs]

    def loss(lib, outs):
        total = 0
        for o, w in zip(outs, ws):
            finite = np.isfinite(o.detach().numpy() if lib is torch else o.detach()._data)
            total = total + (o * lib.tensor(np.where(finite, w, 0.0), dtype=o.dtype)) \
                .nan_to_num(0.0, 0.0, 0.0).sum()
        return total

    try:
        t_g = torch.autograd.grad(loss(torch, [t for _, t in pairs]), t_leaves,
                                  allow_unused=True, create_graph=double)
    except (RuntimeError, NotImplementedError) as exc:  # "derivative ... not implemented"
        with pytest.raises(type(exc), match=str(exc).replace('(', '.').replace(')', '.')):
            ember.autograd.grad(loss(ember, [e for e, _ in pairs]), e_leaves,
                                allow_unused=True)
        return e_out
    e_g = ember.autograd.grad(loss(ember, [e for e, _ in pairs]), e_leaves, allow_unused=True,
                              create_graph=double)
    for i, (a, b) in enumerate(zip(e_g, t_g)):
        if b is None:
            assert a is None or not np.any(np.asarray(a._data)), f"grad {i}: torch None"
            continue
        assert a is not None, f"grad {i}: ember None"
        r, at = TOL.get(b.detach().numpy().dtype.type, (1e-5, 1e-5))
        np.testing.assert_allclose(np.asarray(a._data), b.detach().numpy(), rtol=rtol or 10 * r,
                                   atol=atol or 10 * at, equal_nan=True,
                                   err_msg=f"grad of input {i}")
    if double:
        _second_order(e_g, t_g, e_leaves, t_leaves, rng, rtol, atol)
    return e_out


def _second_order(e_g, t_g, e_leaves, t_leaves, rng, rtol, atol):
    """Differentiates the weighted first-order gradients again and compares."""
    live = [(a, b) for a, b in zip(e_g, t_g) if b is not None and b.requires_grad]
    ws = [rng.standard_normal(tuple(b.shape)) for _, b in live]
    t2 = torch.autograd.grad(sum((b * torch.tensor(w, dtype=b.dtype)).sum()
                                 for (_, b), w in zip(live, ws)), t_leaves, allow_unused=True)
    e2 = ember.autograd.grad(sum((a * ember.tensor(w, dtype=a.dtype)).sum()
                                 for (a, _), w in zip(live, ws)), e_leaves, allow_unused=True)
    for i, (a, b) in enumerate(zip(e2, t2)):
        if b is None:
            continue
        r, at = TOL.get(b.detach().numpy().dtype.type, (1e-5, 1e-5))
        got = np.zeros_like(b.numpy()) if a is None else np.asarray(a._data)
        np.testing.assert_allclose(got, b.numpy(), rtol=rtol or 100 * r, atol=atol or 100 * at,
                                   err_msg=f"second-order grad of input {i}")


def arr(*shape, low=None, high=None, seed=0, dtype=np.float64):
    """A reproducible array: uniform in [low, high) if given, else standard normal."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(low, high, shape) if low is not None else rng.standard_normal(shape)
    return np.asarray(a).astype(dtype)


def simplex(*shape, seed=0, dtype=np.float64):
    """Rows on the probability simplex (last dimension)."""
    a = arr(*shape, low=0.1, high=1.0, seed=seed)
    return (a / a.sum(-1, keepdims=True)).astype(dtype)
