"""Wrong values, dtypes, shapes and spurious errors the differential fuzzer found (issue 15,
second pass), each pinned against torch.

Every test runs the same code on ember and torch (``tests.oracle.oracle.check``): values,
dtype, shape, requires_grad, grad_fn, exception class (and message where it matters), and
gradients.
"""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import BFLOAT16, check, torch

import ember

R = np.random.default_rng(1515)
NAN = float('nan')


def m(*shape):
    return R.standard_normal(shape)


# -- sign of NaN is 0 in torch (NumPy: NaN) ------------------------------------------------
@pytest.mark.parametrize('dt', [np.float32, np.float64, np.float16, BFLOAT16])
@pytest.mark.parametrize('op', ['sign', 'sgn'])
def test_sign_of_nan_is_zero(op, dt):
    x = np.array([NAN, -1.5, 0.0, 2.0, -0.0]).astype(dt)
    check(lambda T, a: getattr(T, op)(a), x, grad=False)


def test_sgn_of_complex_nan_stays_nan():
    x = np.array([complex(NAN, 1), complex(0, NAN), 3 + 4j])
    check(lambda T, a: T.sgn(a), x, grad=False)


# -- bincount of an empty input counts in int64 whatever the weights ------------------------
@pytest.mark.parametrize('wdt', [np.int8, np.int32, np.float32, np.float64, np.bool_])
def test_bincount_empty_input_is_int64(wdt):
    e = np.array([], np.int64)
    check(lambda T, x, w: T.bincount(x, w), e, np.array([], wdt), grad=False)
    check(lambda T, x, w: T.bincount(x, w, 3), e, np.array([], wdt), grad=False)
    # an empty input is counted before the weights' length is checked
    check(lambda T, x, w: T.bincount(x, w, 2), e, np.array([1], wdt), grad=False)
    check(lambda T, x, w: T.bincount(x, w), np.array([0, 2]), np.array([1, 3], wdt),
          grad=False)


# -- view(dtype) is outside the graph -------------------------------------------------------
@pytest.mark.parametrize('dt', ['float32', 'float64', 'int64', 'complex64'])
def test_view_dtype_does_not_require_grad(dt):
    def f(T, x):
        y = x.view(getattr(T, dt))
        return y.requires_grad, y.grad_fn is None, y._is_view(), y._base is None
    got = [f(ember, ember.tensor(m(2, 4), requires_grad=True))]
    want = [f(torch, torch.tensor(m(2, 4), requires_grad=True))]
    assert got == want


def test_view_dtype_shares_data_and_version():
    for T in (ember, torch):
        x = T.zeros(4, dtype=T.float64)
        y = x[1:].view(T.int64)
        y.add_(1)
        assert (x._version, y._version) == (1, 1)
        assert x[1].item() != 0.0


# -- legacy storage classes ----------------------------------------------------------------
@pytest.mark.parametrize('dt', ['float32', 'int64', 'complex64', 'bool'])
def test_storage_type_is_a_legacy_storage_class(dt):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        for T in (ember, torch):
            x = T.zeros(2, dtype=getattr(T, dt))
            cls = x.storage_type()
            assert type(cls).__name__ == '_LegacyStorageMeta'
            assert isinstance(x.storage(), cls)
        e = ember.zeros(2).storage_type()
        t = torch.zeros(2).storage_type()
        assert e.__name__ == t.__name__
        assert not isinstance(ember.zeros(2, dtype=ember.float64).storage(), e)


# -- integer losses -------------------------------------------------------------------------
IX = np.array([[3, -2, 1], [0, 5, -1]], np.int32)
IT = np.array([[1, -1, 1], [-1, 1, -1]], np.int32)


