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
    return np.asarray((np.arange(n, dtype=F64).reshape(shape) / 3 - 1).astype(dtype))


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


# -- nll_loss: a 1-D input takes a target of one element (ValueError); the kernel refuses a
#    non-floating input, then a weight of another dtype, before it reads the targets --------
NLL_CASES = [
    ((3,), F32, np.array([1, 1, 1]), None),
    ((1,), U8, np.array([9, 7, 1], U8), None),
    ((4,), U8, np.zeros(0, U8), np.array([5], U8)),
    ((0,), I64, np.zeros(0, I64), None),
    ((3,), I64, np.array([5]), None),
    ((0, 3), I64, np.zeros(0, I64), None),
    ((2, 3), B, np.zeros(2, I64), None),
    ((2, 3), C64, np.zeros(2, I64), None),
    ((2, 3, 4), I64, np.zeros((2, 4), I64), None),
    ((2, 2, 3, 4), I64, np.zeros((2, 3, 4), I64) - 2, None),
    ((2, 3), F64, np.zeros(2, I64), np.ones(3, F32)),
    ((0, 3), F64, np.zeros(0, I64), np.ones(3, F32)),
    ((2, 3, 4), F64, np.zeros((2, 4), I64) + 7, np.ones(3, F32)),
    ((3,), F16, np.array([1]), np.ones(3, F32)),
    ((2, 3), F16, np.zeros(2, I64), np.ones(3, F16)),
    ((2, 3), F32, np.array([0, 2]), np.array([0.5, 1.0, 2.0], F32)),
]


@pytest.mark.parametrize('case', NLL_CASES, ids=str)
def test_nll_loss_check_order(case):
    shape, dtype, target, weight = case
    args = (arr(shape, dtype), target) + (() if weight is None else (weight,))
    check(lambda T, x, t, *w: T.nn.functional.nll_loss(x, t, *w), *args, grad=False,
          match_message=True)


def test_cross_entropy_weight_dtype():
    same_error(lambda T, x, t, w: T.nn.functional.cross_entropy(x, t, w), arr((2, 3), F64),
               np.zeros(2, I64), np.ones(3, F32))
    same(lambda T, x, t, w: T.nn.functional.cross_entropy(x, t, w), arr((2, 3), F64),
         arr((2, 3), F64), np.ones(3, F32))


# -- native_batch_norm: torch's kernel's order -- a 0-dim input first, in evaluation the pair
#    of running statistics, the dtype and the parameters' dtypes; the channel dim; a strided
#    integer input's batch mean in training; the pair, dtype and mixed dtypes; an empty input
#    in training; running statistics of one dim --------------------------------------------
def _bn_args(spec):
    return tuple(None if s is None else arr(*s) for s in spec)


BN_CASES = [
    # (input, weight, bias, running_mean, running_var), training
    ((((), C128), ((), C128), ((), C128), ((), C128), None), False),
    ((((), F32), None, ((), F32), None, ((), F32)), False),
    ((((), F32), None, None, None, None), True),
    ((((), np.int16), None, ((), np.int16), None, None), False),
    ((((4,), F64), ((2, 2, 3, 4), F64), None, None, None), False),
    ((((4,), F64), None, None, ((4,), F32), ((4,), F32)), False),
    ((((4,), F64), None, None, ((4,), F32), ((4,), F32)), True),
    ((((4,), F64), ((4,), F32), None, None, None), False),
    ((((2, 4), F64), ((4,), F32), None, None, None), False),
    ((((2, 4), F64), ((4,), F32), None, None, None), True),
    ((((2, 3), F64), None, None, ((3,), F32), ((3,), F32)), True),
    ((((2, 3), F32), ((3,), F64), None, ((3,), F32), ((3,), F32)), False),
    ((((2, 3), F32), None, None, ((3,), I32), ((3,), I32)), False),
    ((((2, 3), F16), ((3,), F32), None, ((3,), F16), ((3,), F16)), True),
    ((((2, 3), F16), None, None, ((3,), F64), ((3,), F32)), True),
    ((((0, 3), F64), None, None, ((3,), F32), ((3,), F32)), False),
    ((((0, 3), F32), None, None, ((1, 3), F32), ((1, 3), F32)), True),
    ((((0, 3), F32), None, None, ((3,), F32), ((3,), F32)), True),
    ((((2, 3), F32), None, None, ((1, 3), F32), ((1, 3), F32)), False),
    ((((2, 3), F32), ((1, 3), F32), None, ((3,), F32), ((1, 3), F32)), True),
    ((((2, 1), F32), None, None, ((), F32), ((), F32)), True),
    ((((3, 3), B), None, None, ((3, 3), B), None), True),
    ((((2, 3), I64), None, None, ((3,), F32), ((3,), F32)), True),
]


