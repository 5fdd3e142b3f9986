"""ASGD, Rprop and Adafactor against torch 2.13, as the other optimizers in
test_optimizers_oracle.py: the same trajectories (parameters and state_dict after N steps),
complex and half parameters, state_dict round trips, param groups, tensor lr,
differentiable steps and constructor errors."""
import numpy as np
import pytest

import ember
from .helpers import (LIBS, arrays, assert_same_params, assert_same_state, check_same_trajectory,
                      params, roundtrip, run_optimizer,
                      same_error, train, torch)

CONFIGS = [
    ('ASGD', dict(lr=0.1)),
    ('ASGD', dict(lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1)),
    ('ASGD', dict(lr=0.05, t0=0, maximize=True)),
    ('Rprop', dict()),
    ('Rprop', dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.08))),
    ('Rprop', dict(lr=0.01, maximize=True)),
    ('Adafactor', dict()),
    ('Adafactor', dict(lr=0.05, beta2_decay=-0.5, eps=(1e-4, 1e-2), d=1.5,
                       weight_decay=0.1)),
    ('Adafactor', dict(lr=0.02, maximize=True)),
]
IDS = [name + '-' + ','.join(f'{k}={v}' for k, v in kw.items()) for name, kw in CONFIGS]
NAMES = ['ASGD', 'Rprop', 'Adafactor']
STEPS = 8


def _run(lib, name, kwargs, dtype='float32', steps=STEPS, **opt_extra):
    return run_optimizer(lib, name, kwargs, dtype, steps, **opt_extra)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('name,kwargs', CONFIGS, ids=IDS)
def test_training_ends_at_torchs_parameters_and_state(name, kwargs, dtype):
    check_same_trajectory(name, kwargs, dtype, STEPS)


@pytest.mark.parametrize('dtype', ['complex64', 'float16'])
@pytest.mark.parametrize('name', ['ASGD', 'Rprop'])
def test_complex_and_half_parameters(name, dtype):
    out = []
    for lib in LIBS:
        ps = params(lib, dtype)
        opt = getattr(lib.optim, name)(ps, lr=0.01)
        for step in range(4):
            for p, g in zip(ps, arrays(dtype, seed=10 * step + 1)):
                p.grad = lib.tensor(g)
            opt.step()
        out.append((ps, opt.state_dict()))
    tol = dict(rtol=2e-3, atol=2e-3) if dtype == 'float16' else {}
    assert_same_params(out[0][0], out[1][0], **tol)
    assert_same_state(out[0][1], out[1][1], **tol)


def test_adafactor_refuses_complex_parameters():
    def step(lib):
        w = lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))
        w.grad = lib.ones(2, dtype=lib.complex64)
        lib.optim.Adafactor([w]).step()
    same_error(step)


def test_adafactor_factors_the_last_two_dimensions():
    out = []
    for lib in LIBS:
        w = lib.nn.Parameter(lib.tensor(np.linspace(-1, 1, 24).reshape(2, 3, 4)))
        opt = lib.optim.Adafactor([w], lr=0.1)
        for i in range(3):
            w.grad = lib.tensor(np.cos(np.arange(24.0) * (i + 1)).reshape(2, 3, 4))
            opt.step()
        out.append((w, opt.state_dict()))
    assert_same_params([out[0][0]], [out[1][0]], rtol=1e-10, atol=1e-12)
    assert_same_state(out[0][1], out[1][1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('name,kwargs', CONFIGS, ids=IDS)
def test_state_dict_round_trip_continues_as_if_never_stopped(name, kwargs):
    straight, _, _ = _run(ember, name, kwargs, steps=6)
    t_straight, _, _ = _run(torch, name, kwargs, steps=6)
    ps, opt, _ = _run(ember, name, kwargs, steps=3)
    saved = roundtrip({'params': [p.detach() for p in ps], 'optim': opt.state_dict()})
    fresh = [ember.nn.Parameter(t.clone()) for t in saved['params']]
    opt2 = getattr(ember.optim, name)(fresh, **kwargs)
    opt2.load_state_dict(saved['optim'])
    _, t_opt, _ = _run(torch, name, kwargs, steps=3)
    assert_same_state(opt2.state_dict(), t_opt.state_dict())
    train(ember, fresh, opt2, 3, start=3)
    for a, b in zip(fresh, straight):
        np.testing.assert_array_equal(a._data, b._data)
    assert_same_params(fresh, t_straight)


@pytest.mark.parametrize('name', NAMES)
def test_param_groups_with_their_own_options(name):
    own = {'ASGD': dict(lambd=0.01, t0=2), 'Rprop': dict(etas=(0.4, 1.3)),
           'Adafactor': dict(beta2_decay=-0.6, weight_decay=0.1)}[name]
    results = []
    for lib in LIBS:
        ps = params(lib)
        opt = getattr(lib.optim, name)([{'params': ps[:2], **own}, {'params': ps[2:]}],
                                       lr=0.02)
        train(lib, ps, opt, 5)
        results.append((ps, opt.state_dict()))
    (e_ps, e_sd), (t_ps, t_sd) = results
    assert_same_params(e_ps, t_ps)
    assert_same_state(e_sd, t_sd)


@pytest.mark.parametrize('name', NAMES)
def test_lr_as_a_tensor(name):
    (e_ps, e_opt, _), (t_ps, t_opt, _) = [
        _run(lib, name, {}, lr=lib.tensor(0.01)) for lib in LIBS]
    assert_same_params(e_ps, t_ps)
    assert_same_state(e_opt.state_dict(), t_opt.state_dict())
    assert repr(e_opt) == repr(t_opt)


# torch's differentiable Rprop saves its ``prev`` state, which its next step overwrites, so
# its backward fails after more than one step; ember copies what it saves, but can be
# compared only where torch runs.
DIFF = [('ASGD', dict(weight_decay=0.1, t0=1), 3), ('ASGD', dict(maximize=True), 2),
        ('Rprop', dict(), 1), ('Rprop', dict(maximize=True, etas=(0.4, 1.1)), 1)]


@pytest.mark.parametrize('name,kwargs,steps', DIFF,
                         ids=[f'{n}-{k}-{s}' for n, k, s in DIFF])
def test_differentiable_step_gradients_match_torch(name, kwargs, steps):
    rng = np.random.default_rng(0)
    w_init = rng.standard_normal(5)
    grads = [rng.standard_normal(5) for _ in range(steps)]
    out = []
    for lib in LIBS:
        w0 = lib.tensor(w_init, requires_grad=True)
        gs = [lib.tensor(g, requires_grad=True) for g in grads]
        w = w0.clone()
        opt = getattr(lib.optim, name)([w], lr=0.1, differentiable=True, **kwargs)
        for g in gs:
            w.grad = g.clone()
            opt.step()
        (w ** 2).sum().backward()
        out.append([w.detach(), w0.grad] + [g.grad for g in gs])
    for i, (e, t) in enumerate(zip(*out)):
        if t is None:
            assert e is None or not e.numpy().any(), f"result {i}: torch None, ember {e}"
        else:
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-12,
                                       err_msg=f"result {i}")


def test_defaults_and_repr():
    for name in NAMES:
        e = getattr(ember.optim, name)([ember.nn.Parameter(ember.ones(2))])
        t = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))])
        assert e.defaults == t.defaults, name
        assert repr(e) == repr(t), name


