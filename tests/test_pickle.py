"""pickle of tensors after training, against torch: a trained leaf, a trained nn.Module and an
optimizer after steps pickle; what survives (values, requires_grad, user attributes, optimizer
state) and what does not (.grad, history, view base, hooks) is what torch keeps."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import ember
from .oracle.oracle import torch, arr

LIBS = (ember, torch)


def roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


def trained_leaf(lib):
    x = lib.tensor(arr(3), requires_grad=True)
    (x * x).sum().backward()
    return x


@pytest.mark.parametrize('lib', LIBS, ids=['ember', 'torch'])
def test_trained_leaf_pickles_without_its_grad(lib):
    x = trained_leaf(lib)
    assert x.grad is not None
    y = roundtrip(x)
    assert type(y) is type(x) and y.dtype == x.dtype
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy())
    assert y.requires_grad and y.is_leaf and y.grad is None
    # it is a fresh leaf: training it works and fills its own grad
    (y * 3).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0, 3.0])
    np.testing.assert_array_equal(x.grad.numpy(), 2 * arr(3))


@pytest.mark.parametrize('lib', LIBS, ids=['ember', 'torch'])
def test_deepcopy_keeps_the_grad(lib):
    x = trained_leaf(lib)
    np.testing.assert_array_equal(copy.deepcopy(x).grad.numpy(), x.grad.numpy())


@pytest.mark.parametrize('lib', LIBS, ids=['ember', 'torch'])
def test_non_leaf_and_view_come_back_as_leaves(lib):
    base = lib.tensor(arr(4), requires_grad=True)
    y = base * 2
    y.retain_grad()
    v = base[1:3]
    for t in (y, v):
        back = roundtrip(t)
        assert back.requires_grad and back.is_leaf and back.grad_fn is None
        assert not back.retains_grad and back._base is None
        np.testing.assert_array_equal(back.detach().numpy(), t.detach().numpy())


@pytest.mark.parametrize('lib', LIBS, ids=['ember', 'torch'])
def test_user_attributes_survive(lib):
    x = trained_leaf(lib)
    x.note = {'epoch': 3}
    assert roundtrip(x).note == {'epoch': 3}
    p = lib.nn.Parameter(lib.ones(2))
    p.note = 'w'
    (p * 2).sum().backward()
    q = roundtrip(p)
    assert type(q) is type(p) and q.note == 'w' and q.grad is None and q.requires_grad


@pytest.mark.parametrize('lib', LIBS, ids=['ember', 'torch'])
def test_backward_hook_is_dropped_with_a_warning(lib):
    x = lib.tensor(arr(2), requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        y = roundtrip(x)
    assert any(str(w.message).startswith("backward hook <function") and
               "on tensor will not be serialized." in str(w.message) for w in caught)
    (y * 2).sum().backward()
    assert seen == []


def _model(lib):
    model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2))
    with lib.no_grad():
        for k, p in enumerate(model.parameters()):
            p.copy_(lib.tensor(arr(*p.shape, seed=k, dtype=np.float32) * 0.5))
    return model


def _train(lib, model, opt, steps, seed=0):
    for s in range(steps):
        x = lib.tensor(arr(5, 4, seed=50 + seed + s, dtype=np.float32))
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()


def test_trained_module_and_optimizer_pickle_as_in_torch():
    results = []
    for lib in LIBS:
        model = _model(lib)
        opt = lib.optim.Adam(model.parameters(), lr=0.01)
        _train(lib, model, opt, 3)
        # module alone, and module with its optimizer (sharing the parameters) in one pickle
        alone = roundtrip(model)
        assert all(p.grad is None for p in alone.parameters())
        model2, opt2 = roundtrip((model, opt))
        assert all(p.grad is None for p in model2.parameters())
        assert all(a is b for a, b in zip(opt2.param_groups[0]['params'], model2.parameters()))
        # the copies go on training from where the originals were
        _train(lib, model, opt, 2, seed=10)
        _train(lib, model2, opt2, 2, seed=10)
        for a, b in zip(model.parameters(), model2.parameters()):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        state = opt2.state_dict()['state']
        results.append(([p.detach().numpy() for p in model2.parameters()],
                        [state[0]['exp_avg'].numpy(), state[0]['step'].item()]))
    (e_params, e_state), (t_params, t_state) = results
    for a, b in zip(e_params, t_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(e_state[0], t_state[0], rtol=1e-4, atol=1e-6)
    assert e_state[1] == t_state[1] == 5


def test_ember_save_and_load_a_trained_leaf(tmp_path):
    x = trained_leaf(ember)
    ember.save({'x': x}, tmp_path / 'x.pt')
    back = ember.load(tmp_path / 'x.pt')['x']
    assert back.requires_grad and back.grad is None
    np.testing.assert_array_equal(back.detach().numpy(), x.detach().numpy())