@pytest.mark.parametrize('case', BN_CASES, ids=str)
def test_native_batch_norm_check_order(case):
    spec, training = case
    same_error(lambda T, x, *p: T.native_batch_norm(x, *p, training, 0.5, 1e-5),
               *_bn_args(spec))


@pytest.mark.parametrize('layout', ['transposed', 'strided'])
@pytest.mark.parametrize('dtype', [B, I32])
def test_native_batch_norm_strided_integer_input_takes_the_mean_first(layout, dtype):
    def fn(T, x, rv):
        x = x.t() if layout == 'transposed' else x[:, ::2]
        return T.native_batch_norm(x, None, None, None, rv, True, 2.0, 1e-5)
    same_error(fn, arr((3, 6), dtype), arr((3,), dtype))


def test_batch_norm_mixed_dtypes():
    same_error(lambda T, x, m, v: T.batch_norm(x, None, None, m, v, True, 0.1, 1e-5, False),
               arr((2, 3), F64), arr((3,)), arr((3,)))
    same_error(lambda T, x, m, v: T.nn.functional.batch_norm(x, m, v), arr((2, 3), F64),
               arr((3,)), arr((3,)) + 2)
    same(lambda T, x, m, v: T.nn.functional.batch_norm(x, m, v), arr((2, 3), F16),
         arr((3,)), arr((3,)) + 2)
    same(lambda T, x, m, v: T.native_batch_norm(x, None, None, m, v, False, 0.1, 1e-5),
         arr((2, 3), 'float32'), arr((3,)), arr((3,)) + 2)


# -- renorm: each number real and in range (a NaN maxnorm too), the rank, the dim, then the
#    norm's dtype refusal -------------------------------------------------------------------
@pytest.mark.parametrize('shape,dtype,p,dim,maxnorm', [
    ((2, 3), F32, 2.0, 0, NAN), ((1, 3), F32, 3, 5, NAN), ((2, 3), F32, 2, 5, -1),
    ((2, 3), F32, 2, 5, -1.5), ((2, 3), I64, 2, 5, 1.0), ((2, 3), B, 2, 0, 1.0),
    ((2, 3), U8, 2, 0, 1.0), ((0, 3), I64, 2, 0, 1.0), ((2, 3), I64, NAN, 0, 1.0),
    ((2, 3), F32, -1, 0, 1j), ((2, 3), F32, 1j, 0, -1), ((3,), F32, 3, 5, 1.0),
    ((2, 3), F32, 2, 0, 1.0), ((2, 3), C64, 2, 0, 1.0),
])
def test_renorm_check_order(shape, dtype, p, dim, maxnorm):
    check(lambda T, x: T.renorm(x, p, dim, maxnorm), arr(shape, dtype), grad=False,
          match_message=True)
    check(lambda T, x: x.clone().renorm_(p, dim, maxnorm), arr(shape, dtype), grad=False,
          match_message=True)


# -- stack wraps the dim against the first tensor before it compares the sizes ------------
@pytest.mark.parametrize('shapes,dim', [([(1, 1, 3, 3), (1, 2, 3, 3)], 5),
                                        ([(2, 0), (2, 2, 3, 4)], -4),
                                        ([(2, 0), (2, 2, 3, 4)], -3), ([(2, 0)], 5)])
