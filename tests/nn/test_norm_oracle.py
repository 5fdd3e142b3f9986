"""batch_norm / group_norm and BatchNorm1d/2d/3d, GroupNorm against torch: values, first and
second derivatives (training and eval), running statistics, buffers, state_dict, reprs, errors."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check, assert_same_tensor


# -- batch_norm ----------------------------------------------------------------------------
@pytest.mark.parametrize('shape', [(5, 3), (4, 3, 5), (2, 3, 4, 3)])
@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('affine', [True, False])
def test_batch_norm_values_and_derivatives(shape, training, affine):
    rm, rv = arr(3, seed=7), np.abs(arr(3, seed=8)) + 0.5

    def f(lib, x, *wb):
        mean, var = lib.tensor(rm), lib.tensor(rv)
        out = lib.nn.functional.batch_norm(x, mean, var, *wb, training=training,
                                           momentum=0.3, eps=1e-3)
        return out, mean, var  # the running statistics as updated
    wb = (arr(3, seed=2), arr(3, seed=3)) if affine else ()
    check(f, arr(*shape, seed=1), *wb, double=True)


def test_batch_norm_without_running_stats_and_float32():
    check(lambda lib, x, w: lib.nn.functional.batch_norm(x, None, None, w, training=True),
          arr(6, 4, 2, dtype=np.float32, seed=1), arr(4, dtype=np.float32, seed=2))


def test_batch_norm_weight_only_second_derivative():
    check(lambda lib, x, w: lib.nn.functional.batch_norm(x, None, None, w, None, True),
          arr(4, 3, 2, seed=1), arr(3, seed=2), double=True)


@pytest.mark.parametrize('call', [
    lambda lib, x: lib.nn.functional.batch_norm(x[:1, :, :1], None, None, training=True),
    lambda lib, x: lib.nn.functional.batch_norm(x[:1, :, 0], lib.zeros(3), lib.ones(3),
                                                training=True),
    lambda lib, x: lib.nn.functional.batch_norm(x, lib.zeros(4), lib.ones(3), training=True),
    lambda lib, x: lib.nn.functional.batch_norm(x, lib.zeros(3), lib.ones(4), training=True),
    lambda lib, x: lib.nn.functional.batch_norm(x, None, None, lib.ones(2), training=True),
    lambda lib, x: lib.nn.functional.batch_norm(x, None, None, None, lib.ones(2), True),
    lambda lib, x: lib.nn.functional.batch_norm(x, None, lib.ones(3)),
    lambda lib, x: lib.nn.functional.batch_norm(x, lib.zeros(3), None),
])
def test_batch_norm_errors(call):
    check(call, arr(2, 3, 4), match_message=True)


# -- group_norm ----------------------------------------------------------------------------
@pytest.mark.parametrize('shape,groups', [((2, 6), 3), ((3, 6, 4), 2), ((2, 4, 3, 2), 4),
                                          ((2, 4, 3), 1)])
@pytest.mark.parametrize('affine', [True, False])
def test_group_norm_values_and_derivatives(shape, groups, affine):
    c = shape[1]
    wb = (arr(c, seed=2), arr(c, seed=3)) if affine else ()
    check(lambda lib, x, *wb: lib.nn.functional.group_norm(x, groups, *wb, eps=1e-3),
          arr(*shape, seed=1), *wb, double=True)


@pytest.mark.parametrize('call', [
    lambda lib, x: lib.nn.functional.group_norm(x, 4),
    lambda lib, x: lib.nn.functional.group_norm(x, 3, lib.ones(5)),
    lambda lib, x: lib.nn.functional.group_norm(x, 3, lib.ones(6), lib.ones(5)),
    lambda lib, x: lib.nn.functional.group_norm(x, 3, None, lib.ones(5)),
    lambda lib, x: lib.nn.functional.group_norm(x[0, :, 0], 3),
])
def test_group_norm_errors(call):
    check(call, arr(2, 6, 3), match_message=True)


# -- modules -------------------------------------------------------------------------------
def _copy_affine(lib, m, seed):
    with lib.no_grad():
        if m.weight is not None:
            m.weight.copy_(lib.tensor(arr(m.weight.shape[0], seed=seed)))
        if m.bias is not None:
            m.bias.copy_(lib.tensor(arr(m.bias.shape[0], seed=seed + 1)))


@pytest.mark.parametrize('cls,shape', [('BatchNorm1d', (6, 3)), ('BatchNorm1d', (4, 3, 5)),
                                       ('BatchNorm2d', (3, 3, 2, 4)),
                                       ('BatchNorm3d', (2, 3, 2, 2, 2))])
@pytest.mark.parametrize('momentum', [0.1, 0.5, None])
def test_batchnorm_module_training_steps_then_eval(cls, shape, momentum):
    """Several training steps move the running statistics as torch's; eval then uses them;
    both modes' outputs and derivatives match."""
    results = []
    for lib in (ember, torch):
        m = getattr(lib.nn, cls)(3, momentum=momentum, dtype=lib.float64)
        _copy_affine(lib, m, 10)
        outs = []
        for step in range(3):
            x = lib.tensor(arr(*shape, seed=step) * (step + 1) + step, requires_grad=True)
            y = m(x)
            (gx,) = lib.autograd.grad((y * lib.tensor(arr(*shape, seed=9))).sum(), x)
            outs += [y, gx]
        m.eval()
        x = lib.tensor(arr(*shape, seed=20), requires_grad=True)
        y = m(x)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, m.weight), create_graph=True)
        (ggx,) = lib.autograd.grad((gx * gw.sum()).sum(), x)
        outs += [y, gx.detach(), gw.detach(), ggx]  # backward-of-backward names differ
        results.append((outs, m.state_dict()))
    (e_outs, e_sd), (t_outs, t_sd) = results
    for i, (e, t) in enumerate(zip(e_outs, t_outs)):
        assert_same_tensor(e, t, f'result {i}')
    assert list(e_sd) == list(t_sd) == ['weight', 'bias', 'running_mean', 'running_var',
                                        'num_batches_tracked']
    for k in e_sd:
        assert_same_tensor(e_sd[k], t_sd[k], k)
    assert e_sd['num_batches_tracked'].item() == 3


