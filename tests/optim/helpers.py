"""Shared pieces of the ember.optim oracle tests: the same small model in ember and torch,
a training loop, and comparisons of parameters and (nested) state."""
import io

import numpy as np

import ember
from ..oracle.oracle import torch, arr, assert_same_tensor

LIBS = (ember, torch)
SHAPES = [(6, 4), (6,), (3, 6), (3,)]  # a 4-6-3 MLP: W1, b1, W2, b2


def arrays(dtype='float32', seed=0):
    """Seeded arrays of the MLP's parameter shapes."""
    out = []
    for i, shape in enumerate(SHAPES):
        a = arr(*shape, seed=seed + i) * 0.5
        if dtype.startswith('complex'):
            a = a + 1j * arr(*shape, seed=seed + 10 + i) * 0.5
        out.append(a.astype(dtype))
    return out


def params(lib, dtype='float32', seed=0):
    """The MLP's parameters as ``lib`` Parameters (the same numbers in both libraries)."""
    return [lib.nn.Parameter(lib.tensor(a)) for a in arrays(dtype, seed)]


def loss_fn(lib, ps, seed=0):
    """A scalar loss of the MLP on a fixed batch (``seed`` picks the batch)."""
    w1, b1, w2, b2 = ps
    dtype = w1.detach().numpy().dtype
    x = lib.tensor(arr(8, 4, seed=100 + seed).astype(dtype))
    y = lib.tensor(arr(8, 3, seed=200 + seed).astype(dtype))
    h = x @ w1.T + b1
    h = lib.tanh(h) if not h.is_complex() else h * 0.5
    return ((h @ w2.T + b2) - y).abs().pow(2).mean()


def train(lib, ps, opt, steps, sched=None, start=0):
    """``steps`` rounds of zero_grad / loss / backward / step (and ``sched.step()``); the
    batch changes each round. Returns the losses and the lr after each round."""
    losses, lrs = [], []
    for i in range(start, start + steps):
        opt.zero_grad()
        loss = loss_fn(lib, ps, seed=i % 3)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(float(loss.detach()))
        lrs.append([float(g['lr']) for g in opt.param_groups])
    return losses, lrs


def assert_same_params(e_ps, t_ps, rtol=1e-5, atol=1e-6):
    assert len(e_ps) == len(t_ps)
    for i, (e, t) in enumerate(zip(e_ps, t_ps)):
        assert_same_state(e, t, f'param {i}', rtol=rtol, atol=atol)


def assert_same_state(e, t, what='state', rtol=1e-5, atol=1e-6):
    """ember and torch values agree: same container types and keys, tensors by
    ``assert_same_tensor``, floats approximately, everything else equal."""
    if isinstance(t, torch.Tensor):
        # Rounding errors scale with the largest values a tensor's update mixed in.
        inexact = t.is_floating_point() or t.is_complex()
        scale = max(1.0, float(t.detach().abs().max())) if t.numel() and inexact else 1.0
        assert_same_tensor(e, t, what, rtol=rtol, atol=atol * scale)
    elif isinstance(t, dict):
        assert type(e).__name__ == type(t).__name__, f"{what}: {type(e)} != {type(t)}"
        assert list(e) == list(t), f"{what}: keys {list(e)} != {list(t)}"
        for k in t:
            assert_same_state(e[k], t[k], f"{what}[{k!r}]", rtol, atol)
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), f"{what}: {e!r} != {t!r}"
        for i, (a, b) in enumerate(zip(e, t)):
            assert_same_state(a, b, f"{what}[{i}]", rtol, atol)
    elif isinstance(t, float) and not isinstance(e, ember.Tensor):
        assert type(e) is float and np.isclose(e, t, rtol=rtol, atol=1e-12), \
            f"{what}: {e!r} != {t!r}"
    else:
        assert type(e) is type(t) and e == t, f"{what}: {e!r} != {t!r}"


def roundtrip(obj):
    """``obj`` through ember.save / ember.load (weights_only, the default)."""
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return ember.load(buf)


def same_error(fn):
    """Runs ``fn(lib)`` on both libraries; both must raise the same type and message."""
    raised = []
    for lib in LIBS:
        try:
            fn(lib)
        except Exception as exc:  # noqa: BLE001 - the exception is what we compare
            raised.append(exc)
        else:
            raised.append(None)
    e, t = raised
    assert t is not None, "torch did not raise"
    assert type(e) is type(t) and str(e) == str(t), (e, t)



def run_optimizer(lib, name, kwargs, dtype='float32', steps=8, **opt_extra):
    """Trains the shared toy problem with ``lib.optim.<name>(**kwargs)``; returns (params,
    optimizer, losses)."""
    ps = params(lib, dtype)
    opt = getattr(lib.optim, name)(ps, **kwargs, **opt_extra)
    losses, _ = train(lib, ps, opt, steps)
    return ps, opt, losses


def check_same_trajectory(name, kwargs, dtype, steps=8):
    """ember and torch end a training run at the same losses, parameters and state."""
    (e_ps, e_opt, e_loss), (t_ps, t_opt, t_loss) = [
        run_optimizer(lib, name, kwargs, dtype, steps) for lib in (ember, torch)]
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(e_loss, t_loss, rtol=tol['rtol'] * 10)
    assert_same_params(e_ps, t_ps, **tol)
    assert_same_state(e_opt.state_dict(), t_opt.state_dict(), **tol)