def test_stack_dim_before_sizes(shapes, dim):
    same_error(lambda T, *xs: T.stack(list(xs), dim), *[arr(s) for s in shapes])


# -- quantile: a number q's range, the interpolation, the input / q / out checks, the dim,
#    then a tensor q's values -----------------------------------------------------------------
Q_CASES = [
    ((2, 3), F32, np.array([-0.8, 0.5], F32), 5, {}),
    ((2, 3), I64, 1.5, 5, {}), ((2, 3), I64, 2, 5, {}), ((2, 3), I64, NAN, 5, {}),
    ((0,), I64, 0.5, 5, {}), ((0,), I64, np.ones((2, 2)), 5, {}),
    ((2,), I64, np.ones((2, 2)), 5, {}), ((2,), I64, 1.5, None, {'interpolation': 'foo'}),
    ((2,), I64, 0.5, None, {'interpolation': 'foo'}),
    ((2, 3), F32, np.array([0.5], F64), 5, {}),
    ((2, 3), F32, np.array([0.5, 2.0], F32), 1, {}),
    ((2, 3), F32, np.array([0.5, 0.2], F32), 1, {'keepdim': True}),
    ((2, 3), F64, 0.3, None, {}), ((), F32, 0.3, 0, {}),
]


@pytest.mark.parametrize('op', ['quantile', 'nanquantile'])
@pytest.mark.parametrize('case', Q_CASES, ids=str)
def test_quantile_check_order(op, case):
    shape, dtype, q, dim, kw = case
    if isinstance(q, np.ndarray):
        check(lambda T, x, q: getattr(T, op)(x, q, dim, **kw), arr(shape, dtype), q,
              grad=False, match_message=True)
    else:
        check(lambda T, x: getattr(T, op)(x, q, dim, **kw), arr(shape, dtype), grad=False,
              match_message=True)


def test_quantile_out_dtype_before_the_dim():
    same_error(lambda T, x: T.quantile(x, 0.5, 5, out=T.ones(2, dtype=T.long)), arr((2, 3)))
    same_error(lambda T, x, q: T.quantile(x, q, 1, out=T.ones(2, dtype=T.long)), arr((2, 3)),
               np.array([0.5, 2.0], F32))


# -- repeat_interleave refuses repeats of two dims before it reads the dim; split refuses a
#    negative size before it reads the dim; nansum / sum read the dims before autograd's
#    refusal of the result dtype (nansum: then a complex input); ormqr reads tau's last size
def test_repeat_interleave_repeats_dims_first():
    same_error(lambda T, x, r: x.repeat_interleave(r, 2), arr((3,), np.int8),
               np.array([[2, 0, 1]], np.int8))
    same_error(lambda T, x, r: T.repeat_interleave(x, r, 2, output_size=0), arr((4, 4), B),
               arr((4, 4), B))
    same_error(lambda T, x, r: T.repeat_interleave(x, r, 2), arr((4, 4)), np.ones(4, I64))
    same(lambda T, x, r: T.repeat_interleave(x, r, 1), arr((2, 2)), np.array([1, 2]))


@pytest.mark.parametrize('op', ['split', 'unsafe_split'])
def test_split_negative_size_before_the_dim(op):
    same_error(lambda T, x: getattr(T, op)(x, -3, 1), arr((0,), C64))
    same_error(lambda T, x: getattr(T, op)(x, -3, 0), arr((3,)))
    same_error(lambda T, x: x.split(-3, 1), arr((0,)))


@pytest.mark.parametrize('fn', [
    lambda T, x: T.nansum(x.double().requires_grad_(), [0, 1, 2], True, dtype=T.uint8),
    lambda T, x: T.sum(x.double().requires_grad_(), [0, 1, 2], True, dtype=T.uint8),
    lambda T, x: T.sum(x.double().requires_grad_(), dtype=T.uint8),
    lambda T, x: T.nansum(x.to(T.complex64), 5, dtype=T.float32),
    lambda T, x: T.nansum(x.to(T.complex64), 5),
    lambda T, x: T.nansum(x.to(T.complex64)),
    lambda T, x: T.nansum(x.to(T.complex64).requires_grad_(), 1, dtype=T.int64),
    lambda T, x: T.nansum(x.long(), [0, 1, 2], True, dtype=T.uint8),
])
def test_sum_dims_before_dtype_refusals(fn):
    same_error(fn, arr((1, 3)))


