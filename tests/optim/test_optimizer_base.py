"""The Optimizer base against torch 2.13: parameter groups and their defaults, errors (type
and message), repr, zero_grad, hooks, named parameters, state_dict layout and loading."""
import copy
import importlib
import pickle
import warnings

import pytest

import ember
from .helpers import LIBS, assert_same_state, params, same_error, train, torch

NAMES = ['SGD', 'Adam', 'AdamW', 'NAdam', 'RAdam', 'Adamax', 'RMSprop', 'Adagrad', 'Adadelta']


def _param(lib):
    return lib.nn.Parameter(lib.ones(2))


def _base(lib):
    """``lib.optim.optimizer``, the module (torch does not bind it on ``torch.optim``)."""
    return importlib.import_module(lib.__name__ + '.optim.optimizer')


# -- constructor errors ----------------------------------------------------------------------
BAD_ARGS = [
    ('SGD', dict(lr=-1)), ('SGD', dict(lr=-0.5)), ('SGD', dict(momentum=-0.1)),
    ('SGD', dict(weight_decay=-1.0)), ('SGD', dict(nesterov=True)),
    ('SGD', dict(nesterov=True, momentum=0.9, dampening=0.1)),
    ('SGD', dict(fused=True, foreach=True)), ('SGD', dict(fused=True, differentiable=True)),
    ('Adam', dict(lr=-1e-3)), ('Adam', dict(eps=-1.0)), ('Adam', dict(betas=(1.0, 0.9))),
    ('Adam', dict(betas=(0.9, -0.1))), ('Adam', dict(betas=(0, 0.999))),
    ('Adam', dict(weight_decay=-0.1)), ('Adam', dict(fused=True, foreach=True)),
    ('AdamW', dict(betas=(0.9, 1.0))), ('AdamW', dict(fused=True, differentiable=True)),
    ('RMSprop', dict(lr=-1.0)), ('RMSprop', dict(alpha=-0.5)), ('RMSprop', dict(eps=-1e-8)),
    ('RMSprop', dict(momentum=-1)), ('RMSprop', dict(weight_decay=-2)),
    ('Adagrad', dict(lr_decay=-1)), ('Adagrad', dict(initial_accumulator_value=-0.1)),
    ('Adagrad', dict(eps=-1.0)), ('Adagrad', dict(weight_decay=-1)),
    ('Adagrad', dict(fused=True, foreach=True)),
    ('NAdam', dict(lr=-0.1)), ('NAdam', dict(eps=-1.0)), ('NAdam', dict(betas=(1.0, 0.9))),
    ('NAdam', dict(betas=(0.9, 1.5))), ('NAdam', dict(weight_decay=-0.1)),
    ('NAdam', dict(momentum_decay=-4e-3)), ('NAdam', dict(fused=True)),
    ('RAdam', dict(lr=-1e-3)), ('RAdam', dict(eps=-1e-8)), ('RAdam', dict(betas=(-0.1, 0.9))),
    ('RAdam', dict(betas=(0.9, 1.0))), ('RAdam', dict(weight_decay=-1)),
    ('Adamax', dict(lr=-2e-3)), ('Adamax', dict(eps=-1.0)), ('Adamax', dict(betas=(1.0, 0.9))),
    ('Adamax', dict(betas=(0.9, -0.5))), ('Adamax', dict(weight_decay=-0.5)),
    ('Adadelta', dict(lr=-1.0)), ('Adadelta', dict(rho=1.5)), ('Adadelta', dict(rho=-0.1)),
    ('Adadelta', dict(eps=-1e-6)), ('Adadelta', dict(weight_decay=-1)),
]


@pytest.mark.parametrize('name,kwargs', BAD_ARGS, ids=[f'{n}-{k}' for n, k in BAD_ARGS])
def test_invalid_hyperparameters_raise_torchs_errors(name, kwargs):
    same_error(lambda lib: getattr(lib.optim, name)([_param(lib)], **kwargs))


TENSOR_ARGS = [
    ('SGD', lambda lib: dict(lr=lib.tensor([0.1, 0.2]))),
    ('SGD', lambda lib: dict(lr=lib.tensor(-0.1))),
    ('Adam', lambda lib: dict(lr=lib.tensor(0.1), foreach=True)),
    ('Adam', lambda lib: dict(betas=(lib.tensor(0.9), 0.999))),
    ('Adam', lambda lib: dict(betas=(lib.tensor([0.9, 0.8]), lib.tensor(0.999)))),
    ('Adam', lambda lib: dict(betas=(lib.tensor(0.9), lib.tensor(0.999)), foreach=True)),
    ('Adagrad', lambda lib: dict(lr=lib.tensor([0.1, 0.1]))),
    ('NAdam', lambda lib: dict(lr=lib.tensor([0.1, 0.1]))),
    ('RAdam', lambda lib: dict(lr=lib.tensor(-1.0))),
    ('Adamax', lambda lib: dict(lr=lib.tensor([[0.1], [0.1]]))),
    ('Adadelta', lambda lib: dict(lr=lib.tensor([1.0, 1.0]))),
]


