"""Reductions, scans and sorting against torch: values, dtypes, shapes, grad_fn names, first
and second derivatives, ties, empty inputs and errors."""
import numpy as np
import pytest

from .oracle import check, arr, torch, ember, BFLOAT16

SHAPES = [(), (0,), (5,), (2, 3), (2, 3, 4)]


def _dims_for(shape):
    """A few valid ``dim`` arguments for ``shape``: ints (incl. negative), tuples."""
    nd = len(shape)
    if nd == 0:
        return [0, -1, (), (0,)]
    out = [0, -1, tuple(range(nd))]
    if nd >= 2:
        out += [(0, -1), (-1,), 1]
    if nd >= 3:
        out += [(2, 0)]
    return out


# -- sum / mean / prod -----------------------------------------------------------------------
@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('op', ['sum', 'mean', 'nansum'])
def test_sum_mean_all(op, shape):
    check(lambda T, x: getattr(T, op)(x), arr(*shape), double=True)
    check(lambda T, x: getattr(x, op)(), arr(*shape, dtype=np.float32))


@pytest.mark.parametrize('shape', SHAPES[1:] + [()], ids=str)
@pytest.mark.parametrize('keepdim', [False, True])
@pytest.mark.parametrize('op', ['sum', 'mean', 'nansum'])
def test_sum_mean_dim(op, shape, keepdim):
    for d in _dims_for(shape):
        check(lambda T, x: getattr(T, op)(x, d, keepdim=keepdim), arr(*shape), double=True)


@pytest.mark.parametrize('dtype', [np.int64, np.int32, np.int16, np.uint8, np.bool_,
                                   np.float32, np.float16, BFLOAT16])
def test_sum_dtypes(dtype):
    x = arr(3, 4, dtype=dtype)
    check(lambda T, x: T.sum(x), x, grad=False)
    check(lambda T, x: T.sum(x, 1, keepdim=True), x, grad=False)
    check(lambda T, x: T.sum(x, dtype=T.float64), x, grad=False)
    check(lambda T, x: T.prod(x, 0), x, grad=False)
    check(lambda T, x: T.prod(x), x, grad=False)
    check(lambda T, x: T.mean(x), x, grad=False, match_message=True)
    check(lambda T, x: T.mean(x, 0, dtype=T.float64), x, grad=False)


def test_dtype_argument_refused_with_grad():
    for op in ['sum', 'nansum', 'prod']:
        check(lambda T, x: getattr(T, op)(x, dtype=T.int32), arr(3), match_message=True)
        check(lambda T, x: getattr(T, op)(x, 0, dtype=T.int64), arr(3), match_message=True)
    for op in ['cumsum', 'cumprod']:
        check(lambda T, x: getattr(T, op)(x, 0, dtype=T.int64), arr(3), match_message=True)
    check(lambda T, x: T.mean(x, dtype=T.int64), arr(3), match_message=True)
    check(lambda T, x: T.sum(x, dtype=T.int32), arr(3), grad=False)
    check(lambda T, x: T.sum(x.detach(), dtype=T.int32), arr(3))


def test_sum_dtype_grad():
    # The gradient is cast back to the input's dtype.
    check(lambda T, x: T.sum(x, 0, dtype=T.float64), arr(3, 2, dtype=np.float32))
    check(lambda T, x: T.mean(x, dtype=T.float64), arr(3, 2, dtype=np.float32))


def test_sum_noncontiguous():
    check(lambda T, x: T.sum(x.t(), 0), arr(3, 4), double=True)
    check(lambda T, x: x.t().mean(-1, keepdim=True), arr(3, 4), double=True)
    check(lambda T, x: x.transpose(0, 2).prod(1), arr(2, 3, 4, low=0.5, high=1.5),
          double=True)


def test_sum_errors():
    x = arr(2, 3)
    check(lambda T, x: T.sum(x, 2), x, match_message=True)
    check(lambda T, x: T.sum(x, (0, 0)), x, match_message=True)
    check(lambda T, x: T.sum(x, (0, -2)), x, match_message=True)
    check(lambda T, x: T.mean(x, -3), x, match_message=True)
    check(lambda T, x: T.prod(x, 5), x, match_message=True)


@pytest.mark.parametrize('shape', [(), (0,), (4,), (2, 3), (3, 0)], ids=str)
def test_prod_all(shape):
    check(lambda T, x: T.prod(x), arr(*shape, low=0.5, high=1.5), double=True)


@pytest.mark.parametrize('keepdim', [False, True])
def test_prod_dim(keepdim):
    for shape, d in [((4,), 0), ((2, 3), 1), ((2, 3), -2), ((2, 3, 4), 1), ((), 0),
                     ((3, 0), 0), ((3, 0), 1)]:
        check(lambda T, x: T.prod(x, d, keepdim), arr(*shape, low=0.5, high=1.5),
              double=True)