@pytest.mark.parametrize('tau', [np.array(0.5), np.array(False), np.ones(2)])
def test_ormqr_zero_dim_tau(tau):
    a = arr((2, 3, 3), B if tau.dtype == B else F64)
    same_error(lambda T, a, t: T.ormqr(a, t, a.clone()), a, tau)


# -- unfold / fold: torch reads dims 1 and 2 before the rank, counts the blocks rounding
#    down, and its kernels refuse integer types (bool passes) after the shape checks ---------
@pytest.mark.parametrize('shape,dtype,args', [
    ((2, 0), I64, (3, 3, 1, 1)), ((3,), F32, (2,)), ((), F32, (2,)), ((0, 3), F32, (2,)),
    ((2, 3), F32, (2,)), ((2, 3, 3), I32, (2, 1, 1)), ((2, 3, 3), np.int8, (2,)),
    ((2, 3, 3), U8, (2,)), ((1, 2, 3, 3, 3), F32, (2,)), ((1, 2, 0, 3, 3), F32, (2,)),
    ((2, 3, 3), I32, (2, 3, 0, 2)), ((1, 1, 3, 3), F32, (2, 3, 0, 2)),
    ((2, 3, 3), C64, (2, 3, 0, 2)), ((2, 3, 3), F32, (2,)), ((2, 3, 3), B, (2,)),
    ((2, 3, 3), C64, (2,)), ((0, 2, 3, 3), F16, (2,)), ((1, 1, 3, 3), F32, (2, 2, 0, 3)),
])
def test_unfold_check_order(shape, dtype, args):
    same_error(lambda T, x: T.nn.functional.unfold(x, *args), arr(shape, dtype))


@pytest.mark.parametrize('shape,dtype,args', [
    ((1, 4, 1), F32, ((3, 3), 2, 3, 0, 2)), ((1, 4, 4), I64, ((3, 3), 2)),
    ((1, 4, 4), U8, ((3, 3), 2)), ((1, 4, 4), B, ((3, 3), 2)), ((1, 4, 4), F32, ((3, 3), 2)),
])
def test_fold_check_order(shape, dtype, args):
    same_error(lambda T, x: T.nn.functional.fold(x, *args), arr(shape, dtype))


# -- linalg.pinv: a number atol without rtol sizes the default rtol from the matrix first (its
#    IndexError for fewer than two dims); tolerance tensors that require grad are refused
#    before anything else ----------------------------------------------------------------------
@pytest.mark.parametrize('shape,dtype,kw', [
    ((3,), B, {'atol': -1.0, 'hermitian': True}), ((4,), F32, {'atol': INF}),
    ((), F32, {'atol': 0.1}), ((4,), F32, {'atol': 0.0}), ((4,), I64, {'atol': 0.1}),
    ((4,), F32, {'atol': 0.1, 'rtol': 0.2}), ((4,), F32, {'rtol': 0.1}), ((4,), F32, {}),
    ((3, 3), F64, {'atol': 0.5}),
])
def test_pinv_number_atol_reads_the_size(shape, dtype, kw):
    same_error(lambda T, a: T.linalg.pinv(a, **kw), arr(shape, dtype))


@pytest.mark.parametrize('shape,tol,kw', [((3, 3), (3,), 'rcond'), ((3, 3), (3,), 'rtol'),
                                          ((3, 3), (3,), 'atol'), ((2, 0), (3, 1), 'rcond'),
                                          ((4,), (), 'rtol'), ((3, 4), (2, 2, 3, 4), 'rtol')])
