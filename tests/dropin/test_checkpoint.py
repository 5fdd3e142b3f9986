"""ember.utils.checkpoint against torch.utils.checkpoint: values, gradients, grad_fns,
warnings and errors, and that activations really are not kept."""
import gc
import weakref

import numpy as np
import pytest

from .compare import same, plain, ember, torch

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
W = np.linspace(-0.5, 0.7, 20, dtype=np.float32).reshape(4, 5)


def block(t):
    def f(x, w, scale=1.0):
        h = t.tanh(x @ w)
        return (h * h.sigmoid()).exp() * scale
    return f


def _rounded(v):
    return v.detach().numpy().tolist()


@pytest.mark.parametrize('reentrant', [True, False])
def test_gradients_equal_plain_and_torch(reentrant):
    def run(t):
        x, w = t.tensor(X, requires_grad=True), t.tensor(W, requires_grad=True)
        y = t.utils.checkpoint.checkpoint(block(t), x, w, use_reentrant=reentrant)
        (y * y).sum().backward()
        got = (_rounded(y), _rounded(x.grad), _rounded(w.grad), type(y.grad_fn).__name__)
        x.grad = w.grad = None
        z = block(t)(x, w)
        (z * z).sum().backward()
        return got, got[:3] == (_rounded(z), _rounded(x.grad), _rounded(w.grad))
    e = same(run)
    assert e[0][1][1] is True


def test_default_warns_and_is_reentrant():
    def run(t):
        x = t.tensor(X, requires_grad=True)
        y = t.utils.checkpoint.checkpoint(t.sin, x)
        return type(y.grad_fn).__name__
    same(run)


@pytest.mark.parametrize('call', [
    lambda t, x: t.utils.checkpoint.checkpoint(t.sin, x, use_reentrant=True, foo=1),
    lambda t, x: t.utils.checkpoint.checkpoint(t.sin, x, use_reentrant=False, foo=1),
    lambda t, x: t.utils.checkpoint.checkpoint(t.sin, x, use_reentrant=True, debug=True),
    lambda t, x: plain(t.utils.checkpoint.checkpoint(t.sin, x.detach(), use_reentrant=True)),
    lambda t, x: t.utils.checkpoint.checkpoint(t.sin, x.detach(), use_reentrant=True).sum()
    .backward(),
    lambda t, x: plain(t.utils.checkpoint.checkpoint(lambda a, b: a * b, x, 3.0,
                                                     use_reentrant=True)),
    lambda t, x: plain(t.utils.checkpoint.checkpoint(block(t), x, t.tensor(W), scale=2.0,
                                                     use_reentrant=False)),
])
def test_arguments_warnings_and_errors(call):
    same(lambda t: call(t, t.tensor(X, requires_grad=True)))


@pytest.mark.parametrize('reentrant', [True, False])
def test_activations_are_not_kept(reentrant):
    def run(t):
        kept = []

        def f(x):
            h = x.sin()
            kept.append(weakref.ref(h))
            return (h * h).cos()
        x = t.tensor(X, requires_grad=True)
        y = t.utils.checkpoint.checkpoint(f, x, use_reentrant=reentrant)
        gc.collect()
        alive_after_forward = kept[0]() is not None
        y.sum().backward()
        plain_y = f(x)
        gc.collect()
        return alive_after_forward, kept[-1]() is not None, _rounded(x.grad), \
            type(plain_y.grad_fn).__name__
    e = same(run)
    assert e[0][1][:2] == (False, True)  # checkpointed: freed; plain: kept by the graph


@pytest.mark.parametrize('reentrant', [True, False])
def test_random_state_is_replayed(reentrant):
    def run(t):
        t.manual_seed(0)
        x = t.tensor(X, requires_grad=True)
        drop = t.nn.Dropout(0.5)
        y = t.utils.checkpoint.checkpoint(lambda a: drop(a).exp(), x, use_reentrant=reentrant)
        after = t.rand(1)
        y.sum().backward()
        g = x.grad.clone()
        x.grad = None
        t.manual_seed(0)
        z = drop(x).exp()
        after_plain = t.rand(1)
        z.sum().backward()
        return t.equal(y, z), t.equal(g, x.grad), t.equal(after, after_plain)
    same(run)


@pytest.mark.parametrize('reentrant', [True, False, None])
@pytest.mark.parametrize('segments', [1, 2, 3])
def test_checkpoint_sequential(reentrant, segments):
    def run(t):
        t.manual_seed(0)
        layers = [t.nn.Linear(4, 4), t.nn.Tanh(), t.nn.Linear(4, 3), t.nn.Sigmoid()]
        with t.no_grad():
            for i, p in enumerate(p for m in layers for p in m.parameters()):
                p.copy_(t.tensor(np.linspace(-1, 1, p.numel(), dtype=np.float32)
                                 .reshape(tuple(p.shape)) * (i + 1) / 3))
        model = t.nn.Sequential(*layers)
        x = t.tensor(X, requires_grad=True)
        y = t.utils.checkpoint.checkpoint_sequential(model, segments, x,
                                                     use_reentrant=reentrant)
        y.sum().backward()
        return _rounded(y), _rounded(x.grad), _rounded(layers[0].weight.grad), \
            type(y.grad_fn).__name__
    same(run)


def test_checkpoint_sequential_unexpected_keyword():
    same(lambda t: t.utils.checkpoint.checkpoint_sequential([t.sin], 1, t.ones(1),
                                                            use_reentrant=False, foo=1))


def test_multiple_outputs_and_a_list_of_functions():
    def run(t):
        x = t.tensor(X, requires_grad=True)
        a, b = t.utils.checkpoint.checkpoint(lambda v: (v.sin(), v.cos() * 2), x,
                                             use_reentrant=True)
        (a.sum() + b.sum()).backward()
        g1 = _rounded(x.grad)
        x.grad = None
        a, b = t.utils.checkpoint.checkpoint(lambda v: (v.sin(), v.cos() * 2), x,
                                             use_reentrant=False)
        (a.sum() * b.sum()).backward()
        return g1, _rounded(x.grad), type(a.grad_fn).__name__
    same(run)