def test_batchnorm_module_float32_defaults_and_buffers():
    for lib in (ember, torch):
        m = lib.nn.BatchNorm2d(4)
        assert m.num_batches_tracked.dtype == lib.int64 and m.num_batches_tracked.dim() == 0
        assert m.running_mean.dtype == lib.float32
        assert [n for n, _ in m.named_buffers()] == ['running_mean', 'running_var',
                                                     'num_batches_tracked']
    check(lambda lib, x: lib.nn.BatchNorm2d(4)(x), arr(2, 4, 3, 3, dtype=np.float32, seed=1))


@pytest.mark.parametrize('kw', [{'track_running_stats': False}, {'affine': False},
                                {'bias': False}, {'affine': False, 'momentum': None}])
def test_batchnorm_module_options(kw):
    def f(lib, x):
        m = lib.nn.BatchNorm1d(3, dtype=lib.float64, **kw)
        _copy_affine(lib, m, 4)
        y1 = m(x)
        m.eval()
        return y1, m(x * 2), list(m.state_dict().items())
    out = check(f, arr(5, 3, 2, seed=1), grad=False)
    assert out is not None


def test_batchnorm_state_dict_round_trip_and_resets():
    t = torch.nn.BatchNorm1d(3, dtype=torch.float64)
    for step in range(2):
        t(torch.tensor(arr(4, 3, seed=step)))
    e = ember.nn.BatchNorm1d(3, dtype=ember.float64)
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    e.eval(), t.eval()
    x = arr(4, 3, seed=5)
    assert_same_tensor(e(ember.tensor(x)).detach(), t(torch.tensor(x)).detach())
    assert e.num_batches_tracked.item() == 2
    e.reset_running_stats()
    assert e.num_batches_tracked.item() == 0 and e.running_var.sum().item() == 3
    assert e.running_mean.abs().sum().item() == 0
    with ember.no_grad():
        e.weight.mul_(3)
    e.reset_parameters()
    assert e.weight.sum().item() == 3


def test_group_norm_module():
    def f(lib, x):
        m = lib.nn.GroupNorm(2, 4, eps=1e-3, dtype=lib.float64)
        _copy_affine(lib, m, 3)
        return m(x), list(m.state_dict())
    check(f, arr(3, 4, 5, seed=1), double=True)


def test_module_reprs_and_parameter_names():
    def describe(nn):
        mods = [nn.BatchNorm2d(8), nn.BatchNorm1d(4, momentum=None, affine=False),
                nn.BatchNorm1d(3, eps=1e-3, track_running_stats=False), nn.BatchNorm3d(2),
                nn.BatchNorm1d(3, bias=False), nn.GroupNorm(2, 6), nn.GroupNorm(3, 3, 1e-3, False),
                nn.GroupNorm(1, 4, bias=False)]
        return [(repr(m), [n for n, _ in m.named_parameters()], list(m.state_dict()))
                for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


@pytest.mark.parametrize('make,shape', [
    (lambda nn: nn.BatchNorm1d(3), (2, 3, 4, 5)), (lambda nn: nn.BatchNorm1d(3), (3,)),
    (lambda nn: nn.BatchNorm2d(3), (2, 3, 4)), (lambda nn: nn.BatchNorm3d(3), (2, 3, 4, 4)),
    (lambda nn: nn.BatchNorm1d(3), (1, 3)), (lambda nn: nn.BatchNorm2d(3), (1, 3, 1, 1)),
    (lambda nn: nn.BatchNorm1d(3), (2, 4)),
])
def test_module_input_errors(make, shape):
    check(lambda lib, x: make(lib.nn)(x), arr(*shape), match_message=True)


def test_group_norm_construction_error():
    raised = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as info:
            lib.nn.GroupNorm(4, 6)
        raised.append(str(info.value))
    assert raised[0] == raised[1]