def test_prod_zeros():
    x = np.array([[1.5, 0., 2.], [0., 0., 3.], [2., 1., -1.]])
    check(lambda T, x: T.prod(x), x, double=True)
    check(lambda T, x: T.prod(x, 1), x, double=True)
    check(lambda T, x: T.prod(x, 0, keepdim=True), x, double=True)


# -- max / min / amax / amin -----------------------------------------------------------------
TIES = np.array([[1., 3., 3.], [2., 2., -1.], [0., 0., 0.]])
DISTINCT = np.array([[1., 3.5, 3.], [2., 2.5, -1.], [0.25, -0.5, 0.]])


@pytest.mark.parametrize('op', ['max', 'min', 'amax', 'amin'])
def test_extreme_all(op):
    for shape in [(), (5,), (2, 3), (2, 3, 4)]:
        check(lambda T, x: getattr(T, op)(x), arr(*shape), double=True)
    # Ties: torch shares the gradient evenly among the tied elements.
    check(lambda T, x: getattr(T, op)(x), TIES, double=True)
    check(lambda T, x: getattr(x, op)(), TIES.T.copy(), double=True)
    check(lambda T, x: getattr(T, op)(x), np.zeros((3, 2)), double=True)


@pytest.mark.parametrize('op', ['max', 'min'])
@pytest.mark.parametrize('keepdim', [False, True])
def test_extreme_dim(op, keepdim):
    for shape, d in [((5,), 0), ((2, 3), 1), ((2, 3), -2), ((2, 3, 4), 1), ((), 0), ((), -1),
                     ((3, 0), 1)]:
        check(lambda T, x: getattr(T, op)(x, d, keepdim), arr(*shape), double=True)
        check(lambda T, x: tuple(getattr(T, op)(x, dim=d, keepdim=keepdim)), arr(*shape),
              double=True)
    check(lambda T, x: getattr(T, op)(x, 1, keepdim), TIES, double=True)
    check(lambda T, x: getattr(T, op)(x.t(), 1, keepdim), TIES, double=True)


@pytest.mark.parametrize('op', ['max', 'min'])
def test_extreme_named_tuple(op):
    e = getattr(ember, op)(ember.tensor(TIES, requires_grad=True), 1)
    t = getattr(torch, op)(torch.tensor(TIES, requires_grad=True), 1)
    assert type(e).__name__ == type(t).__name__ == op
    np.testing.assert_array_equal(e.values._data, t.values.detach().numpy())
    np.testing.assert_array_equal(e.indices._data, t.indices.numpy())
    assert e[0] is e.values and e[1] is e.indices
    v, i = e
    assert i is e.indices
    assert str(e.indices.dtype) == 'torch.int64'
    assert repr(e) == repr(t)


@pytest.mark.parametrize('fn', [lambda T, x: T.sort(x), lambda T, x: T.topk(x, 2),
                                lambda T, x: T.aminmax(x), lambda T, x: x.min(0, True),
                                lambda T, x: T.kthvalue(x, 2), lambda T, x: T.median(x, 0),
                                lambda T, x: T.median(x, 1, True)])
@pytest.mark.parametrize('ties', [True, False])
def test_named_tuple_repr(fn, ties):
    x = TIES if ties else DISTINCT
    assert repr(fn(ember, ember.tensor(x))) == repr(fn(torch, torch.tensor(x)))


def test_kthvalue_median_ties():
    # Which tied element is reported (and gets the gradient) follows torch: kthvalue's
    # quickselect order, median's stable order; NaN counts as the largest value.
    rng = np.random.default_rng(0)
    for i in range(30):
        x = rng.integers(0, 3, (4, 7)).astype(np.float64)
        if i % 3 == 0:
            x[rng.random(x.shape) < 0.2] = np.nan
        k = int(rng.integers(1, 8))
        check(lambda T, x: tuple(T.kthvalue(x, k, 1)), x, double=(i % 3 != 0))
        check(lambda T, x: tuple(T.kthvalue(x, 2, 0, True)), x, double=(i % 3 != 0))
        check(lambda T, x: tuple(T.median(x, 1)), x, double=(i % 3 != 0))
        check(lambda T, x: T.median(x), x, double=(i % 3 != 0))


@pytest.mark.parametrize('op', ['max', 'min'])
def test_extreme_elementwise(op):
    check(lambda T, x, y: getattr(T, op)(x, y), arr(2, 3, seed=1), arr(3, seed=2),
          double=True)
    check(lambda T, x, y: getattr(x, op)(y), arr(2, 3, seed=1), arr(2, 1, seed=2))


