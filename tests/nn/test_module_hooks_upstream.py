"""PyTorch's test/nn/test_module_hooks.py, adapted: all of its classes -- TestModuleHooks,
TestStateDictHooks, TestModuleGlobalHooks and TestModuleHookNN -- under upstream's test
names (43 tests, every one CPU-only and adaptable; parametrized ones keep their parameters,
e.g. ``named_tuple``, ``private``). Every body runs on ember and on real torch (``lib``, or
``same`` comparing both outcomes), and what it observes -- call logs, values, gradients,
exception types and messages -- must be the same. Upstream's ``@swap([True, False])`` on
the load_state_dict hook tests is the ``swap`` fixture (torch.__future__'s parameter
swapping off and on).

The remaining tests (forward pre-hooks, forward hooks, full backward pre-hooks and full
backward hooks: call order, return values, removal, always_call, deepcopy, legacy-hook
rules...) are ember's own scenarios on the same machinery, from the hook tests of
test/test_nn.py."""
import collections
import copy
import math
import re
import warnings
from copy import deepcopy

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch
from .test_module_upstream import outcome, same
from .test_load_state_dict_upstream import swap, use_swap  # noqa: F401 (a fixture)



def vals(ts):
    """Tensors (or None) -> nested lists, rounded, for comparing across libraries."""
    if ts is None:
        return None
    if isinstance(ts, (tuple, list)):
        return [vals(t) for t in ts]
    return np.round(ts.detach().numpy().astype(np.float64), 10).tolist()


def two_in_two_out(lib):
    """forward(x, y) -> (x * y, x + 2 * y): two tensor inputs, two tensor outputs."""
    class M(lib.nn.Module):
        def forward(self, x, y):
            return x * y, x + 2 * y
    return M()


def scaler(lib):
    class Scale(lib.nn.Module):
        def forward(self, x, factor=1.0, shift=0.0):
            return x * factor + shift
    return Scale()


def leaf(lib, values):
    return lib.tensor(np.array(values, dtype=np.float64), requires_grad=True)


# -- call order ---------------------------------------------------------------------------------

def test_all_four_kinds_fire_in_registration_order():
    def go(lib):
        m = scaler(lib)
        log = []
        for i in range(3):
            m.register_forward_pre_hook(lambda mod, a, i=i: log.append(('fpre', i)))
            m.register_forward_hook(lambda mod, a, o, i=i: log.append(('fwd', i)))
            m.register_full_backward_pre_hook(lambda mod, go, i=i: log.append(('bpre', i)))
            m.register_full_backward_hook(lambda mod, gi, go, i=i: log.append(('bwd', i)))
        m(leaf(lib, [1.0, 2.0]), 2.0).sum().backward()
        return log
    res = same(go)[1]
    assert [k for k, _ in res] == ['fpre'] * 3 + ['fwd'] * 3 + ['bpre'] * 3 + ['bwd'] * 3
    assert [i for _, i in res] == [0, 1, 2] * 4


def test_prepend_puts_a_hook_first():
    def go(lib):
        m = scaler(lib)
        log = []
        m.register_forward_pre_hook(lambda *a: log.append('fpre-a'))
        m.register_forward_pre_hook(lambda *a: log.append('fpre-b'), prepend=True)
        m.register_forward_hook(lambda *a: log.append('fwd-a'))
        m.register_forward_hook(lambda *a: log.append('fwd-b'), prepend=True)
        m.register_full_backward_pre_hook(lambda *a: log.append('bpre-a'))
        m.register_full_backward_pre_hook(lambda *a: log.append('bpre-b'), prepend=True)
        m.register_full_backward_hook(lambda *a: log.append('bwd-a'))
        m.register_full_backward_hook(lambda *a: log.append('bwd-b'), prepend=True)
        m.register_forward_hook(lambda *a: log.append('fwd-c'))  # appended after both
        m(leaf(lib, [1.0])).sum().backward()
        return log
    assert same(go)[1] == ['fpre-b', 'fpre-a', 'fwd-b', 'fwd-a', 'fwd-c',
                           'bpre-b', 'bpre-a', 'bwd-b', 'bwd-a']


def test_backward_pre_hook_runs_before_backward_hook_and_feeds_it():
    def go(lib):
        m = two_in_two_out(lib)
        log = []

        def pre(mod, grad_output):
            log.append(('pre', vals(grad_output)))
            return (grad_output[0] * 10, grad_output[1])

        def hook(mod, grad_input, grad_output):
            log.append(('hook', vals(grad_input), vals(grad_output)))
        m.register_full_backward_hook(hook)       # registered first, still fires second
        m.register_full_backward_pre_hook(pre)
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        a, b = m(x, y)
        (a.sum() + b.sum()).backward()
        return log, vals([x.grad, y.grad])
    log, grads = same(go)[1]
    assert [entry[0] for entry in log] == ['pre', 'hook']


# -- return values -----------------------------------------------------------------------------

def test_forward_pre_hook_single_value_versus_tuple():
    def go(lib):
        class Two(lib.nn.Module):
            def forward(self, x, y):
                return x - y
        results = []
        m = Two()
        h = m.register_forward_pre_hook(lambda mod, args: (args[1], args[0]))  # swaps
        results.append(m(lib.tensor([5.0]), lib.tensor([1.0])).tolist())
        h.remove()
        one = scaler(lib)
        one.register_forward_pre_hook(lambda mod, args: args[0] + 1)  # bare value wrapped
        results.append(one(lib.tensor([1.0])).tolist())
        # a bare tensor returned to a two-argument forward becomes its only argument
        m.register_forward_pre_hook(lambda mod, args: args[0])
        results.append(outcome(lambda: m(lib.tensor([5.0]), lib.tensor([1.0])))[0])
        return results
    assert same(go)[1] == [[-4.0], [2.0], 'TypeError']


def test_forward_hook_replaces_tuple_output_and_gradients_follow():
    def go(lib):
        m = two_in_two_out(lib)
        m.register_forward_hook(lambda mod, args, out: (out[1], out[0] * 3))
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        a, b = m(x, y)
        (a.sum() + 2 * b.sum()).backward()
        return vals([a, b, x.grad, y.grad])
    same(go)


def test_forward_hook_sees_input_after_pre_hooks():
    def go(lib):
        m = scaler(lib)
        seen = []
        m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        m.register_forward_hook(lambda mod, args, out: seen.append(vals(args)))
        m(lib.tensor([1.0, 2.0]))
        return seen
    assert same(go)[1] == [[[2.0, 4.0]]]


# -- kwargs --------------------------------------------------------------------------------------

def test_call_kwargs_reach_forward_and_with_kwargs_hooks():
    def go(lib):
        m = scaler(lib)
        log = []
        m.register_forward_pre_hook(lambda mod, args: log.append(('plain-pre', len(args))))
        m.register_forward_pre_hook(
            lambda mod, args, kwargs: log.append(('kw-pre', sorted(kwargs.items()))),
            with_kwargs=True)
        m.register_forward_hook(
            lambda mod, args, kwargs, out: log.append(('kw-fwd', sorted(kwargs), vals(out))),
            with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: log.append(('plain-fwd', vals(out))))
        out = m(lib.tensor([1.0]), factor=3.0, shift=0.5)
        return log, vals(out)
    same(go)


def test_with_kwargs_pre_hook_rewrites_args_and_kwargs():
    def go(lib):
        m = scaler(lib)

        def pre(mod, args, kwargs):
            return (args[0] + 1,), dict(kwargs, factor=kwargs['factor'] * 10)
        m.register_forward_pre_hook(pre, with_kwargs=True)
        m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs['factor'],
                                with_kwargs=True)
        return vals(m(lib.tensor([1.0]), factor=2.0))
    assert same(go)[1] == [60.0]


def test_with_kwargs_pre_hook_bad_return_raises():
    def go(lib):
        m = scaler(lib)
        m.register_forward_pre_hook(lambda mod, args, kwargs: args[0], with_kwargs=True)
        return m(lib.tensor([1.0]))
    assert same(go)[0] == 'RuntimeError'


# -- removal -------------------------------------------------------------------------------------

