"""ember.optim.lr_scheduler against torch 2.13: the same training run with each scheduler
gives the same learning rates (and momenta) at every step, the same parameters at the end,
the same scheduler state_dict; round trips continue identically; errors and warnings as
torch."""
import warnings

import pytest

import ember
from .helpers import LIBS, assert_same_params, assert_same_state, params, roundtrip, train, \
    same_error, torch


def _decay(epoch):
    return 0.9 ** epoch


def _halve(epoch):
    return 0.5


class _Shrink:
    """A scale_fn that is a callable object: its attributes go into the state_dict."""

    def __init__(self, base=0.8):
        self.base = base

    def __call__(self, x):
        return self.base ** x


def plain(name, **kwargs):
    """A maker of one scheduler of the optimizer: ``make(lib, opt)``."""
    def make(lib, opt):
        return getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
    make.__name__ = name
    return make


def sequential(lib, opt):
    s = lib.optim.lr_scheduler
    warm = s.LinearLR(opt, start_factor=0.25, total_iters=3)
    steps = s.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    cos = s.CosineAnnealingLR(opt, T_max=4)
    return s.SequentialLR(opt, [warm, steps, cos], milestones=[3, 7])


def chained(lib, opt):
    s = lib.optim.lr_scheduler
    return s.ChainedScheduler([s.ConstantLR(opt, factor=0.5, total_iters=3),
                               s.ExponentialLR(opt, gamma=0.9)])


def nested(lib, opt):
    s = lib.optim.lr_scheduler
    inner = s.SequentialLR(opt, [s.ConstantLR(opt, factor=0.1, total_iters=2),
                                 s.StepLR(opt, step_size=2, gamma=0.5)], milestones=[2])
    return s.ChainedScheduler([inner, s.ExponentialLR(opt, gamma=0.9)])


# scheduler maker, optimizer ('SGD' with momentum, or 'Adam'), steps
SCHEDULES = [
    (plain('StepLR', step_size=3, gamma=0.5), 'SGD', 10),
    (plain('MultiStepLR', milestones=[2, 5, 5, 8], gamma=0.3), 'SGD', 10),
    (plain('ExponentialLR', gamma=0.8), 'SGD', 8),
    (plain('CosineAnnealingLR', T_max=4, eta_min=0.001), 'SGD', 13),
    (plain('CosineAnnealingLR', T_max=5), 'Adam', 7),
    (plain('CosineAnnealingWarmRestarts', T_0=3, T_mult=2, eta_min=0.01), 'SGD', 12),
    (plain('CosineAnnealingWarmRestarts', T_0=4), 'Adam', 9),
    (plain('LambdaLR', lr_lambda=_decay), 'SGD', 6),
    (plain('LambdaLR', lr_lambda=[_decay, lambda e: 1 / (e + 1)]), 'SGD', 6),
    (plain('MultiplicativeLR', lr_lambda=lambda e: 0.95), 'Adam', 6),
    (plain('ConstantLR', factor=0.5, total_iters=3), 'SGD', 6),
    (plain('LinearLR', start_factor=0.2, end_factor=0.9, total_iters=4), 'SGD', 7),
    (plain('PolynomialLR', total_iters=5, power=2.0), 'SGD', 7),
    (plain('OneCycleLR', max_lr=0.5, total_steps=12), 'SGD', 12),
    (plain('OneCycleLR', max_lr=[0.5, 0.2], total_steps=10, anneal_strategy='linear',
           pct_start=0.4), 'SGD', 10),
    (plain('OneCycleLR', max_lr=0.1, epochs=3, steps_per_epoch=4, three_phase=True), 'SGD', 12),
    (plain('OneCycleLR', max_lr=0.05, total_steps=9, base_momentum=0.8, max_momentum=0.9),
     'Adam', 9),
    (plain('OneCycleLR', max_lr=0.3, total_steps=8, cycle_momentum=False, div_factor=10.0,
           final_div_factor=100.0), 'SGD', 8),
    (plain('CyclicLR', base_lr=0.01, max_lr=0.1, step_size_up=3), 'SGD', 14),
    (plain('CyclicLR', base_lr=[0.01, 0.02], max_lr=[0.1, 0.05], step_size_up=2,
           step_size_down=4, mode='triangular2', base_momentum=[0.8, 0.7]), 'SGD', 15),
    (plain('CyclicLR', base_lr=0.001, max_lr=0.01, step_size_up=2, mode='exp_range',
           gamma=0.9, base_momentum=0.7, max_momentum=0.95), 'Adam', 12),
    (plain('CyclicLR', base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=1,
           scale_fn=_Shrink(), cycle_momentum=False), 'Adam', 10),
    (plain('CyclicLR', base_lr=0.01, max_lr=0.1, step_size_up=2, scale_fn=_decay,
           scale_mode='iterations', mode='ignored'), 'SGD', 9),
    (sequential, 'SGD', 12),
    (chained, 'Adam', 6),
    (nested, 'SGD', 7),
]
IDS = [f'{make.__name__}-{i}' for i, (make, *_) in enumerate(SCHEDULES)]


