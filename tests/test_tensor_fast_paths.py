"""Structural guards for the hot path (no timings here: benchmarks/ measures speed)."""
import pytest

import ember


def test_tensor_attribute_writes_stay_on_cpythons_fast_path():
    # A Python-level __setattr__ or __delattr__ on Tensor (CPython gives both one slot) sends
    # every attribute write -- four per new tensor -- through a Python call: small-op chains
    # ran 25 % slower with only a __delattr__ defined.
    for klass in ember.Tensor.__mro__[:-1]:
        assert '__setattr__' not in vars(klass) and '__delattr__' not in vars(klass), klass


def test_node_attribute_reads_stay_on_cpythons_fast_path():
    # A __getattr__ (or __getattribute__) on a graph node class makes CPython route every
    # attribute read of every node through a slower hook: the engine and custom Functions
    # read node attributes constantly (a Node.__getattr__ slowed the note's MulConstant
    # chain by 7 %). Named saved values are properties on their own classes instead.
    from ember.autograd.graph import Node
    from ember.autograd.function import BackwardCFunction
    from ember._ops.pointwise import MulBackward0
    for cls in (Node, BackwardCFunction, MulBackward0):
        for klass in cls.__mro__[:-1]:
            assert '__getattr__' not in vars(klass), klass
            assert '__getattribute__' not in vars(klass), klass
    assert isinstance(vars(MulBackward0)['_saved_self'], property)


def test_a_well_formed_call_skips_the_dtype_refusal_check(monkeypatch):
    # torch's kernels of sub and clamp refuse some dtypes (bool, complex); a float call must
    # not pay for looking (the full check cost 2 us of a 1.6 us call), a complex one is
    # refused.
    from ember._ops import _args
    x = ember.ones(3)
    c = x.to(ember.complex64)
    for z in (x, c):  # (an op's first call is checked in full: it settles the fast path)
        try:
            ember.sub(z, z), ember.clamp(z, 0)
        except RuntimeError:
            pass
    calls = []
    real = _args.refuse_dtypes
    monkeypatch.setattr(_args, 'refuse_dtypes', lambda *a: calls.append(a) or real(*a))
    for _ in range(3):
        ember.sub(x, x), ember.clamp(x, 0)
    assert calls == []
    with pytest.raises(NotImplementedError, match="clamp is not supported for complex types"):
        ember.clamp(c, 0)
    assert calls


def test_parameters_take_the_fast_path(monkeypatch):
    # Every op of a training step touches a Parameter; a Parameter opts out of
    # __torch_function__, so a call with one dispatches and checks as a call with a plain
    # tensor, and it must not pay for the full argument check on every call (it did: about
    # a third of the checked calls of a GPT-2 block step).
    from ember._ops import _args
    p = ember.nn.Parameter(ember.ones(2, 3))
    x = ember.ones(4, 3)
    ember.nn.functional.linear(x, p), p.t(), p.dim()  # (first calls settle the fast path)
    calls = []
    real = _args.check
    monkeypatch.setattr(_args, 'check', lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    for _ in range(3):
        y = ember.nn.functional.linear(x, p)
        assert type(y) is ember.Tensor and y.grad_fn is not None
        assert p.t().shape == (3, 2) and p.dim() == 2
    assert calls == []


@pytest.mark.parametrize('call, error', [
    (lambda p: p.addcdiv(1.5, p), TypeError),   # a number where torch's overloads take none
    (lambda p: ember.lt(p.to(ember.complex64), p), RuntimeError),  # a refused dtype
    (lambda p: ember.permute(p, 1, 0), TypeError),  # the function form takes no unpacked dims
], ids=['number_position', 'refused_dtype', 'unpacked'])
def test_parameters_on_the_fast_path_are_still_checked(call, error):
    p = ember.nn.Parameter(ember.ones(2, 2))
    for _ in range(3):   # (the first call is checked in full; the later ones are not)
        with pytest.raises(error):
            call(p)


def test_a_parameter_subclass_with_its_own_protocol_still_dispatches():
    seen = []

    class Tracked(ember.nn.Parameter):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    t = Tracked(ember.ones(2))
    for _ in range(2):
        ember.add(t, t)
    assert seen == ['add', 'add']


def test_parameter_of_integers_gets_torchs_message():
    from tests.oracle.oracle import check
    check(lambda T: T.nn.Parameter(T.ones(2, dtype=T.int64)), grad=False, match_message=True)
