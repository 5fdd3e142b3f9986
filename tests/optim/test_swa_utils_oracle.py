"""optim.swa_utils against torch 2.13: AveragedModel (SWA, EMA, custom functions, buffers,
state_dict), SWALR's lr sequence and state_dict, update_bn's statistics, and errors."""
import numpy as np
import pytest

import ember
from .helpers import LIBS, assert_same_state, same_error, torch
from ..oracle.oracle import arr


def _net(lib, dtype='float64'):
    """A small model with parameters of two dtypes' worth of layers and BatchNorm buffers
    (weights from fixed arrays, so both libraries start equal)."""
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
    net = net.to(getattr(lib, dtype))
    with lib.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(lib.tensor(arr(*p.shape, seed=i)))
    return net


def _perturb(lib, net, k):
    with lib.no_grad():
        for i, p in enumerate(net.parameters()):
            p.add_(lib.tensor(arr(*p.shape, seed=100 * k + i)))
    net.train()
    dtype = str(next(net.parameters()).dtype).split('.')[-1]
    net(lib.tensor(arr(5, 3, seed=50 + k).astype(dtype)))  # moves the BatchNorm statistics


AVG = {
    'swa': lambda lib: {},
    'ema': lambda lib: dict(multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)),
    'ema-per-tensor': lambda lib: dict(avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.8)),
    'swa-per-tensor': lambda lib: dict(avg_fn=lib.optim.swa_utils.get_swa_avg_fn()),
    'swa-multi': lambda lib: dict(multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()),
    'custom': lambda lib: dict(avg_fn=lambda a, c, n: 0.5 * a + 0.5 * c),
}


@pytest.mark.parametrize('use_buffers', [False, True])
@pytest.mark.parametrize('kind', sorted(AVG))
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_averaged_model(kind, use_buffers, dtype):
    if kind == 'swa-multi' and use_buffers:
        # torch's in-place SWA update of an integer buffer (BatchNorm's
        # num_batches_tracked) with a tensor count is an integer addcdiv, which it refuses
        def run(lib):
            net = _net(lib, dtype)
            avg = lib.optim.swa_utils.AveragedModel(net, use_buffers=True, **AVG[kind](lib))
            for k in range(2):
                _perturb(lib, net, k)
                avg.update_parameters(net)
        same_error(run)
        return
    out = []
    for lib in LIBS:
        net = _net(lib, dtype)
        avg = lib.optim.swa_utils.AveragedModel(net, use_buffers=use_buffers, **AVG[kind](lib))
        for k in range(4):
            _perturb(lib, net, k)
            avg.update_parameters(net)
        avg.eval()
        y = avg(lib.tensor(arr(2, 3, seed=9).astype(dtype)))
        out.append((avg.state_dict(), y.detach()))
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == 'float64' else dict(rtol=1e-5, atol=1e-6)
    assert_same_state(out[0][0], out[1][0], **tol)
    assert_same_state(out[0][1], out[1][1], **tol)


def test_averaged_model_errors():
    same_error(lambda lib: lib.optim.swa_utils.AveragedModel(
        lib.nn.Linear(1, 1), avg_fn=lib.optim.swa_utils.get_swa_avg_fn(),
        multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()))
    same_error(lambda lib: lib.optim.swa_utils.get_ema_avg_fn(1.5))
    same_error(lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1))


@pytest.mark.parametrize('strategy', ['cos', 'linear'])
@pytest.mark.parametrize('anneal_epochs', [0, 1, 4])
def test_swalr_lrs_and_state_dict(strategy, anneal_epochs):
    out = []
    for lib in LIBS:
        ps = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))]
        opt = lib.optim.SGD([{'params': ps[:1]}, {'params': ps[1:], 'lr': 0.3}], lr=1.0)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.1], anneal_epochs=anneal_epochs,
                                          anneal_strategy=strategy)
        lrs = []
        for _ in range(6):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        out.append((lrs, sched.state_dict(), opt.state_dict()['param_groups']))
    (e_lrs, e_sd, e_pg), (t_lrs, t_sd, t_pg) = out
    np.testing.assert_allclose(e_lrs, t_lrs, rtol=1e-12)
    assert_same_state(e_pg, t_pg)
    assert sorted(e_sd) == sorted(t_sd)
    for k in t_sd:
        assert_same_state(e_sd[k], t_sd[k], f'state_dict[{k!r}]')


def test_swalr_after_another_scheduler_and_reloaded():
    out = []
    for lib in LIBS:
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=1.0)
        cos = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        lrs = []
        for _ in range(3):
            opt.step()
            cos.step()
        swa = lib.optim.swa_utils.SWALR(opt, swa_lr=0.2, anneal_epochs=3)
        saved = swa.state_dict()
        for _ in range(2):
            opt.step()
            swa.step()
            lrs.append(swa.get_last_lr()[0])
        swa2 = lib.optim.swa_utils.SWALR(opt, swa_lr=0.2, anneal_epochs=5,
                                         anneal_strategy='linear')
        swa2.load_state_dict(saved)
        for _ in range(3):
            opt.step()
            swa2.step()
            lrs.append(swa2.get_last_lr()[0])
        out.append(lrs)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


def test_swalr_errors():
    def make(**kw):
        return lambda lib: lib.optim.swa_utils.SWALR(
            lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0), **kw)
    same_error(make(swa_lr=0.1, anneal_strategy='exp'))
    same_error(make(swa_lr=0.1, anneal_epochs=-1))
    same_error(make(swa_lr=0.1, anneal_epochs=1.5))
    same_error(make(swa_lr=[0.1, 0.2]))


@pytest.mark.parametrize('batches_as', ['tensors', 'tuples'])
def test_update_bn(batches_as):
    out = []
    for lib in LIBS:
        net = _net(lib)
        bn = net[1]
        bn.momentum = 0.3
        net.eval()
        data = [lib.tensor(arr(6, 3, seed=70 + i)) for i in range(3)]
        loader = data if batches_as == 'tensors' else [(x, lib.zeros(6)) for x in data]
        lib.optim.swa_utils.update_bn(loader, net)
        out.append((net.state_dict(), bn.momentum, net.training))
    (e_sd, e_m, e_t), (t_sd, t_m, t_t) = out
    assert_same_state(e_sd, t_sd, rtol=1e-10, atol=1e-12)
    assert e_m == t_m == 0.3 and e_t is t_t is False


def test_update_bn_without_batchnorm_does_nothing():
    net = ember.nn.Linear(2, 2)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    ember.optim.swa_utils.update_bn([ember.ones(1, 2)], net)
    for k, v in net.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k].numpy())
    assert ember.optim.swa_utils.__all__ == torch.optim.swa_utils.__all__