def _setup(lib, opt_name, make, lr=0.1):
    ps = params(lib)
    groups = [{'params': ps[:2]}, {'params': ps[2:], 'lr': lr / 2}]
    if opt_name == 'SGD':
        opt = lib.optim.SGD(groups, lr=lr, momentum=0.9)
    else:
        opt = lib.optim.Adam(groups, lr=lr)
    return ps, opt, make(lib, opt)


def _momenta(opt):
    return [g['betas'][0] if 'betas' in g else g['momentum'] for g in opt.param_groups]


def _run(lib, make, opt_name, steps):
    ps, opt, sched = _setup(lib, opt_name, make)
    history = [(sched.get_last_lr(), _momenta(opt))]
    for i in range(steps):
        train(lib, ps, opt, 1, start=i)
        sched.step()
        history.append((sched.get_last_lr(), _momenta(opt)))
    return ps, opt, sched, history


def _comparable(state):
    """A scheduler state_dict without the functions LambdaLR keeps (never comparable)."""
    if isinstance(state, list):
        return [_comparable(s) for s in state]
    return {k: _comparable(v) if k == '_schedulers' else v for k, v in state.items()
            if k != 'lr_lambdas'}


@pytest.mark.parametrize('make,opt_name,steps', SCHEDULES, ids=IDS)
def test_schedule_matches_torch(make, opt_name, steps):
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # correct use warns about nothing
        (e_ps, e_opt, e_sched, e_hist), (t_ps, t_opt, t_sched, t_hist) = [
            _run(lib, make, opt_name, steps) for lib in LIBS]
    assert_same_state(e_hist, t_hist, 'lr/momentum history', rtol=1e-12)
    assert_same_params(e_ps, t_ps)
    assert_same_state(_comparable(e_sched.state_dict()), _comparable(t_sched.state_dict()),
                      rtol=1e-12)
    assert_same_state(e_opt.state_dict()['param_groups'], t_opt.state_dict()['param_groups'],
                      rtol=1e-12)


@pytest.mark.parametrize('make,opt_name,steps', SCHEDULES, ids=IDS)
def test_state_dict_round_trip_continues_the_schedule(make, opt_name, steps):
    *_, straight = _run(ember, make, opt_name, steps)
    ps, opt, sched = _setup(ember, opt_name, make)
    half = steps // 2
    for i in range(half):
        train(ember, ps, opt, 1, start=i)
        sched.step()
    saved = roundtrip({'opt': opt.state_dict(), 'sched': sched.state_dict()})
    # Resuming as torch recommends: fresh optimizer and scheduler, then load both.
    ps2, opt2, sched2 = _setup(ember, opt_name, make)
    for a, b in zip(ps2, ps):
        a.data = b.detach().clone()
    opt2.load_state_dict(saved['opt'])
    sched2.load_state_dict(saved['sched'])
    history = []
    for i in range(half, steps):
        train(ember, ps2, opt2, 1, start=i)
        sched2.step()
        history.append((sched2.get_last_lr(), _momenta(opt2)))
    assert history == straight[half + 1:]


def test_two_schedulers_on_one_optimizer_chain():
    lrs = []
    for lib in LIBS:
        ps = params(lib)
        opt = lib.optim.SGD(ps, lr=1.0)
        a = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        b = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        seen = []
        for i in range(6):
            train(lib, ps, opt, 1, start=i)
            a.step()
            b.step()
            seen.append((a.get_last_lr(), b.get_last_lr()))
        lrs.append(seen)
    assert_same_state(lrs[0], lrs[1], rtol=1e-12)


