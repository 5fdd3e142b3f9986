"""Wrong values, gradients, structures and spurious errors the differential fuzzer found
(issue 15, fourth pass, seeds 600-629 and 700-719, and last pass's leftovers), each pinned
against torch.

Every test runs the same code on ember and torch (``tests.oracle.oracle.check``, or both
libraries side by side). Where torch is wrong (an entry in ``tests/fuzz/known.py``, or a
non-finite case the sweep reports without gating) the test shows torch's answer next to
the right one, computed a second way in torch itself.
"""
import warnings

import ml_dtypes
import numpy as np
import pytest

from tests.oracle.oracle import check, torch, values

import ember

INF, NAN = float('inf'), float('nan')
BF16 = np.dtype(ml_dtypes.bfloat16)


def both(fn):
    """``fn(lib)`` on ember and torch, as NumPy arrays (or tuples of them)."""
    def arrays(r):
        if isinstance(r, (tuple, list)):
            return tuple(arrays(x) for x in r)
        return values(r) if isinstance(r, (ember.Tensor, torch.Tensor)) else r
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return arrays(fn(ember)), arrays(fn(torch))


def same(e, t):
    if isinstance(t, tuple):
        assert isinstance(e, tuple) and len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b)
        return
    assert e.dtype == t.dtype and e.shape == t.shape, (e, t)
    np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-7, equal_nan=True)


# -- median/nanmedian of an empty tensor: NaN converted to the dtype, as C converts it -------
@pytest.mark.parametrize('dt', ['int8', 'int16', 'int32', 'int64', 'uint8', 'bool', 'float16',
                                'float32'])
@pytest.mark.parametrize('op', ['median', 'nanmedian'])
def test_median_of_an_empty_tensor(op, dt):
    e, t = both(lambda T: getattr(T, op)(T.empty(0, dtype=getattr(T, dt))))
    same(e, t)


# -- median along an expanded (stride-0) dim: torch's kernel returns garbage ----------------
def test_median_along_an_expanded_dim():
    base = np.array([[3., 1., 2., 5., 4.]])
    e = ember.median(ember.tensor(base).expand(4, 5), 0)
    right = torch.median(torch.tensor(base).expand(4, 5).contiguous(), 0)
    assert np.array_equal(values(e.values), values(right.values))
    assert np.array_equal(values(e.indices), values(right.indices))
    # what torch gives on the expanded tensor itself (recorded in tests/fuzz/known.py)
    wrong = torch.median(torch.tensor(base).expand(4, 5), 0).values
    assert not np.array_equal(values(wrong), values(right.values))


# -- a 0-d tensor runs no kernel: mode, kthvalue, cummax/cummin, gradient, inner -------------
@pytest.mark.parametrize('fn', [
    lambda T, x: T.mode(x), lambda T, x: x.mode(), lambda T, x: T.kthvalue(x, 1),
    lambda T, x: T.kthvalue(x, 1, 0, True), lambda T, x: T.cummax(x, 0),
    lambda T, x: T.cummin(x, 0)])
def test_zero_dim_complex_selections(fn):
    check(fn, np.array(1.25 - 0.5j, np.complex64), grad=False)
    check(fn, np.array(1.25 - 0.5j, np.complex64)[None], grad=False)  # (1-d: refused)


def test_zero_dim_bool_kthvalue_gradient_and_inner():
    check(lambda T, x: T.kthvalue(x, 1), np.array(True), grad=False)
    check(lambda T, x: T.gradient(x), np.array(True), grad=False)
    check(lambda T, x: T.gradient(x), np.array([True, False]), grad=False)
    check(lambda T, x, y: T.inner(x, y), np.array(True), np.array([True, False]), grad=False)
    check(lambda T, x, y: T.inner(x, y), np.array([True]), np.array([True]), grad=False)


# -- the norm of one element is its magnitude (no overflow of |x| ** 2) ---------------------
@pytest.mark.parametrize('v', [1e30, -1e30, 1e-30, 3.0])
@pytest.mark.parametrize('p', [2, 3, 0.5, -1, INF, 1, NAN])
def test_vector_norm_of_one_element(v, p):
    x = np.array([v], np.float32)
    check(lambda T, a: T.linalg.vector_norm(a, p), x)
    check(lambda T, a: T.linalg.vector_norm(a[None], p, 1), x)