def test_backward_hook_handles_remove_once_twice_and_as_context():
    def go(lib):
        m = scaler(lib)
        log = []
        h_pre = m.register_full_backward_pre_hook(lambda *a: log.append('bpre'))
        h = m.register_full_backward_hook(lambda *a: log.append('bwd'))

        def step(tag):
            log.append(tag)
            m(leaf(lib, [1.0])).sum().backward()
        step(1)
        h.remove()
        h.remove()
        step(2)
        with m.register_full_backward_hook(lambda *a: log.append('ctx')):
            step(3)
        h_pre.remove()
        step(4)
        return log
    assert same(go)[1] == [1, 'bpre', 'bwd', 2, 'bpre', 3, 'bpre', 'ctx', 4]


def test_removing_kwargs_and_always_call_hooks_forgets_their_flags():
    def go(lib):
        m = scaler(lib)
        h1 = m.register_forward_pre_hook(lambda *a: None, with_kwargs=True)
        h2 = m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
        before = [len(m._forward_pre_hooks_with_kwargs), len(m._forward_hooks_with_kwargs),
                  len(m._forward_hooks_always_called)]
        h1.remove()
        h2.remove()
        after = [len(m._forward_pre_hooks), len(m._forward_hooks),
                 len(m._forward_pre_hooks_with_kwargs), len(m._forward_hooks_with_kwargs),
                 len(m._forward_hooks_always_called)]
        return before, after
    assert same(go)[1] == ([1, 1, 1], [0, 0, 0, 0, 0])


def test_hook_handle_context_removes_on_exception():
    def go(lib):
        m = scaler(lib)
        log = []
        try:
            with m.register_forward_pre_hook(lambda *a: log.append('pre')):
                m(lib.ones(1))
                raise KeyError('boom')
        except KeyError:
            pass
        m(lib.ones(1))
        return log
    assert same(go)[1] == ['pre']


# -- Sequential ------------------------------------------------------------------------------------

def test_hooks_on_sequential_children_forward_and_backward_order():
    def go(lib):
        nn = lib.nn
        lib.manual_seed(0)
        s = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
        log = []
        for name, mod in s.named_modules():
            name = name or 'root'
            mod.register_forward_pre_hook(lambda m_, a, n=name: log.append('fpre:' + n))
            mod.register_forward_hook(lambda m_, a, o, n=name: log.append('fwd:' + n))
            mod.register_full_backward_pre_hook(lambda m_, g, n=name: log.append('bpre:' + n))
            mod.register_full_backward_hook(
                lambda m_, gi, go_, n=name: log.append(('bwd:' + n, [g is None for g in gi],
                                                        [tuple(g.shape) for g in go_])))
        x = lib.ones(5, 3, requires_grad=True)
        s(x).sum().backward()
        return log
    same(go)


def test_backward_hook_on_first_layer_without_input_grad():
    def go(lib):
        nn = lib.nn
        s = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
        log = []
        for name, mod in s.named_children():
            mod.register_full_backward_hook(
                lambda m_, gi, go_, n=name: log.append((n, [g is None for g in gi])))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            s(lib.ones(1, 2)).sum().backward()
        return log, len(w) > 0
    assert same(go)[1] == ([('1', [False]), ('0', [True])], True)


# -- grad_input / grad_output contents -----------------------------------------------------------

@pytest.mark.parametrize('use', ['both', 'first', 'second'])
def test_full_backward_hook_contents_multiple_inputs_outputs(use):
    def go(lib):
        m = two_in_two_out(lib)
        seen = []
        m.register_full_backward_pre_hook(lambda mod, go_: seen.append(('pre', vals(go_))))
        m.register_full_backward_hook(
            lambda mod, gi, go_: seen.append(('hook', vals(gi), vals(go_))))
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        a, b = m(x, y)
        loss = {'both': lambda: (a * 2).sum() + (b * 3).sum(),
                'first': lambda: (a * 2).sum(),
                'second': lambda: (b * 3).sum()}[use]()
        loss.backward()
        return seen, vals([x.grad, y.grad])
    same(go)


def test_full_backward_hook_one_input_without_grad():
    def go(lib):
        m = two_in_two_out(lib)
        seen = []
        m.register_full_backward_hook(
            lambda mod, gi, go_: seen.append((vals(gi), vals(go_))))
        x = leaf(lib, [1.0, 2.0])
        y = lib.tensor([3.0, 4.0], dtype=lib.float64)
        a, b = m(x, y)
        (a + b).sum().backward()
        return seen, vals(x.grad)
    same(go)


def test_full_backward_hook_replacing_grad_input():
    def go(lib):
        m = two_in_two_out(lib)
        m.register_full_backward_hook(lambda mod, gi, go_: (gi[0] * 0 + 7, None))
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        a, b = m(x, y)
        (a + b).sum().backward()
        return vals([x.grad, y.grad])
    assert same(go)[1] == [[7.0, 7.0], None]


def test_full_backward_hook_wrong_number_of_grads():
    def go(lib):
        m = two_in_two_out(lib)
        m.register_full_backward_hook(lambda mod, gi, go_: (gi[0],))
        x, y = leaf(lib, [1.0]), leaf(lib, [3.0])
        a, b = m(x, y)
        (a + b).sum().backward()
    assert same(go)[0] == 'RuntimeError'


# -- exceptions -----------------------------------------------------------------------------------

class Boom(Exception):
    pass


def _raiser(*args):
    raise Boom('hook failed')


@pytest.mark.parametrize('kind', ['forward_pre', 'forward', 'full_backward_pre',
                                  'full_backward'])
def test_raising_hook_propagates_and_module_recovers(kind):
    def go(lib):
        m = scaler(lib)
        h = getattr(m, f'register_{kind}_hook')(_raiser)
        first = outcome(lambda: m(leaf(lib, [1.0]), 2.0).sum().backward())
        h.remove()
        x = leaf(lib, [1.0])
        m(x, 2.0).sum().backward()
        return first, vals(x.grad)
    assert same(go)[1] == (('Boom', 'hook failed'), [2.0])


def test_always_call_forward_hook_runs_when_forward_raises():
    def go(lib):
        class Bad(lib.nn.Module):
            def forward(self, x):
                raise Boom('forward failed')
        m = Bad()
        log = []
        m.register_forward_hook(lambda mod, a, o: log.append(('plain', o)))
        m.register_forward_hook(lambda mod, a, o: log.append(('always', o)), always_call=True)
        m.register_forward_hook(lambda mod, a, k, o: log.append(('always-kw', sorted(k))),
                                with_kwargs=True, always_call=True)
        return outcome(lambda: m(lib.ones(1))), log
    assert same(go)[1] == (('Boom', 'forward failed'), [('always', None), ('always-kw', [])])


def test_always_call_hook_runs_once_when_a_later_hook_raises():
    def go(lib):
        m = scaler(lib)
        log = []
        m.register_forward_hook(lambda *a: log.append('always'), always_call=True)
        m.register_forward_hook(_raiser)
        m.register_forward_hook(lambda *a: log.append('late-always'), always_call=True)
        return outcome(lambda: m(lib.ones(1))), log
    assert same(go)[1] == (('Boom', 'hook failed'), ['always', 'late-always'])