def test_tensor_lr_is_filled_in_place():
    found = []
    for lib in LIBS:
        p = lib.nn.Parameter(lib.ones(2))
        lr = lib.tensor(0.5)
        opt = lib.optim.Adam([p], lr=lr)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        p.grad = lib.ones(2)
        opt.step()
        sched.step()
        last = sched.get_last_lr()
        assert opt.param_groups[0]['lr'] is lr and last[0] is not lr
        found.append((last, sched.base_lrs, opt.param_groups[0]['initial_lr']))
    assert_same_state(*found)


# -- ReduceLROnPlateau -----------------------------------------------------------------------
PLATEAU = [
    dict(patience=1, factor=0.5),
    dict(mode='max', patience=0, factor=0.5, threshold=0.1),
    dict(threshold_mode='abs', threshold=0.5, patience=1),
    dict(cooldown=2, patience=0, factor=0.5),
    dict(min_lr=[0.02, 0.03], patience=0, factor=0.1),
    dict(min_lr=0.009, patience=0, factor=0.1, eps=1e-3),
]
METRICS = [5.0, 4.0, 4.0, 3.99, 3.999, 4.5, 2.0, 2.0, 2.0, 2.0, 6.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize('kwargs', PLATEAU, ids=range(len(PLATEAU)))
def test_reduce_on_plateau_matches_torch(kwargs):
    runs = []
    for lib in LIBS:
        ps = params(lib)
        opt = lib.optim.SGD([{'params': ps[:2]}, {'params': ps[2:], 'lr': 0.2}], lr=0.1)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        seen = [sched.get_last_lr()]
        for m in METRICS:
            sched.step(lib.tensor(m) if m > 4 else m)
            seen.append(sched.get_last_lr())
        runs.append((seen, sched.state_dict()))
    assert_same_state(*runs, rtol=1e-12)


def test_reduce_on_plateau_state_round_trip():
    def run(sched, metrics):
        out = []
        for m in metrics:
            sched.step(m)
            out.append(sched.get_last_lr())
        return out
    opt = ember.optim.SGD(params(ember), lr=0.1)
    straight = run(ember.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1), METRICS)
    opt = ember.optim.SGD(params(ember), lr=0.1)
    first = ember.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1)
    run(first, METRICS[:5])
    saved = roundtrip({'opt': opt.state_dict(), 'sched': first.state_dict()})
    opt2 = ember.optim.SGD(params(ember), lr=0.1)
    second = ember.optim.lr_scheduler.ReduceLROnPlateau(opt2, patience=1)
    opt2.load_state_dict(saved['opt'])
    second.load_state_dict(saved['sched'])
    assert run(second, METRICS[5:]) == straight[5:]


# -- errors and warnings ---------------------------------------------------------------------
def _sgd(lib, **kwargs):
    return lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1, **kwargs)