@pytest.mark.parametrize('margin', [1.0, 1.5, -2.7, 0, True, 300, NAN])
@pytest.mark.parametrize('reduction', ['none', 'sum', 'mean'])
@pytest.mark.parametrize('dt', [np.int32, np.int8, np.uint8, np.int64])
def test_hinge_embedding_loss_integer_inputs(dt, reduction, margin):
    check(lambda T, x, t: T.nn.functional.hinge_embedding_loss(x, t, margin,
                                                               reduction=reduction),
          IX.astype(dt), IT, match_message=True)


def test_hinge_embedding_loss_aten_form_integer():
    check(lambda T, x, t: T.hinge_embedding_loss(x, t, 1.0, 0), IX.astype(np.int16),
          IT.astype(np.int16))
    check(lambda T, x, t: T.hinge_embedding_loss(x, t, -1.0, 2), IX.astype(np.uint8), IT)


@pytest.mark.parametrize('margin', [0, 2, 1.5])
@pytest.mark.parametrize('reduction', ['none', 'sum', 'mean'])
def test_margin_ranking_loss_integer_inputs_give_float(reduction, margin):
    y = np.array([[1, 2, 1], [0, 5, -1]], np.int16)
    check(lambda T, a, b, t: T.nn.functional.margin_ranking_loss(a, b, t, margin,
                                                                 reduction=reduction),
          IX.astype(np.int16), y, IT.astype(np.int16))
    check(lambda T, a, b, t: T.margin_ranking_loss(a, b, t, margin, 0),
          IX.astype(np.int8), y.astype(np.float16), IT.astype(np.int8))


# -- fill_/zero_ write one value: torch allows an expanded tensor ---------------------------
@pytest.mark.parametrize('op', ['fill_', 'zero_', 'fill_diagonal_'])
@pytest.mark.parametrize('dt', [np.float32, np.int16, np.bool_])
def test_one_value_writes_into_an_expanded_tensor(op, dt):
    def f(T, x):
        y = x.expand(3, 3)
        r = {'fill_': lambda: y.fill_(2), 'zero_': y.zero_,
             'fill_diagonal_': lambda: x.expand(3, 1).fill_diagonal_(3)}[op]()
        return r, x
    check(f, np.ones((3, 1), dt), grad=False)


def test_other_in_place_ops_still_refuse_an_expanded_tensor():
    check(lambda T, x: T.relu_(x.expand(3, 3)), np.ones((3, 1)), grad=False)
    check(lambda T, x: x.expand(3, 3).add_(1), np.ones((3, 1)), grad=False)


# -- numbers written into integer dtypes -----------------------------------------------------
SCALARS = [-1, -255, -256, 300, -1.5, -0.5, 255.9, 1.5, NAN, True]


@pytest.mark.parametrize('v', SCALARS)
@pytest.mark.parametrize('dt', ['uint8', 'int8', 'int64'])
def test_full_and_fill_into_integer_dtypes(dt, v):
    check(lambda T: T.full([2], v, dtype=getattr(T, dt)), match_message=True)
    check(lambda T: T.zeros(2, dtype=getattr(T, dt)).fill_(v), match_message=True)
    check(lambda T: T.full_like(T.zeros(2), v, dtype=getattr(T, dt)), match_message=True)
    check(lambda T: T.zeros(2, dtype=getattr(T, dt)).new_full((2,), v), match_message=True)
    check(lambda T: T.scalar_tensor(v, dtype=getattr(T, dt)), match_message=True)


@pytest.mark.parametrize('v', [-2, -300, 300])
@pytest.mark.parametrize('op', ['bitwise_or', 'bitwise_xor', 'sub', 'mul'])
def test_number_on_the_left_of_an_integer_op_wraps(op, v):
    for dt in (np.uint8, np.int8):
        check(lambda T, x: getattr(T, op)(v, x), np.array([7, 1], dt))