@pytest.mark.parametrize('name,make', TENSOR_ARGS, ids=[f'{n}-{i}' for i, (n, _) in
                                                       enumerate(TENSOR_ARGS)])
def test_invalid_tensor_hyperparameters_raise_torchs_errors(name, make):
    same_error(lambda lib: getattr(lib.optim, name)([_param(lib)], **make(lib)))


def test_tensor_betas_are_squeezed_like_torchs():
    groups = [lib.optim.Adam([_param(lib)], betas=(lib.tensor([0.8]), lib.tensor([0.9])))
              .param_groups[0]['betas'] for lib in LIBS]
    assert_same_state(*groups)


PARAM_ERRORS = [
    lambda lib: lib.optim.SGD(lib.ones(2), lr=0.1),
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD(iter([]), lr=0.1),
    lambda lib: lib.optim.SGD([1.0], lr=0.1),
    lambda lib: lib.optim.SGD([_param(lib), 'w'], lr=0.1),
    lambda lib: lib.optim.SGD([_param(lib) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([{'params': {_param(lib)}}], lr=0.1),
    lambda lib: lib.optim.Adam([('a', _param(lib)), _param(lib)]),
    lambda lib: _base(lib).Optimizer([_param(lib)], {'lr': _base(lib).required}),
]


@pytest.mark.parametrize('make', PARAM_ERRORS, ids=range(len(PARAM_ERRORS)))
def test_bad_parameter_lists_raise_torchs_errors(make):
    same_error(make)


def test_add_param_group_errors():
    def not_a_dict(lib):
        lib.optim.SGD([_param(lib)], lr=0.1).add_param_group([_param(lib)])

    def overlapping(lib):
        p = _param(lib)
        lib.optim.SGD([p], lr=0.1).add_param_group({'params': [p, _param(lib)]})

    def named_into_unnamed(lib):
        lib.optim.SGD([_param(lib)], lr=0.1).add_param_group({'params': [('b', _param(lib))]})

    def overlapping_groups(lib):
        p = _param(lib)
        lib.optim.Adam([{'params': [p]}, {'params': [p]}])

    for fn in (not_a_dict, overlapping, named_into_unnamed, overlapping_groups):
        same_error(fn)


def test_non_leaf_allowed_when_differentiable_and_retained_grad_allowed():
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True) * 2
        assert len(lib.optim.SGD([x], lr=0.1, differentiable=True).param_groups) == 1
        x.retain_grad()
        assert len(lib.optim.SGD([x], lr=0.1).param_groups) == 1


def test_duplicate_parameters_warn_like_torch():
    messages = []
    for lib in LIBS:
        p = _param(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            lib.optim.SGD([p, p], lr=0.1)
        messages.append([str(w.message) for w in caught if w.category is UserWarning])
    assert messages[0] == messages[1] and len(messages[0]) == 1


# -- groups, defaults, repr ------------------------------------------------------------------
@pytest.mark.parametrize('name', NAMES)
def test_defaults_param_groups_and_repr(name):
    opts = []
    for lib in LIBS:
        ps = params(lib)
        opt = getattr(lib.optim, name)([{'params': ps[:2], 'lr': 0.5}, {'params': ps[2:]}])
        opt.add_param_group({'params': [_param(lib)], 'weight_decay': 0.25})
        opts.append(opt)
    e, t = opts
    assert repr(e) == repr(t)
    assert_same_state(e.defaults, t.defaults)
    assert_same_state([{k: v for k, v in g.items() if k != 'params'} for g in e.param_groups],
                      [{k: v for k, v in g.items() if k != 'params'} for g in t.param_groups])
    assert_same_state(e.state_dict(), t.state_dict())


def test_required_default_is_exported_and_filled():
    for lib in LIBS:
        req = _base(lib).required
        opt = _base(lib).Optimizer([{'params': [_param(lib)], 'lr': 3}],
                                            {'lr': req, 'x': 1})
        assert opt.param_groups[0]['lr'] == 3 and opt.param_groups[0]['x'] == 1
    assert repr(_base(ember).required) == repr(_base(torch).required)


def test_base_step_is_not_implemented():
    same_error(lambda lib: _base(lib).Optimizer([_param(lib)], {}).step())


def test_named_parameters_keep_their_names_in_state_dict():
    sds = []
    for lib in LIBS:
        ps = params(lib)
        opt = lib.optim.Adam([(f'p{i}', p) for i, p in enumerate(ps[:3])], lr=0.1)
        opt.add_param_group({'params': [('last', ps[3])], 'lr': 0.2})
        train(lib, ps, opt, 2)
        sds.append(opt.state_dict())
    assert_same_state(*sds)
    assert sds[0]['param_groups'][1]['param_names'] == ['last']


# -- zero_grad -------------------------------------------------------------------------------
@pytest.mark.parametrize('set_to_none', [True, False])
def test_zero_grad(set_to_none):
    found = []
    for lib in LIBS:
        a, b, c = _param(lib), _param(lib), _param(lib)
        a.grad = lib.full((2,), 3.0)
        c.grad = lib.ones(2, requires_grad=True) * 2  # a grad with history (create_graph)
        grad = a.grad
        lib.optim.SGD([a, b, c], lr=0.1).zero_grad(set_to_none=set_to_none)
        found.append([None if p.grad is None else (p.grad.tolist(), p.grad.requires_grad,
                                                   p.grad.grad_fn is None) for p in (a, b, c)]
                     + [a.grad is grad])
    assert found[0] == found[1]


def test_zero_grad_defaults_to_none():
    p = _param(ember)
    p.grad = ember.ones(2)
    ember.optim.SGD([p], lr=0.1).zero_grad()
    assert p.grad is None


# -- state_dict / load_state_dict ------------------------------------------------------------
def test_state_dict_layout_and_sharing():
    """The packed state holds the live per-parameter dicts (as torch), params are numbered
    by position, and SGD without momentum keeps no state at all."""
    sds = []
    for lib in LIBS:
        ps = params(lib)
        sgd = lib.optim.SGD(ps, lr=0.1)
        train(lib, ps, sgd, 1)
        opt = lib.optim.SGD([{'params': ps[:1]}, {'params': ps[1:], 'momentum': 0.9}], lr=0.1)
        train(lib, ps, opt, 2)
        sd = opt.state_dict()
        assert sd['state'][1] is opt.state[ps[1]]
        assert sd['param_groups'][0] is not opt.param_groups[0]
        sds.append((sgd.state_dict(), sd))
    assert_same_state(*sds)
    assert sds[0][0]['state'] == {} and list(sds[0][1]['state']) == [1, 2, 3]


def test_load_state_dict_errors():
    def groups(lib):
        ps = params(lib)
        opt = lib.optim.SGD([{'params': ps[:2]}, {'params': ps[2:]}], lr=0.1)
        lib.optim.SGD(ps, lr=0.1).load_state_dict(opt.state_dict())

    def sizes(lib):
        ps = params(lib)
        opt = lib.optim.SGD(ps, lr=0.1)
        lib.optim.SGD(ps[:3], lr=0.1).load_state_dict(opt.state_dict())

    same_error(groups)
    same_error(sizes)


def test_load_state_dict_takes_the_saved_options_and_keeps_the_params():
    results = []
    for lib in LIBS:
        ps = params(lib)
        src = lib.optim.Adam(ps, lr=0.05, betas=(0.5, 0.6), amsgrad=True)
        train(lib, ps, src, 2)
        fresh = params(lib)
        dst = lib.optim.Adam(fresh, lr=1.0)
        dst.load_state_dict(src.state_dict())
        assert dst.param_groups[0]['params'][0] is fresh[0]
        assert set(map(id, dst.state)) == set(map(id, fresh))
        results.append(dst.state_dict())
    assert_same_state(*results)


@pytest.mark.parametrize('name,numbers', [('Adam', dict(step=2)),
                                          ('NAdam', dict(step=2, mu_product=0.8))])
def test_load_state_dict_upgrades_numeric_scalars_to_tensors(name, numbers):
    sds = []
    for lib in LIBS:
        ps = params(lib)
        opt = getattr(lib.optim, name)(ps, lr=0.01)
        train(lib, ps, opt, 2)
        sd = opt.state_dict()
        for s in sd['state'].values():
            s.update(numbers)  # as files from old torch versions hold them
        again = getattr(lib.optim, name)(params(lib), lr=0.01)
        again.load_state_dict(sd)
        train(lib, again.param_groups[0]['params'], again, 1)
        sds.append(again.state_dict())
    assert_same_state(*sds)


def test_state_dict_round_trips_through_ember_save_weights_only(tmp_path):
    ps = params(ember)
    opt = ember.optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True)
    train(ember, ps, opt, 2)
    ember.save(opt.state_dict(), tmp_path / 'opt.pt')
    back = ember.load(tmp_path / 'opt.pt')  # weights_only=True by default
    assert list(back) == ['state', 'param_groups']
    for i, s in opt.state_dict()['state'].items():
        assert list(back['state'][i]) == list(s)
        for k, v in s.items():
            assert back['state'][i][k].dtype is v.dtype and ember.equal(back['state'][i][k], v)
    assert back['param_groups'] == opt.state_dict()['param_groups']


def test_deepcopy_and_pickle_keep_state_and_drop_hooks():
    ps = params(ember)
    opt = ember.optim.Adam(ps, lr=0.01)
    for step in range(2):  # grads set, not computed: tensors with backward history hold
        for p in ps:       # a weakref and do not pickle
            p.grad = ember.full(p.shape, 0.1 * (step + 1))
        opt.step()
    opt.register_step_pre_hook(lambda *a: None)
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        assert not clone._optimizer_step_pre_hooks
        new_ps = clone.param_groups[0]['params']
        assert all(a is not b for a, b in zip(new_ps, ps))
        for a, b in zip(new_ps, ps):
            assert ember.equal(clone.state[a]['exp_avg'], opt.state[b]['exp_avg'])
        for a in new_ps:
            a.grad = ember.ones(a.shape)
        clone.step()  # the copy trains on its own
        assert not ember.equal(new_ps[0], ps[0])


# -- hooks -----------------------------------------------------------------------------------
def test_step_hooks_order_arguments_and_removal():
    logs = []
    for lib in LIBS:
        log = []
        p = _param(lib)
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.1)
        opt_mod = _base(lib)

        def pre(o, args, kwargs, tag='pre'):
            log.append((tag, o is opt, len(args), args[0] is opt, dict(kwargs)))

        def post(o, args, kwargs):
            log.append(('post', o is opt, len(args), dict(kwargs)))

        handles = [opt_mod.register_optimizer_step_pre_hook(lambda *a: pre(*a, tag='gpre')),
                   opt_mod.register_optimizer_step_post_hook(
                       lambda o, a, k: log.append(('gpost', o is opt))),
                   opt.register_step_pre_hook(pre), opt.register_step_post_hook(post)]
        try:
            opt.step()
            opt.step(closure=None)
        finally:
            for h in handles:
                h.remove()
        opt.step()
        logs.append((log, p.tolist()))
    assert logs[0] == logs[1]