def test_always_call_hook_error_is_silenced_with_warning():
    def go(lib):
        class Bad(lib.nn.Module):
            def forward(self, x):
                raise Boom('forward failed')
        m = Bad()
        m.register_forward_hook(lambda *a: (_ for _ in ()).throw(ValueError('second')),
                                always_call=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            res = outcome(lambda: m(lib.ones(1)))
        return res, ['second' in str(x.message) for x in w]
    assert same(go)[1] == (('Boom', 'forward failed'), [True])


# -- deepcopy / state ----------------------------------------------------------------------------

def test_hooks_survive_deepcopy_and_handles_stay_with_original():
    def go(lib):
        m = scaler(lib)
        log = []
        h = m.register_forward_hook(lambda mod, a, o: log.append(('fwd', mod is m)))
        m.register_forward_pre_hook(lambda mod, a, k: log.append(('pre-kw', sorted(k))),
                                    with_kwargs=True)
        m.register_full_backward_hook(lambda mod, gi, go_: log.append(('bwd', mod is m)))
        c = copy.deepcopy(m)
        c(leaf(lib, [1.0]), factor=2.0).sum().backward()
        h.remove()   # the handle points at the original's table only
        c(lib.ones(1))
        m(lib.ones(1))
        return log
    assert same(go)[1] == [('pre-kw', ['factor']), ('fwd', False), ('bwd', False),
                           ('pre-kw', []), ('fwd', False), ('pre-kw', [])]


def test_hook_tables_are_in_module_state():
    def go(lib):
        m = scaler(lib)
        m.register_forward_hook(lambda *a: None)
        state = m.__getstate__() if hasattr(m, '__getstate__') else m.__dict__
        return [len(state['_forward_hooks']), len(state['_forward_pre_hooks']),
                len(state['_backward_hooks']), len(state['_backward_pre_hooks'])]
    assert same(go)[1] == [1, 0, 0, 0]


# == upstream TestStateDictHooks, TestModuleGlobalHooks and the legacy-hook tests of
# == TestModuleHookNN: each body runs on ember and on torch (``lib``)

@pytest.fixture(params=['ember', 'torch'])
def lib(request):
    return ember if request.param == 'ember' else torch


@pytest.fixture
def global_hooks(lib):
    """Yields ``lib``; afterwards forgets which kind of global backward hook was registered
    (a process-wide flag in torch, as upstream's tearDown resets its tables)."""
    yield lib
    torch.nn.modules.module._global_is_full_backward_hook = None
    ember.nn.modules.module._GLOBAL.is_full_backward_hook = None


def _hook_to_pickle(*args, **kwargs):
    pass


def test_load_state_dict_pre_hook(lib, swap):
    use_swap(lib, swap)
    m_state_dict = lib.nn.Linear(10, 10).state_dict()
    m_load = lib.nn.Linear(10, 10)
    calls = []

    def same_dict(state_dict):
        return list(state_dict) == list(m_state_dict) and \
            all(lib.equal(state_dict[k], m_state_dict[k]) for k in m_state_dict)

    def hook_without_module(state_dict, prefix, local_metadata, strict, missing_keys,
                            unexpected_keys, error_msgs):
        assert same_dict(state_dict)
        calls.append('without')

    def hook_with_module(module, state_dict, prefix, local_metadata, strict, missing_keys,
                         unexpected_keys, error_msgs):
        assert same_dict(state_dict) and module is m_load
        calls.append('with')

    # the private API without with_module (unlike the public one) ...
    m_load._register_load_state_dict_pre_hook(hook_without_module)
    m_load.load_state_dict(m_state_dict)
    assert calls == ['without']
    # ... the public one, which passes the module ...
    m_load.register_load_state_dict_pre_hook(hook_with_module)
    m_load.load_state_dict(m_state_dict)
    assert calls == ['without', 'without', 'with']
    # ... and the private one with with_module=True
    m_load._register_load_state_dict_pre_hook(hook_with_module, True)
    m_load.load_state_dict(m_state_dict)
    assert calls == ['without', 'without', 'with', 'without', 'with', 'with']


def test_no_extra_ref_to_module(lib):
    import gc
    import weakref
    try:
        gc.disable()
        m = lib.nn.Linear(10, 10)
        m.register_load_state_dict_pre_hook(_hook_to_pickle)
        weak_m = weakref.ref(m)
        del m
        assert weak_m() is None
    finally:
        gc.enable()


def test_pickled_hook(lib):
    import pickle
    m = lib.nn.Linear(10, 10)
    m.register_load_state_dict_pre_hook(_hook_to_pickle)
    m2 = pickle.loads(pickle.dumps(m))
    m2.load_state_dict(m2.state_dict())


def test_load_state_dict_module_pre_hook(lib, swap):
    use_swap(lib, swap)
    calls = []

    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = lib.nn.Parameter(lib.rand(10))

        def my_pre_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                             unexpected_keys, error_msgs):
            assert [] == error_msgs == unexpected_keys == missing_keys and strict
            calls.append(1)

        def my_pre_load_hook_with_module(self, module, state_dict, prefix, local_metadata,
                                         strict, missing_keys, unexpected_keys, error_msgs):
            assert [] == error_msgs == unexpected_keys == missing_keys and strict
            assert self is module
            calls.append(2)

    class MyModuleContainer(lib.nn.Module):
        def __init__(self, mod):
            super().__init__()
            self.mod = mod

    for ctor in [MyModuleContainer, lambda x: x]:
        m = ctor(MyModule())
        state_dict = m.state_dict()
        mod = m.mod if isinstance(m, MyModuleContainer) else m
        calls.clear()
        mod._register_load_state_dict_pre_hook(mod.my_pre_load_hook)
        m.load_state_dict(state_dict)
        assert calls == [1]
        calls.clear()
        mod.register_load_state_dict_pre_hook(mod.my_pre_load_hook_with_module)
        m.load_state_dict(state_dict)
        assert calls == [1, 2]


def test_load_state_dict_post_hook(lib, swap):
    use_swap(lib, swap)
    calls = []

    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = lib.nn.Parameter(lib.rand(10))

        def my_post_load_hook(self, module, incompatible_keys):
            assert module is self
            incompatible_keys.missing_keys.append('foo')
            incompatible_keys.unexpected_keys.append('bar')
            calls.append(1)

    nested = MyModule()
    wrapped = lib.nn.ModuleList([nested])
    handle = nested.register_load_state_dict_post_hook(nested.my_post_load_hook)
    # the hook of a wrapped module runs too
    ret = wrapped.load_state_dict(wrapped.state_dict(), strict=False)
    assert len(calls) == 1
    assert ret.missing_keys == ['foo'] and ret.unexpected_keys == ['bar']
    # with strict=True the error names what the hook added
    with pytest.raises(RuntimeError, match='foo.*\n.*bar'):
        wrapped.load_state_dict(wrapped.state_dict(), strict=True)
    assert len(calls) == 2
    handle.remove()
    ret = wrapped.load_state_dict(wrapped.state_dict(), strict=False)
    assert ret.missing_keys == [] and ret.unexpected_keys == [] and len(calls) == 2

    def load_hook_clear_incompatible(module, incompatible_keys):
        incompatible_keys.missing_keys.clear()
        incompatible_keys.unexpected_keys.clear()

    nested.register_load_state_dict_post_hook(load_hook_clear_incompatible)
    state_dict = wrapped.state_dict()
    state_dict['extra'] = lib.ones(1)
    ret = wrapped.load_state_dict(state_dict, strict=True)  # the hook cleared the error
    assert ret.missing_keys == [] and ret.unexpected_keys == []


def test_load_state_dict_post_hook_must_return_none(lib):
    m = lib.nn.Linear(1, 1)
    m.register_load_state_dict_post_hook(lambda module, keys: keys)
    with pytest.raises(AssertionError, match='Hooks registered with '
                                             '``register_load_state_dict_post_hook`` are not '
                                             'expected to return new values'):
        m.load_state_dict(m.state_dict())


@pytest.mark.parametrize('make', ['Softmin', 'Softmax', 'LogSoftmax'])
def test_load_state_dict_post_hook_backward_compatibility(lib, make, swap, tmp_path):
    use_swap(lib, swap)
    called = []
    m = getattr(lib.nn, make)(10)
    sd = deepcopy(m.state_dict())
    assert hasattr(m, '_load_state_dict_post_hooks')
    delattr(m, '_load_state_dict_post_hooks')  # as a module pickled by an older version
    path = str(tmp_path / 'm.pt')
    lib.save(m, path)
    m = lib.load(path, weights_only=False)
    m.load_state_dict(sd)
    assert not called
    m.register_load_state_dict_post_hook(lambda mod, _: called.append(1))
    m.load_state_dict(sd)
    assert called


def test_state_dict_pre_and_post_hooks(lib):
    # pre-hooks see (module, prefix, keep_vars) before anything is saved; post-hooks see the
    # filled dict and this module's metadata, and may edit the dict in place
    log = []
    m = lib.nn.Sequential(lib.nn.Linear(1, 1))
    m[0].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(
        ('pre', prefix, keep_vars)))

    def post(mod, state_dict, prefix, local_metadata):
        log.append(('post', prefix, sorted(state_dict), local_metadata))
        state_dict[prefix + 'added'] = lib.zeros(1)
    handle = m[0].register_state_dict_post_hook(post)
    sd = m.state_dict(keep_vars=True)
    assert log == [('pre', '0.', True), ('post', '0.', ['0.bias', '0.weight'],
                                         {'version': 1})]
    assert list(sd) == ['0.weight', '0.bias', '0.added']
    handle.remove()
    assert list(m.state_dict()) == ['0.weight', '0.bias']