@pytest.mark.parametrize('op', ['amax', 'amin'])
@pytest.mark.parametrize('keepdim', [False, True])
def test_amax_dim(op, keepdim):
    for shape in [(5,), (2, 3), (2, 3, 4), ()]:
        for d in _dims_for(shape):
            check(lambda T, x: getattr(T, op)(x, d, keepdim), arr(*shape), double=True)
    check(lambda T, x: getattr(T, op)(x, 1, keepdim), TIES, double=True)
    check(lambda T, x: getattr(T, op)(x, (0, 1), keepdim), TIES, double=True)
    check(lambda T, x: getattr(T, op)(x, 0, keepdim), np.zeros((3, 0)), double=True)


@pytest.mark.parametrize('op', ['max', 'min', 'amax', 'amin', 'argmax', 'argmin'])
@pytest.mark.parametrize('dtype', [np.int64, np.int32, np.uint8, np.bool_, np.float32])
def test_extreme_dtypes(op, dtype):
    x = arr(3, 4, dtype=dtype, low=0, high=5)
    check(lambda T, x: getattr(T, op)(x), x, grad=False)
    check(lambda T, x: getattr(T, op)(x, 1), x, grad=False)
    check(lambda T, x: getattr(T, op)(x, 0, True), x, grad=False)


@pytest.mark.parametrize('op', ['max', 'min', 'amax', 'amin', 'argmax', 'argmin'])
def test_extreme_empty_errors(op):
    check(lambda T, x: getattr(T, op)(x), np.zeros((0,)), match_message=True)
    check(lambda T, x: getattr(T, op)(x), np.zeros((2, 0)), match_message=True)
    check(lambda T, x: getattr(T, op)(x, 1), np.zeros((2, 0)), match_message=True)
    check(lambda T, x: getattr(T, op)(x, 0), np.zeros((2, 0)), match_message=True)
    check(lambda T, x: getattr(T, op)(x, 2), np.zeros((2, 3)), match_message=True)


def test_extreme_nan():
    x = np.array([[1., np.nan, 3.], [2., 5., -1.]])
    y = np.array([[1., np.nan, 3.], [np.nan, 5., -1.]])
    for op in ['max', 'min', 'amax', 'amin', 'argmax', 'argmin']:
        check(lambda T, x: getattr(T, op)(x), x, grad=False)
        check(lambda T, x: getattr(T, op)(x, 1), x, grad=False)
    for op in ['max', 'min', 'amax', 'amin', 'median']:
        # gradients through a NaN result: shared among the NaNs (max/min/median) or NaN
        check(lambda T, x: getattr(T, op)(x), y)
        check(lambda T, x: getattr(T, op)(x, 1), y)


@pytest.mark.parametrize('op', ['argmax', 'argmin'])
def test_argmax(op):
    for shape in [(), (5,), (2, 3), (2, 3, 4)]:
        check(lambda T, x: getattr(T, op)(x), arr(*shape))
        check(lambda T, x: getattr(T, op)(x, keepdim=True), arr(*shape))
        check(lambda T, x: getattr(T, op)(x, -1), arr(*shape))
        check(lambda T, x: getattr(T, op)(x, 0, True), arr(*shape))
    check(lambda T, x: getattr(T, op)(x, 1), TIES)
    check(lambda T, x: getattr(T, op)(x), TIES)
    check(lambda T, x: getattr(T, op)(x.t()), TIES)


def test_aminmax():
    check(lambda T, x: tuple(T.aminmax(x)), arr(2, 3), double=True)
    check(lambda T, x: tuple(T.aminmax(x, dim=1, keepdim=True)), TIES, double=True)
    check(lambda T, x: T.aminmax(x, dim=0).max, TIES, double=True)
    check(lambda T, x: T.aminmax(x), np.zeros(0), match_message=True)
    check(lambda T, x: T.aminmax(x, dim=1), np.zeros((2, 0)), match_message=True)


# -- var / std -------------------------------------------------------------------------------
@pytest.mark.filterwarnings('ignore:.*degrees of freedom is <= 0')
@pytest.mark.parametrize('op', ['var', 'std'])
def test_var_std(op):
    for shape in [(5,), (2, 3), (2, 3, 4)]:
        x = arr(*shape)
        check(lambda T, x: getattr(T, op)(x), x, double=True)
        check(lambda T, x: getattr(T, op)(x, False), x, double=True)
        check(lambda T, x: getattr(T, op)(x, unbiased=False), x, double=True)
        for d in _dims_for(shape):
            for keepdim in (False, True):
                check(lambda T, x: getattr(T, op)(x, d, keepdim=keepdim), x, double=True)
                check(lambda T, x: getattr(T, op)(x, d, False, keepdim), x, double=True)
        check(lambda T, x: getattr(T, op)(x, -1, correction=0), x, double=True)
        check(lambda T, x: getattr(T, op)(x, 0, correction=2), x, double=True)
        check(lambda T, x: getattr(T, op)(x, None, correction=0), x, double=True)
        check(lambda T, x: getattr(x, op)(dim=0), x, double=True)