def test_norm_of_one_element_in_dist_and_norm_except_dim():
    check(lambda T, a, b: T.dist(a, b), np.array([[-1e30]], np.float32),
          np.array([[0.]], np.float32))
    check(lambda T, a: T.norm_except_dim(a), np.array([-0.44, 1e30, -1.18], np.float32))
    check(lambda T, a: T.linalg.vector_norm(a), np.array([1e30, 1e30], np.float32))  # inf
    check(lambda T, a: a.norm(0), np.array([5.], np.float32))


@pytest.mark.parametrize('p', [NAN, 3, 0.5, 0])
def test_norm_of_no_elements_is_zero(p):
    check(lambda T, a: T.linalg.vector_norm(a, p), np.empty(0, np.float32))
    check(lambda T, a: T.linalg.vector_norm(a, p, 1), np.empty((3, 0)))
    check(lambda T, a, b: T.dist(a.bfloat16(), b.bfloat16(), p), np.empty(0), np.empty(0),
          grad=False)


# -- std's gradient at a constant input is 0 (torch's follows its mean's rounding) -----------
@pytest.mark.parametrize('v', [3.98393148, 0.5245005857651985, -6.229554736265326])
def test_std_gradient_at_a_constant_input(v):
    def grad(lib, value):
        x = lib.full((2, 1, 3), value, dtype=lib.float64, requires_grad=True)
        return values(lib.autograd.grad(lib.std(x, None, correction=1.5), x)[0])
    # torch's own answer where its mean of equal values is exact: zero
    assert not grad(torch, 1.0).any()
    np.testing.assert_array_equal(grad(ember, v), grad(torch, 1.0))
    # torch at ``v`` gives +-1/sqrt(n (n - correction)) as its mean rounds up or down
    assert np.allclose(np.abs(grad(torch, v)), 1 / np.sqrt(6 * 4.5)) or not grad(torch, v).any()


# -- the variance of equal values is 0 (torch's float32 kernel overflows to inf) ------------
def test_var_of_equal_huge_values():
    x = np.full((4, 4), 1e30, np.float32)
    for op in ('var', 'std'):
        e = values(getattr(ember.tensor(x), op)())
        right = values(getattr(torch.tensor(x, dtype=torch.float64), op)()).astype(np.float32)
        assert e == right == 0
        assert values(getattr(torch.tensor(x), op)()) != 0  # torch's (tests/fuzz/known.py)


# -- pow by 0.5 and -0.5 is sqrt and rsqrt, except for float16 (torch's kernels) --------------
@pytest.mark.parametrize('dt', [np.float16, BF16, np.float32, np.float64, np.complex64])
@pytest.mark.parametrize('e', [0.5, -0.5])
def test_pow_half_at_infinities_and_signed_zeros(dt, e):
    x = np.array([-INF, -0.0, 0.0, 4.0, -4.0, INF, 1e-30]).astype(dt)
    check(lambda T, a: a.pow(e), x, grad=False)
    check(lambda T, a: a ** e, x, grad=False)
    check(lambda T, a: T.pow(a, e), x[3:4])


# -- average pooling keeps a non-finite element in the windows that hold it ----------------
_POOLED = np.array([[[[0., -INF, 0.], [INF, 1., 2.], [0., NAN, 0.], [3., 1., 1.]]]], np.float32)


@pytest.mark.parametrize('fn', [
    lambda T, x: T.nn.functional.avg_pool2d(x, (3, 1), stride=1),
    lambda T, x: T.nn.functional.avg_pool2d(x, (1, 3), stride=1),
    lambda T, x: T.nn.functional.avg_pool2d(x, 2, 1, 1, count_include_pad=False),
    lambda T, x: T.nn.functional.avg_pool1d(x[0], 2, stride=1),
    lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (2, 2)),
    lambda T, x: T.nn.functional.avg_pool3d(x, (1, 2, 1)),
    lambda T, x: T.nn.functional.adaptive_avg_pool3d(x, (1, 2, 2)),
    lambda T, x: T.nn.functional.avg_pool2d(x.bfloat16(), 2, 1),
    lambda T, x: T.nn.functional.local_response_norm(x[0].half(), 3, 1e-4, 0.5),
    lambda T, x: T.nn.functional.local_response_norm(x, 2)])
def test_average_pooling_of_infinities_and_nan(fn):
    check(fn, _POOLED, grad=False)


def test_average_pooling_gradient_is_unchanged():
    check(lambda T, x: T.nn.functional.avg_pool2d(x, 2, 1), np.arange(12.).reshape(1, 3, 4))