def test_state_dict_post_hook_must_return_none(lib):
    m = lib.nn.Linear(1, 1)
    m.register_state_dict_post_hook(lambda *args: {})
    with pytest.raises(RuntimeError, match='^state_dict post-hook must return None$'):
        m.state_dict()


def test_private_state_dict_hook_may_replace_the_dict(lib):
    m = lib.nn.Linear(1, 1)
    m._register_state_dict_hook(lambda mod, sd, prefix, meta: {'only': lib.ones(1)})
    assert list(m.state_dict()) == ['only']

    def public(*args):
        pass
    m.register_state_dict_post_hook(public)
    with pytest.raises(RuntimeError, match='Cannot register the same function as the state '
                                           'dict post hook that was previously registered '
                                           'via register_state_dict_post_hook'):
        m._register_state_dict_hook(public)


# -- the legacy register_backward_hook (TestModuleHookNN) -----------------------------------

@pytest.mark.parametrize('backward_register_fn', ['register_backward_hook',
                                                  'register_full_backward_hook',
                                                  'register_full_backward_pre_hook'])
def test_hooks(lib, backward_register_fn):
    module = lib.nn.Sigmoid()
    input = lib.ones(5, 5, requires_grad=True)
    counter = {'forwards': 0, 'backwards': 0}
    expected = lib.empty(5, 5).fill_(1 / (1 + 1 / math.e))

    def fw_hook(inc, h_module, input, output):
        assert isinstance(input, tuple) and isinstance(output, lib.Tensor)
        assert h_module is module and lib.equal(input[0], lib.ones(5, 5))
        assert lib.allclose(output, expected)
        counter['forwards'] += inc

    def bw_hook(inc, h_module, grad_input, grad_output):
        assert isinstance(grad_input, tuple) and isinstance(grad_output, tuple)
        assert h_module is module and lib.equal(grad_output[0], lib.ones(5, 5) * 2)
        counter['backwards'] += inc

    def bw_pre_hook(inc, h_module, grad_output):
        assert isinstance(grad_output, tuple)
        assert h_module is module and lib.equal(grad_output[0], lib.ones(5, 5) * 2)
        counter['backwards'] += inc

    bw = bw_pre_hook if backward_register_fn == 'register_full_backward_pre_hook' else bw_hook
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)  # the legacy hook's deprecation
        test_fwd = module.register_forward_hook(lambda *args: fw_hook(1, *args))
        module(input)
        module(input)
        assert counter == {'forwards': 2, 'backwards': 0}
        test_bwd = getattr(module, backward_register_fn)(lambda *args: bw(1, *args))
        output = module(input)
        assert counter == {'forwards': 3, 'backwards': 0}
        output.backward(lib.ones(5, 5) * 2, retain_graph=True)
        assert counter == {'forwards': 3, 'backwards': 1}
        output.backward(lib.ones(5, 5) * 2, retain_graph=True)
        assert counter == {'forwards': 3, 'backwards': 2}
        test2_fwd = module.register_forward_hook(lambda *args: fw_hook(2, *args))
        module(input)
        assert counter == {'forwards': 6, 'backwards': 2}
        test2_bwd = getattr(module, backward_register_fn)(lambda *args: bw(2, *args))
        module(input).backward(lib.ones(5, 5) * 2)
        assert counter == {'forwards': 9, 'backwards': 5}
        test2_bwd.remove()
        module(input).backward(lib.ones(5, 5) * 2)
        assert counter == {'forwards': 12, 'backwards': 6}
        test2_fwd.remove()
        module(input).backward(lib.ones(5, 5) * 2)
        assert counter == {'forwards': 13, 'backwards': 7}
        test_fwd.remove()
        test_bwd.remove()


