"""Module hooks, after the scenarios of PyTorch's test/nn/test_module_hooks.py and the hook
tests of test/test_nn.py: forward pre-hooks, forward hooks, full backward pre-hooks and full
backward hooks. Every scenario is written once, run on ember and on real torch (``lib``),
and what it observes -- call logs, values, gradients, exception types and messages -- must
be the same."""
import copy
import warnings

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch
from .test_module_upstream import outcome, same



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