BAD = [('ASGD', dict(lr=-1)), ('ASGD', dict(weight_decay=-1)),
       ('Rprop', dict(lr=-0.1)), ('Rprop', dict(etas=(1.2, 0.5))),
       ('Rprop', dict(etas=(0.5, 1.0))),
       ('Adafactor', dict(lr=-1)), ('Adafactor', dict(beta2_decay=0.5)),
       ('Adafactor', dict(eps=(-1, 1e-3))), ('Adafactor', dict(eps=(None, -1))),
       ('Adafactor', dict(d=0.5)), ('Adafactor', dict(weight_decay=-1))]


@pytest.mark.parametrize('name,kwargs', BAD, ids=[f'{n}-{k}' for n, k in BAD])
def test_constructor_errors(name, kwargs):
    same_error(lambda lib: getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))],
                                                    **kwargs))


# -- Muon: 2-D parameters only, its orthogonalization in bfloat16 ---------------------------
MUON = [dict(lr=0.02), dict(lr=0.05, nesterov=False, weight_decay=0.0),
        dict(lr=0.02, adjust_lr_fn='match_rms_adamw', momentum=0.9),
        dict(lr=0.01, adjust_lr_fn='original', ns_steps=3,
             ns_coefficients=(2.0, -1.5, 0.5), eps=1e-5)]


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('kwargs', MUON, ids=[str(k) for k in MUON])
def test_muon_trajectory(kwargs, dtype):
    shapes = [(5, 3), (3, 7), (4, 4)]
    out = []
    for lib in LIBS:
        ps = [lib.nn.Parameter(lib.tensor(np.cos(np.arange(np.prod(s)) + i).reshape(s)
                                          .astype(dtype))) for i, s in enumerate(shapes)]
        opt = lib.optim.Muon(ps, **kwargs)
        for step in range(5):
            for i, p in enumerate(ps):
                g = np.sin(np.arange(p.numel()) * (step + 1) + i).reshape(tuple(p.shape))
                p.grad = lib.tensor(g.astype(dtype))
            opt.step()
        out.append((ps, opt.state_dict()))
    assert_same_params(out[0][0], out[1][0], rtol=1e-5, atol=1e-6)
    assert_same_state(out[0][1], out[1][1], rtol=1e-5, atol=1e-6)


def test_muon_errors():
    same_error(lambda lib: lib.optim.Muon([lib.nn.Parameter(lib.ones(3))]))
    for kwargs in (dict(lr=-1), dict(momentum=-1), dict(weight_decay=-1),
                   dict(adjust_lr_fn='sqrt')):
        same_error(lambda lib: lib.optim.Muon([lib.nn.Parameter(lib.ones(2, 2))], **kwargs))

    def too_many_steps(lib):
        w = lib.nn.Parameter(lib.ones(2, 2))
        w.grad = lib.ones(2, 2)
        lib.optim.Muon([w], ns_steps=100).step()
    same_error(too_many_steps)
    e = ember.optim.Muon([ember.nn.Parameter(ember.ones(2, 2))])
    t = torch.optim.Muon([torch.nn.Parameter(torch.ones(2, 2))])
    assert e.defaults == t.defaults and repr(e) == repr(t)