# -- bfloat16 normalisation: statistics in float32, rounded where torch rounds them ---------
def test_bfloat16_norms_of_a_constant_input():
    x = np.full((2, 2, 3), 0.1240234375, np.float32).astype(BF16)
    check(lambda T, a: T.nn.functional.instance_norm(a), x, grad=False)
    check(lambda T, a: T.nn.functional.instance_norm(a, momentum=INF), x, grad=False)
    check(lambda T, a: T.nn.functional.batch_norm(a, None, None, training=True), x, grad=False)
    check(lambda T, a: T.nn.functional.group_norm(a, 1), x, grad=False)


@pytest.mark.parametrize('weight', [None, 'bfloat16', 'float32'])
def test_bfloat16_batch_norm_rounds_its_statistics_as_torch(weight):
    # (a mean of about 101 in bfloat16 steps of 0.5: torch keeps it in the parameters' dtype)
    x = (np.arange(24.).reshape(2, 3, 4) / 7 + 100).astype(np.float32).astype(BF16)

    def f(T, a):
        w = None if weight is None else T.tensor([1.5, 2., 3.]).to(getattr(T, weight))
        rm, rv = T.zeros(3).to(a.dtype), T.ones(3).to(a.dtype)
        out = T.nn.functional.batch_norm(a, rm if weight is None else None,
                                         rv if weight is None else None, w, None,
                                         training=True)
        return out if weight is not None else (out, rm, rv)
    check(f, x, grad=False, atol=0.07)  # (running statistics: one bfloat16 ulp at 10)


# -- slogdet: a NaN log|det| has sign 0 (the sign of a NaN pivot) ----------------------------
def test_slogdet_sign_of_a_nan_matrix():
    a = np.array([[[NAN, 1.], [1., 2.]], [[1., 2.], [3., 4.]]], np.float32)
    check(lambda T, m: T.linalg.slogdet(m), a, grad=False)
    check(lambda T, m: T.slogdet(m), a, grad=False)
    check(lambda T, m: T.linalg.slogdet(m), a.astype(np.complex64), grad=False)


# -- huber and soft margin losses write into the input's dtype ---------------------------------
@pytest.mark.parametrize('pair', [('float32', 'int64'), ('int64', 'float32'),
                                  ('float16', 'float32'), ('float32', 'float16'),
                                  ('int64', 'int64'), ('uint8', 'int8'), ('bool', 'float32'),
                                  ('float32', 'complex64'), ('float32', 'bool'),
                                  ('bfloat16', 'float16')])
@pytest.mark.parametrize('loss', ['huber_loss', 'soft_margin_loss'])
def test_mixed_dtype_losses(loss, pair):
    def f(T, a, b):
        return getattr(T.nn.functional, loss)(a.to(getattr(T, pair[0])),
                                              b.to(getattr(T, pair[1])))
    check(f, np.array([0.5, 2., -1.]), np.array([1., 0., 3.]), grad=False)


def test_huber_loss_of_a_0d_input_and_an_integer_target():
    # (no gradients compared: torch's backward of mixed dtypes fails, "Found dtype Long but
    # expected Float")
    check(lambda T, a, b: T.nn.functional.huber_loss(a, b, 'mean', 0.5),
          np.array(-0.034363974, np.float32), np.array([-2, 3, -4]), grad=False)


# -- pdist of a float16/bfloat16 input without pairs runs no kernel ------------------------
@pytest.mark.parametrize('shape', [(1, 3), (2, 3), (0, 3), (2, 0), (3, 2)])
@pytest.mark.parametrize('dt', ['bfloat16', 'float16', 'float32'])
def test_pdist_half_without_pairs(shape, dt):
    for fn in (lambda T, a: T.nn.functional.pdist(a.to(getattr(T, dt))),
               lambda T, a: T.pdist(a.to(getattr(T, dt)))):
        check(fn, np.ones(shape), grad=False)


# -- scaled_dot_product_attention: an empty result or value returns zeros first --------------
@pytest.mark.parametrize('q,k,v,gqa', [
    ((1, 3), (2, 0), (1, 0), True), ((2, 0), (2, 0), (2, 4), True),
    ((2, 3), (0, 3), (0, 4), True), ((1, 0), (2, 0), (2, 4), False),
    ((1, 0), (2, 0), (2, 0), False), ((0, 0), (2, 0), (2, 4), False),
    ((1, 3), (2, 3), (0, 4), False), ((1, 3), (0, 3), (2, 4), False),
    ((2, 0, 3), (1, 2, 3), (1, 2, 4), False), ((2, 1, 0), (2, 2, 0), (2, 2, 4), False)])