def test_pinv_tolerances_not_differentiable(shape, tol, kw):
    def fn(T, a, t):
        t = t.requires_grad_()
        return T.linalg.pinv(a, t) if kw == 'rcond' else T.linalg.pinv(a, **{kw: t})
    same_error(fn, arr(shape, F64), arr(tol, F64))
    same_error(lambda T, a, t: T.linalg.pinv(a, atol=t.requires_grad_(),
                                             rtol=t.clone().requires_grad_()),
               arr(shape, F64), arr(tol, F64))


# -- linalg.solve / solve_ex: B of no dims is refused as not a matrix, batch dims that do not
#    broadcast get torch's message, and solve_ex checks its operands before it looks for a
#    singular A ----------------------------------------------------------------------------------
@pytest.mark.parametrize('op', ['solve', 'solve_ex'])
@pytest.mark.parametrize('a,b,left', [
    (((4, 4), F64), ((2, 0), F16), False), (((2, 3, 3), F64), ((), F64), False),
    (((2, 3, 3), F64), ((), F64), True), (((4, 4), I64), ((), F32), False),
    (((2, 4, 4), F32), ((3, 4, 4), F32), True), (((4, 4), F32), ((4,), F32), False),
    (((4, 4), F32), ((3,), F32), False),
])
def test_solve_operands_before_singularity(op, a, b, left):
    same_error(lambda T, A, B: getattr(T.linalg, op)(A, B, left=left), arr(*a), arr(*b))
    if op == 'solve_ex':
        same_error(lambda T, A, B: T.linalg.solve_ex(A, B, left=left, check_errors=True),
                   np.ones(a[0], a[1]), arr(*b))


def test_solve_still_broadcasts():
    eye = np.broadcast_to(np.eye(4, dtype=F32), (2, 3, 4, 4)).copy()
    same(lambda T, A, B: T.linalg.solve(A, B), eye, arr((3, 4, 2)))
    same(lambda T, A, B: T.linalg.solve(A, B, left=False), eye, arr((3, 4)))
    same(lambda T, A, B: T.linalg.solve_ex(A, B)[1], np.ones((2, 4, 4), F32), arr((2, 4, 4)))


# -- scaled_dot_product_attention: one dtype, the ranks, the mask's dtype, is_causal with a
#    mask, then the math: integer/bool query and key scaled into floats (value's dtype refused
#    by the last product), and the mask added in place (it may not grow the scores) -------------
SDPA_CASES = [
    (((1, 3), B), ((2, 3), B), ((2, 3), B), None, {}),
    (((1, 2, 3, 3), B), ((1, 2, 3, 3), B), ((1, 2, 3, 3), B), None, {}),
    (((3, 3), 'bfloat16'), ((3, 3), F32), ((3, 3), F16), None, {}),
    (((3, 3), I64), ((3, 3), I64), ((3, 3), I64), None, {}),
    (((2, 3, 3), np.int16), ((2, 3, 3), np.int16), ((2, 3, 3), np.int16), None, {}),
    (((3, 3), F32), ((3, 3), F32), ((3, 3), F32), ((3, 3), I64), {}),
    (((3, 3), F64), ((3, 3), F64), ((3, 3), F64), ((3, 3), F16), {}),
    (((3,), F64), ((3, 3), F32), ((3, 3), F32), None, {}),
    (((2, 3), F32), ((2, 0), F64), ((2, 5), F32), None, {}),
    (((1, 3), F32), ((2, 3), F32), ((2, 3), F32), ((1, 2), F32), {'is_causal': True}),
    (((2, 3), F32), ((2, 0), F32), ((2, 5), F32), ((2, 2), F32), {'is_causal': True}),
    (((2, 1, 3), B), ((2, 1, 3), B), ((2, 1, 3), B), None, {'scale': -1.0}),
    (((2, 3), F64), ((2, 1, 3), F64), ((2, 1, 3), F64), ((3,), B), {}),
    (((2, 3), F64), ((2, 1, 3), F64), ((2, 1, 3), F64), ((3,), F32), {}),
    (((2, 3), F64), ((2, 1, 3), F64), ((2, 1, 3), F64), ((2, 1, 1, 1), F64), {}),
    (((2, 3), F64), ((2, 1, 3), F64), ((2, 1, 3), F64), ((2, 1), F64), {}),
    (((3, 3), F16), ((3, 3), F16), ((3, 3), F16), ((3, 3), F16), {}),
    (((3, 3), 'bfloat16'), ((3, 3), 'bfloat16'), ((3, 3), 'bfloat16'), ((3, 3), F32), {}),
    (((3, 3), F64), ((3, 3), F64), ((3, 3), F64), ((3, 3), F32), {}),
]