@pytest.mark.filterwarnings('ignore:.*degrees of freedom is <= 0')
@pytest.mark.parametrize('op', ['var', 'std'])
def test_var_std_edge(op):
    # Single element with correction 1: nan; zero-d; empty.
    check(lambda T, x: getattr(T, op)(x), arr(1), grad=False)
    check(lambda T, x: getattr(T, op)(x, 0), arr(1, 3), grad=False)
    check(lambda T, x: getattr(T, op)(x), arr(), grad=False)
    check(lambda T, x: getattr(T, op)(x, 0), arr(), grad=False)
    check(lambda T, x: getattr(T, op)(x), arr(0), grad=False)
    check(lambda T, x: getattr(T, op)(x, 1), arr(2, 0), grad=False)
    check(lambda T, x: getattr(T, op)(x, 0, correction=3), arr(2, 2), grad=False)
    check(lambda T, x: getattr(T, op)(x), arr(3, dtype=np.float32), double=True)
    check(lambda T, x: getattr(T, op)(x), arr(3, dtype=np.int64), match_message=True)
    check(lambda T, x: getattr(T, op)(x, 3), arr(2, 3), match_message=True)
    # constant input: std's gradient at 0 is nan in torch (0/0).
    check(lambda T, x: getattr(T, op)(x.t(), 1), arr(3, 2), double=True)


@pytest.mark.parametrize('op', ['var', 'std', 'var_mean', 'std_mean'])
def test_var_dof_warning(op):
    # torch warns when the correction leaves no degrees of freedom; so does ember.
    with pytest.warns(UserWarning, match=r'degrees of freedom is <= 0'):
        getattr(ember, op)(ember.tensor([1.0]))


@pytest.mark.parametrize('op', ['var_mean', 'std_mean'])
def test_var_mean(op):
    x = arr(3, 4)
    check(lambda T, x: getattr(T, op)(x), x, double=True)
    check(lambda T, x: getattr(T, op)(x, 1), x, double=True)
    check(lambda T, x: getattr(T, op)(x, (0, 1), keepdim=True), x, double=True)
    check(lambda T, x: getattr(T, op)(x, 0, unbiased=False), x, double=True)
    check(lambda T, x: getattr(T, op)(x, dim=-1, correction=0), x, double=True)
    check(lambda T, x: getattr(T, op)(x, False), x, double=True)
    # only one of the two outputs used: the other's gradient is taken as zero
    check(lambda T, x: getattr(T, op)(x, 1)[0], x, double=True)
    check(lambda T, x: getattr(T, op)(x, 1)[1], x, double=True)


# -- norm / logsumexp / softmax --------------------------------------------------------------
@pytest.mark.parametrize('p', [2, 1, 3, 0.5, float('inf'), float('-inf'), 'fro', 0])
def test_norm(p):
    x = arr(3, 4)
    check(lambda T, x: T.norm(x, p), x, double=True)
    check(lambda T, x: x.norm(p, 1), x, double=True)
    check(lambda T, x: x.norm(p, dim=(0, 1), keepdim=True), x, double=True)
    check(lambda T, x: T.norm(x, p, -1, True), x, double=True)
    check(lambda T, x: T.norm(x, p), arr(5, dtype=np.float32))


def test_norm_misc():
    check(lambda T, x: T.norm(x), arr(2, 3), double=True)
    check(lambda T, x: T.norm(x), arr(), double=True)
    check(lambda T, x: T.norm(x), arr(0), double=True)
    check(lambda T, x: T.norm(x.t(), dim=0), arr(2, 3), double=True)
    # A zero slice: the second derivative is singular there (torch gives nan), so first order.
    check(lambda T, x: T.norm(x, dim=1), TIES)
    check(lambda T, x: T.norm(x, dim=1), TIES[:2], double=True)
    check(lambda T, x: T.norm(x, float('inf'), dim=1), TIES, double=True)
    check(lambda T, x: T.norm(x), np.zeros(3))
    check(lambda T, x: T.norm(x), arr(3, dtype=np.int64), match_message=True)
    check(lambda T, x: T.norm(x, dtype=T.float32), arr(3), match_message=True)
    check(lambda T, x: T.norm(x, dtype=T.float64), arr(3, dtype=np.float32), double=True)
    check(lambda T, x: T.norm(x, dtype=T.int64), arr(3), match_message=True)