def test_attention_of_empty_tensors(q, k, v, gqa):
    check(lambda T, a, b, c: T.nn.functional.scaled_dot_product_attention(
        a, b, c, enable_gqa=gqa), np.ones(q), np.ones(k), np.ones(v))


@pytest.mark.parametrize('dt', ['int32', 'int64', 'bool', 'complex64', 'int16'])
def test_attention_of_empty_integer_tensors(dt):
    for q, k, v in (((1, 3), (2, 3), (2, 4)), ((1, 3), (2, 3), (0, 4)), ((2, 3), (0, 3), (0, 4))):
        check(lambda T, a, b, c: T.nn.functional.scaled_dot_product_attention(
            a.to(getattr(T, dt)), b.to(getattr(T, dt)), c.to(getattr(T, dt))),
            np.ones(q), np.ones(k), np.ones(v), grad=False)


# -- fake quantization: a zero point tensor is not range-checked ------------------------------
@pytest.mark.parametrize('zp', [np.array(-1.6485634, np.float32), np.array(7., np.float32),
                                np.array(2.6, np.float32), np.array(-1, np.int32)])
def test_fake_quantize_with_a_zero_point_tensor_out_of_range(zp):
    def f(T, x, s, z):
        return T.fake_quantize_per_tensor_affine(x, s.detach(), z.detach(), 2, 3)
    check(f, np.array([0.2347067, -3., 5.], np.float32), np.array(0.25562453, np.float32), zp)
    # (torch has no derivative for the qparams: it refuses them when they require grad)
    check(lambda T, x, s, z: T.fake_quantize_per_tensor_affine(x, s, z, 2, 3),
          np.array([0.2347067], np.float32), np.array(0.25, np.float32), zp,
          match_message=True)
    check(lambda T, x: T.fake_quantize_per_tensor_affine(x, 0.25, 7, 2, 3),
          np.array([0.2347067], np.float32))  # (a number zero point is checked)


# -- histogram: edges out of order are searched as torch searches; 0-d histograms ------------
@pytest.mark.parametrize('edges', [[0.3, 0.26, -0.02], [0.3, 0.1, 0.2], [0.1, 0.3, 0.2],
                                   [0., 1., 0.5, 2.], [0.3, 0.3, 0.5], [0.5, NAN, 1.]])