# -- addcmul: the product is computed in the dtype of all three -----------------------------
def test_addcmul_promotes_all_three_operands():
    x = np.array([[0.3994, 1e30, 0.1669]], np.float32)
    check(lambda T, a, b, c: T.addcmul(a, b, c), x, np.array([[8, 7, 0]], np.uint8),
          np.array(-2, np.int16))
    check(lambda T, a, b, c: T.addcmul(a, b, c), np.zeros(2, np.float32),
          np.array([16, 3], np.uint8), np.array([16, 3], np.uint8))
    check(lambda T, a, b, c: T.addcmul(a, b, c, value=-300), np.zeros(2, np.int32),
          np.array([16, 3], np.uint8), np.array([16, 3], np.uint8))
    check(lambda T, a, b, c: T.addcmul(a, b, c, value=0.5), m(2), m(2).astype(np.float32),
          np.array(2.0))


@pytest.mark.parametrize('value', [-1, -300, 2])
def test_addcmul_negative_value_on_unsigned_wraps(value):
    a, b, c = (np.array(v, np.uint8) for v in ([5, 5], [7, 4], [6, 0]))
    check(lambda T, x, y, z: x.addcmul(y, z, value=value), a, b, c, match_message=True)
    check(lambda T, x, y, z: x.clone().addcmul_(y, z, value=value), a, b, c,
          match_message=True)


# -- xlogy's gradient is xlogy(grad, y): a zero gradient stays 0 where log(y) is NaN ---------
@pytest.mark.parametrize('op', ['xlogy', 'xlog1py'])
@pytest.mark.parametrize('gv', [0.0, 1.0])
def test_xlogy_gradient_of_a_zero_gradient(op, gv):
    xs = np.array([0., 0., 2., 2., 0., 2., 1.])
    ys = np.array([0., -3., 0., -3., -1., -1., NAN])

    def f(T, x, y):
        r = getattr(T.special, op)(x, y)
        return T.autograd.grad(r, (x, y), T.full_like(r, gv))
    check(f, xs, ys, grad=False)
    for other in (0.0, -1.0, -3.0, 2.0):
        check(lambda T, x: T.autograd.grad(getattr(T.special, op)(x, other), x,
                                           T.full_like(x, gv)), xs, grad=False)


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none', 'batchmean'])
@pytest.mark.parametrize('log_target', [False, True])
def test_kl_div_empty_broadcast_gradient(reduction, log_target):
    """An empty input broadcast against a target with negative entries: torch's gradient
    of the target is 0 (its xlogy), not NaN."""
    def f(T, a, b):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', UserWarning)
            return T.nn.functional.kl_div(a, b, reduction=reduction, log_target=log_target)
    check(f, np.zeros((1, 0)), np.array([[1.6], [1.5], [-2.4]]))
    check(f, m(3, 4), np.abs(m(3, 4)))


# -- lerp: torch's two-sided formula is exact at both ends ------------------------------------
@pytest.mark.parametrize('w', [1.0, 0.5, 0.49, -0.7, 2.0, 0.0])
def test_lerp_exact_at_the_end_points(w):
    x = np.array([1e30, -3., 2., 0.5], np.float32)
    e = np.array([1., 1e30, -2., 0.25], np.float32)
    check(lambda T, a, b: T.lerp(a, b, w), x, e)
    check(lambda T, a, b: T.lerp(a, b, T.full((4,), w)), x, e)
    check(lambda T, a, b, c: T.lerp(a, b, c), m(4), m(4), np.full(4, w))


def test_lerp_complex_weight():
    check(lambda T, a, b, c: T.lerp(a, b, c), np.array([1 + 2j, 3j]), np.array([2j, 1.]),
          np.array([0.3 + 0.5j, 0.9j]))


# -- dtypes and shapes ------------------------------------------------------------------------
def test_native_dropout_empty_input_mask_dtype():
    check(lambda T, x: T.native_dropout(x, 2.0, False), np.zeros(0), grad=False)
    check(lambda T, x: T.native_dropout(x, 0.3, True), np.zeros((2, 0), np.float32),
          grad=False)
    check(lambda T, x: T.native_dropout(x, 0.3, False), np.ones(3), grad=False)