def test_logsumexp():
    for shape in [(5,), (2, 3), (2, 3, 4), ()]:
        for d in _dims_for(shape):
            check(lambda T, x: T.logsumexp(x, d), arr(*shape), double=True)
            check(lambda T, x: x.logsumexp(d, keepdim=True), arr(*shape), double=True)
    check(lambda T, x: T.logsumexp(x, 1), np.array([[-np.inf, -np.inf], [np.inf, 1.]]),
          grad=False)
    check(lambda T, x: T.logsumexp(x, 1), np.array([[1000., 1000.], [-1000., 0.]]),
          double=True)
    check(lambda T, x: T.logsumexp(x, 0), arr(3, dtype=np.int64))
    check(lambda T, x: T.logsumexp(x, 0), arr(0, 3))
    check(lambda T, x: T.logsumexp(x, ()), arr(2, 3), match_message=True)
    check(lambda T, x: T.logsumexp(x, ()), arr(), double=True)
    check(lambda T, x: T.logsumexp(x, (), True), arr(2, 3), double=True)
    check(lambda T, x: T.logsumexp(x, ()), arr(2, 0), double=True)
    check(lambda T, x: T.logsumexp(x, 1), arr(0, 3))


@pytest.mark.parametrize('op', ['softmax', 'log_softmax'])
def test_softmax(op):
    for shape, d in [((5,), 0), ((2, 3), 1), ((2, 3), 0), ((2, 3, 4), -1), ((), 0),
                     ((2, 3, 4), 1), ((0, 3), 1)]:
        check(lambda T, x: getattr(T, op)(x, d), arr(*shape), double=True)
        check(lambda T, x: getattr(x, op)(dim=d), arr(*shape, dtype=np.float32))
    check(lambda T, x: getattr(T, op)(x.t(), 1), arr(3, 4), double=True)
    check(lambda T, x: getattr(T, op)(x, 1, dtype=T.float64), arr(2, 3, dtype=np.float32))
    check(lambda T, x: getattr(T, op)(x, 1), np.array([[1000., 0.], [-np.inf, 1.]]),
          double=True)
    check(lambda T, x: getattr(T, op)(x, 0), arr(3, dtype=np.int64), match_message=True)
    check(lambda T, x: getattr(T, op)(x, 0, dtype=T.float32), arr(3, dtype=np.int64))
    check(lambda T, x: getattr(T, op)(x, 2), arr(2, 3), match_message=True)


# -- scans -----------------------------------------------------------------------------------
@pytest.mark.parametrize('op', ['cumsum', 'cumprod'])
def test_scans(op):
    for shape, d in [((5,), 0), ((2, 3), 1), ((2, 3), -2), ((2, 3, 4), 1), ((), 0),
                     ((0,), 0), ((2, 0), 1)]:
        check(lambda T, x: getattr(T, op)(x, d), arr(*shape, low=0.5, high=1.5), double=True)
        check(lambda T, x: getattr(x, op)(dim=d), arr(*shape, dtype=np.float32))
    check(lambda T, x: getattr(T, op)(x.t(), 1), arr(3, 4), double=True)
    for dt in [np.int64, np.int32, np.bool_, np.uint8]:
        check(lambda T, x: getattr(T, op)(x, 0), arr(3, 2, dtype=dt, low=0, high=4))
    check(lambda T, x: getattr(T, op)(x, 0, dtype=T.float64), arr(3, dtype=np.int64))
    check(lambda T, x: getattr(T, op)(x, 0, dtype=T.float64), arr(3, dtype=np.float32))
    check(lambda T, x: getattr(T, op)(x, 2), arr(2, 3), match_message=True)


def test_cumprod_zeros():
    x = np.array([[2., 0., 3., 0.5], [0., 0., 1., 2.], [1., 2., 3., 0.]])
    check(lambda T, x: T.cumprod(x, 1), x, double=True)
    check(lambda T, x: T.cumprod(x, 0), x, double=True)


def test_scans_inplace():
    check(lambda T, x: (x * 1).cumsum_(0), arr(3, 2), double=True)
    check(lambda T, x: (x * 1).cumprod_(1), arr(3, 2), double=True)


# -- all / any -------------------------------------------------------------------------------
@pytest.mark.parametrize('op', ['all', 'any'])
@pytest.mark.parametrize('dtype', [np.bool_, np.float32, np.int64, np.uint8])
def test_all_any(op, dtype):
    for shape in [(), (0,), (4,), (2, 3), (2, 0)]:
        x = np.asarray(arr(*shape, dtype=dtype, low=0, high=2))  # bool 0-d: ndarray
        check(lambda T, x: getattr(T, op)(x), x, grad=False)
        for d in _dims_for(shape):
            check(lambda T, x: getattr(T, op)(x, d), x, grad=False)
            check(lambda T, x: getattr(x, op)(d, keepdim=True), x, grad=False)
    check(lambda T, x: getattr(T, op)(x), arr(3, 4), grad=True)  # never requires grad


def test_count_nonzero():
    x = arr(3, 4, dtype=np.int64, low=0, high=2)
    check(lambda T, x: T.count_nonzero(x), x, grad=False)
    check(lambda T, x: T.count_nonzero(x, 1), x, grad=False)
    check(lambda T, x: T.count_nonzero(x, (0, 1)), x, grad=False)


# -- sort / argsort / topk / kthvalue / median -----------------------------------------------
SORT_X = np.array([[3., 1., 2., 1.], [0., -1., 5., 5.], [2., 2., 2., 2.]])


