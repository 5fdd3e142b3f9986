"""Exception classes and silent acceptances the differential fuzzer found (issue 15, fourth
sweep: seeds 600-629 and 700-799), functions n-z and ``_``/dunder names: each bad call runs
on ember and torch (``tests.oracle.oracle.check``), which must raise the same class with the
same message, the first check torch makes deciding which; a good call next to it must
agree in value.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

F16, F32, F64, I64, I32, U8, B = np.float16, np.float32, np.float64, np.int64, np.int32, \
    np.uint8, np.bool_
C64, C128 = np.complex64, np.complex128
NAN, INF = float('nan'), float('inf')


def same_error(fn, *args):
    check(fn, *args, grad=False, match_message=True)


def same(fn, *args):
    check(fn, *args, grad=False)


def arr(shape, dtype=F32):
    """Distinct values of ``shape`` (a number range, cast)."""
    n = int(np.prod(shape))
    return (np.arange(n, dtype=F64).reshape(shape) / 3 - 1).astype(dtype)


# -- a complex correction / order is read as a double (refused when its imaginary part is
#    not zero) before the dims are looked at --------------------------------------------------
@pytest.mark.parametrize('op', ['var', 'std', 'var_mean', 'std_mean'])
@pytest.mark.parametrize('corr,dim', [(1j, None), (1 + 1j, 5), (0.5 + 0j, 0), (-0.3 + 0.7j, 0)])
@pytest.mark.parametrize('dtype', [F64, C128])
def test_var_std_complex_correction(op, corr, dim, dtype):
    fn = (lambda T, x: getattr(T, op)(x, correction=corr)) if dim is None else \
        (lambda T, x: getattr(T, op)(x, dim, correction=corr))
    check(fn, arr((2, 3), dtype), grad=False, match_message=True)


def test_var_tensor_correction():
    same_error(lambda T, x: T.var(x, 0, correction=T.tensor(1j)), arr((3,)))
    same(lambda T, x: T.var(x, 0, correction=T.tensor(1.)), arr((3,)))


@pytest.mark.parametrize('fn', [
    lambda T, x: T.norm(x, 1j),
    lambda T, x: x.norm(1 + 0j),
    lambda T, x: T.linalg.vector_norm(x, 2j, dim=7),
    lambda T, x: T.linalg.vector_norm(x, 2j, dtype=T.int64),
    lambda T, x: T.linalg.vector_norm(x.long(), 2j),
    lambda T, x: T._foreach_norm([x], 1j),
    lambda T, x: T._foreach_norm([x.long()], 2 + 0j),
    lambda T, x: T._foreach_norm([], 1j),
    lambda T, x: T._foreach_powsum([x], 1j),
    lambda T, x: T._foreach_powsum([x.to(T.complex64)], -0.563 + 0.244j),
    lambda T, x: T._foreach_powsum([x.to(T.complex64)], 0.5 + 0j),
    lambda T, x: T._foreach_powsum([x], 2 + 0j),
])
def test_complex_norm_order(fn):
    check(fn, arr((4,)), grad=False, match_message=True)


# -- slice_scatter / slice_copy: a 0-dim input is refused before the dim and the step ------
@pytest.mark.parametrize('fn', [
    lambda T, x: x.slice_scatter(x, 0, 0, 3, -1),
    lambda T, x: T.slice_scatter(x, x.reshape(1), 5, 0, 3, 1),
    lambda T, x: T.slice_copy(x, 0, 0, 3, -1),
    lambda T, x: T.slice_copy(x, 5, 0, 3, 0),
    lambda T, x: T.slice_copy(x.reshape(1), 5, 0, 3, -1),
    lambda T, x: T.slice_copy(x.reshape(1), 0, 0, 3, 0),
    lambda T, x: x.reshape(1).slice_scatter(x.reshape(1), 0, 0, None, -2),
])
def test_slice_of_a_0dim_tensor(fn):
    same_error(fn, np.array(2.5, F32))


def test_slice_still_slices():
    same(lambda T, x: T.slice_copy(x, -1, 1, None, 2), arr((2, 3)))
    same(lambda T, x: x.slice_scatter(T.zeros(2, 2), 1, 0, 3, 2), arr((2, 4)))


# -- uniform_: torch's bounds checks on its two numbers, for the tensor's dtype --------------
@pytest.mark.parametrize('dtype', [F16, F32, F64, C64, C128, 'bfloat16'])
@pytest.mark.parametrize('bounds', [(NAN,), (-1.0, NAN), (0, INF), (-INF, 0), (-3e38, 3e38),
                                    (-3.5e38, 0), (-1e308, 1e308), (-60000, 60000), (0, 1e6),
                                    (1e39, 1e39), (2, 1)])
def test_uniform_bounds(dtype, bounds):
    def fn(T, x):
        if dtype == 'bfloat16':
            x = x.to(T.bfloat16)
        return x.uniform_(*bounds).isfinite().all()  # (the samples differ)
    same_error(fn, arr((2, 3), F32 if dtype == 'bfloat16' else dtype))


@pytest.mark.parametrize('kw', [{'from': 2.0}, {'from': 2.0, 'to': 3.0}, {'to': 5.0}])
def test_uniform_keywords(kw):
    lo, hi = kw.get('from', 0.0), kw.get('to', 1.0)
    if lo > hi:
        same_error(lambda T, x: x.uniform_(**kw), arr((8,)))
    else:
        same(lambda T, x: ((x.uniform_(**kw) >= lo) & (x < hi)).all()
             & (x > (lo + hi) / 2).any(), arr((64,)))


# -- rnn_tanh / rnn_relu / gru: torch's order -- parameters counted, the hidden state split
#    into layers (IndexError for a 0-dim one), the two lists paired for two directions and
#    counted against num_layers, the packed sizes read as int64, the whole input projected
def _rnn_args(T, spec):
    return [T.ones(s) if isinstance(s, tuple) else _rnn_args(T, s) if isinstance(s, list)
            else s for s in spec]


RNN_CASES = [
    # (input, [batch_sizes,] hx, params, has_biases, num_layers, dropout, train, bidir[, bf])
    ((), (), (), [(), ()], False, 1, 0.25, True, True),
    ((), (), [(), ()], False, 0, 2.0, True, False, False),
    ((), (), [(), ()], False, 3, 0.25, True, True, False),
    ((3,), (2, 2, 3, 4), (0,), [(3,), (3,)], False, 1, 0.0, True, False),
    ((1, 1, 2), (1, 1, 3), [(3, 2), (3, 3)], False, 2, 0.0, True, False, False),
    ((1, 1, 2), (1, 1, 3), [(3, 2), (3, 3)], False, 1, 0.0, True, True, False),
    ((1, 1, 2), (2, 1, 3), [(3, 2), (3, 3)], False, 1, 0.0, True, False, False),
    ((1, 1, 2), (), [(3, 2), (3, 3)], False, 1, 0.0, True, False, True),
    ((), (1, 1, 3), [(3, 2), (3, 3)], False, 1, 0.0, True, False, True),
    ((), (1, 1, 3), [(3, 2), (3, 3)], False, 1, 0.0, True, False, False),
    ((1, 1, 2), (), [(3, 2)], False, 1, 0.0, True, False, False),
    ((1, 1, 2), (3, 1, 3), [(3, 2), (3, 3)] * 2, False, 1, 0.0, True, True, False),
]


@pytest.mark.parametrize('op', ['rnn_tanh', 'rnn_relu', 'gru'])
@pytest.mark.parametrize('case', RNN_CASES, ids=str)
def test_recurrent_check_order(op, case):
    def fn(T):
        args = _rnn_args(T, case)
        if op == 'gru':  # (three gates: the weights' rows tripled)
            args = [[T.ones(3 * p.shape[0], *p.shape[1:]) if p.dim() == 2 else p
                     for p in a] if isinstance(a, list) else a for a in args]
        return getattr(T, op)(*args)
    same_error(fn)


@pytest.mark.parametrize('sizes', [np.array([3.0], F32), np.array([3], I32),
                                   np.array([-1.2], F64), np.array([3], I64)])
def test_recurrent_packed_sizes_are_int64(sizes):
    same(lambda T, b: T.rnn_tanh(T.ones(3, 2), b, T.ones(1, 3, 3) / 2,
                                 [T.ones(3, 2) / 4, T.ones(3, 3) / 5], False, 1, 0.0, True,
                                 False)[0].sum(), sizes)


def test_recurrent_two_directions_still_run():
    same(lambda T: T.rnn_tanh(T.ones(3, 2), T.tensor([3]), T.ones(2, 3, 3) / 2,
                              [T.ones(3, 2) / 4, T.ones(3, 3) / 5] * 2, False, 1, 0.0, True,
                              True))
