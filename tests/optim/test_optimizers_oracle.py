"""Each optimizer against torch 2.13: the same seeded model trained N steps in both ends at
the same parameters, with the same state_dict (keys, values, dtypes, layout); state_dict
round trips through ember.save/load continue exactly as if training had not stopped."""
import numpy as np
import pytest

import ember
from .helpers import (LIBS, arrays, assert_same_params, assert_same_state, check_same_trajectory,
                      params, roundtrip, run_optimizer,
                      train, loss_fn, torch)

# One line per option set worth checking; ids name them in the test report.
CONFIGS = [
    ('SGD', dict(lr=0.1)),
    ('SGD', dict(lr=0.1, momentum=0.9)),
    ('SGD', dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ('SGD', dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ('SGD', dict(lr=0.05, momentum=0.5, maximize=True)),
    ('Adam', dict(lr=0.01)),
    ('Adam', dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ('Adam', dict(lr=0.01, amsgrad=True, maximize=True)),
    ('Adam', dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ('AdamW', dict(lr=0.01)),
    ('AdamW', dict(lr=0.01, amsgrad=True, weight_decay=0.2)),
    ('RMSprop', dict(lr=0.01)),
    ('RMSprop', dict(lr=0.01, alpha=0.9, centered=True)),
    ('RMSprop', dict(lr=0.001, momentum=0.9, weight_decay=0.1, maximize=True)),
    ('RMSprop', dict(lr=0.01, momentum=0.5, centered=True, eps=1e-4)),
    ('Adagrad', dict(lr=0.1)),
    ('Adagrad', dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2)),
    ('Adagrad', dict(lr=0.1, maximize=True, eps=1e-6)),
    ('NAdam', dict(lr=0.01)),
    ('NAdam', dict(lr=0.01, betas=(0.8, 0.99), momentum_decay=0.05, weight_decay=0.1)),
    ('NAdam', dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    # RAdam's rectified step starts at step 6 (default betas) / 7 (beta2=0.8) of 8.
    ('RAdam', dict(lr=0.01)),
    ('RAdam', dict(lr=0.01, betas=(0.5, 0.8), eps=1e-4, weight_decay=0.1)),
    ('RAdam', dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ('Adamax', dict(lr=0.01)),
    ('Adamax', dict(lr=0.01, betas=(0.8, 0.9), eps=1e-3, weight_decay=0.1)),
    ('Adamax', dict(lr=0.01, maximize=True)),
    ('Adadelta', dict()),
    ('Adadelta', dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ('Adadelta', dict(maximize=True)),
    ('Adadelta', dict(lr=0.1, rho=1.0)),  # rho=1: plain gradient steps
]
IDS = [name + '-' + ','.join(f'{k}={v}' for k, v in kw.items()) for name, kw in CONFIGS]
NAMES = ['SGD', 'Adam', 'AdamW', 'NAdam', 'RAdam', 'Adamax', 'RMSprop', 'Adagrad', 'Adadelta']
STEPS = 8


def _run(lib, name, kwargs, dtype='float32', steps=STEPS, **opt_extra):
    return run_optimizer(lib, name, kwargs, dtype, steps, **opt_extra)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('name,kwargs', CONFIGS, ids=IDS)
def test_training_ends_at_torchs_parameters_and_state(name, kwargs, dtype):
    check_same_trajectory(name, kwargs, dtype, STEPS)


@pytest.mark.parametrize('dtype', ['complex64', 'float16'])
@pytest.mark.parametrize('name', NAMES)
def test_complex_and_half_parameters(name, dtype):
    """Complex parameters update as torch's view_as_real does (squares per component);
    float16 ones round each op to half as torch does. The gradients are set, not computed,
    so that only the optimizer is under test."""
    kwargs = dict(lr=0.01, weight_decay=0.1)
    if name in ('SGD', 'RMSprop'):
        kwargs['momentum'] = 0.5
    out = []
    for lib in LIBS:
        ps = params(lib, dtype)
        opt = getattr(lib.optim, name)(ps, **kwargs)
        for step in range(4):
            for p, g in zip(ps, arrays(dtype, seed=10 * step + 1)):
                p.grad = lib.tensor(g)
            opt.step()
        out.append((ps, opt.state_dict()))
    tol = dict(rtol=2e-3, atol=2e-3) if dtype == 'float16' else {}
    assert_same_params(out[0][0], out[1][0], **tol)
    assert_same_state(out[0][1], out[1][1], **tol)


@pytest.mark.parametrize('name,kwargs', CONFIGS, ids=IDS)
def test_state_dict_round_trip_continues_as_if_never_stopped(name, kwargs):
    straight, _, _ = _run(ember, name, kwargs, steps=6)
    t_straight, _, _ = _run(torch, name, kwargs, steps=6)
    ps, opt, _ = _run(ember, name, kwargs, steps=3)
    saved = roundtrip({'params': [p.detach() for p in ps], 'optim': opt.state_dict()})
    fresh = [ember.nn.Parameter(t.clone()) for t in saved['params']]
    opt2 = getattr(ember.optim, name)(fresh, **kwargs)
    opt2.load_state_dict(saved['optim'])
    assert_same_state(opt2.state_dict(), _torch_state_after(name, kwargs, 3))
    train(ember, fresh, opt2, 3, start=3)
    for a, b in zip(fresh, straight):
        np.testing.assert_array_equal(a._data, b._data)
    assert_same_params(fresh, t_straight)


def _torch_state_after(name, kwargs, steps):
    _, opt, _ = _run(torch, name, kwargs, steps=steps)
    return opt.state_dict()


def test_load_state_dict_casts_state_to_the_parameters_dtype():
    for_lib = {}
    for lib in LIBS:
        ps = params(lib, 'float32')
        opt = lib.optim.Adam(ps, lr=0.01)
        train(lib, ps, opt, 2)
        ps64 = params(lib, 'float64')
        opt64 = lib.optim.Adam(ps64, lr=0.01)
        opt64.load_state_dict(opt.state_dict())
        for_lib[lib] = opt64.state_dict()
    assert_same_state(for_lib[ember], for_lib[torch])
    assert for_lib[ember]['state'][0]['exp_avg'].dtype is ember.float64
    assert for_lib[ember]['state'][0]['step'].dtype is ember.float32


@pytest.mark.parametrize('name', NAMES)
def test_param_groups_with_their_own_options(name):
    own = {'SGD': dict(lr=0.01, momentum=0.5), 'Adam': dict(lr=0.05, betas=(0.5, 0.9)),
           'AdamW': dict(weight_decay=0.3, amsgrad=True), 'RMSprop': dict(centered=True),
           'Adagrad': dict(lr_decay=0.1), 'NAdam': dict(momentum_decay=0.1, weight_decay=0.1),
           'RAdam': dict(betas=(0.5, 0.9), decoupled_weight_decay=True, weight_decay=0.1),
           'Adamax': dict(betas=(0.5, 0.5)), 'Adadelta': dict(rho=0.5, lr=1.0)}[name]
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


@pytest.mark.parametrize('name', NAMES)
def test_step_with_closure_returns_its_loss(name):
    out = []
    for lib in LIBS:
        ps = params(lib)
        opt = getattr(lib.optim, name)(ps, lr=0.01)
        calls = []

        def closure():
            opt.zero_grad()
            loss = loss_fn(lib, ps)
            loss.backward()
            calls.append(lib.is_grad_enabled())
            return loss

        with lib.no_grad():  # the closure gets grad mode back
            losses = [float(opt.step(closure)) for _ in range(3)]
        out.append((ps, losses, calls))
    (e_ps, e_losses, e_calls), (t_ps, t_losses, t_calls) = out
    np.testing.assert_allclose(e_losses, t_losses, rtol=1e-5)
    assert e_calls == t_calls == [True] * 3
    assert_same_params(e_ps, t_ps)


@pytest.mark.parametrize('name', NAMES)
def test_parameters_without_grad_are_skipped(name):
    out = []
    for lib in LIBS:
        ps = params(lib)
        opt = getattr(lib.optim, name)(ps, lr=0.1, weight_decay=0.1)
        loss_fn(lib, ps).backward()
        ps[1].grad = None
        opt.step()
        out.append((ps, opt.state_dict()))
    assert_same_params(out[0][0], out[1][0])
    assert_same_state(out[0][1], out[1][1])


@pytest.mark.parametrize('name', ['SGD', 'Adam'])
def test_zero_grad_keeps_zeros_that_still_step(name):
    out = []
    for lib in LIBS:
        ps = params(lib)
        opt = getattr(lib.optim, name)(ps, lr=0.1, weight_decay=0.1)
        train(lib, ps, opt, 2)
        opt.zero_grad(set_to_none=False)
        assert all(p.grad is not None and not p.grad.any() for p in ps)
        opt.step()
        out.append(ps)
    assert_same_params(*out)


@pytest.mark.parametrize('name', ['Adam', 'AdamW', 'Adagrad', 'NAdam', 'RAdam', 'Adadelta'])
@pytest.mark.parametrize('default', ['float32', 'float64'])
def test_step_counter_dtype_follows_default_dtype_and_fused(name, default):
    """``step`` (and NAdam's ``mu_product``) in the default dtype, or float32 when fused."""
    options = [dict(fused=True), {}] if name in ('Adam', 'AdamW', 'Adagrad') else [{}]
    sds = []
    for lib in LIBS:
        previous = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, default))
        try:
            sds.append([_run(lib, name, dict(lr=0.01), steps=2, **kw)[1].state_dict()
                        for kw in options])
        finally:
            lib.set_default_dtype(previous)
    assert_same_state(sds[0], sds[1])


# differentiable=True: the step runs on Tensor ops, and gradients flow through it, over
# ``steps`` steps. torch's own differentiable RMSprop/Adagrad/Adamax/Adadelta refuse a tensor
# lr, so those get a float one. torch's differentiable NAdam (with a tensor lr) and Adamax
# save state that their next step overwrites, so their backward fails after several steps;
# ember copies what it saves, but can be compared only where torch runs.
DIFF = [('SGD', dict(momentum=0.9, weight_decay=0.1, nesterov=True), True, 2),
        ('SGD', dict(), True, 2), ('Adam', dict(maximize=True), True, 2),
        ('AdamW', dict(), True, 2), ('RMSprop', dict(momentum=0.5), False, 2),
        ('RMSprop', dict(weight_decay=0.1), False, 2), ('Adagrad', dict(lr_decay=0.1), False, 2),
        ('NAdam', dict(weight_decay=0.1, momentum_decay=0.1), False, 3),
        ('NAdam', dict(weight_decay=0.1, decoupled_weight_decay=True), True, 1),
        ('RAdam', dict(betas=(0.9, 0.9), weight_decay=0.1), True, 7),
        ('RAdam', dict(decoupled_weight_decay=True, weight_decay=0.1, maximize=True), True, 2),
        ('Adamax', dict(weight_decay=0.1), False, 1),
        ('Adadelta', dict(weight_decay=0.1, rho=0.5), False, 3)]


@pytest.mark.parametrize('name,kwargs,tensor_lr,steps', DIFF,
                         ids=[f'{n}-{k}-{t}-{s}' for n, k, t, s in DIFF])
def test_differentiable_step_gradients_match_torch(name, kwargs, tensor_lr, steps):
    rng = np.random.default_rng(0)
    w_init = rng.standard_normal(5)
    grads = [rng.standard_normal(5) for _ in range(steps)]
    out = []
    for lib in LIBS:
        w0 = lib.tensor(w_init, requires_grad=True)
        lr = lib.tensor(0.1, dtype=lib.float64, requires_grad=True) if tensor_lr else 0.1
        gs = [lib.tensor(g, requires_grad=True) for g in grads]
        w = w0.clone()
        opt = getattr(lib.optim, name)([w], lr=lr, differentiable=True, **kwargs)
        for g in gs:
            w.grad = g.clone()
            opt.step()
        (w ** 2).sum().backward()
        found = [w.detach(), w0.grad] + [g.grad for g in gs]
        out.append(found + ([lr.grad] if tensor_lr else []))
    for i, (e, t) in enumerate(zip(*out)):
        if t is None:
            assert e is None, f"result {i}: torch has no gradient, ember has {e}"
        else:
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-12,
                                       err_msg=f"result {i}")


def test_differentiable_off_leaves_no_graph():
    ps = params(ember)
    opt = ember.optim.Adam(ps, lr=0.01)
    loss_fn(ember, ps).backward()
    opt.step()
    assert all(p.is_leaf and p.grad_fn is None for p in ps)
    assert all(not t.requires_grad for s in opt.state.values() for t in s.values())


def test_in_place_update_is_seen_by_autograd():
    """step() changes the arrays behind autograd's back, so it must bump the version
    counters: a graph that saved a parameter fails at backward as in torch."""
    messages = []
    for lib in LIBS:
        w = lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.SGD([w], lr=0.1)
        w.grad = lib.ones(3)
        y = (w * w).sum()
        version = w._version
        opt.step()
        assert w._version > version
        with pytest.raises(RuntimeError) as info:
            y.backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_state_is_keyed_by_parameter_and_holds_tensors():
    ps = params(ember)
    opt = ember.optim.Adam(ps, lr=0.01)
    train(ember, ps, opt, 1)
    assert set(map(id, opt.state)) == set(map(id, ps))
    exp_avg = opt.state[ps[0]]['exp_avg']
    assert type(exp_avg) is ember.Tensor and exp_avg.shape == ps[0].shape
    before = exp_avg.clone()
    train(ember, ps, opt, 1, start=1)
    assert opt.state[ps[0]]['exp_avg'] is exp_avg and not ember.equal(exp_avg, before)