@pytest.mark.parametrize('descending', [False, True])
def test_sort(descending):
    for shape, d in [((5,), 0), ((2, 3), 1), ((2, 3), 0), ((2, 3, 4), -2), ((), 0),
                     ((0,), 0), ((2, 0), 1)]:
        check(lambda T, x: tuple(T.sort(x, d, descending)), arr(*shape), double=True)
        check(lambda T, x: x.sort(dim=d, descending=descending).values, arr(*shape))
        check(lambda T, x: T.argsort(x, d, descending), arr(*shape))
    check(lambda T, x: tuple(T.sort(x, descending=descending, stable=True)), SORT_X,
          double=True)
    check(lambda T, x: tuple(T.sort(x, dim=-1, descending=descending, stable=False)), SORT_X,
          grad=False)
    check(lambda T, x: T.argsort(x, descending=descending, stable=True), SORT_X)
    check(lambda T, x: tuple(T.sort(x.t(), 1, descending)), SORT_X, double=True)
    for dt in [np.int64, np.int32, np.bool_, np.uint8]:
        check(lambda T, x: tuple(T.sort(x, dim=0, descending=descending, stable=True)),
              arr(5, 2, dtype=dt, low=0, high=3))
    check(lambda T, x: T.sort(x, 2), SORT_X, match_message=True)
    check(lambda T, x: T.sort(x, 0, descending, stable=True), SORT_X, match_message=True)
    check(lambda T, x: T.sort(x, 0, descending, True), SORT_X)


def test_sort_nan():
    x = np.array([3., np.nan, 1., -np.inf, np.nan, 2.])
    check(lambda T, x: tuple(T.sort(x, stable=True)), x, grad=False)
    check(lambda T, x: tuple(T.sort(x, descending=True, stable=True)), x, grad=False)


def test_topk():
    x = arr(3, 5)
    for k in [0, 1, 3, 5]:
        check(lambda T, x: tuple(T.topk(x, k)), x, double=True)
        check(lambda T, x: tuple(T.topk(x, k, largest=False)), x, double=True)
    check(lambda T, x: tuple(x.topk(2, dim=0)), x, double=True)
    check(lambda T, x: tuple(x.topk(2, 0, False, True)), x, double=True)
    check(lambda T, x: tuple(T.topk(x, 1)), arr(), double=True)
    check(lambda T, x: tuple(T.topk(x, 2)), arr(6, dtype=np.int64))
    check(lambda T, x: tuple(T.topk(x.t(), 2)), x, double=True)
    check(lambda T, x: T.topk(x, 6), x, match_message=True)
    check(lambda T, x: T.topk(x, -1), x, match_message=True)
    check(lambda T, x: T.topk(x, 2, 2), x, match_message=True)


def test_kthvalue():
    x = arr(3, 5)
    for k in [1, 3, 5]:
        check(lambda T, x: tuple(T.kthvalue(x, k)), x, double=True)
        check(lambda T, x: tuple(T.kthvalue(x, k, 1, True)), x, double=True)
    check(lambda T, x: tuple(x.kthvalue(2, dim=0)), x, double=True)
    check(lambda T, x: tuple(x.kthvalue(2, 0, keepdim=True)), x, double=True)
    check(lambda T, x: tuple(T.kthvalue(x, 1)), arr(), double=True)
    check(lambda T, x: tuple(T.kthvalue(x, 2)), arr(6, dtype=np.int64))
    check(lambda T, x: T.kthvalue(x, 6), x, match_message=True)
    check(lambda T, x: T.kthvalue(x, 0), x, match_message=True)
    check(lambda T, x: T.kthvalue(x, 1), arr(0), match_message=True)
    check(lambda T, x: T.kthvalue(x, 1, 1), arr(2, 0), match_message=True)
    check(lambda T, x: tuple(T.kthvalue(x, 1, 0)), arr(2, 0))
    check(lambda T, x: tuple(T.median(x, 1)), arr(0, 2))
    check(lambda T, x: tuple(T.topk(x, 0)), arr(0))
    e = ember.kthvalue(ember.tensor(x), 2)
    assert type(e).__name__ == 'kthvalue'


def test_median():
    for shape in [(), (5,), (4,), (2, 3), (3, 4)]:
        check(lambda T, x: T.median(x), arr(*shape), double=True)
        if shape:
            check(lambda T, x: tuple(T.median(x, 0)), arr(*shape), double=True)
            check(lambda T, x: tuple(x.median(-1, keepdim=True)), arr(*shape), double=True)
    check(lambda T, x: T.median(x), arr(3, 4, dtype=np.int64))
    check(lambda T, x: tuple(T.median(x, 1)), arr(3, 4, dtype=np.int64))
    check(lambda T, x: T.median(x), arr(0))
    check(lambda T, x: T.median(x), arr(0, dtype=np.int64))
    check(lambda T, x: T.median(x), np.array([1., np.nan, 2.]), grad=False)
    check(lambda T, x: tuple(T.median(x, 1)), np.array([[1., np.nan, 2.], [3., 1., 2.]]),
          grad=False)
    check(lambda T, x: tuple(T.median(x, 0)), arr(0), match_message=True)
    e = ember.median(ember.tensor(arr(3, 4)), 1)
    assert type(e).__name__ == 'median'