@pytest.mark.parametrize('case', SDPA_CASES, ids=str)
def test_sdpa_check_order(case):
    *specs, kw = case

    def fn(T, *ts):
        ts = [t.to(T.bfloat16) if s is not None and s[1] == 'bfloat16' else t
              for s, t in zip([s for s in specs if s is not None], ts)]
        q, k, v, *m = ts
        return T.nn.functional.scaled_dot_product_attention(q, k, v, *(m or [None]), **kw)
    args = [arr(s[0], F32 if s[1] == 'bfloat16' else s[1]) for s in specs if s is not None]
    check(fn, *args, grad=False, match_message=True, atol=1e-2, rtol=1e-2)


# -- normal: a tensor std must be real (first); the size form's integer or bool result is
#    refused by the kernel when it has elements, its number mean not converted ---------------
@pytest.mark.parametrize('fn', [
    lambda T: T.normal(0.25, 1.5, [18, 1], dtype=T.int64),
    lambda T: T.normal(0.25, 1.5, [0], dtype=T.int64).shape,
    lambda T: T.normal(0.25, 1.5, [2], dtype=T.bool),
    lambda T: T.normal(1e10, 1.5, [2], dtype=T.int8),
    lambda T: T.normal(1e10, 1.5, [0], dtype=T.int8).shape,
    lambda T: T.normal(1e10, 1.5, [], dtype=T.int8),
    lambda T: T.normal(T.ones(2), T.ones(2, dtype=T.complex64)),
    lambda T: T.normal(T.ones(2, dtype=T.complex64), T.ones(2, dtype=T.complex64)),
    lambda T: T.normal(1.0, T.ones(2, 0, dtype=T.complex64)),
    lambda T: T.normal(1.0, -T.ones(2, dtype=T.complex128)),
    lambda T: T.normal(1e10, T.ones(2, dtype=T.int8)),
    lambda T: T.normal(1.0, 1.0, [2], dtype=T.float64).dtype,
])
def test_normal_refusals(fn):
    same_error(fn)


# -- soft_margin_loss writes its floating result in an integer input's dtype: refused with
#    the promoted type's name; mse / smooth_l1 refuse a complex promoted type -----------------
@pytest.mark.parametrize('xdt,tdt', [(I64, F32), (I64, F64), (I32, 'bfloat16'), (np.int16, F16),
                                     (U8, F32), (U8, C64), (U8, B), (I64, I64), (F32, I64)])
def test_soft_margin_loss_integer_input(xdt, tdt):
    def fn(T, x, t):
        return T.nn.functional.soft_margin_loss(x, t.to(T.bfloat16) if tdt == 'bfloat16'
                                                else t)
    same_error(fn, arr((2, 3), xdt), arr((2, 3), F32 if tdt == 'bfloat16' else tdt))
    same_error(lambda T, x, t: T.nn.functional.soft_margin_loss(x, t, reduction='none'),
               arr((2, 3), xdt), arr((2, 3), F32))


@pytest.mark.parametrize('loss', ['mse_loss', 'smooth_l1_loss'])
@pytest.mark.parametrize('xs,xdt,ts,tdt', [((1,), C64, (2, 2, 3, 4), U8), ((1,), C64, (1,), U8),
                                           ((1,), F32, (2, 2), C64), ((1,), I64, (1,), U8),
                                           ((2,), 'bfloat16', (2,), F32)])