def test_step_pre_hook_may_replace_the_arguments():
    for lib in LIBS:
        p = _param(lib)
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.1)
        seen = []
        opt.register_step_pre_hook(lambda o, args, kwargs: (args, {'closure': lambda: 7.0}))
        opt.register_step_post_hook(lambda o, args, kwargs: seen.append(sorted(kwargs)))
        assert opt.step() == 7.0 and seen == [['closure']]
        opt.register_step_pre_hook(lambda o, args, kwargs: 'bad')
        with pytest.raises(RuntimeError, match=r"must return None or a tuple of "
                                               r"\(new_args, new_kwargs\), but got bad"):
            opt.step()


def test_state_dict_and_load_hooks():
    logs = []
    for lib in LIBS:
        log = []
        ps = params(lib)
        opt = lib.optim.SGD(ps, lr=0.1, momentum=0.9)
        train(lib, ps, opt, 1)
        opt.register_state_dict_pre_hook(lambda o: log.append('sd pre'))
        opt.register_state_dict_pre_hook(lambda o: log.append('sd pre first'), prepend=True)

        def post(o, sd):
            log.append('sd post')
            sd['extra'] = 1
        opt.register_state_dict_post_hook(post)
        opt.register_load_state_dict_pre_hook(
            lambda o, sd: log.append(('load pre', sorted(sd))) or
            {k: v for k, v in sd.items() if k != 'extra'})
        opt.register_load_state_dict_post_hook(lambda o: log.append('load post'))
        sd = opt.state_dict()
        opt.load_state_dict(sd)
        logs.append((log, sorted(sd)))
    assert logs[0] == logs[1]


def test_a_user_subclass_gets_step_hooks_and_runs_in_callers_grad_mode():
    class Scaled(ember.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {'factor': 0.5})

        def step(self, closure=None):
            self.grad_mode = ember.is_grad_enabled()
            for group in self.param_groups:
                for p in group['params']:
                    with ember.no_grad():
                        p.mul_(group['factor'])

    p = _param(ember)
    opt = Scaled([p])
    calls = []
    opt.register_step_post_hook(lambda *a: calls.append('post'))
    opt.step()
    assert calls == ['post'] and opt.grad_mode is True and p.tolist() == [0.5, 0.5]