@pytest.mark.parametrize('x', [np.array(1, np.int32), np.array(1.5), np.array([[1, 2]])])
def test_sum_to_size_of_no_dims_is_a_sum(x):
    check(lambda T, a: a.sum_to_size([]), x)
    check(lambda T, a: a.sum_to_size(a.shape), x)


@pytest.mark.parametrize('size', [0, 1])
def test_unfold_of_a_0d_tensor(size):
    check(lambda T, x: x.unfold(0, size, 3), np.array(5.0))
    check(lambda T, x: T.unfold_copy(x, -1, size, 1), np.array(-0.95))
    check(lambda T, x: x.unfold(0, size, 1), np.array(5, np.int8))


@pytest.mark.parametrize('x0, bound', [((), ()), ((3,), ()), ((), (3,)), ((3,), (3,))])
def test_clamp_tensor_bounds_promote_as_torch(x0, bound):
    x = R.standard_normal(x0).astype(np.float32)
    b = np.asarray(R.standard_normal(bound))
    check(lambda T, a, c: T.clamp(a, None, c), x, b)
    check(lambda T, a, c: T.clamp_min(a, c), x, b)
    check(lambda T, a, c: T.clamp(a, c, c + 1), x, b)
    check(lambda T, a, c: T.clamp(a, c), np.full(x0, 5), b)


def test_cumulative_trapezoid_of_no_samples_takes_xs_dtype():
    check(lambda T, y, x: T.cumulative_trapezoid(y, x), np.zeros((1, 0), np.uint8),
          np.zeros(0))
    check(lambda T, y: T.cumulative_trapezoid(y, dx=2), np.zeros((1, 0), np.float16))


def test_linalg_vander_of_a_0d_tensor():
    check(lambda T, x: T.linalg.vander(x, N=3), np.array(0.55 - 1.59j))
    check(lambda T, x: T.linalg.vander(x, N=2), np.array(1.5))


@pytest.mark.parametrize('log_input', [False, True])
def test_poisson_nll_loss_full_keeps_the_input_dtype(log_input):
    check(lambda T, x, t: T.poisson_nll_loss(x, t, log_input, True, 1e-5, 2),
          np.ones((2, 3), np.float16), np.full((2, 3), 3, np.int32))
    check(lambda T, x, t: T.nn.functional.poisson_nll_loss(x, t, log_input=log_input,
                                                           full=True),
          np.linspace(0.5, 2, 6).reshape(2, 3), np.arange(6.).reshape(2, 3))


@pytest.mark.parametrize('left', [True, False])
@pytest.mark.parametrize('da, db', [(np.complex64, np.complex128), (np.float32, np.float64),
                                    (np.float64, np.float32), (np.complex64, np.float64)])
def test_solve_triangular_solves_in_as_dtype(da, db, left):
    a = (np.eye(3) * 2 + np.triu(m(3, 3)) * 0.3).astype(da)
    # (a real B cast to a complex A: torch's own backward fails on the cast, so no grads)
    check(lambda T, A, B: T.linalg.solve_triangular(A, B, upper=True, left=left), a,
          m(2, 3, 3).astype(db), grad=np.dtype(db).kind == np.dtype(da).kind)


def test_solve_triangular_keeps_a_complex_right_side():
    """torch casts a complex B to a real A's dtype, dropping the imaginary part (with a
    warning); ember promotes and keeps it (a difference on purpose)."""
    a = np.eye(2) * 2
    b = np.array([[1 + 1j, 2j], [3, 4]], np.complex64)
    x = ember.linalg.solve_triangular(ember.tensor(a), ember.tensor(b), upper=True)
    assert x.dtype == ember.complex128
    np.testing.assert_allclose(x._data, b / 2)


