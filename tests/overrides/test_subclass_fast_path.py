"""The fast path for one Tensor subclass among plain values (overrides.handoff, and
Tensor.__torch_function__ running an op's copy that makes the subclass's result directly):
everything a handler can do to the call must still give what torch gives.

Each behaviour is checked twice in a row on a fresh class, since the first call of a new
class takes the general path (the class is not known yet) and later calls the fast one;
``twice`` asserts that both agree. Where torch has the behaviour, ``lib`` runs the same code
on ember and on torch.
"""
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed; "
                            "`pip install -e '.[test]'` brings it")
import ember  # noqa: E402
from ember.autograd import forward_ad as ember_fwad  # noqa: E402
from torch.autograd import forward_ad as torch_fwad  # noqa: E402

LIBS = pytest.mark.parametrize('lib', [ember, torch], ids=['ember', 'torch'])


def passthrough(lib, log=None, base=None):
    """A subclass whose handler passes every call on to Tensor's (the benchmark's)."""
    class Passthrough(base or lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if log is not None:
                log.append((func.__name__, types, len(args), kwargs))
            return super().__torch_function__(func, types, args, kwargs or {})
    return Passthrough


def sub(lib, cls, data=(1., 2., 3.), requires_grad=False):
    t = lib.tensor(list(data), requires_grad=requires_grad)
    return t.as_subclass(cls)


def logged(lib):
    """A pass-through subclass logging its handler's calls, an instance, and the log."""
    log = []
    cls = passthrough(lib, log)
    return cls, sub(lib, cls), log


def twice(fn):
    """``fn()`` on the general path (first call of a fresh class) and on the fast path;
    both must describe the same result."""
    first, second = fn(), fn()
    assert first == second
    return first


def describe(r):
    """Type, values, dtype, requires_grad and grad_fn name of a result (or of each item)."""
    if isinstance(r, (tuple, list)):
        return type(r).__name__, [describe(x) for x in r]
    return (type(r).__name__, r.tolist(), str(r.dtype).split('.')[-1], r.requires_grad,
            type(r.grad_fn).__name__ if r.grad_fn is not None else None)


def same(a, b):
    """``describe`` results equal, values to float32 precision, grad_fn names aside: torch's
    subclass results hang off an AliasBackward0 (its as_subclass makes an alias), ember's
    keep the op's own node."""
    (ta, va, *rest_a, _), (tb, vb, *rest_b, _) = a, b
    return ta == tb and rest_a == rest_b and np.allclose(va, vb, rtol=1e-6)


OPS = {
    'add scalar': lambda lib, x: x + 0.5,
    'radd scalar': lambda lib, x: 2 + x,
    'mul int': lambda lib, x: x * 3,
    'add alpha': lambda lib, x: x.add(1, alpha=2),
    'sub plain tensor': lambda lib, x: x - lib.ones(3),
    'plain tensor first': lambda lib, x: lib.ones(3) + x,
    'scalar first function': lambda lib, x: lib.mul(2., x),
    'same subclass twice': lambda lib, x: x * x,
    'comparison': lambda lib, x: x > 1.5,
    'unary method': lambda lib, x: x.exp(),
    'unary operator': lambda lib, x: -x,
    'chain': lambda lib, x: ((x + 1) * 2).sqrt(),
}


@pytest.mark.parametrize('op', list(OPS), ids=list(OPS))
def test_results_match_torch_on_both_paths(op):
    x = sub(ember, passthrough(ember), requires_grad=True)
    got = twice(lambda: describe(OPS[op](ember, x)))
    expected = describe(OPS[op](torch, sub(torch, passthrough(torch), requires_grad=True)))
    assert same(got, expected), (got, expected)
    plain = OPS[op](ember, ember.tensor([1., 2., 3.], requires_grad=True))
    assert got[-1] == describe(plain)[-1]   # the op's own grad_fn


def chain_grad(lib, cls):
    """The gradient of a chain of pointwise ops on a leaf of class ``cls``."""
    x = cls([0.1, 0.2, 0.3]).requires_grad_()
    y = x
    for _ in range(3):
        y = (y * 0.5 - 0.1).tanh() * y
    y.sum().backward()
    assert type(x.grad) is lib.Tensor   # (.grad stays what backward made it)
    return x.grad.tolist()


def test_gradients_flow_through_the_subclass_chain():
    got = twice(lambda: chain_grad(ember, passthrough(ember)))
    assert got == chain_grad(ember, ember.Tensor)
    np.testing.assert_allclose(got, chain_grad(torch, passthrough(torch)), rtol=1e-5)


@LIBS
def test_handler_gets_func_types_args_and_kwargs_none_as_torch_gives(lib):
    cls, x, log = logged(lib)
    for _ in range(2):
        log.clear()
        x + 1
        x * x
        x.exp()
        x.sum()
        x.shape
        lib.add(x, 1, alpha=2)
        x.sum(dim=0)
        assert [(n, t, a, k) for n, t, a, k in log] == [
            (log[0][0], (cls,), 2, None), (log[1][0], (cls,), 2, None), ('exp', (cls,), 1, None),
            ('sum', (cls,), 1, None), ('__get__', (cls,), 1, None),
            ('add', (cls,), 2, {'alpha': 2}), ('sum', (cls,), 1, {'dim': 0})]


@LIBS
def test_out_argument_reaches_the_handler_and_is_written(lib):
    cls, x, log = logged(lib)
    for _ in range(2):
        out = lib.zeros(3)
        r = lib.add(x, 1, out=out)
        assert type(r) is cls and r.tolist() == out.tolist() == [2., 3., 4.]
        assert [k for name, _, _, k in log if name == 'add'][-1] == {'out': out}


@LIBS
def test_handler_that_changes_the_arguments(lib):
    class Doubling(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func.__name__ in ('__add__', 'add'):
                args = (args[0], args[1] * 2)   # a new tuple: not the one it was given
            return super().__torch_function__(func, types, args, kwargs or {})
    x = sub(lib, Doubling)
    assert twice(lambda: describe(x + 1)) == ('Doubling', [3., 4., 5.], 'float32', False, None)


@LIBS
def test_handler_that_passes_on_another_function(lib):
    class AddIsMul(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func.__name__ in ('__add__', 'add'):
                func = lib.mul
            return super().__torch_function__(func, types, args, kwargs or {})
    x = sub(lib, AddIsMul)
    assert twice(lambda: describe(x + 3)) == ('AddIsMul', [3., 6., 9.], 'float32', False, None)
    assert twice(lambda: describe(x.sum())) == ('AddIsMul', 6., 'float32', False, None)


@LIBS
def test_handler_that_adds_keyword_arguments(lib):
    out = lib.zeros(3)

    class Keywords(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is lib.add:
                kwargs = {'alpha': 10}
            elif func is lib.mul:
                kwargs = {'out': out}
            return super().__torch_function__(func, types, args, kwargs or {})
    x = sub(lib, Keywords)
    assert twice(lambda: describe(lib.add(x, 1))) == ('Keywords', [11., 12., 13.], 'float32',
                                                      False, None)
    for k in range(2):
        r = lib.mul(x, k + 2)
        assert type(r) is Keywords and r.tolist() == out.tolist() == [k + 2., 2 * k + 4,
                                                                      3 * k + 6]


@LIBS
def test_handler_that_post_processes_the_result(lib):
    class Tagged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            r = super().__torch_function__(func, types, args, kwargs or {})
            if func.__name__ in ('__mul__', 'mul'):
                return 'tagged', type(r).__name__, r.tolist()
            return r
    x = sub(lib, Tagged)
    assert twice(lambda: x * 2) == ('tagged', 'Tagged', [2., 4., 6.])


@LIBS
def test_handler_calling_tensor_torch_function_on_tensor_itself_declines(lib):
    # Tensor.__torch_function__ bound to Tensor (not to the subclass) declines: the subclass
    # is not a superclass of Tensor
    class ViaTensor(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return lib.Tensor.__torch_function__(func, types, args, kwargs or {})
    x = sub(lib, ViaTensor)
    for _ in range(2):
        with pytest.raises(TypeError):
            x + 1
        with pytest.raises(TypeError):
            x.exp()


@LIBS
def test_handler_passing_on_other_types_gets_the_type_check(lib):
    class Unrelated(lib.Tensor):
        pass

    class OtherTypes(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, (Unrelated,), args, kwargs or {})
    x = sub(lib, OtherTypes)
    for _ in range(2):
        with pytest.raises(TypeError):
            x + 1


def test_the_second_call_takes_the_fast_path():
    # (white-box: the tests above rely on the first call of a fresh class taking the general
    # path and the next ones the fast path, which records the op's copy for the class)
    cls = passthrough(ember)
    x = sub(ember, cls)
    x + 1
    assert ember.Tensor.add not in ember.overrides._FAST_CLASS[cls].copies
    x + 1
    assert ember.Tensor.add in ember.overrides._FAST_CLASS[cls].copies


def test_declining_handler_raises_the_same_error_on_both_paths():
    class Declining(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    x = sub(ember, Declining)
    messages = []
    for _ in range(2):
        with pytest.raises(TypeError) as e:
            x.add(1)
        messages.append(str(e.value))
        # (the operator answers NotImplemented to that TypeError, as torch's does)
        with pytest.raises(TypeError) as e:
            x + 1
        messages.append(str(e.value))
    assert messages[0] == messages[2] == (
        "no implementation found for 'ember.Tensor.add' on types that implement "
        "__torch_function__: [Declining]")
    assert messages[1] == messages[3] == "unsupported operand type(s) for +: 'Declining' and 'int'"


def test_handler_calling_func_directly_gets_the_plain_result_on_both_paths():
    class Naive(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))   # not super(): ember does not recurse
    x = sub(ember, Naive)
    assert twice(lambda: describe(x + 1)) == ('Tensor', [2., 3., 4.], 'float32', False, None)


@LIBS
def test_state_is_restored_when_the_op_or_the_handler_raises(lib):
    cls, x, log = logged(lib)
    for _ in range(2):
        with pytest.raises(RuntimeError, match='must match the size'):
            x + lib.ones(2)
        log.clear()
        assert type(x + 1) is cls and len(log) == 1   # dispatch is back on

    class Raising(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            raise ValueError('from the handler')
    y = sub(lib, Raising)
    for _ in range(2):
        with pytest.raises(ValueError, match='from the handler'):
            y + 1
        assert type(x + 1) is cls


@LIBS
def test_mode_entered_outside_sees_the_call_before_the_subclass(lib):
    calls = []
    cls = passthrough(lib, calls)

    class Mode(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            calls.append(('mode', func.__name__))
            return func(*args, **(kwargs or {}))
    x = sub(lib, cls)
    x + 1
    for _ in range(2):
        calls.clear()
        with Mode():
            r = x + 1
        assert calls[0][0] == 'mode' and [c[0] for c in calls[1:]] == [calls[0][1]]
        assert type(r) is cls and r.tolist() == [2., 3., 4.]


@LIBS
def test_mode_entered_inside_the_handler_sees_the_inner_call(lib):
    seen = []

    class Mode(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    class Moded(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            with Mode():
                return super().__torch_function__(func, types, args, kwargs or {})
    x = sub(lib, Moded)
    for _ in range(2):
        seen.clear()
        r = x * 2
        assert len(seen) == 1 and type(r) is Moded and r.tolist() == [2., 4., 6.]


@LIBS
def test_disable_contexts_skip_the_handler(lib):
    cls, x, log = logged(lib)
    x + 1
    for ctx in (lib._C.DisableTorchFunctionSubclass, lib._C.DisableTorchFunction):
        for _ in range(2):
            log.clear()
            with ctx():
                r = x + 1
            assert type(r) is lib.Tensor and log == []
            assert type(x + 1) is cls and len(log) == 1


@LIBS
def test_nested_subclasses_keep_the_lowest_type(lib):
    log = []
    A = passthrough(lib, log)
    B = passthrough(lib, log, base=A)

    class C(A):   # inherits A's handler
        pass
    a, b, c = sub(lib, A), sub(lib, B), sub(lib, C)
    for _ in range(2):
        log.clear()
        assert type(b + 1) is B and type(c + 1) is C and type(a + 1) is A
        # (B's handler, then A's through super(); C has A's)
        assert [entry[1] for entry in log] == [(B,), (B,), (C,), (A,)]
        log.clear()
        assert type(a + b) is B and type(b * a) is B
        assert [entry[1] for entry in log] == [(B, A)] * 4


@LIBS
def test_tuple_and_list_results_are_converted(lib):
    cls = passthrough(lib)
    x = sub(lib, cls, data=(3., 1., 2.))
    for _ in range(2):
        r = x.max(0)
        assert type(r).__name__ == 'max' and type(r.values) is cls and type(r.indices) is cls
        parts = x.unbind()
        assert type(parts) is tuple and [type(p) for p in parts] == [cls] * 3
        halves = x.split(2)
        assert [type(h) for h in halves] == [cls, cls] and halves[0].tolist() == [3., 1.]


@LIBS
def test_inplace_ops_return_the_same_object(lib):
    cls = passthrough(lib)
    x = sub(lib, cls)
    for _ in range(2):
        r = x.add_(1)
        assert r is x and type(x) is cls
        y = x
        y += 1
        assert y is x and type(y) is cls
    assert x.tolist() == [5., 6., 7.]


@LIBS
def test_instance_attributes_stay_on_the_instance(lib):
    cls = passthrough(lib)
    cls.kind = 'class attribute'
    x = sub(lib, cls)
    x.note = 'mine'
    for _ in range(2):
        r = x + 1
        assert r.kind == 'class attribute' and not hasattr(r, 'note') and x.note == 'mine'


@LIBS
def test_subclass_with_its_own_slots(lib):
    class Slotted(lib.Tensor):
        __slots__ = ('extra',)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs or {})
    x = sub(lib, Slotted)
    assert twice(lambda: describe(x * 2 + 1)) == ('Slotted', [3., 5., 7.], 'float32', False,
                                                  None)


@LIBS
def test_handler_replaced_after_use_is_the_one_called(lib):
    log = []
    cls = passthrough(lib)
    x = sub(lib, cls)
    x + 1
    x + 1

    @classmethod
    def counting(cls_, func, types, args=(), kwargs=None):
        log.append(func.__name__)
        return lib.Tensor.__torch_function__.__func__(cls_, func, types, args, kwargs)
    cls.__torch_function__ = counting
    r = x + 1
    assert log and type(r) is cls


@LIBS
@pytest.mark.parametrize('handler', ['passthrough', 'default'])
def test_forward_ad_tangents_survive_on_subclass_results(lib, handler):
    fwad = ember_fwad if lib is ember else torch_fwad
    cls = passthrough(lib) if handler == 'passthrough' else type('Default', (lib.Tensor,), {})
    with fwad.dual_level():
        dual = fwad.make_dual(lib.ones(3), lib.tensor([1., 2., 3.]))
        x = dual.as_subclass(cls)
        assert fwad.unpack_dual(x).tangent.tolist() == [1., 2., 3.]
        for _ in range(2):
            r = (x * 2).exp()
            assert type(r) is cls
            np.testing.assert_allclose(fwad.unpack_dual(r).tangent.tolist(),
                                       (np.exp(2.) * 2 * np.array([1., 2., 3.])).tolist(),
                                       rtol=1e-6)
            assert fwad.unpack_dual(x.sum()).tangent.item() == 6.


def test_threads_keep_their_own_fast_path_state():
    # A handler waits in one thread while another thread computes with the same subclass
    # and with plain tensors; neither sees the other's state.
    inside, release = threading.Event(), threading.Event()
    cls_log = []

    class Waiting(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func.__name__ not in ('add', 'mul'):
                return super().__torch_function__(func, types, args, kwargs or {})
            cls_log.append(threading.current_thread().name)
            if threading.current_thread().name == 'waiter':
                inside.set()
                release.wait(5)
            return super().__torch_function__(func, types, args, kwargs or {})
    x = sub(ember, Waiting)
    x + 1  # (the class is known: later calls take the fast path)
    results = {}
    waiter = threading.Thread(target=lambda: results.update(waiter=x * 2), name='waiter')
    waiter.start()
    assert inside.wait(5)
    other = x + 10
    plain = ember.ones(3) + 1
    release.set()
    waiter.join(5)
    assert type(other) is Waiting and other.tolist() == [11., 12., 13.]
    assert type(plain) is ember.Tensor and plain.tolist() == [2., 2., 2.]
    assert type(results['waiter']) is Waiting and results['waiter'].tolist() == [2., 4., 6.]
    assert cls_log.count('waiter') == 1 and cls_log.count('MainThread') == 2
