"""Pointwise ops against torch: values, dtypes, grad_fn names, first and second derivatives."""
import numpy as np
import pytest

from .oracle import check, arr, BFLOAT16

UNARY = ['neg', 'abs', 'sign', 'exp', 'exp2', 'expm1', 'sin', 'cos', 'tan', 'atan', 'sinh',
         'cosh', 'tanh', 'sigmoid', 'relu', 'erf', 'floor', 'ceil', 'round', 'trunc', 'frac',
         'square', 'sgn']
POSITIVE = ['log', 'log2', 'log10', 'log1p', 'sqrt', 'rsqrt', 'reciprocal']
UNIT = ['asin', 'acos']
SHAPES = [(), (0,), (5,), (2, 3)]


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('op', UNARY)
def test_unary(op, shape):
    check(lambda T, x: getattr(T, op)(x), arr(*shape), double=True)


@pytest.mark.parametrize('op', POSITIVE)
def test_unary_positive_domain(op):
    check(lambda T, x: getattr(T, op)(x), arr(2, 3, low=0.5, high=2.0), double=True)


@pytest.mark.parametrize('op', UNIT)
def test_unary_unit_domain(op):
    check(lambda T, x: getattr(T, op)(x), arr(4, low=-0.9, high=0.9), double=True)


@pytest.mark.parametrize('op', UNARY + POSITIVE)
@pytest.mark.parametrize('dtype', [np.int64, np.int32, np.bool_, np.float32])
def test_unary_dtypes(op, dtype):
    x = arr(3, 2, dtype=dtype, low=1, high=4) if dtype != np.bool_ else arr(3, dtype=dtype)
    check(lambda T, x: getattr(T, op)(x), x, grad=False)


BINARY = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'atan2', 'remainder', 'fmod',
          'pow', 'hypot', 'logaddexp']
BSHAPES = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (4,)), ((2, 3), ())]


@pytest.mark.parametrize('shapes', BSHAPES, ids=str)
@pytest.mark.parametrize('op', BINARY)
def test_binary_broadcast(op, shapes):
    a = arr(*shapes[0], low=0.5, high=2.0, seed=1)
    b = arr(*shapes[1], low=0.5, high=2.0, seed=2)
    check(lambda T, x, y: getattr(T, op)(x, y), a, b, double=True)


@pytest.mark.parametrize('op', ['add', 'sub', 'mul', 'div', 'remainder', 'pow', 'fmod',
                                'floor_divide', 'eq', 'lt', 'ge', 'maximum'])
@pytest.mark.parametrize('scalar', [2, 2.5, True, -3])
@pytest.mark.parametrize('dtype', [np.float32, np.int64, np.int32, np.uint8, np.bool_])
def test_binary_scalar_promotion(op, scalar, dtype):
    x = arr(4, dtype=dtype, low=1, high=5) if dtype != np.bool_ else arr(4, dtype=dtype)
    check(lambda T, x: getattr(T, op)(x, scalar), x)


DT = [np.float32, np.float64, np.int64, np.int32, np.int16, np.uint8, np.bool_, np.float16,
      BFLOAT16]


@pytest.mark.parametrize('da', DT)
@pytest.mark.parametrize('db', DT)
@pytest.mark.parametrize('zero_dim', [False, True])
def test_tensor_tensor_promotion(da, db, zero_dim):
    a = arr(3, dtype=da, low=1, high=4) if da != np.bool_ else arr(3, dtype=da)
    b = arr(*(() if zero_dim else (3,)), dtype=db, low=1, high=4) if db != np.bool_ else \
        arr(*(() if zero_dim else (3,)), dtype=db)
    check(lambda T, x, y: T.mul(x, y), a, b, grad=False)


@pytest.mark.parametrize('expr', [
    lambda T, x, y: x + y, lambda T, x, y: x - y, lambda T, x, y: x * y,
    lambda T, x, y: x / y, lambda T, x, y: x ** 2, lambda T, x, y: 2 ** x,
    lambda T, x, y: x ** y, lambda T, x, y: 1 - x, lambda T, x, y: 2 / x,
    lambda T, x, y: 3 + x, lambda T, x, y: -x, lambda T, x, y: x % 1.5,
    lambda T, x, y: x // 2, lambda T, x, y: abs(x), lambda T, x, y: x > y,
    lambda T, x, y: x.clamp(0.6, 1.5), lambda T, x, y: x.clamp(min=y),
    lambda T, x, y: T.where(x > y, x, y), lambda T, x, y: T.lerp(x, y, 0.3),
    lambda T, x, y: T.lerp(x, y, y), lambda T, x, y: T.addcmul(x, x, y, value=0.5),
    lambda T, x, y: T.addcdiv(x, x, y, value=2), lambda T, x, y: x.div(y, rounding_mode='floor'),
    lambda T, x, y: x.div(y, rounding_mode='trunc'), lambda T, x, y: T.nan_to_num(x / 0),
    lambda T, x, y: T.clip(x, 0.7, 1.2), lambda T, x, y: T.add(x, y, alpha=2),
    lambda T, x, y: T.sub(x, y, alpha=0.5), lambda T, x, y: T.rsub(x, 2),
])
@pytest.mark.parametrize('dtype', [np.float64, BFLOAT16], ids=['float64', 'bfloat16'])
def test_operators(expr, dtype):
    check(expr, arr(2, 3, low=0.5, high=2, seed=3, dtype=dtype),
          arr(3, low=0.5, high=2, seed=4, dtype=dtype), double=dtype == np.float64)