# -- layer/group norm statistics of half inputs in float, empty groups -----------------------
@pytest.mark.parametrize('dt', [np.float16, BFLOAT16])
def test_layer_norm_of_a_constant_half_row(dt):
    x = np.full((3, 3), -0.947).astype(dt)
    check(lambda T, a: T.native_layer_norm(a, [3], None, None, 1e-5), x, grad=False)
    check(lambda T, a: T.nn.functional.layer_norm(a, [3]), x)
    xs = np.linspace(-2, 3, 12).reshape(3, 4).astype(dt)
    w = np.linspace(0.5, 1.5, 4).astype(dt)
    check(lambda T, a, b: T.nn.functional.layer_norm(a, [4], b, b), xs, w)


def test_norms_of_empty_groups():
    check(lambda T, x: T.native_group_norm(x, None, None, 3, 2, 0, 1, 0.1),
          np.zeros((2, 0), np.float32), grad=False)
    check(lambda T, x: T.native_group_norm(x, None, None, 3, 2, 0, 1, 0.1),
          np.zeros((2, 0), BFLOAT16), grad=False)
    check(lambda T, x: T.native_group_norm(x, None, None, 2, 4, 0, 2, 0.1),
          np.zeros((2, 4, 0), np.float32), grad=False)
    check(lambda T, x: T.native_layer_norm(x, [0], None, None, 0.1), np.zeros((2, 0)),
          grad=False)


# -- geqrf and cholesky_inverse as LAPACK computes them (needs scipy's LAPACK) ----------------
def _needs_scipy_lapack():
    from ember._ops._scipy import lapack
    if lapack() is None:
        pytest.skip("ember's LAPACK path is scipy's (the ember[scipy] extra; without it NumPy's "
                    "double-precision QR and a triangular solve stand in)")


def test_geqrf_of_a_rank_deficient_float32_matrix():
    _needs_scipy_lapack()
    """geqrf runs in the input's precision (ember computed float32 in float64). Of a rank-1
    matrix only the first reflector and R's first row are determined: past them LAPACK
    reflects rounding remainders (1e-8), which differ between builds and CPUs."""
    a = np.array([[0.51342326] * 3, [-0.39539063] * 3, [0.04511931] * 3], np.float32)
    check(lambda T, x: (T.geqrf(x)[0][:, 0], T.geqrf(x)[0][0], T.geqrf(x)[1][:1]), a,
          grad=False)
    check(lambda T, x: T.geqrf(x), m(2, 3, 4).astype(np.float32), grad=False)
    check(lambda T, x: T.geqrf(x), m(4, 3) + 1j * m(4, 3), grad=False)


@pytest.mark.parametrize('upper', [False, True])
@pytest.mark.parametrize('dt', [np.float32, np.float64, np.complex128])
def test_cholesky_inverse_of_any_factor(dt, upper):
    """Factors that are not triangular or have a complex diagonal: torch inverts through
    LAPACK's potri (one triangle, mirrored), and differentiates ``-R (g + g^H) R``."""
    _needs_scipy_lapack()
    a = m(2, 3, 3) + 2 * np.eye(3)
    if dt == np.complex128:
        a = a + 1j * m(2, 3, 3)
    check(lambda T, x: T.cholesky_inverse(x, upper), a.astype(dt))
    c = np.full((3, 3), -0.03833692, np.float32) + np.diag([0.03833692 * 2] * 3).astype(
        np.float32)
    check(lambda T, x: T.cholesky_inverse(x, upper), c)


# -- spurious errors ----------------------------------------------------------------------------
@pytest.mark.parametrize('op', ['cat', 'cat3', 'hstack', 'concat'])
def test_cat_backward_with_a_skipped_empty_input(op):
    def f(T, a, b):
        return {'cat': lambda: T.cat([a, b], -1), 'cat3': lambda: T.cat([b, a, b], 0),
                'hstack': lambda: T.hstack([a, b]), 'concat': lambda: T.concat([a, b, a], 1)}[op]()
    check(f, np.zeros(0), m(2, 3, 3))
    check(f, np.zeros(0), m(3))


def test_std_backward_of_a_0d_tensor_over_dim_minus_one():
    check(lambda T, x: x.std([-1], keepdim=True), np.array(-0.95))
    check(lambda T, x: x.var(-1), np.array(0.5))