def test_pair_losses_refuse_complex(loss, xs, xdt, ts, tdt):
    def fn(T, x, t):
        x = x.to(T.bfloat16) if xdt == 'bfloat16' else x
        return getattr(T.nn.functional, loss)(x, t)
    same_error(fn, arr(xs, F32 if xdt == 'bfloat16' else xdt), arr(ts, tdt))


# -- median / nanmedian: along a dim an empty dim (message "median()"), then the kernel's
#    bool/complex refusal even for an empty result; an empty complex input that requires grad
#    is refused by autograd -----------------------------------------------------------------------
@pytest.mark.parametrize('op', ['median', 'nanmedian'])
@pytest.mark.parametrize('shape,dtype,dim', [((2, 0), B, 0), ((0, 2), B, 0), ((2, 0), B, 1),
                                             ((2, 3), B, 1), ((), B, 0), ((2, 2), C64, 0),
                                             ((2, 3), F32, 1), ((), I64, 0), ((2, 0), F32, 0)])
def test_median_dim_refusals(op, shape, dtype, dim):
    same_error(lambda T, x: getattr(x, op)(dim)[0], arr(shape, dtype))


@pytest.mark.parametrize('op', ['median', 'nanmedian'])
@pytest.mark.parametrize('shape,grad', [((0,), True), ((2, 0), True), ((2,), True),
                                        ((2, 0), False)])
def test_median_empty_complex_requires_grad(op, shape, grad):
    check(lambda T, x: getattr(T, op)(x.requires_grad_(grad)), arr(shape, C128), grad=False,
          match_message=True)


# -- pow of a bool number base and bool exponents has no kernel ---------------------------------
@pytest.mark.parametrize('fn', [
    lambda T, x: T._foreach_pow(False, [x]), lambda T, x: T.pow(False, x),
    lambda T, x: True ** x, lambda T, x: T.pow(False, x[:0]), lambda T, x: T.pow(2, x),
    lambda T, x: T.pow(1.5, x), lambda T, x: T.pow(True, x.float()),
    lambda T, x: T._foreach_pow([x], False),
])
def test_pow_bool_number_base(fn):
    same_error(fn, np.array([True, False, True]))


# -- svd_lowrank / pca_lowrank draw float32 samples for anything but float16/32/64 and
#    complex (bfloat16's product then refused), and refuse float16 in their QR --------------
@pytest.mark.parametrize('fn', [
    lambda T, a: T.svd_lowrank(a.to(T.bfloat16)[:, :1], 2, 0),
    lambda T, a: T.pca_lowrank(a.to(T.bfloat16)),
    lambda T, a: T.pca_lowrank(a.half()), lambda T, a: T.svd_lowrank(a.half(), 2),
    lambda T, a: T.svd_lowrank(a.long(), 2),
    lambda T, a: T.svd_lowrank(a.to(T.complex64), 2)[1].dtype,
])
def test_lowrank_dtypes(fn):
    same_error(fn, arr((3, 3)))


# -- linalg.solve / tensorsolve: float16 and bfloat16 refused by the LU kernel (only when it
#    runs: not for an empty A) before its singularity is known -----------------------------------
@pytest.mark.parametrize('fn', [
    lambda T: T.linalg.solve(T.ones(2, 2, dtype=T.bfloat16), T.ones(2, dtype=T.bfloat16)),
    lambda T: T.linalg.solve(T.ones(0, 0, dtype=T.bfloat16), T.ones(0, dtype=T.bfloat16)),
    lambda T: T.linalg.solve(T.ones(2, 0, 0, dtype=T.float16), T.ones(2, 0, 3, dtype=T.float16)),
    lambda T: T.linalg.solve_ex(T.ones(2, 2, dtype=T.float16), T.ones(2, dtype=T.float16)),
    lambda T: T.linalg.tensorsolve(T.ones(1, dtype=T.bfloat16), T.ones(1, dtype=T.bfloat16), []),
    lambda T: T.linalg.tensorsolve(T.ones(2, 2, dtype=T.float16), T.ones(2, dtype=T.float16)),
    lambda T: T.linalg.tensorsolve(T.ones(2, 2, dtype=T.long), T.ones(2, dtype=T.long)),
])
def test_solve_low_precision(fn):
    same_error(fn)