@pytest.mark.parametrize('expr', [
    lambda T, x: x.clone().add_(1), lambda T, x: x.clone().mul_(2),
    lambda T, x: x.clone().exp_(), lambda T, x: x.clone().clamp_(0.6, 1.0),
    lambda T, x: x.clone().sub_(x, alpha=2), lambda T, x: x.clone().div_(3),
    lambda T, x: x.clone().pow_(2),
])
def test_inplace_on_nonleaf(expr):
    check(expr, arr(3, low=0.5, high=2), double=True)


@pytest.mark.parametrize('expr', [
    lambda T, x: x.add_(1),
    lambda T, x: T.ones(3, dtype=T.int64).add_(1.5),
    lambda T, x: T.ones(3).add_(T.ones(2, 3)),
    lambda T, x: T.ones(3, dtype=T.bool) - T.ones(3, dtype=T.bool),
    lambda T, x: -T.ones(3, dtype=T.bool),
    lambda T, x: T.ones(3, dtype=T.int64) ** -1,
])
def test_errors(expr):
    check(expr, arr(3), match_message=True)


def test_comparisons_and_logic():
    a, b = arr(5, seed=1), arr(5, seed=2)
    for op in ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'logical_and', 'logical_or', 'logical_xor',
               'isclose']:
        check(lambda T, x, y: getattr(T, op)(x, y), a, b)
    i, j = arr(5, dtype=np.int64, seed=1), arr(5, dtype=np.int64, seed=2)
    for op in ['bitwise_and', 'bitwise_or', 'bitwise_xor']:
        check(lambda T, x, y: getattr(T, op)(x, y), i, j)
    check(lambda T, x: [T.isnan(x / 0), T.isinf(x / 0), T.isfinite(x / 0)], a)
    check(lambda T, x, y: [T.allclose(x, y), T.equal(x, x), T.equal(x, y)], a, b)


@pytest.mark.parametrize('op', ['exp', 'sin', 'abs', 'sigmoid', 'neg', 'floor'])
def test_unary_on_non_contiguous_views(op):
    check(lambda T, x: getattr(T, op)(x.t()), arr(3, 4), double=True)
    check(lambda T, x: getattr(T, op)(x.narrow(1, 1, 2).transpose(0, 1)), arr(3, 4))


@pytest.mark.parametrize('op', ['add', 'mul', 'div', 'maximum', 'atan2', 'pow'])
def test_binary_on_non_contiguous_views(op):
    check(lambda T, x, y: getattr(T, op)(x.t(), y.expand(3, 4)),
          arr(4, 3, low=0.5, high=2), arr(4, low=0.5, high=2, seed=5), double=True)


@pytest.mark.parametrize('fn', [
    lambda T, x, y: T.pow(x, y), lambda T, x, y: T.where(x > 0, x, y),
    lambda T, x, y: T.lerp(x, y, 0.5), lambda T, x, y: T.lerp(x, x, y),
    lambda T, x, y: T.addcmul(x, x, y), lambda T, x, y: x.clamp(min=y),
])
def test_shape_mismatch_is_torchs_runtime_error(fn):
    check(fn, arr(3, 4), arr(3), match_message=True)


@pytest.mark.parametrize('op', ['remainder', 'fmod', 'floor_divide'])
def test_integer_division_by_zero_raises(op):
    # Found by hypothesis: NumPy returns 0 where torch raises.
    check(lambda T, x, y: getattr(T, op)(x, y), np.array(5), np.array(False), match_message=True)
    check(lambda T, x, y: getattr(T, op)(x, y), np.array([5, 3]), np.array([1, 0]),
          match_message=True)


@pytest.mark.parametrize('op', ['remainder', 'floor_divide', 'div_trunc'])
@pytest.mark.parametrize('x,y', [(np.ones(0, np.int64), np.array([False])),
                                 (np.ones((0, 2), np.int64), np.array([0, 1])),
                                 (np.ones(2, np.int64), np.array([0]))])
def test_integer_division_by_zero_raises_only_when_something_is_divided(op, x, y):
    # regression (found by hypothesis): an empty result divides nothing, so nothing raises
    def f(lib, a, b):
        if op == 'div_trunc':
            return lib.div(a, b, rounding_mode='trunc')
        return getattr(lib, op)(a, b)
    check(f, x, y, grad=False, match_message=True)