def test_poisson_of_a_0d_rate():
    check(lambda T, x: T.poisson(x).shape, np.array(0.12), grad=False)


@pytest.mark.parametrize('src, dst', [(0, 0), (0, -1), ([0], [-1]), ((), ())])
def test_movedim_of_a_0d_tensor(src, dst):
    check(lambda T, x: T.movedim(x, src, dst), np.array(1.5))
    check(lambda T, x: x.moveaxis(src, dst), np.array(1.5))


@pytest.mark.parametrize('shape', [(1, 1), (1, 3), (2, 0), (3, 0), (0, 2)])
@pytest.mark.parametrize('p', [2.0, float('inf'), 1.0])
def test_pdist_without_pairs_or_elements(shape, p):
    # (torch's own pdist backward crashes the process on a 0-row input: no grads there)
    check(lambda T, x: T.nn.functional.pdist(x, p), m(*shape), grad=shape[0] > 0)


@pytest.mark.parametrize('bs', [(2, 2, 3, 1), (3, 4), (2, 1, 3, 4), (4,), (5, 2, 2, 3, 4)])
def test_linear_bias_broadcasting_over_batches(bs):
    check(lambda T, x, w, b: T.nn.functional.linear(x, w, b), m(2, 2, 3, 4), m(4, 4), m(*bs))


@pytest.mark.parametrize('name', ['F.dropout2d', 'F.dropout3d', 'F.feature_alpha_dropout',
                                  'feature_dropout', 'feature_alpha_dropout'])
def test_feature_dropout_with_p_1_takes_any_rank(name):
    def f(T, x):
        space, attr = name.split('.') if '.' in name else (None, name)
        fn = getattr(T.nn.functional if space else T, attr)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', UserWarning)
            return fn(x * 2, 1.0, True)
    check(f, m(4))
    check(f, np.ones(4, np.uint8))


# -- linalg.lstsq: torch's default driver gelsy (through scipy's LAPACK) ---------------------
# (a rank that rcond truncates is left out: torch's own answer there changes with its thread
# count, so no build agrees with it on every call)
def test_lstsq_gelsy_solution():
    a = np.array([[1., 2., 3.], [2., 4., 6.1], [1., 0., 1.]])
    check(lambda T, x, y: T.linalg.lstsq(x, y), a, np.eye(3))
    check(lambda T, x, y: T.linalg.lstsq(x, y), np.array([[1., 1.], [1., 1.], [0., 0.]]),
          np.array([[2.], [2.], [1.]]))


def test_lstsq_rank_has_the_batch_shape_of_a():
    a = np.array([[1., 2., 3.], [2., 4., 6.1], [1., 0., 1.]])
    check(lambda T, x, y: T.linalg.lstsq(x, y).rank, a[None, None], np.ones((1, 2, 3, 1)),
          grad=False)
    check(lambda T, x, y: T.linalg.lstsq(x, y).rank, m(2, 1, 3, 2), m(2, 4, 3, 2),
          grad=False)


# -- non-finite inputs --------------------------------------------------------------------------
@pytest.mark.parametrize('descending', [False, True])
def test_sort_of_bfloat16_puts_nan_last(descending):
    x = np.array([[NAN, 1.5625, 6.03125], [NAN, -3.51562, NAN],
                  [3.82812, -2.39062, 4.78125]]).astype(BFLOAT16)
    check(lambda T, a: T.msort(a), x, grad=False)
    check(lambda T, a: T.sort(a, 1, descending), x, grad=False)
    check(lambda T, a: T.argsort(a, 0, descending), x, grad=False)


def test_softplus_with_a_nan_threshold():
    check(lambda T, x: T.nn.functional.softplus(x, 1, NAN),
          np.array([-0.987, 1.945, -0.1992, 30.], np.float32))
    check(lambda T, x: T.nn.functional.softplus(x, 1, NAN),
          np.array([-0.987, 1.945, -0.1992], np.float16))