# -- solve_triangular: the shapes first, then A's dtype (the kernel's; B is cast to it) -------
@pytest.mark.parametrize('adt,bdt,bshape', [
    (I64, np.int16, (2, 1, 3)), (C64, U8, (2, 3, 3)), (F32, I64, (2, 3, 3)),
    (F32, B, (2, 3, 3)), (I64, F32, (2, 3, 3)), (F32, F16, (2, 3, 3)), (F16, F32, (2, 3, 3)),
    (F16, I64, (2, 3, 3)), (B, B, (2, 3, 3)),
])
def test_solve_triangular_dtype_after_shapes(adt, bdt, bshape):
    a = np.triu(np.ones((2, 3, 3))) + np.eye(3)
    same_error(lambda T, A, b: T.linalg.solve_triangular(A, b, upper=True), a.astype(adt),
               np.ones(bshape, bdt))


# -- pdist refuses float16/bfloat16 only when its kernel runs (two rows or more, and columns)
@pytest.mark.parametrize('op', ['pdist', 'F.pdist'])
@pytest.mark.parametrize('shape,dtype,p', [((2, 0), F16, 2), ((1, 3), F16, 2),
                                           ((1, 3), 'bfloat16', 0.0), ((2, 3), F16, 0.0),
                                           ((2, 3), 'bfloat16', 2), ((2, 3), I64, 2),
                                           ((2, 3), F16, -1), ((0, 3), F16, 2)])
def test_pdist_low_precision(op, shape, dtype, p):
    def fn(T, x):
        x = x.to(T.bfloat16) if dtype == 'bfloat16' else x
        f = T.pdist if op == 'pdist' else T.nn.functional.pdist
        return f(x, p)
    same_error(fn, arr(shape, F32 if dtype == 'bfloat16' else dtype))


@pytest.mark.parametrize('tshape,tdt', [((4,), np.int8), ((2, 2), np.int8), ((4,), U8),
                                        ((0,), F64), ((3,), B), ((1,), I64)])
@pytest.mark.parametrize('xdt', [F32, I64])
def test_nll_loss_target_dtype_before_its_size(tshape, tdt, xdt):
    same_error(lambda T, x, t: T.nn.functional.nll_loss(x, t), arr((3,), xdt),
               np.zeros(tshape, tdt))


# -- native_group_norm: the groups and parameters against the channel count it is given,
#    then the layout its kernel reads (contiguous or channels-last), then the element count ---
@pytest.mark.parametrize('fn', [
    lambda T, x: T.native_group_norm(x, None, None, 3, 3, 3, 2, 1e-5),
    lambda T, x: T.native_group_norm(x.transpose(1, 2), None, None, 2, 3, 3, 1, 1e-5),
    lambda T, x: T.native_group_norm(x.transpose(1, 2), None, None, 2, 3, 3, 2, 1e-5),
    lambda T, x: T.native_group_norm(x.transpose(1, 2), T.ones(2), None, 2, 3, 3, 3, 1e-5),
    lambda T, x: T.native_group_norm(x[:1].expand(2, 3, 3), None, None, 2, 3, 3, 3, 1e-5),
    lambda T, x: T.native_group_norm(x, None, None, 2, 3, 3, 3, 1e-5)[0],
    lambda T, x: T.native_group_norm(x, None, None, 2, 3, 3, 0, 1e-5),
    lambda T, x: T.native_group_norm(x.reshape(1, 2, 3, 3).to(memory_format=T.channels_last),
                                     None, None, 1, 2, 9, 2, 1e-5)[0],
    lambda T, x: T.group_norm(x[:1].expand(2, 3, 3), 3),
])
def test_native_group_norm_check_order(fn):
    same_error(fn, arr((2, 3, 3)))