ERRORS = [
    lambda lib: lib.optim.lr_scheduler.StepLR(object(), step_size=1),
    lambda lib: lib.optim.lr_scheduler.StepLR(_sgd(lib), step_size=1, last_epoch=3),
    lambda lib: lib.optim.lr_scheduler.LambdaLR(_sgd(lib), [_decay, _decay]),
    lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(_sgd(lib), 0.5),
    lambda lib: lib.optim.lr_scheduler.ConstantLR(_sgd(lib), factor=1.5),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_sgd(lib), start_factor=0),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_sgd(lib), end_factor=2),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_sgd(lib), factor=1.0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_sgd(lib), mode='mean'),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_sgd(lib), threshold_mode='x'),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_sgd(lib), min_lr=[0.1, 0.2]),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(None),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), max_lr=1.0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), max_lr=1.0, total_steps=0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), max_lr=1.0, total_steps=2.5),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), 1.0, epochs=0, steps_per_epoch=2),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), 1.0, epochs=2, steps_per_epoch=-1),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), 1.0, 10, pct_start=1),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), 1.0, 10, pct_start=1.5),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), 1.0, 10, anneal_strategy='exp'),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), [1.0, 2.0], 10),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        lib.optim.Adagrad([lib.nn.Parameter(lib.ones(2))]), 1.0, 10),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(lib), T_0=0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(lib), T_0=2.5),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(lib), 2, T_mult=0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(lib), 2, eta_min='0'),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(lib), 2).step(-1),
    lambda lib: lib.optim.lr_scheduler.SequentialLR(_sgd(lib), [], milestones=[]),
    lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(object(), 0.1, 1.0),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_sgd(lib, momentum=0.9), 0.1, 1.0, mode='cos'),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(
        lib.optim.Adadelta([lib.nn.Parameter(lib.ones(2))]), 0.1, 1.0),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_sgd(lib), [0.1, 0.2], 1.0),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_sgd(lib), 0.1, (1.0, 2.0)),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_sgd(lib), 0.1, 1.0, max_momentum=[0.9] * 3),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_sgd(lib), 0.1, 1.0, last_epoch=2),
    lambda lib: _parts(lib, lambda s, opt: [s.StepLR(opt, 2)], milestones=[1]),
    lambda lib: _parts(lib, lambda s, opt: [object()]),
    lambda lib: _parts(lib, lambda s, opt: [s.ReduceLROnPlateau(opt)]),
    lambda lib: _parts(lib, lambda s, opt: [s.StepLR(_sgd(lib), 2)]),
    lambda lib: _parts(lib, lambda s, opt: [s.ReduceLROnPlateau(opt)], chain=True),
    lambda lib: _parts(lib, lambda s, opt: [s.StepLR(opt, 2), s.StepLR(_sgd(lib), 2)],
                       chain=True),
]


def _parts(lib, make, milestones=(), chain=False):
    """A SequentialLR (or ChainedScheduler) of the schedulers ``make`` builds."""
    opt = _sgd(lib)
    s = lib.optim.lr_scheduler
    parts = make(s, opt)
    if chain:
        return s.ChainedScheduler(parts)
    return s.SequentialLR(opt, parts, milestones=list(milestones))


@pytest.mark.parametrize('make', ERRORS, ids=range(len(ERRORS)))
def test_errors_match_torch(make):
    same_error(make)


def test_one_cycle_refuses_to_step_past_its_end():
    def overrun(lib):
        opt = _sgd(lib, momentum=0.9)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
        for _ in range(4):
            opt.step()
            sched.step()
    same_error(overrun)


def test_plateau_refuses_a_new_group_with_a_min_lr_list():
    def grown(lib):
        opt = _sgd(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0])
        opt.add_param_group({'params': [lib.nn.Parameter(lib.ones(1))]})
        sched.step(1.0)
        sched.step(2.0)
    same_error(grown)


def _warnings(fn):
    out = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            result = fn(lib)
        out.append(([str(w.message) for w in caught], result))
    return out


def test_stepping_the_scheduler_before_the_optimizer_warns():
    def wrong_order(lib):
        opt = _sgd(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1)
        sched.step()
        opt.step()
        sched.step()
        return sched.get_last_lr()
    (e, e_lr), (t, t_lr) = _warnings(wrong_order)
    assert e == t and len(e) == 1 and e_lr == pytest.approx(t_lr)


def test_get_lr_outside_step_warns():
    (e, e_lr), (t, t_lr) = _warnings(
        lambda lib: lib.optim.lr_scheduler.ExponentialLR(_sgd(lib), gamma=0.5).get_lr())
    assert e == t and len(e) == 1 and e_lr == t_lr


@pytest.mark.parametrize('name,kwargs', [('StepLR', dict(step_size=2, gamma=0.5)),
                                         ('MultiStepLR', dict(milestones=[1, 3], gamma=0.5)),
                                         ('ExponentialLR', dict(gamma=0.5)),
                                         ('CosineAnnealingLR', dict(T_max=6)),
                                         ('LinearLR', dict(total_iters=4)),
                                         ('LambdaLR', dict(lr_lambda=_halve))])
def test_step_with_epoch_warns_and_jumps(name, kwargs):
    def jump(lib):
        opt = _sgd(lib)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
        opt.step()
        sched.step(epoch=5)
        return sched.get_last_lr(), sched.last_epoch
    (e, e_res), (t, t_res) = _warnings(jump)
    assert e == t and len(e) == 1
    assert_same_state(e_res, t_res, rtol=1e-12)