@pytest.mark.parametrize('kw', [{}, {'density': True}, {'weight': np.array([1., 2., 3., 4.])}])
def test_histogram_with_edges_out_of_order(edges, kw):
    x = np.array([2.16, 0.15, 0.25, 0.31])

    def f(T, a, b):
        extra = {k: T.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        return T.histogram(a, b, **extra)
    check(f, x, np.array(edges), grad=False)
    check(lambda T, a, b: T.histogramdd(a[:, None], [b]), x, np.array(edges), grad=False)


@pytest.mark.parametrize('bins', [0, [], 3])
@pytest.mark.parametrize('density', [False, True])
def test_histogramdd_of_points_without_dims(bins, density):
    check(lambda T, a: T.histogramdd(a, bins, density=density), np.ones((2, 0), np.float32),
          grad=False)


@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_histogram_value_on_an_inner_linspace_edge(dt):
    # (torch's linspace puts the inner edge at 0.30000000000000004: 0.3 falls in bin 0)
    check(lambda T, a: T.histogram(a, 2), np.array([0.3], dt), grad=False)
    check(lambda T, a: T.histogramdd(a, 2), np.array([[0.3, -0.2]], dt), grad=False)


@pytest.mark.parametrize('row', [[NAN, -1.2], [-1.2, NAN], [NAN, -1., 2.], [2., 1., NAN],
                                 [3., NAN, 3., NAN, NAN], [NAN, NAN, -1.]])
def test_mode_with_nan_follows_torchs_sort_order(row):
    # torch sorts (value, index) pairs with std::sort and a comparator NaN answers false both
    # ways: its mode of [nan, -1.2] is NaN and of [-1.2, nan] is -1.2. ember replays that
    # sort (ember/_ops/_libstdcxx.py), so it reports the same element.
    check(lambda T, a: T.mode(a, 0), np.array(row, np.float32), grad=False)


def test_mode_of_a_tie_pattern():
    check(lambda T, a: T.mode(a, 0), np.array([[1., 2.], [1., 3.], [2., 2.]]), grad=False)


# -- non-finite inputs where torch is wrong (reported by the sweep, not gated) ---------------
def test_cdist_inf_norm_propagates_nan():
    # torch's cdist with p=inf drops a NaN coordinate; its own vector_norm keeps it
    a = np.array([[1., NAN, 3.], [NAN, 1., 1.]], np.float32)
    b = np.array([[0., 0., 0.]], np.float32)
    e = values(ember.cdist(ember.tensor(a), ember.tensor(b), p=INF))
    ta, tb = torch.tensor(a), torch.tensor(b)
    right = values(torch.linalg.vector_norm(ta[:, None] - tb[None], INF, -1))
    np.testing.assert_array_equal(e, right)
    assert not np.isnan(values(torch.cdist(ta, tb, p=INF))).any()


def test_bfloat16_nan_keeps_its_sign():
    # torch's vectorised float32 -> bfloat16 conversion writes every NaN as 0xFFFF (sign
    # set), its float64 one as 0x7FC0 (sign clear). IEEE 754 leaves a NaN's sign to the
    # implementation; ember keeps the sign of the NaN converted.
    e = values(ember.tensor([NAN, 1.]).to(ember.bfloat16).signbit())
    right = values(torch.tensor([NAN, 1.], dtype=torch.float64).to(torch.bfloat16).signbit())
    np.testing.assert_array_equal(e, right)
    assert values(torch.tensor([NAN, 1.]).to(torch.bfloat16).signbit())[0]  # (float32 path)
    assert values(ember.tensor([-NAN]).to(ember.bfloat16).signbit())[0]


def test_fake_quantize_per_channel_refuses_a_scale_that_requires_grad():
    check(lambda T, x, s, z: T.fake_quantize_per_channel_affine(x, s, z, 0, 0, 3),
          np.ones((2, 2), np.float32), np.ones(2, np.float32), np.zeros(2, np.int32),
          match_message=True)
    check(lambda T, x, s, z: T.fake_quantize_per_channel_affine(x, s.detach(), z, 0, 0, 3),
          np.ones((2, 2), np.float32), np.ones(2, np.float32), np.zeros(2, np.int32))


# -- expand: a kept size-1 dim keeps its stride, a new one steps over the dims inside it ----
@pytest.mark.parametrize('shape,target', [
    ((1, 1), (3, 1)), ((2,), (1, 2)), ((2,), (3, 2)), ((1,), (1, 1)), ((3, 1), (3, 4)),
    ((1, 3), (2, 1, 3)), ((2, 1, 1), (2, 1, 5)), ((2, 3), (1, 1, 2, 3)), ((), (1,)),
    ((), (3, 1)), ((4, 3), (1, 1, 4, 3))])
def test_expand_strides(shape, target):
    e, t = (lib.zeros(shape).expand(*target) for lib in (ember, torch))
    assert e.stride() == t.stride() and e.is_contiguous() == t.is_contiguous()
    e, t = (lib.zeros(4, 3)[::2, :1].expand(1, 2, 1) for lib in (ember, torch))
    assert e.stride() == t.stride()


def test_expand_to_new_size_one_dims_stays_a_writable_view():
    def f(T):
        y = T.zeros(2)
        y.expand(1, 2).add_(1)
        return y
    e, t = both(f)
    same(e, t)


# -- cumprod with a dtype: the gradient of the values multiplied (torch's uses the input's) --
def test_cumprod_gradient_through_a_dtype_cast():
    x = np.array([[-0.54 + 1.6j], [-0.43 + 1.05j], [1.49 + 0.47j]])
    w = np.array([[0.3], [-1.2], [0.7]])

    def grad(lib, cast_first):
        t = lib.tensor(x, requires_grad=True)
        y = t.to(lib.float32).cumprod(-2) if cast_first else t.cumprod(-2, dtype=lib.float32)
        return values(lib.autograd.grad((y * lib.tensor(w, dtype=lib.float32)).sum(), t)[0])
    right = grad(torch, True)  # (torch's own answer through an explicit cast)
    np.testing.assert_allclose(grad(ember, False), right, rtol=1e-5)
    np.testing.assert_allclose(grad(ember, True), right, rtol=1e-5)
    assert np.abs(grad(torch, False).imag).max() > 0.01  # torch's (tests/fuzz/known.py)
    # a real input cast up keeps torch's gradient, and its second derivative
    check(lambda T, a: a.cumprod(0, dtype=T.float64), np.array([0.5, -2., 3.], np.float32),
          double=True)


# -- eigvals of a matrix holding inf or NaN is NaN (eig refuses) ------------------------------
def test_eigvals_of_non_finite_matrices():
    a = np.array([[[1., INF], [0., 1.]], [[2., 1.], [0., 3.]]], np.float32)
    check(lambda T, m: T.linalg.eigvals(m), a, grad=False)
    check(lambda T, m: T.linalg.eig(m), a, grad=False)


# -- eigh reads one triangle; a 1x1 or 2x2 matrix holding NaN gives NaN -----------------------
@pytest.mark.parametrize('m', [[[1., 2.], [NAN, 3.]], [[1., NAN], [2., 3.]], [[NAN]],
                               [[1., INF], [2., 3.]]])
@pytest.mark.parametrize('uplo', ['U', 'L'])
def test_eigh_of_nan_in_the_unread_triangle(m, uplo):
    check(lambda T, a: T.linalg.eigvalsh(a, uplo), np.array(m, np.float32), grad=False)
    check(lambda T, a: T.linalg.eigh(a, uplo)[0], np.array(m, np.float32), grad=False)


def test_eigh_of_a_3x3_matrix_with_nan_in_the_unread_triangle():
    m = np.array([[-1.03, 0.63, 0.], [0.06, -1.03, 0.99], [NAN, 0.26, 1.]], np.float32)
    check(lambda T, a: T.linalg.eigvalsh(a, 'U'), m, grad=False)


# -- matrix_rank: each of torch's forms checks in its own order ------------------------------
@pytest.mark.parametrize('dt', ['bfloat16', 'float16', 'int64', 'float32', 'complex64', 'bool'])
@pytest.mark.parametrize('shape', [(2, 0), (2, 2), (0, 0), (3, 0, 2), (2, 3)])
@pytest.mark.parametrize('form', ['tol', 'tol_h', 'none', 'hermitian', 'atol', 'atol_t',
                                  'atol_t_h', 'rtol_t', 'rtol_t_h', 'atol_c'])
def test_matrix_rank_forms(dt, shape, form):
    def f(T, a):
        a = a.to(getattr(T, dt))
        return {'tol': lambda: T.linalg.matrix_rank(a, 1.5, False),
                'tol_h': lambda: T.linalg.matrix_rank(a, 1.5, True),
                'none': lambda: T.linalg.matrix_rank(a),
                'hermitian': lambda: T.linalg.matrix_rank(a, hermitian=True),
                'atol': lambda: T.linalg.matrix_rank(a, atol=0.5),
                'atol_t': lambda: T.linalg.matrix_rank(a, atol=T.tensor(0.5)),
                'atol_t_h': lambda: T.linalg.matrix_rank(a, atol=T.tensor(0.5), hermitian=True),
                'rtol_t': lambda: T.linalg.matrix_rank(a, rtol=T.tensor(0.5)),
                'rtol_t_h': lambda: T.linalg.matrix_rank(a, rtol=T.tensor(0.5), hermitian=True),
                'atol_c': lambda: T.linalg.matrix_rank(a, atol=T.tensor(0.5 + 0j))}[form]()
    check(f, np.ones(shape), grad=False, match_message=True)


# -- cumulative_trapezoid slices x along y's dim, whatever x's length there -------------------
@pytest.mark.parametrize('ys,xs', [((0,), (2, 0)), ((0,), (0,)), ((2, 0), (2, 0)),
                                   ((0, 3), (2, 3)), ((2, 0), (1, 0)), ((0,), (3,))])
@pytest.mark.parametrize('dim', [-1, 0])
def test_trapezoid_without_samples(ys, xs, dim):
    for fn in ('cumulative_trapezoid', 'trapezoid'):
        check(lambda T, y, x: getattr(T, fn)(y.to(T.uint8), x.to(T.uint8), dim=dim),
              np.ones(ys), np.ones(xs), grad=False)


# -- softmax of a 0-d tensor is exp(x - x): NaN for inf or NaN --------------------------------
@pytest.mark.parametrize('v', [-INF, INF, NAN, 2.])
@pytest.mark.parametrize('dt', [BF16, np.float32])
def test_softmax_of_a_non_finite_0d_tensor(v, dt):
    for fn in (lambda T, a: T.nn.functional.softmin(a, 0), lambda T, a: T.softmax(a, 0),
               lambda T, a: T.log_softmax(a, 0)):
        check(fn, np.array(v).astype(dt), grad=False)
    check(lambda T, a: T.softmax(a, 0), np.array(2.))