def test_hook_invalid_outputs(lib):
    module = lib.nn.Sigmoid()
    input = lib.randn(5, 5, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        with module.register_backward_hook(lambda m, gi, go: gi[:-1]):
            with pytest.raises(RuntimeError, match='got 0, but expected 1'):
                module(input).sum().backward()
        with module.register_backward_hook(lambda m, gi, go: gi + (lib.randn(2, 2),)):
            with pytest.raises(RuntimeError, match='got 2, but expected 1'):
                module(input).sum().backward()
    with module.register_full_backward_pre_hook(lambda m, go: ()):
        with pytest.raises(RuntimeError, match='got 0, but expected 1'):
            module(input).sum().backward()
    with module.register_full_backward_pre_hook(lambda m, go: go + (lib.randn(2, 2),)):
        with pytest.raises(RuntimeError, match='got 2, but expected 1'):
            module(input).sum().backward()


def test_hook_non_full_warning(lib):
    def noop(*args):
        pass
    a = lib.rand(2, requires_grad=True)
    b = lib.rand(2, requires_grad=True)
    cases = []

    class ListInput(lib.nn.Module):
        def forward(self, l):
            return l[0].clone(), l[1].clone()
    cases.append((ListInput(), ([a, b],), 'does not take as input a single Tensor or a tuple '
                                          'of Tensors'))

    class ListOutput(lib.nn.Module):
        def forward(self, a, b):
            return [a.clone(), b.clone()]
    cases.append((ListOutput(), (a, b), 'does not return a single Tensor or a tuple of '
                                        'Tensors'))

    class TwoNodes(lib.nn.Module):
        def forward(self, a, b):
            return a.clone(), b.clone()
    cases.append((TwoNodes(), (a, b), 'outputs are generated by different autograd Nodes'))

    class Chain(lib.nn.Module):
        def forward(self, a):
            return a.clone().clone()
    cases.append((Chain(), (a,), 'the forward contains multiple autograd Nodes'))
    for m, args, text in cases:
        m.register_backward_hook(noop)
        with pytest.warns(FutureWarning, match=text):
            m(*args)


def test_hook_backward_writeable(lib):
    module = lib.nn.Sigmoid()
    input = lib.randn(5, 5, requires_grad=True)
    sig_x = lib.sigmoid(input)

    def bw_hook(module, grad_input, grad_output):
        assert all(isinstance(g, lib.Tensor) for g in grad_input + grad_output)
        return tuple(gi * 2 for gi in grad_input)

    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        module.register_backward_hook(bw_hook)
        module(input).backward(lib.ones(5, 5))
    assert lib.allclose(input.grad, sig_x * (1 - sig_x) * 2)


def test_legacy_hook_sees_the_last_node_only(lib):
    # grad_input of the legacy hook is the input gradients of the node that made the
    # output (Linear's addmm: bias, input, weight.t()), not the module's inputs
    seen = []
    m = lib.nn.Linear(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        m.register_backward_hook(lambda mod, gi, go: seen.append(
            ([None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
        m(lib.randn(4, 3, requires_grad=True)).sum().backward()
    assert seen == [([(2,), (4, 3), (3, 2)], [(4, 2)])]


def test_mixing_legacy_and_full_backward_hooks_raises(lib):
    text = ('Cannot use both regular backward hooks and full backward hooks on a single '
            'Module. Please use only one of them.')
    m = lib.nn.Sigmoid()
    m.register_full_backward_hook(lambda *args: None)
    with pytest.raises(RuntimeError, match=re.escape(text)):
        m.register_backward_hook(lambda *args: None)
    m = lib.nn.Sigmoid()
    m.register_backward_hook(lambda *args: None)
    with pytest.raises(RuntimeError, match=re.escape(text)):
        m.register_full_backward_hook(lambda *args: None)


# -- global hooks (TestModuleGlobalHooks) ---------------------------------------------------

def test_module_global_hooks(global_hooks):
    lib = global_hooks
    modules = [lib.nn.Sigmoid() for _ in range(3)]
    input = lib.ones(5, 5, requires_grad=True)
    counter = {'forwards': 0, 'backwards': 0}
    reg = lib.nn.modules.module

    def fw_hook(inc, h_module, input, output):
        assert isinstance(input, tuple) and isinstance(h_module, lib.nn.Sigmoid)
        counter['forwards'] += inc

    def bw_hook(inc, h_module, grad_input, grad_output):
        assert isinstance(grad_input, tuple) and isinstance(h_module, lib.nn.Sigmoid)
        assert lib.equal(grad_output[0], lib.ones(5, 5) * 2)
        counter['backwards'] += inc

    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        test_fwd = reg.register_module_forward_hook(lambda *args: fw_hook(1, *args))
        try:
            for m in modules:
                m(input)
            assert counter == {'forwards': 3, 'backwards': 0}
            test_bwd = reg.register_module_backward_hook(lambda *args: bw_hook(1, *args))
            outputs = [m(input) for m in modules]
            assert counter == {'forwards': 6, 'backwards': 0}
            outputs[0].backward(lib.ones(5, 5) * 2, retain_graph=True)
            outputs[1].backward(lib.ones(5, 5) * 2)
            outputs[2].backward(lib.ones(5, 5) * 2)
            assert counter == {'forwards': 6, 'backwards': 3}
            outputs[0].backward(lib.ones(5, 5) * 2, retain_graph=True)
            assert counter == {'forwards': 6, 'backwards': 4}
            test2_fwd = reg.register_module_forward_hook(lambda *args: fw_hook(2, *args))
            for m in modules:
                m(input)
            assert counter == {'forwards': 15, 'backwards': 4}
            test2_bwd = reg.register_module_backward_hook(lambda *args: bw_hook(2, *args))
            modules[0](input).backward(lib.ones(5, 5) * 2)
            assert counter == {'forwards': 18, 'backwards': 7}
            test2_bwd.remove()
            modules[1](input).backward(lib.ones(5, 5) * 2)
            assert counter == {'forwards': 21, 'backwards': 8}
            test2_fwd.remove()
            modules[2](input).backward(lib.ones(5, 5) * 2)
            assert counter == {'forwards': 22, 'backwards': 9}
            test_bwd.remove()
        finally:
            test_fwd.remove()


def test_module_global_hook_invalid_outputs(global_hooks):
    lib = global_hooks
    module = lib.nn.Sigmoid()
    input = lib.randn(5, 5, requires_grad=True)
    reg = lib.nn.modules.module
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        with reg.register_module_backward_hook(lambda m, gi, go: gi[:-1]):
            with pytest.raises(RuntimeError, match='got 0, but expected 1'):
                module(input).sum().backward()
        with reg.register_module_backward_hook(lambda m, gi, go: gi + (lib.randn(2, 2),)):
            with pytest.raises(RuntimeError, match='got 2, but expected 1'):
                module(input).sum().backward()


def test_module_global_forward_preforward_hook_writeable(global_hooks):
    lib = global_hooks
    module = lib.nn.Sigmoid()
    input = lib.randn(5, 5, requires_grad=True)
    sig_x = lib.sigmoid(input)
    reg = lib.nn.modules.module
    with reg.register_module_forward_pre_hook(
            lambda m, input: lib.nn.functional.relu(input[0])), \
            reg.register_module_forward_hook(lambda m, input, output: -output):
        output = module(input)
    assert lib.allclose(output, -lib.sigmoid(lib.nn.functional.relu(input)))
    output.backward(lib.ones(5, 5) * 2, retain_graph=True)
    assert lib.allclose(input.grad, -sig_x * (1 - sig_x) * 2 * (input > 0))


def test_global_and_local_hooks_order(global_hooks):
    lib = global_hooks
    module = lib.nn.Sigmoid()
    log = []
    reg = lib.nn.modules.module

    def logger(name):
        def hook(*args):
            log.append(name)
        return hook
    handles = [reg.register_module_forward_pre_hook(logger('global pre')),
               module.register_forward_pre_hook(logger('local pre')),
               reg.register_module_forward_hook(logger('global fwd')),
               module.register_forward_hook(logger('local fwd')),
               reg.register_module_full_backward_hook(logger('global bwd')),
               module.register_full_backward_hook(logger('local bwd'))]
    try:
        module(lib.randn(5, 5, requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    assert log == ['global pre', 'local pre', 'global fwd', 'local fwd', 'global bwd',
                   'local bwd']


def test_global_mixing_legacy_and_full_raises(global_hooks):
    reg = global_hooks.nn.modules.module
    with reg.register_module_full_backward_hook(lambda *args: None):
        with pytest.raises(RuntimeError, match='Cannot use both regular backward hooks and '
                                               'full backward hooks as a global Module hook. '
                                               'Please use only one of them.'):
            reg.register_module_backward_hook(lambda *args: None)


def _create_basic_net(lib):
    nn = lib.nn

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer_dummy_param = nn.Parameter(lib.empty(3, 5))
            self.layer_dummy_buf = nn.Buffer(lib.zeros(1, 3, 3, 7))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = nn.Parameter(lib.empty(3, 5))
            self.dummy_buf = nn.Buffer(lib.zeros(7, 3, 3, 1))

    l, n = Layer(), Net()
    return l, n, nn.Sequential(n, n)


def _check_registration_hook(lib, kind):
    """upstream's test_hook_{buffer,submodule,parameter}_registration: a global registration
    hook sees every value of its kind that _create_basic_net registers, whether it returns
    the value or None."""
    for return_value in (True, False):
        def hook(module, name, value):
            if kind == 'module':
                module.registered = True
            value.registered = True
            if return_value:
                return value
        register = getattr(lib.nn.modules.module, f'register_module_{kind}_registration_hook')
        handle = register(hook)
        try:
            _, _, s = _create_basic_net(lib)
            items = {'buffer': s.buffers, 'module': s.modules, 'parameter': s.parameters}[kind]()
            assert all(getattr(x, 'registered', False) for x in items)
        finally:
            handle.remove()
    assert not hasattr(lib.nn.Linear(1, 1).weight, 'registered')


def test_hook_buffer_registration(lib):
    _check_registration_hook(lib, 'buffer')


def test_hook_submodule_registration(lib):
    _check_registration_hook(lib, 'module')


def test_hook_parameter_registration(lib):
    _check_registration_hook(lib, 'parameter')


def test_registration_hook_replaces_the_value(lib):
    replacement = lib.nn.Parameter(lib.zeros(2))
    handle = lib.nn.modules.module.register_module_parameter_registration_hook(
        lambda module, name, param: replacement if name == 'w' else None)
    try:
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.ones(2))
        m.register_parameter('v', None)
    finally:
        handle.remove()
    assert m.w is replacement and m.v is None


def test_register_state_dict_post_hook_on_submodules(lib):
    # post-hooks registered on every Linear of a Transformer may rewrite their own entries
    def state_dict_post_hook(module, state_dict, prefix, local_metadata):
        for name, _ in module.named_parameters(recurse=False):
            state_dict[prefix + name] = lib.nn.Parameter(state_dict[prefix + name])

    def register_linear_hook(module):
        if isinstance(module, lib.nn.Linear):
            module.register_state_dict_post_hook(state_dict_post_hook)

    m = lib.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=2, num_decoder_layers=2)
    m.apply(register_linear_hook)
    linears = {name for name, mod in m.named_modules() if isinstance(mod, lib.nn.Linear)}
    sd = m.state_dict()
    assert linears
    for key, value in sd.items():
        owner = key.rpartition('.')[0]
        assert isinstance(value, lib.nn.Parameter) == (owner in linears), key


def test_register_state_dict_pre_hook_prefix_and_keep_vars(lib):
    calls = []

    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(2, 2)

    model = MyModule()
    model.register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(
        (type(m).__name__, prefix, keep_vars)))
    model.a.register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(
        (type(m).__name__, prefix, keep_vars)))
    for keep_vars in (True, False):
        model.state_dict(prefix='foo.', keep_vars=keep_vars)
    assert calls == [('MyModule', 'foo.', True), ('Linear', 'foo.a.', True),
                     ('MyModule', 'foo.', False), ('Linear', 'foo.a.', False)]


# -- more of upstream's TestModuleHookNN / TestModuleGlobalHooks ---------------------------

def _check_hooks_removing_themselves(lib, kind):
    """Two hooks of ``kind`` that remove their own handles while they run."""
    module = lib.nn.Sigmoid()
    handles = []

    def make(i):
        def hook(m, *args):
            handles[i].remove()
            return args[-1] if kind == 'forward' else args[0]
        return hook
    register = getattr(module, f'register_{kind}_hook')
    handles.extend([register(make(0)), register(make(1))])
    assert len(handles[0].hooks_dict_ref()) == 2 and len(handles[1].hooks_dict_ref()) == 2
    input = lib.randn(2, 2)
    assert lib.equal(module(input), lib.sigmoid(input))
    assert handles[0].id not in handles[0].hooks_dict_ref()
    assert handles[1].id not in handles[0].hooks_dict_ref()
    assert len(handles[0].hooks_dict_ref()) == 0 and len(handles[1].hooks_dict_ref()) == 0


def test_module_forward_preforward_hook_removable(lib):
    _check_hooks_removing_themselves(lib, 'forward_pre')


def test_module_forward_forward_hook_removable(lib):
    _check_hooks_removing_themselves(lib, 'forward')


def test_hook_requires_grad(lib):
    seen = []

    class MyModule(lib.nn.Module):
        def forward(self, arg1, arg2, arg3):
            seen.append((arg1.requires_grad, arg2.requires_grad, arg3.requires_grad))
            return arg1.sum() + arg2.sum() + arg3.sum()

    inp = lib.rand(2, requires_grad=True)
    mod = MyModule()
    mod(inp, inp.detach(), inp)
    mod.register_full_backward_hook(lambda mod, gI, gO: None)
    mod(inp, inp.detach(), inp)
    assert seen == [(True, False, True)] * 2


def test_hook_no_requires_grad(lib):
    mod = lib.nn.Linear(2, 3)
    inp = lib.rand(1, 2)
    state = {'return': None, 'called': 0}

    def hook(mod, grad_input, grad_output):
        state['called'] += 1
        assert all(g is None for g in grad_input)
        assert all(g.shape == (1, 3) for g in grad_output)
        return {'None': None, 'grad_input': grad_input, 'invalid': inp}[state['return']]

    mod.register_full_backward_hook(hook)
    state['return'] = 'None'
    with pytest.warns(UserWarning, match='Full backward hook is firing when gradients are '
                                         'computed with respect to module outputs since no '
                                         'inputs require gradients'):
        mod(inp).sum().backward()
    assert state['called'] == 1
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # (the same warning, each time)
        state['return'] = 'grad_input'
        mod(inp).sum().backward()
        assert state['called'] == 2
        state['return'] = 'invalid'
        with pytest.raises(RuntimeError, match='where no input requires gradient'):
            mod(inp).sum().backward()


def test_hook_last_arg_requires_grad(lib):
    mod = lib.nn.L1Loss()
    inp = lib.rand(1, requires_grad=True)
    mod.register_full_backward_hook(lambda m, gI, gO: None)
    mod(inp.detach(), inp)


def test_hook_extra_input(lib):
    class MyModule(lib.nn.Module):
        def forward(self, non_tensor, tensor):
            return tensor.clone(), non_tensor

    seen = []

    def hook(mod, grad_input, grad_output):
        seen.append((grad_input[0] is None, isinstance(grad_input[1], lib.Tensor),
                     isinstance(grad_output[0], lib.Tensor), grad_output[1] is None))

    mod = MyModule()
    mod.register_full_backward_hook(hook)
    out, _ = mod(True, lib.rand(2, requires_grad=True))
    out.sum().backward()
    assert seen == [(True, True, True, True)]


def test_hook_backward_size(lib):
    class MyModule(lib.nn.Module):
        def forward(self, arg1, arg2):
            tmp = arg1.sum() * arg2
            tmp = tmp + arg2.sum() * arg1.sum()
            tmp = tmp.sum().view(1)
            return tmp.expand(8).contiguous()

    seen = []

    def bw_hook(module, grad_input, grad_output):
        seen.append(([tuple(g.shape) for g in grad_input], [tuple(g.shape) for g in grad_output]))

    module = MyModule()
    with module.register_full_backward_hook(bw_hook):
        module(lib.randn(5, 5, requires_grad=True),
               lib.randn(10, 10, requires_grad=True)).sum().backward()
    assert seen == [([(5, 5), (10, 10)], [(8,)])]


def test_bw_hook_warning_for_non_tensor_or_tuple(lib):
    counter = {'forward': 0, 'backward': 0}

    class TestModule(lib.nn.Module):
        def forward(self, dict):
            return {'x': lib.nn.functional.softmax(dict['x'], dim=0)}

    model = TestModule()
    model.register_forward_pre_hook(lambda m, i: counter.__setitem__('forward',
                                                                     counter['forward'] + 1))
    model.register_forward_hook(lambda m, i, o: counter.__setitem__('forward',
                                                                    counter['forward'] + 1))
    bw = lambda *args: counter.__setitem__('backward', counter['backward'] + 1)  # noqa: E731
    model.register_full_backward_pre_hook(bw)
    model.register_full_backward_hook(bw)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        model({'x': lib.ones(2, requires_grad=True)})['x'].sum().backward()
    assert counter == {'forward': 2, 'backward': 0}
    assert len(w) == 1 and 'should be a Tensor or a tuple of Tensors' in str(w[0].message)


def test_hook_cpp(lib):
    bn = lib.nn.BatchNorm1d(5)
    seen = []
    bn.register_full_backward_hook(lambda module, gi, go: seen.append(
        (len(gi), len(go), module is bn)))
    bn(lib.randn(5, 5, requires_grad=True)).sum().backward()
    assert seen == [(1, 1, True)]


def test_backward_hooks_interaction(lib):
    # the grad_output a full backward pre-hook returns is what the full backward hook sees
    module = lib.nn.Sigmoid()
    seen = []

    def bw_pre_hook(m, grad_output):
        seen.append('pre')
        return (grad_output[0] * 0.5,)

    def bw_hook(m, grad_in, grad_output):
        seen.append(bool((grad_output[0] == 0.5).all()))
        return grad_output

    module.register_full_backward_pre_hook(bw_pre_hook)
    module.register_full_backward_hook(bw_hook)
    module(lib.ones(1, 2, requires_grad=True)).sum().backward()
    assert seen == ['pre', True]


@pytest.mark.parametrize('register', ['register_full_backward_hook',
                                      'register_full_backward_pre_hook'])
def test_hook_inplace(lib, register):
    # (torch 2.13 names the Function, BackwardHookFunction, where upstream's regexes, written
    # for another version, expect its node's name)
    class MyModule(lib.nn.Module):
        def forward(self, inp, do_inplace):
            self.inp = inp
            if do_inplace:
                inp += 1
            return inp.clone()

    calls = []
    inp = lib.rand(10, requires_grad=True)
    mod = MyModule()
    with getattr(mod, register)(lambda *args: calls.append(1)):
        mod(inp, False).sum().backward()
        assert calls == [1]
        # in-place on the (wrapped) input inside forward is refused
        with pytest.raises(RuntimeError, match='Output 0 of BackwardHookFunction is a view and '
                                               'is being modified inplace.'):
            mod(inp.clone(), True)
        # and in-place on the output
        out = mod(inp, False)
        with pytest.raises(RuntimeError, match='BackwardHookFunction is a view and is being '
                                               'modified inplace.'):
            out += 1


def test_hook_inplace_base_modified(lib):
    # the middle part of upstream's test_hook_inplace: the wrapped input, used after its
    # base was modified in place, raises
    class MyModule(lib.nn.Module):
        def forward(self, inp):
            self.inp = inp
            return inp.clone()

    mod = MyModule()
    mod.register_full_backward_hook(lambda *args: None)
    local_inp = lib.rand(10, requires_grad=True).clone()
    mod(local_inp)
    local_inp[0] *= 1
    with pytest.raises(RuntimeError, match='Output 0 of BackwardHookFunction is a view and '
                                           'its base or another view'):
        mod.inp + 2


# == upstream TestModuleHooks, under its own test names ======================================

def _toy_model(lib, with_named_tuple=False):
    """upstream's ToyModel: two Nets of two Sequentials of two Linear(10, 10) each; its
    output is a one-element tuple, or a namedtuple."""
    nn = lib.nn
    ToyNamedTuple = collections.namedtuple('ToyNamedTuple', 'content')

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.seq1 = nn.Sequential(*[nn.Linear(10, 10) for _ in range(2)])
            self.seq2 = nn.Sequential(*[nn.Linear(10, 10) for _ in range(2)])

        def forward(self, x):
            return self.seq2(self.seq1(x))

    class ToyModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.net1 = Net()
            self.net2 = Net()
            self.with_named_tuple = with_named_tuple

        def forward(self, x):
            res = self.net2(self.net1(x))
            return ToyNamedTuple(res) if with_named_tuple else (res,)
    return ToyModel()


def _recorder(fired, expected_module, n_grads=None):
    """A hook factory: hook i appends i to ``fired`` and checks the module and arity."""
    def make(i):
        def hook(module, *args):
            fired.append(i)
            assert module is expected_module
            assert len(args[0]) == 1
            if n_grads is not None and len(args) > 1 and isinstance(args[1], tuple):
                assert len(args[1]) == n_grads
        return hook
    return make


def _run_twice(lib, model, fired, expected, fires_in_forward):
    x = lib.randn(10, 10)
    assert fired == []
    out = model(x)
    assert fired == (expected if fires_in_forward else [])
    assert isinstance(out, tuple) and (type(out).__name__ == 'ToyNamedTuple') == \
        model.with_named_tuple
    out[0].sum().backward()
    assert fired == expected
    model(x)[0].sum().backward()
    assert fired == expected + expected


@pytest.mark.parametrize('named_tuple', [False, True])
def test_forward_hooks(lib, named_tuple):
    fired = []
    model = _toy_model(lib, named_tuple)
    target = model.net1.seq2
    make = _recorder(fired, target)
    for i, prepend in [(0, False), (1, True), (2, False), (3, False), (4, True)]:
        target.register_forward_hook(make(i), prepend=prepend)
    _run_twice(lib, model, fired, [4, 1, 0, 2, 3], fires_in_forward=True)


@pytest.mark.parametrize('named_tuple', [False, True])
def test_forward_pre_hooks(lib, named_tuple):
    fired = []
    model = _toy_model(lib, named_tuple)
    target = model.net2.seq1
    make = _recorder(fired, target)
    for i, prepend in [(0, True), (1, False), (2, False), (3, False), (4, True)]:
        target.register_forward_pre_hook(make(i), prepend=prepend)
    _run_twice(lib, model, fired, [4, 0, 1, 2, 3], fires_in_forward=True)


@pytest.mark.parametrize('named_tuple', [False, True])
def test_full_backward_hooks(lib, named_tuple):
    fired = []
    model = _toy_model(lib, named_tuple)
    make = _recorder(fired, model.net1, n_grads=1)
    for i, prepend in [(0, False), (1, False), (2, False), (3, True), (4, True)]:
        model.net1.register_full_backward_hook(make(i), prepend=prepend)
    _run_twice(lib, model, fired, [4, 3, 0, 1, 2], fires_in_forward=False)


@pytest.mark.parametrize('named_tuple', [False, True])
def test_full_backward_pre_hooks(lib, named_tuple):
    fired = []
    model = _toy_model(lib, named_tuple)
    make = _recorder(fired, model.net1)
    for i, prepend in [(0, True), (1, True), (2, False), (3, False), (4, False)]:
        model.net1.register_full_backward_pre_hook(make(i), prepend=prepend)
    _run_twice(lib, model, fired, [1, 0, 2, 3, 4], fires_in_forward=False)

    # a backward pre-hook's return value replaces the gradient the module receives, whether
    # or not its input requires grad
    for rg in (True, False):
        a = lib.ones(2, requires_grad=rg)
        linear = lib.nn.Linear(2, 2)
        linear.register_full_backward_pre_hook(
            lambda module, grad_output: (grad_output[0] * 0,))
        linear(a).sum().backward()
        assert lib.equal(linear.weight.grad, lib.zeros(2, 2))
        if rg:
            assert lib.equal(a.grad, lib.zeros_like(a))
        else:
            assert a.grad is None


@pytest.mark.parametrize('named_tuple', [False, True])
def test_mixed_hooks(lib, named_tuple):
    fired = []
    model = _toy_model(lib, named_tuple)
    model.register_forward_pre_hook(lambda m, inp: fired.append(0))
    model.register_forward_hook(lambda m, inp, out: fired.append(1))
    model.register_full_backward_pre_hook(lambda m, go: fired.append(2))
    model.register_full_backward_hook(lambda m, gi, go: fired.append(3))
    x = lib.randn(10, 10)
    out = model(x)
    assert fired == [0, 1]
    assert isinstance(out, tuple) and (type(out).__name__ == 'ToyNamedTuple') == named_tuple
    out[0].sum().backward()
    assert fired == [0, 1, 2, 3]
    model(x)[0].sum().backward()
    assert fired == [0, 1, 2, 3, 0, 1, 2, 3]


def _kwarg_model(lib):
    """upstream's KwargModel: forward(x, bias=None) adds the bias; internal_forward_hook is
    a bound-method with_kwargs forward hook that adds it once more."""
    class KwargModel(lib.nn.Module):
        def forward(self, x, bias=None):
            return x + bias if bias is not None else x

        def internal_forward_hook(self, module, args, kwargs, out):
            return out + kwargs['bias']
    return KwargModel()


def _kwarg_hooks(fired, model):
    def pre_hook(module, args, kwargs):
        fired.append(0)
        assert module is model and len(args) == 1
        kwargs['bias'] = 2 * kwargs['bias']
        return args, kwargs

    def hook(module, args, kwargs, out):
        fired.append(1)
        assert module is model and len(args) == 1
        return out + kwargs['bias']
    return pre_hook, hook


def test_kwarg_hooks(lib):
    x, bias = lib.ones(10, 10), lib.ones(10, 10)
    # 1. a with_kwargs forward pre-hook doubles the bias
    fired = []
    model = _kwarg_model(lib)
    pre_hook, hook = _kwarg_hooks(fired, model)
    model.register_forward_pre_hook(pre_hook, with_kwargs=True)
    out = model(x, bias=bias)
    assert fired == [0] and lib.allclose(out, x + 2 * bias)
    # 2. and a with_kwargs forward hook adds the (doubled) bias again
    fired = []
    model = _kwarg_model(lib)
    pre_hook, hook = _kwarg_hooks(fired, model)
    model.register_forward_hook(hook, with_kwargs=True)
    model.register_forward_pre_hook(pre_hook, with_kwargs=True)
    out = model(x, bias=bias)
    assert fired == [0, 1] and lib.allclose(out, x + 4 * bias)
    # 3. a bound method of the module as a with_kwargs forward hook
    model = _kwarg_model(lib)
    model.register_forward_hook(model.internal_forward_hook, with_kwargs=True)
    assert lib.allclose(model(x, bias=bias), x + 2 * bias)


def test_remove_kwarg_hooks(lib):
    fired = []
    x, bias = lib.ones(10, 10), lib.ones(10, 10)
    model = _kwarg_model(lib)
    pre_hook, hook = _kwarg_hooks(fired, model)
    forward_hook_handle = model.register_forward_hook(hook, with_kwargs=True)
    forward_pre_hook_handle = model.register_forward_pre_hook(pre_hook, with_kwargs=True)
    out = model(x, bias=bias)
    assert fired == [0, 1] and lib.allclose(out, x + 4 * bias)

    forward_hook_handle.remove()
    out = model(x, bias=bias)
    assert fired == [0, 1, 0] and lib.allclose(out, x + 2 * bias)
    assert forward_hook_handle.id not in model._forward_hooks_with_kwargs

    forward_pre_hook_handle.remove()
    out = model(x, bias=bias)
    assert fired == [0, 1, 0] and lib.allclose(out, x + bias)
    assert forward_pre_hook_handle.id not in model._forward_pre_hooks_with_kwargs


@pytest.fixture
def clean_global_hooks():
    """Forgets every global module hook a test registered (upstream's tearDown), on both
    libraries, and the kind of global backward hook torch remembers."""
    yield
    for name in ('_global_backward_pre_hooks', '_global_backward_hooks',
                 '_global_forward_pre_hooks', '_global_forward_hooks',
                 '_global_forward_hooks_with_kwargs', '_global_forward_hooks_always_called'):
        getattr(torch.nn.modules.module, name).clear()
    torch.nn.modules.module._global_is_full_backward_hook = None
    g = ember.nn.modules.module._GLOBAL
    for table in (g.forward_pre_hooks, g.forward_hooks, g.forward_hooks_with_kwargs,
                  g.forward_hooks_always_called, g.backward_pre_hooks, g.backward_hooks,
                  g.active):
        table.clear()
    g.is_full_backward_hook = None


def test_always_called_forward_hooks(lib, clean_global_hooks):
    class FailsInForwardModel(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.net1 = lib.nn.Linear(10, 10)

        def forward(self, x, fail=True):
            if fail:
                raise RuntimeError('failing in forward')
            return self.net1(x)

    x = lib.ones(10, 10)
    model = FailsInForwardModel()
    stack = []

    def ctx_setup_hook(m, i):
        stack.append(2)

    def ctx_setup_failure_hook(m, i):
        stack.append(2)
        raise RuntimeError('failing in ctx setup')

    def ctx_shutdown_hook(m, i, o):
        stack.append(-1)

    def ctx_shutdown_failure_hook(m, i, o):
        stack.append(-1)
        raise RuntimeError('failing in ctx shutdown')

    def throw_hook(m, i, o):
        raise RuntimeError('failing in throw')

    pre_handle = model.register_forward_pre_hook(ctx_setup_hook)
    handle = model.register_forward_hook(ctx_shutdown_hook, always_call=True)
    assert len(model._forward_hooks_always_called) == 1
    # an always-called forward hook runs when forward raises ...
    with pytest.raises(RuntimeError, match='failing in forward'):
        model(x)
    assert stack == [2, -1]
    # ... and once, not twice, when nothing raises
    model(x, fail=False)
    assert stack == [2, -1] * 2
    # ... and when a forward pre-hook raises
    pre_handle.remove()
    model.register_forward_pre_hook(ctx_setup_failure_hook)
    with pytest.raises(RuntimeError, match='failing in ctx setup'):
        model(x, fail=False)
    assert stack == [2, -1] * 3
    # ... and when another always-called hook raises; the first error is the one raised
    handle2 = model.register_forward_hook(throw_hook, prepend=True, always_call=True)
    with pytest.raises(RuntimeError, match='failing in ctx setup'):
        model(x, fail=False)
    assert stack == [2, -1] * 4
    handle.remove()
    handle2.remove()
    assert len(model._forward_hooks_always_called) == 0
    # an always-called hook that raises while it runs is not run again
    handle3 = model.register_forward_hook(ctx_shutdown_failure_hook, always_call=True)
    with pytest.raises(RuntimeError, match='failing in ctx setup'):
        model(x, fail=False)
    assert stack == [2, -1] * 5
    handle3.remove()

    module_api = lib.nn.modules.module
    global_handle = module_api.register_module_forward_hook(ctx_shutdown_hook, always_call=True)
    assert len(module_api._global_forward_hooks_always_called) == 1
    with pytest.raises(RuntimeError, match='failing in ctx setup'):
        model(x, fail=False)
    assert stack == [2, -1] * 6
    global_handle.remove()
    assert len(module_api._global_forward_hooks_always_called) == 0
    with pytest.raises(RuntimeError, match='failing in ctx setup'):
        model(x)
    assert stack == [2, -1] * 6 + [2]


# == upstream TestStateDictHooks (the state_dict hooks) =======================================

def _check_register_state_dict_pre_hook(lib, model, submodule):
    calls = []
    keep_var_setting = [False]

    def my_state_dict_pre_hook(module, prefix, keep_vars):
        assert keep_vars == keep_var_setting[0]
        assert prefix.startswith('foo.')
        calls.append(prefix)

    model.register_state_dict_pre_hook(my_state_dict_pre_hook)
    submodule.register_state_dict_pre_hook(my_state_dict_pre_hook)

    def check_results():
        for keep_vars in (True, False):
            keep_var_setting[0] = keep_vars
            model.state_dict(prefix='foo.', keep_vars=keep_vars)
            assert len(calls) == 2
            calls.clear()

    check_results()          # after construction
    model(lib.ones(10, 3))   # and after a forward (which initialises lazy modules)
    check_results()


def test_register_state_dict_pre_hook(lib):
    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Linear(3, 3),
                                       lib.nn.Linear(3, 3))

        def forward(self, x):
            return self.a(x)

    mod = MyModule()
    _check_register_state_dict_pre_hook(lib, mod, mod.a)


def test_register_state_dict_pre_hook_lazy_module(lib):
    class MyLazyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer1 = lib.nn.LazyLinear(8)
            self.layer2 = lib.nn.LazyLinear(5)

        def forward(self, x):
            return self.layer2(self.layer1(x))

    mod = MyLazyModule()
    _check_register_state_dict_pre_hook(lib, mod, mod.layer1)


def test_register_state_dict_pre_hook_backward_compat(lib, tmp_path):
    called = []
    m = lib.nn.Linear(1, 1)
    assert hasattr(m, '_state_dict_pre_hooks')
    delattr(m, '_state_dict_pre_hooks')  # as a module pickled by an older version
    path = str(tmp_path / 'm.pt')
    lib.save(m, path)
    m = lib.load(path, weights_only=False)
    m.state_dict()
    assert not called
    m.register_state_dict_pre_hook(lambda *args, **kwargs: called.append(1))
    m.state_dict()
    assert called


@pytest.mark.parametrize('private', [True, False])
def test_register_state_dict_post_hook(lib, private):
    m = lib.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=2, num_decoder_layers=2)

    def linear_state_dict_post_hook(module, state_dict, prefix, local_metadata):
        for name, _ in module.named_parameters(recurse=False):
            state_dict[prefix + name] = lib.nn.Parameter(state_dict[prefix + name])

    def register_linear_hook(module):
        if isinstance(module, lib.nn.Linear):
            register = module._register_state_dict_hook if private \
                else module.register_state_dict_post_hook
            register(linear_state_dict_post_hook)

    def check_sd(state_dict):
        for k, v in state_dict.items():
            assert isinstance(v, lib.nn.Parameter) == ('linear' in k or 'out_proj' in k), k

    # what hooks on submodules return does not matter, private API or public
    m.apply(register_linear_hook)
    check_sd(m.state_dict())

    # on the root module, the private API's return value replaces the state dict; the
    # public API's hooks must return None
    def fn(m, s, p, l):
        return collections.OrderedDict()

    if private:
        m._register_state_dict_hook(fn)
        assert not hasattr(fn, '_from_public_api')
        assert len(m.state_dict()) == 0
    else:
        m.register_state_dict_post_hook(fn)
        assert hasattr(fn, '_from_public_api')
        with pytest.raises(RuntimeError, match='state_dict post-hook must return None'):
            m.state_dict()
        with pytest.raises(RuntimeError,
                           match='previously registered via register_state_dict_post_hook'):
            m._register_state_dict_hook(fn)


# == upstream TestModuleGlobalHooks (the ones not above) =====================================

def test_module_backward_global_hook_writeable(lib, clean_global_hooks):
    module = lib.nn.Sigmoid()
    input = lib.randn(5, 5, requires_grad=True)
    sig_x = lib.sigmoid(input)

    def bw_hook(module, grad_input, grad_output):
        assert all(isinstance(g, lib.Tensor) for g in grad_input + grad_output)
        return tuple(gi * 2 for gi in grad_input)

    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        lib.nn.modules.module.register_module_backward_hook(bw_hook)
    module(input).backward(lib.ones(5, 5))
    assert lib.allclose(input.grad, sig_x * (1 - sig_x) * 2)


def test_module_global_hooks_with_kwargs(lib, clean_global_hooks):
    def kwarg_global_forward_hook(module, args, kwargs, out):
        return out + kwargs['bias']

    model = _kwarg_model(lib)
    lib.nn.modules.module.register_module_forward_hook(kwarg_global_forward_hook,
                                                       with_kwargs=True)
    x, bias = lib.randn(10, 20), lib.randn(10, 20)
    out = model(x, bias=bias)
    assert lib.allclose(out, x + 2 * bias, rtol=0, atol=1e-5)


# == upstream TestModuleHookNN (the ones not above) ==========================================

def test_hook_forward_preforward_writable(lib):
    module = lib.nn.Sigmoid()
    input = lib.randn(5, 5, requires_grad=True)
    sig_x = lib.nn.functional.sigmoid(input)
    module.register_forward_pre_hook(lambda m, inp: lib.nn.functional.relu(inp[0]))
    module.register_forward_hook(lambda m, inp, out: -out)
    output = module(input)
    assert lib.allclose(output, -lib.nn.functional.sigmoid(lib.nn.functional.relu(input)))
    output.backward(lib.ones(5, 5) * 2, retain_graph=True)
    mask = input > 0
    assert lib.allclose(input.grad, -sig_x * (1 - sig_x) * 2 * mask)