@pytest.mark.parametrize('T_mult', [1, 2, 3])
def test_warm_restarts_with_fractional_epochs(T_mult):
    def run(lib):
        opt = _sgd(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=T_mult)
        out = []
        for epoch in (0.5, 1.0, 2.25, 3.9, 7.5, 15.0, 1.5):
            opt.step()
            sched.step(epoch)
            out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        return out
    (e, e_out), (t, t_out) = _warnings(run)
    assert e == t == []
    assert_same_state(e_out, t_out, rtol=1e-12)


def test_resuming_with_last_epoch_starts_from_the_closed_form():
    results = []
    for lib in LIBS:
        opt = _sgd(lib)
        opt.param_groups[0]['initial_lr'] = 0.4
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, last_epoch=3)
        opt.step()
        sched.step()
        results.append((sched.base_lrs, sched.get_last_lr(), sched.last_epoch))
    assert_same_state(*results, rtol=1e-12)


@pytest.mark.parametrize('momentum', [True, False])
def test_cyclic_resumed_with_last_epoch(momentum):
    """Resuming skips setting the lrs and momenta; the constructor's step runs from the
    groups' initial_lr, and base_lr takes over afterwards (as torch)."""
    results = []
    for lib in LIBS:
        opt = _sgd(lib, momentum=0.5)
        opt.param_groups[0]['initial_lr'] = 0.4
        sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.05, 0.5, step_size_up=3, last_epoch=4,
                                                cycle_momentum=momentum)
        first = (sched.get_last_lr(), opt.param_groups[0]['momentum'])
        opt.step()
        sched.step()
        results.append((first, sched.base_lrs, sched.get_last_lr(),
                        opt.param_groups[0]['momentum'], sched.last_epoch))
    assert_same_state(*results, rtol=1e-12)


def test_cyclic_state_dict_saves_a_callable_scale_fn_object_only():
    states = []
    for lib in LIBS:
        fn = _Shrink(0.5)
        sched = lib.optim.lr_scheduler.CyclicLR(_sgd(lib, momentum=0.9), 0.1, 1.0,
                                                scale_fn=fn)
        sd = sched.state_dict()
        saved, keys = sd['_scale_fn_custom'], list(sd)  # (torch's load pops it from sd)
        fn.base = 0.1
        sched.load_state_dict(sd)
        plain = lib.optim.lr_scheduler.CyclicLR(_sgd(lib, momentum=0.9), 0.1, 1.0,
                                                scale_fn=_decay).state_dict()
        states.append((saved, fn.base, keys, plain['_scale_fn_custom'], sched.scale_fn(2)))
    assert states[0] == states[1]
    assert states[0][:2] == ({'base': 0.5}, 0.5) and states[0][2][-1] == '_scale_fn_custom'


def test_lambda_state_dict_saves_callable_objects_only():
    class Factor:
        def __init__(self):
            self.base = 0.5

        def __call__(self, epoch):
            return self.base ** epoch

    states = []
    for lib in LIBS:
        opt = lib.optim.SGD([{'params': [lib.nn.Parameter(lib.ones(1))]},
                             {'params': [lib.nn.Parameter(lib.ones(1))]}], lr=1.0)
        obj = Factor()
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [obj, _decay])
        sd = sched.state_dict()
        obj.base = 0.1
        sched.load_state_dict(sd)
        states.append((sd['lr_lambdas'], obj.base, sorted(sd)))
    assert states[0] == states[1] == ([{'base': 0.5}, None], 0.5, states[1][2])


def test_legacy_base_class_name():
    assert ember.optim.lr_scheduler._LRScheduler.__name__ == '_LRScheduler'
    assert issubclass(ember.optim.lr_scheduler._LRScheduler,
                      ember.optim.lr_scheduler.LRScheduler)
    assert issubclass(ember.optim.lr_scheduler.ReduceLROnPlateau,
                      ember.optim.lr_scheduler.LRScheduler)
    missing = [n for n in ember.optim.lr_scheduler.__all__
               if not hasattr(torch.optim.lr_scheduler, n)]
    assert missing == []
