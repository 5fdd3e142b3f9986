"""Exception classes the differential fuzzer found wrong (issue 15, third sweep), functions
a-h: each bad call runs on ember and torch (``tests.oracle.oracle.check``), which must raise
the same class with the same message, the first check torch makes deciding which.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

F32, F64, I64, I8, B, C64 = np.float32, np.float64, np.int64, np.int8, np.bool_, np.complex64


def same_error(fn, *args):
    check(fn, *args, grad=False, match_message=True)


def ones(shape, dtype=F32):
    return np.ones(shape, dtype)


# -- convolution: a weight of fewer than three dims is refused before anything else --------
@pytest.mark.parametrize('transposed', [True, False])
@pytest.mark.parametrize('wshape', [(), (3,), (3, 1)])
def test_convolution_weight_dims_first(transposed, wshape):
    same_error(lambda T, x, w: T.convolution(x, w, None, [2, 1], [2, 2], [], transposed, [1], 1),
               ones((1,), np.uint8), ones(wshape, np.uint8))


# -- einsum: torch's parser reads the equation before the operands --------------------------
@pytest.mark.parametrize('eq', [None, 3, 1.5])
def test_einsum_equation_type(eq):
    same_error(lambda T, x: T.einsum(eq, [x, x]), ones((2, 3)))
    same_error(lambda T, x: T.einsum(eq, x), ones((2, 3)))


# -- histogram / histogramdd: torch's checks in torch's order --------------------------------
HIST_CASES = [
    ('dd', (3,), I64, [1], [0.5, 2.0, 2.0], None),
    ('dd', (), F64, [1], [0.5, 2.0, 2.0], None),
    ('dd', (3, 2), F32, [0, 0], [1.0], None),
    ('dd', (3, 2), I64, [2, 2, 2], None, None),
    ('dd', (3, 2), I64, [2, 2], [0., 1., 0., 1.], (3,)),
    ('dd', (3, 2), F32, [2, 2, 2], [1., 0., 0., 1.], None),
    ('dd', (3, 2), F32, [-1, 2], None, (2,)),
    ('dd', (3, 2), F32, [-2, 2], None, (2,)),
    ('dd', (3, 2), B, [0, 2], [0., 1., 0., 1.], None),
    ('dd', (0, 2), I64, [0, 2], None, (3,)),
    ('dd', (3, 2), F32, [2, 2], [0., 1., 2., float('nan')], None),
    ('dd', (3, 2), np.float16, [2, 2], None, None),
    ('1d', (3,), I64, 0, None, None),
    ('1d', (3,), I64, -1, [0., 1., 2.], None),
    ('1d', (3,), I64, 2, [0., 1.], (2,)),
    ('1d', (3,), I64, 2, None, (2,)),
    ('1d', (3,), F32, 2, None, (2,)),
    ('1d', (3,), F32, 3, [1., 0.], None),
    ('1d', (3,), F32, 3, [0., float('inf')], None),
    ('1d', (3,), B, 2, [0., 1.], (3,)),
    ('1d', (3,), C64, 3, [0., 1.], None),
    ('1d', (3,), F32, 3, None, (3, 3)),
]


@pytest.mark.parametrize('case', HIST_CASES, ids=str)
def test_histogram_check_order(case):
    kind, shape, dtype, bins, rng, wshape = case
    w = None if wshape is None else ones(wshape, dtype if wshape != (3,) else F32)
    args = (ones(shape, dtype),) + (() if w is None else (w,))
    if kind == 'dd':
        same_error(lambda T, x, *w: T.histogramdd(x, bins, rng, *w), *args)
    else:
        same_error(lambda T, x, *w: T.histogram(x, bins, range=rng, weight=w[0] if w else None),
                   *args)


@pytest.mark.parametrize('bins', ['same', 'long', 'flat1', 'empty', '2d'])
def test_histogram_bin_tensors(bins):
    edges = {'same': ones(3), 'long': ones(3, I64), 'flat1': ones(1), 'empty': ones(0),
             '2d': ones((3, 3))}[bins]
    same_error(lambda T, x, b: T.histogram(x, b), ones(3, I64), edges)
    same_error(lambda T, x, b: T.histogram(x, b, weight=T.ones(2)), ones(3), edges)
    same_error(lambda T, x, b: T.histogramdd(x, [b, b], weight=T.ones(2)), ones((3, 2)), edges)


def test_histogram_half_with_a_range_runs():
    check(lambda T, x: T.histogram(x, 2, range=[0., 1.]), ones(3, np.float16), grad=False)


# -- Scalars torch reads as doubles or int64s: a complex or non-finite value is refused -----
def test_histc_complex_limits():
    same_error(lambda T, x: T.histc(x, 3, 1j, 2), ones(3, C64))
    same_error(lambda T, x: T.histc(x, 3, 1j, 2), ones(3))
    same_error(lambda T, x: T.histc(x, -1, 1j, 2), ones(3))
    same_error(lambda T, x: T.histc(x, 3, 1 + 0j, 2), ones(3, I64))


@pytest.mark.parametrize('fn', ['celu', 'celu_'])
@pytest.mark.parametrize('dtype', [I64, C64, B])
def test_celu_complex_alpha(fn, dtype):
    same_error(lambda T, x: getattr(T.nn.functional, fn)(x, 1j), ones(3, dtype))


def test_celu_real_complex_alpha_runs():
    check(lambda T, x: T.nn.functional.celu(x, 1 + 0j), ones(3), grad=False)


@pytest.mark.parametrize('limits', [(-1.0, 1 + 1j), (1j, 2.0), (-1.0, 1j)])
@pytest.mark.parametrize('dtype', [F32, I64, C64])
def test_hardtanh_complex_limits(limits, dtype):
    same_error(lambda T, x: T.nn.functional.hardtanh(x, *limits), ones(3, dtype))


@pytest.mark.parametrize('fn', ['hardtanh', 'hardtanh_'])
@pytest.mark.parametrize('limits', [(float('nan'), 1.0), (-1.0, float('inf'))])
@pytest.mark.parametrize('dtype', [I64, np.uint8])
def test_hardtanh_integer_limits_that_do_not_convert(fn, limits, dtype):
    same_error(lambda T, x: getattr(T.nn.functional, fn)(x, *limits), ones(3, dtype))


# -- in-place elementwise ops: the cast into self is checked before the kernel's dtype -------
@pytest.mark.parametrize('op,self_dt,other', [
    ('bitwise_and_', I8, ('t', F64)), ('bitwise_and_', I8, 1.5), ('bitwise_xor_', B, ('t', C64)),
    ('bitwise_or_', F32, 1), ('bitwise_xor_', F32, ('t', F32)),
    ('bitwise_left_shift_', I64, ('t', F32)), ('bitwise_right_shift_', I64, 2.5),
    ('floor_divide_', F64, 0.6 - 0.6j), ('hypot_', F64, ('t', np.complex128)),
    ('hypot_', I8, ('t', F32)), ('floor_divide_', B, ('t', B))])
def test_inplace_cast_before_kernel_dtype(op, self_dt, other):
    if isinstance(other, tuple):
        same_error(lambda T, x, y: getattr(x, op)(y), ones((3, 1), self_dt),
                   ones((3, 1), other[1]))
    else:
        same_error(lambda T, x: getattr(x, op)(other), ones((3, 1), self_dt))


def test_floor_divide_inplace_broadcast_first():
    same_error(lambda T, x, y: x.floor_divide_(y), ones(4, B), ones(3, B))


# -- torch.embedding_bag: padding_idx, then the dims of indices, weight and offsets ----------
@pytest.mark.parametrize('shapes', [
    ((3,), (2,), (1,), None), ((3,), (), (1,), None), ((3,), (2, 2, 2), (1,), None),
    ((3, 3), (), (), None), ((3, 3), (2,), (), None), ((3, 3), (2,), (1, 1), None),
    ((), (2,), (1,), 2), ((1, 3, 3), (2,), (1,), 1), ((1, 3, 3), (2,), (1,), -1),
    ((1, 3, 3), (2,), (1,), -2)])
def test_embedding_bag_check_order(shapes):
    w, i, o, pad = shapes
    same_error(lambda T, w, i, o: T.embedding_bag(w, i, o, False, 0, False, None, False, pad),
               ones(w), np.zeros(i, I64), np.zeros(o, I64))


@pytest.mark.parametrize('dtypes', [(F32, F32, I64), (F32, I64, F32), (I64, I64, I64),
                                    (C64, I64, I64)])
def test_embedding_bag_dtypes(dtypes):
    same_error(lambda T, w, i, o: T.embedding_bag(w, i, o), ones((3, 3), dtypes[0]),
               np.zeros(2, dtypes[1]), np.zeros(1, dtypes[2]))


# -- bilinear: one dtype for all first, then sizes as torch reads them ----------------------
@pytest.mark.parametrize('case', [
    (((2, 0), F64), ((2, 0), C64), ((2, 0), I64), ((2, 0), C64)),
    (((2, 0), F32), ((2, 0), F32), ((2, 0), F32), ((2, 0), F32)),
    (((2, 3), F32), ((2, 0), F32), ((2, 0), F32), ((2, 0), F32)),
    (((2, 1), F32), ((3,), F32), ((2, 0), I64)),
    (((2, 1), F32), ((2, 3), F32), ((2, 0, 3), F32)),
    (((), F32), ((), F32), ((2, 0, 3), F32)),
    (((), I64), ((), F32), ((2, 0, 3), F32)),
    (((2, 3), F32), ((2, 3), F32), ((2, 3, 3), F32), ((2,), F64))], ids=str)
def test_bilinear_check_order(case):
    same_error(lambda T, *a: T.nn.functional.bilinear(*a), *[ones(s, d) for s, d in case])


# -- affine_grid: a complex theta is not floating point --------------------------------------
def test_affine_grid_complex_theta():
    same_error(lambda T, t: T.nn.functional.affine_grid(t, 0.5 + 1j, False), ones(0, C64))
    same_error(lambda T, t: T.nn.functional.affine_grid(t, [1, 1, 2, 2], False),
               ones((1, 2, 3), C64))


# -- fractional_max_pool: the C op's int lists and their lengths ------------------------------
@pytest.mark.parametrize('nd,k,o', [(2, [3], []), (2, 2, []), (2, 2, [1, 1, 1]),
                                    (2, [2, 2, 2], [1]), (3, [], [1, 1]), (3, 2, [1, 1]),
                                    (3, [2, 2], 1)])
def test_fractional_max_pool_list_lengths(nd, k, o):
    x = ones((2, 3, 3) if nd == 2 else (1, 2, 3, 3))
    f = lambda T, x: getattr(T.nn.functional, f'fractional_max_pool{nd}d')(  # noqa: E731
        x, k, o, None, False, T.ones(x.shape))
    same_error(f, x)


@pytest.mark.parametrize('nd,k', [(3, float('inf')), (2, 1.5)])
def test_fractional_max_pool_float_kernel(nd, k):
    same_error(lambda T, x: getattr(T.nn.functional, f'fractional_max_pool{nd}d_with_indices')(
        x, k, 1), ones((1, 2, 1, 3), F64))


# -- fft: a 1-d transform checks the dtype, then dim, then n; an n-d one its dims first ----
@pytest.mark.parametrize('call', [
    lambda T, x: T.fft.hfft(x, 0, 5), lambda T, x: T.fft.fft(x, 0, 0),
    lambda T, x: T.fft.fft(x, -1, 3),
    lambda T, x: T.fft.fft2(x), lambda T, x: T.fft.hfftn(x, [2], [4]),
    lambda T, x: T.fft.fftn(x, [2, 2, 2]), lambda T, x: T.fft.fftn(x, [0]),
    lambda T, x: T.fft.fftn(x, [2], [0, 0]), lambda T, x: T.fft.rfftn(x, [2], [4]),
    lambda T, x: T.fft.ihfftn(x, [2], [4]), lambda T, x: T.fft.irfftn(x, [2], [4]),
    lambda T, x: T.fft.rfft2(x)])
@pytest.mark.parametrize('dtype', [np.float16, C64, F32])
def test_fft_check_order(call, dtype):
    same_error(call, ones(3, dtype))


def test_fft_zero_d_and_empty():
    same_error(lambda T, x: T.fft.hfft(x, 0, 5), ones(0, C64))
    same_error(lambda T, x: T.fft.fft(x, -1, 0), ones(()))
    same_error(lambda T, x: T.fft.hfft2(x), ones((), np.float16))


# -- batch_norm: the Python function's batch check, then the C op's, in torch's order -------
@pytest.mark.parametrize('case', [
    ((2, 3), None, None, None, (2,), False), ((2, 3), (2,), None, None, None, False),
    ((2, 3), (2,), None, (3,), (3,), False), ((2, 3), None, None, (2,), (2,), False),
    ((3,), None, None, (0,), (0,), False), ((3,), (0,), (0,), (0,), (0,), False),
    ((4,), None, None, None, None, True), ((3,), None, None, (1,), None, True),
    ((3,), (1,), None, None, None, True), ((1, 3), None, None, (6,), (6,), True)], ids=str)
def test_batch_norm_op_check_order(case):
    shape, w, b, rm, rv, training = case
    args = [ones(shape)] + [None if s is None else ones(s) for s in (w, b, rm, rv)]
    same_error(lambda T, x, w, b, rm, rv: T.batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5,
                                                      False), *args)


@pytest.mark.parametrize('case', [((3,), (1,), True), ((1,), (1,), True), ((), (), True),
                                  ((1,), (1,), False), ((1, 3), (6,), True), ((3,), None, True),
                                  ((3,), None, False)], ids=str)
def test_functional_batch_norm_check_order(case):
    shape, stats, training = case
    s = None if stats is None else ones(stats)
    same_error(lambda T, x, *s: T.nn.functional.batch_norm(x, *(s or (None, None)), None, None,
                                                           training),
               ones(shape), *([] if s is None else [s, s]))


# -- gaussian_nll_loss: torch's ``var < 0`` refuses a complex var first ----------------------
@pytest.mark.parametrize('dtypes,shapes', [
    ((C64, C64, C64), ((3,), (3,), (3,))),
    ((np.complex128, F64, np.complex128), ((0,), (0,), (3, 3))),
    ((F32, F32, np.complex128), ((3,), (3,), (3,)))])
def test_gaussian_nll_loss_complex_var(dtypes, shapes):
    same_error(lambda T, x, t, v: T.nn.functional.gaussian_nll_loss(x, t, v),
               *[ones(s, d) for s, d in zip(shapes, dtypes)])


# -- binomial: count's dtype, prob's, one dtype, broadcasting, then the kernel's dtypes -----
@pytest.mark.parametrize('case', [((3,), F32, (3,), B), ((3,), np.float16, (3,), I8),
                                  ((3,), I64, (3,), I64), ((3,), I64, (3,), F32),
                                  ((3,), F32, (3,), F64), ((3,), F32, (2,), F32),
                                  ((3,), np.float16, (3,), np.float16),
                                  ((3,), np.float16, (2,), np.float16)], ids=str)
def test_binomial_check_order(case):
    cs, cd, ps, pd = case
    same_error(lambda T, c, p: T.binomial(c, p), ones(cs, cd), ones(ps, pd))


@pytest.mark.parametrize('mode', [None, 'foo'])
def test_cdist_compute_mode_first(mode):
    same_error(lambda T, a, b: T.cdist(a, b, 0.0, mode), ones((1, 3), np.uint8), ones((3, 4)))


# -- ctc_loss: the lengths' dtypes, the batch dim, the kernel's dtype, then the dims --------
@pytest.mark.parametrize('case', [
    (((3, 3), np.float16), ((3, 3), np.float16), ((3,), np.float16), ((3, 3), np.float16)),
    (((3, 3), F32), ((3, 3), I64), ((3,), I64), ((3, 3), F32)),
    (((3, 3), I64), ((3, 3), I64), ((3,), I64), ((3,), I64)),
    (((3, 1, 2), F32), ((3, 1), I64), ((1,), B), ((3, 1), I64)),
    (((), F32), ((3, 1), I64), ((1,), I64), ((1,), I64)),
    (((), F32), ((3, 1), I64), ((1,), F32), ((1,), I64))], ids=str)
def test_ctc_loss_check_order(case):
    same_error(lambda T, *a: T.nn.functional.ctc_loss(*a, 1, 'mean', True),
               *[ones(s, d) for s, d in case])
    same_error(lambda T, *a: T.ctc_loss(*a, 0, 1, True), *[ones(s, d) for s, d in case])


@pytest.mark.parametrize('shape,dtype', [((), F32), ((), B), ((3,), I64), ((3, 3, 3, 3), I64),
                                         ((3, 3, 3, 3), F32), ((3,), F32)])
def test_ctc_loss_list_lengths(shape, dtype):
    same_error(lambda T, lp, t: T.ctc_loss(lp, t, [1], [1], 0, 1, True), ones(shape, dtype),
               ones((3, 1), I64))


# -- adaptive_max_pool*_with_indices: the C op's parser reads output_size first --------------
@pytest.mark.parametrize('n', [1, 2, 3])
@pytest.mark.parametrize('size', [True, False, 1.5, [True, 1]])
def test_adaptive_max_pool_with_indices_output_size(n, size):
    f = getattr  # noqa: E731
    same_error(lambda T, x: f(T.nn.functional, f'adaptive_max_pool{n}d_with_indices')(x, size),
               ones((3, 1)))


def test_adaptive_max_pool_with_indices_later_bool_unpacks():
    check(lambda T, x: T.nn.functional.adaptive_max_pool2d_with_indices(x, [1, True]),
          ones((1, 3, 1)), grad=False)


# -- dist: broadcasting, the difference's dtype, then a complex order is refused -------------
@pytest.mark.parametrize('case', [((3,), I8, (3,), C64, 1j), ((3,), I8, (3,), I8, 1j),
                                  ((3,), F32, (2,), F32, 1j), ((3,), F32, (3,), F32, 1j),
                                  ((3,), F32, (3,), F32, 1 + 0j)], ids=str)
def test_dist_complex_order(case):
    s1, d1, s2, d2, p = case
    same_error(lambda T, a, b: T.dist(a, b, p), ones(s1, d1), ones(s2, d2))
    same_error(lambda T, a, b: a.dist(b, p), ones(s1, d1), ones(s2, d2))


def test_batch_norm_op_running_stats_requiring_grad_before_a_1d_input():
    same_error(lambda T, x, rm, rv: T.batch_norm(x, None, None, rm, rv.requires_grad_(), True,
                                                 0.1, 1e-5, False), ones(3), ones(0), ones(0))