def test_return_type_names():
    x = ember.tensor(arr(3, 4))
    for e, name in [(ember.max(x, 1), 'max'), (ember.min(x, 1), 'min'),
                    (ember.sort(x), 'sort'), (ember.topk(x, 2), 'topk'),
                    (ember.kthvalue(x, 2), 'kthvalue'), (ember.median(x, 0), 'median'),
                    (ember.aminmax(x), 'aminmax')]:
        assert type(e).__name__ == name
        assert isinstance(e, tuple)
        assert isinstance(e, getattr(ember.return_types, name))




# -- bad arguments ---------------------------------------------------------------------------
@pytest.mark.parametrize('fn', [
    lambda T, x: T.sum(x, 1.0), lambda T, x: T.sum(x, True), lambda T, x: T.max(x, 2.0),
    lambda T, x: T.mean(x, (0, 1.0)), lambda T, x: T.amax(x, 1.0), lambda T, x: T.prod(x, (0, 1)),
    lambda T, x: T.argmax(x, 1.0), lambda T, x: T.cumsum(x, 1.0), lambda T, x: T.sort(x, 1.0),
    lambda T, x: T.std(x, 0, unbiased=False, correction=1),
    lambda T, x: T.var(x, 0, True, correction=1), lambda T, x: T.softmax(x, None),
    lambda T, x: T.log_softmax(x, 1.0), lambda T, x: T.max(x, keepdim=True)], ids=range(14))
def test_bad_argument_types(fn):
    check(fn, arr(3, 3))


@pytest.mark.parametrize('fn', [
    lambda T, x: T.topk(x, 2.0), lambda T, x: T.kthvalue(x, 1.0),
    lambda T, x: T.norm(x, 'abc'), lambda T, x: T.logsumexp(x, ())], ids=range(4))
def test_bad_argument_messages(fn):
    check(fn, arr(3, 3), match_message=True)


def test_dim_none_and_keepdim_without_dim():
    # dim=None is a different overload from no dim in torch (grad_fn name differs), and
    # keepdim needs a dim for sum/mean; max/min/median/logsumexp refuse None.
    x = arr(2, 3)
    for op in ['sum', 'mean', 'nansum', 'amax', 'amin', 'std', 'var', 'norm']:
        check(lambda T, x: getattr(T, op)(x, None), x, double=True)
        check(lambda T, x: getattr(T, op)(x, None, True) if op != 'norm' else
              T.norm(x, 2, None, True), x, double=True)
    for op in ['sum', 'mean', 'max', 'min']:
        check(lambda T, x: getattr(T, op)(x, keepdim=True), x)
    for op in ['max', 'min', 'median', 'logsumexp', 'cumsum', 'sort', 'softmax']:
        check(lambda T, x: getattr(T, op)(x, None), x)
    check(lambda T, x: T.argmax(x, None, True), x)
    check(lambda T, x: T.all(x, None, True), x)


@pytest.mark.parametrize('op', ['var', 'std', 'var_mean', 'std_mean'])
def test_var_empty_dim_list(op):
    # torch reduces over all dims for dim=(), but its backward counts the elements of no
    # dims (1), so the gradient is inf: ember follows.
    check(lambda T, x: getattr(T, op)(x, ()), arr(2, 3))
    check(lambda T, x: getattr(T, op)(x, (), correction=0), arr(2, 3))
    check(lambda T, x: getattr(T, op)(x, ())[-1], arr(2, 3)) if op.endswith('mean') else None


def test_empty_dim_list():
    # all/any reduce over nothing for an empty dim list; sum/mean/amax/count_nonzero over all
    for op in ['all', 'any']:
        check(lambda T, x: getattr(T, op)(x, ()), arr(3, 3), grad=False)
        check(lambda T, x: getattr(T, op)(x > 0, []), arr(3, 3), grad=False)
        check(lambda T, x: getattr(T, op)(x, ()), arr(3, dtype=np.uint8, low=0, high=2))
    for op in ['sum', 'mean', 'amax', 'amin', 'nansum', 'count_nonzero']:
        check(lambda T, x: getattr(T, op)(x, ()), arr(3, 3), double=True)
        check(lambda T, x: getattr(T, op)(x, []), arr(3, 3), double=True)


# -- saved tensors and out= ------------------------------------------------------------------
@pytest.mark.parametrize('op', [lambda x: x.prod(), lambda x: x.prod(0), lambda x: x.var(0),
                                lambda x: x.std(), lambda x: x.cumprod(0), lambda x: x.norm(),
                                lambda x: x.logsumexp(0), lambda x: x.amax(0),
                                lambda x: x.max()])
def test_saved_input_modified(op):
    def f(T, x):
        y = x * 1
        r = op(y)
        y.mul_(2)
        r.sum().backward()
        return x.grad
    check(f, arr(3, 2), grad=True)


def test_saved_output_modified():
    def f(T, x):
        r = T.softmax(x * 1, 0)
        r.add_(1)
        r.sum().backward()
    check(f, arr(3, 2))


def test_out_argument():
    def f(T, x):
        o = T.empty(0)
        r = T.sum(x, 0, out=o)
        return r is o, o
    check(f, arr(3, 2), grad=False)

    for dt in ['float64', 'float32']:
        def g(T, x):
            vals, idx = T.empty(0, dtype=getattr(T, dt)), T.empty(0, dtype=T.int64)
            r = T.max(x, 1, out=(vals, idx))
            return r[0] is vals, r[1] is idx, vals, idx
        check(g, arr(3, 2), grad=False, match_message=True)

    def h(T, x):
        outs = [(T.empty(0, dtype=T.float64), T.empty(0, dtype=T.int64)) for _ in range(4)]
        r = [T.sort(x, dim=0, out=outs[0]), T.topk(x, 1, out=outs[1]),
             T.kthvalue(x, 1, out=outs[2]), T.median(x, 0, out=outs[3])]
        return [a is o[0] and b is o[1] for (a, b), o in zip(r, outs)], r
    check(h, arr(3, 2), grad=False)



# -- forward-mode AD -------------------------------------------------------------------------
FWD_OPS = {
    'sum': lambda T, a: a.sum(1), 'mean': lambda T, a: a.mean(), 'prod': lambda T, a: a.prod(1),
    'max_dim': lambda T, a: a.max(1)[0], 'max': lambda T, a: a.max(),
    'amax': lambda T, a: a.amax(0),
    'var': lambda T, a: a.var(1), 'std': lambda T, a: a.std(), 'norm': lambda T, a: a.norm(dim=1),
    'var_mean': lambda T, a: T.var_mean(a, 1)[0], 'logsumexp': lambda T, a: a.logsumexp(1),
    'softmax': lambda T, a: a.softmax(1), 'log_softmax': lambda T, a: a.log_softmax(0),
    'cumsum': lambda T, a: a.cumsum(1), 'cumprod': lambda T, a: a.cumprod(1),
    'sort': lambda T, a: a.sort(1)[0], 'topk': lambda T, a: a.topk(2)[0],
    'kthvalue': lambda T, a: a.kthvalue(2)[0], 'median': lambda T, a: a.median(),
}


@pytest.mark.filterwarnings('ignore::DeprecationWarning')  # torch's forward_ad import
@pytest.mark.parametrize('op', list(FWD_OPS))
def test_forward_ad(op):
    # every op's jvp comes from its backward formula; compare the tangents with torch's
    import ember.autograd.forward_ad as efa
    import torch.autograd.forward_ad as tfa
    x, t = arr(3, 4, seed=1), arr(3, 4, seed=2)
    tangents = []
    for lib, fa in ((torch, tfa), (ember, efa)):
        with fa.dual_level():
            r = FWD_OPS[op](lib, fa.make_dual(lib.tensor(x), lib.tensor(t)))
            tangents.append(np.array(fa.unpack_dual(r).tangent.tolist()))
    np.testing.assert_allclose(tangents[1], tangents[0], rtol=1e-9, atol=1e-9)


# -- generated cases -------------------------------------------------------------------------
hyp = pytest.importorskip('hypothesis', reason='hypothesis generates the random-shape cases')
st = hyp.strategies


@st.composite
def _shape_and_dims(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=4)))
    nd = len(shape)
    if nd == 0:
        return shape, draw(st.sampled_from([None, 0, -1, ()]))
    kind = draw(st.sampled_from(['none', 'int', 'tuple']))
    if kind == 'none':
        return shape, None
    if kind == 'int':
        return shape, draw(st.integers(-nd, nd - 1))
    dims = draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd))
    # negative spellings of the same dims
    return shape, tuple(d - nd if draw(st.booleans()) else d for d in dims)


@hyp.settings(max_examples=40, deadline=None, derandomize=True)
@hyp.given(_shape_and_dims(), st.booleans(), st.sampled_from(['sum', 'mean', 'nansum']))
def test_generated_sum_mean(shape_dims, keepdim, op):
    shape, dim = shape_dims
    x = arr(*shape)
    if dim is None and not keepdim:
        check(lambda T, x: getattr(T, op)(x), x, double=True)
    else:
        check(lambda T, x: getattr(T, op)(x, dim, keepdim), x, double=True)
