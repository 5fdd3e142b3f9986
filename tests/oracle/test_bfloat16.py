"""ember.bfloat16 against torch 2.13: the dtype object, promotion (every pair of dtypes, with
tensors, 0-d tensors and Python scalars), conversions, values (bit for bit where torch rounds
once), reductions, matrix products, autograd, printing, nn, and torch's errors."""
import pickle

import numpy as np
import pytest

from .oracle import check, arr, values, torch, ember, BFLOAT16 as BF16
NAMES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32',
         'float64', 'complex64', 'complex128']


def bf(*shape, seed=0, low=None, high=None):
    """A random bfloat16 array (an ml_dtypes array: oracle.check makes it a bfloat16 tensor
    of each library that requires grad)."""
    return arr(*shape, dtype=np.float32, seed=seed, low=low, high=high).astype(BF16)


def run_both(fn):
    """``fn(lib)`` for ember and torch: (ember's result, torch's) or the exceptions raised."""
    out = []
    for lib in (ember, torch):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001 - compared below
            out.append(e)
    return out


def exact(fn):
    """``fn(lib)`` returns a tensor: same dtype, shape and bits in ember and torch (or raises
    the same error in both)."""
    e, t = run_both(fn)
    if isinstance(t, Exception):
        same_error(fn)
        return
    assert not isinstance(e, Exception), e
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(values(e), values(t))  # (bfloat16 -> float32 is exact)


def same_error(fn):
    """``fn(lib)`` raises the same exception class and message in ember and torch."""
    e, t = run_both(fn)
    assert isinstance(t, Exception), f"torch returned {t!r}"
    assert isinstance(e, Exception), f"ember returned {e!r} where torch raised {t!r}"
    assert type(e) is type(t), f"{type(e).__name__}({e}) != {type(t).__name__}({t})"
    assert str(e) == str(t)


# -- the dtype object --------------------------------------------------------------------------
def test_dtype_attributes():
    e, t = ember.bfloat16, torch.bfloat16
    assert (repr(e), str(e)) == (repr(t), str(t))
    for attr in ('itemsize', 'is_floating_point', 'is_complex', 'is_signed'):
        assert getattr(e, attr) == getattr(t, attr), attr
    assert str(e.to_complex()) == str(t.to_complex())
    assert str(e.to_real()) == str(t.to_real())
    assert pickle.loads(pickle.dumps(e)) is e
    assert e.np == BF16  # what the serialization code reads


@pytest.mark.parametrize('name', NAMES)
def test_tensor_queries(name):
    check(lambda T: (T.zeros(2, dtype=getattr(T, name)).is_floating_point(),
                     T.zeros(2, dtype=getattr(T, name)).is_signed(),
                     T.zeros(2, dtype=getattr(T, name)).element_size(),
                     T.zeros(2, dtype=getattr(T, name)).type(),
                     T.is_floating_point(T.zeros(2, dtype=getattr(T, name)))), grad=False)


# -- promotion ---------------------------------------------------------------------------------
@pytest.mark.parametrize('a', NAMES)
@pytest.mark.parametrize('b', NAMES)
def test_promote_types_all_pairs(a, b):
    check(lambda T: T.promote_types(getattr(T, a), getattr(T, b)), grad=False)


@pytest.mark.parametrize('other', NAMES)
@pytest.mark.parametrize('dims', [(1, 1), (1, 0), (0, 1), (0, 0)], ids=str)
def test_tensor_promotion_with_bfloat16(other, dims):
    """bfloat16 with each dtype, as dimensioned or 0-d tensors, on both sides."""
    def fn(T):
        x = T.ones((2,) * dims[0], dtype=T.bfloat16)
        y = T.ones((2,) * dims[1], dtype=getattr(T, other))
        return (x + y).dtype, (y * x).dtype, (x / y).dtype, T.cat([x.flatten(), y.flatten()]).dtype
    check(fn, grad=False)


@pytest.mark.parametrize('scalar', [True, 3, -2.5, 1e10, 2j], ids=repr)
@pytest.mark.parametrize('name', NAMES)
def test_scalar_promotion(name, scalar):
    """A Python scalar with a tensor of every dtype (bfloat16 + float stays bfloat16...)."""
    if name == 'float16' and scalar == 2j:
        # (ember has no complex32, torch's result here: see README, differences from torch)
        name = 'float32'
    check(lambda T: (T.ones(2, dtype=getattr(T, name)) * scalar).dtype, grad=False)


@pytest.mark.parametrize('scalar', [3, 2.5, 2j], ids=repr)
def test_scalar_tensor_promotion(scalar):
    check(lambda T: (T.ones((), dtype=T.bfloat16) + T.tensor([scalar])).dtype, grad=False)


# -- making and converting -----------------------------------------------------------------
# float64 values whose bfloat16 rounding is delicate: ties (even/odd), just past ties, values
# that round differently through float32, subnormals, overflow, inf, nan, signed zero.
DELICATE = np.array([1.0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -30,
                     1 + 2 ** -8 - 2 ** -40, 1 + 2 ** -8 + 2 ** -25, 0.1, -0.3, 1 / 3, 65504.0,
                     3.3895313892515355e+38, 3.39e38, 1e39, -1e39, 1e-39, 9.2e-41, 1e-46,
                     np.inf, -np.inf, np.nan, -0.0, 0.0, 255.5, 257.0, 1e10])


def test_tensor_from_list_with_dtype():
    exact(lambda T: T.tensor(DELICATE.tolist(), dtype=T.bfloat16))


@pytest.mark.parametrize('src', ['float64', 'float32', 'float16', 'int64', 'int32', 'uint8',
                                 'bool'])
def test_conversion_to_bfloat16(src):
    data = DELICATE if src.startswith('float') else np.arange(-300, 300, 7) \
        if src != 'uint8' else np.arange(0, 256, 3)
    if src == 'bool':
        data = np.array([True, False])

    def fn(T):
        x = T.tensor(data).to(getattr(T, src))
        return x.bfloat16(), x.to(T.bfloat16), x.type(T.bfloat16), \
            x.type('torch.BFloat16Tensor')
    e, t = run_both(fn)
    for a, b in zip(e, t):
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(values(a), values(b))


@pytest.mark.parametrize('dst', ['float64', 'float32', 'float16', 'int64', 'int32', 'int16',
                                 'int8', 'uint8', 'bool', 'complex64'])
def test_conversion_from_bfloat16(dst):
    data = np.array([0.0, -0.0, 1.5, -2.75, 100.0, 0.3, 3e38, np.inf, -np.inf]) \
        if dst.startswith(('float', 'complex')) else np.array([0.0, 1.5, -2.75, 100.0, 0.3, -7.0])
    if dst == 'uint8':
        data = np.abs(data)
    exact(lambda T: T.tensor(data, dtype=T.bfloat16).to(getattr(T, dst)))


def test_float_round_trip():
    exact(lambda T: T.tensor(DELICATE).bfloat16().float().bfloat16())


@pytest.mark.parametrize('factory', [
    lambda T: T.zeros(2, 3, dtype=T.bfloat16), lambda T: T.ones(4, dtype=T.bfloat16),
    lambda T: T.full((3,), 0.1, dtype=T.bfloat16), lambda T: T.arange(5, dtype=T.bfloat16),
    lambda T: T.arange(0, 1, 0.125, dtype=T.bfloat16),
    lambda T: T.linspace(0, 1, 5, dtype=T.bfloat16), lambda T: T.eye(3, dtype=T.bfloat16),
    lambda T: T.zeros_like(T.ones(2), dtype=T.bfloat16),
    lambda T: T.ones_like(T.ones(2, dtype=T.bfloat16)),
    lambda T: T.empty(2, dtype=T.bfloat16).zero_(),
    lambda T: T.tensor(2.5, dtype=T.bfloat16)])
def test_factories(factory):
    exact(factory)


def test_random_factories_dtype():
    check(lambda T: (T.randn(3, dtype=T.bfloat16).dtype, T.rand(3, dtype=T.bfloat16).dtype,
                     T.empty(2, dtype=T.bfloat16).dtype), grad=False)


def test_python_values():
    check(lambda T: (T.tensor([0.1, 2.5], dtype=T.bfloat16).tolist(),
                     T.tensor(0.1, dtype=T.bfloat16).item(),
                     float(T.tensor([1 / 3], dtype=T.bfloat16)),
                     int(T.tensor(-2.75, dtype=T.bfloat16)),
                     bool(T.tensor(0.0, dtype=T.bfloat16))), grad=False)


def test_numpy_refused_as_torch():
    same_error(lambda T: T.ones(2, dtype=T.bfloat16).numpy())
    same_error(lambda T: np.asarray(T.ones(2, dtype=T.bfloat16)))


def test_view_as_int16_shows_the_bits():
    exact(lambda T: T.tensor(DELICATE, dtype=T.bfloat16).view(T.int16))


def test_from_numpy_of_an_ml_dtypes_array():
    """ember takes ml_dtypes' bfloat16 arrays (torch refuses them): the tensor equals torch's
    conversion of the same values, and shares the array's memory."""
    a = DELICATE.astype(BF16)
    t = torch.tensor(DELICATE).bfloat16()
    for make in (ember.from_numpy, ember.tensor, ember.as_tensor):
        e = make(a)
        assert e.dtype is ember.bfloat16
        np.testing.assert_array_equal(values(e), values(t))
    e = ember.from_numpy(a)
    a[0] = 7
    assert e[0].item() == 7.0
    assert ember.tensor(a[1]).dtype is ember.bfloat16  # (an ml_dtypes scalar)
    assert ember.tensor([[a[1]], [3]]).dtype is ember.bfloat16


# -- arithmetic ------------------------------------------------------------------------------
EXACT_BINARY = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'fmod', 'remainder']


@pytest.mark.parametrize('op', EXACT_BINARY)
def test_binary_bit_exact(op):
    """One float32 operation rounded once: the same bits as torch."""
    a, b = bf(64, seed=1), bf(64, seed=2, low=0.5, high=3.0)
    exact(lambda T: getattr(T, op)(T.tensor(a.astype(np.float32)).bfloat16(),
                                   T.tensor(b.astype(np.float32)).bfloat16()))


@pytest.mark.parametrize('op', EXACT_BINARY + ['atan2', 'rsub'])
@pytest.mark.parametrize('scalar', [0.1, 1.00390625, 3, -2.5, 1e-3], ids=repr)
def test_binary_with_python_scalar_bit_exact(op, scalar):
    """mul/div read a Python float in float32; the other ops round it to bfloat16 first: the
    bits tell the two apart (1.00390625 is a bfloat16 tie)."""
    a = bf(64, seed=3, low=0.5, high=4.0)
    exact(lambda T: getattr(T, op)(T.tensor(a.astype(np.float32)).bfloat16(), scalar))


@pytest.mark.parametrize('expr', [
    lambda x: x + 1.00390625, lambda x: 1.00390625 * x, lambda x: 0.1 - x, lambda x: 3.3 / x,
    lambda x: -x, lambda x: x.abs(), lambda x: x * x, lambda x: x ** 2, lambda x: x.sqrt(),
    lambda x: x.floor(), lambda x: x.round(), lambda x: x.clamp(0.7, 1.3),
    lambda x: x.relu(), lambda x: x.sign(), lambda x: x.reciprocal(),
    lambda x: x.add(x, alpha=0.5), lambda x: x.mul_(0.1).add_(1.0)])
def test_pointwise_bit_exact(expr):
    a = bf(64, seed=4, low=0.5, high=4.0)
    exact(lambda T: expr(T.tensor(a.astype(np.float32)).bfloat16()))


@pytest.mark.parametrize('exponent', [2, 0.5, 1.7, -1, 3, -2.5])
def test_pow_scalar_exponent(exponent):
    """(torch rounds x ** 3 twice, through x * x in bfloat16: within one ulp, not bit-exact)"""
    check(lambda T, x: x ** exponent, bf(3, 4, seed=19, low=0.5, high=3.0))


@pytest.mark.parametrize('op', ['exp', 'log', 'tanh', 'sigmoid', 'sin', 'cos', 'erf',
                                'expm1', 'log1p', 'rsqrt', 'atan', 'exp2', 'log2'])
def test_unary_math(op):
    """Transcendentals: float32 math rounded once, within a bfloat16 ulp of torch's, with
    bfloat16 gradients."""
    check(lambda T, x: getattr(T, op)(x), bf(3, 4, seed=5, low=0.25, high=2.0))


@pytest.mark.parametrize('other', ['int64', 'bool', 'float16', 'float32', 'float64'])
def test_mixed_dtype_values(other):
    """bfloat16 with another dtype: promoted as torch promotes, and the same values."""
    a = bf(8, seed=6, low=0.5, high=3.0)
    b = arr(8, seed=7, low=1, high=4, dtype=getattr(np, other if other != 'bool' else 'bool_'))
    exact(lambda T: T.tensor(a.astype(np.float32)).bfloat16() * T.tensor(b))
    exact(lambda T: T.tensor(a.astype(np.float32)).bfloat16() + T.tensor(b[0]))


def test_comparisons():
    a, b = bf(16, seed=8), bf(16, seed=9)
    for op in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
        exact(lambda T: getattr(T, op)(T.tensor(a.astype(np.float32)).bfloat16(),
                                       T.tensor(b.astype(np.float32)).bfloat16()))
        exact(lambda T: getattr(T, op)(T.tensor(a.astype(np.float32)).bfloat16(), 0.1))


def test_inplace_keeps_dtype():
    exact(lambda T: T.ones(3, dtype=T.bfloat16).add_(T.tensor([0.1, 0.2, 0.3])))
    exact(lambda T: T.zeros(3).add_(T.tensor([0.1, 0.2, 0.3], dtype=T.bfloat16)))
    exact(lambda T: T.zeros(3, dtype=T.bfloat16).copy_(T.tensor(DELICATE[:3])))
    exact(lambda T: T.zeros(3, dtype=T.bfloat16).fill_(0.1))


# -- reductions and products -----------------------------------------------------------------
def test_sum_accumulates_in_float32():
    """Summing in bfloat16 would stop at 256 (256 + 1 rounds back to 256); torch (and ember)
    accumulate in float32 and round once."""
    exact(lambda T: T.ones(1000, dtype=T.bfloat16).sum())
    exact(lambda T: T.ones(3, 700, dtype=T.bfloat16).sum(1))
    exact(lambda T: T.ones(1000, dtype=T.bfloat16).mean())
    exact(lambda T: T.ones(600, dtype=T.bfloat16).cumsum(0))


@pytest.mark.parametrize('op', [
    lambda T, x: x.sum(), lambda T, x: x.sum(0), lambda T, x: x.mean(1),
    lambda T, x: x.amax(0), lambda T, x: x.max(), lambda T, x: x.min(1),
    lambda T, x: x.var(1), lambda T, x: x.std(), lambda T, x: x.norm(),
    lambda T, x: x.softmax(1), lambda T, x: x.log_softmax(0),
    lambda T, x: x.logsumexp(1), lambda T, x: x.cumsum(1), lambda T, x: x.prod(1)])
def test_reductions(op):
    check(op, bf(4, 5, seed=10, low=0.5, high=1.5))


@pytest.mark.parametrize('op', [lambda x: x.prod(1), lambda x: x.prod(), lambda x: x.cumsum(1),
                                lambda x: x.cumprod(1), lambda x: x.var(1)])
def test_reductions_bit_exact(op):
    """Rounded as torch rounds: prod multiplies step by step in bfloat16, the others
    accumulate in float32 and round once."""
    a = bf(4, 9, seed=23, low=0.5, high=1.5)
    exact(lambda T: op(T.tensor(a.astype(np.float32)).bfloat16()))


def test_argmax_sort_topk():
    check(lambda T, x: (x.argmax(), x.argmin(1), x.sort(1), x.topk(2)), bf(3, 6, seed=11),
          grad=False)


@pytest.mark.parametrize('op', [
    lambda T, a, b: a @ b, lambda T, a, b: T.mm(a, b), lambda T, a, b: T.matmul(a[0], b),
    lambda T, a, b: T.matmul(a, b[:, 0]), lambda T, a, b: T.bmm(a[None], b[None]),
    lambda T, a, b: T.einsum('ij,jk->ik', a, b), lambda T, a, b: T.dot(a[0], b[:, 1]),
    lambda T, a, b: T.addmm(b[0], a, b, beta=0.5, alpha=2.0),
    lambda T, a, b: T.addmv(a[:, 0], a, b[:, 0]),
    lambda T, a, b: T.baddbmm(a[None, :, :1], a[None], b[None]),
    lambda T, a, b: T.nn.functional.linear(a, b.T, b[0])])
def test_matrix_products(op):
    """Products multiply and accumulate in float32 and round once (bfloat16 results)."""
    check(op, bf(3, 8, seed=12), bf(8, 5, seed=13))


def test_long_dot_accumulates_in_float32():
    a = np.ones(1000, np.float32)
    exact(lambda T: T.tensor(a).bfloat16() @ T.tensor(a).bfloat16())


@pytest.mark.parametrize('other', NAMES)
def test_product_dtype_mismatch_errors(other):
    if other != 'bfloat16':
        same_error(lambda T: T.ones(2, 2, dtype=T.bfloat16) @ T.ones(2, 2, dtype=getattr(T, other)))
        same_error(lambda T: T.mm(T.ones(2, 2, dtype=getattr(T, other)), T.ones(2, 2, dtype=T.bfloat16)))


# -- autograd and nn ---------------------------------------------------------------------------
@pytest.mark.parametrize('fn', [
    lambda T, x, y: x * y + x.exp(), lambda T, x, y: (x * 0.1 - y) ** 2,
    lambda T, x, y: (x / y).sum(), lambda T, x, y: x.tanh() * y.sigmoid(),
    lambda T, x, y: T.where(x > 0, x, y), lambda T, x, y: x[1:, :2] * 3,
    lambda T, x, y: T.cat([x, y]).mean(0), lambda T, x, y: x.float() * y.double(),
    lambda T, x, y: x @ y.T])
def test_gradients_are_bfloat16(fn):
    check(fn, bf(3, 4, seed=14), bf(3, 4, seed=15, low=0.5, high=2.0))


def test_gradient_through_conversion_from_float32():
    check(lambda T, x: (x.bfloat16() * 3).sum(), arr(4, dtype=np.float32))


def test_linear_module_in_bfloat16():
    def fn(T):
        T.manual_seed(0)
        lin = T.nn.Linear(4, 3)
        with T.no_grad():
            lin.weight.copy_(T.tensor(arr(3, 4, seed=16)))
            lin.bias.copy_(T.tensor(arr(3, seed=17)))
        lin = lin.to(T.bfloat16)
        x = T.tensor(arr(5, 4, seed=18), dtype=T.bfloat16, requires_grad=True)
        y = lin(x)
        loss = T.nn.functional.mse_loss(y, T.zeros(5, 3, dtype=T.bfloat16))
        loss.backward()
        return y, loss, lin.weight.grad, lin.bias.grad, x.grad
    check(fn, grad=False)


NN = {
    'conv2d': lambda F, x, w: F.conv2d(x, w, padding=1),
    'conv2d_stride': lambda F, x, w: F.conv2d(x, w[:, :, :2, :2], stride=2),
    'conv1d': lambda F, x, w: F.conv1d(x[0], w[:, :, 0]),
    'max_pool2d': lambda F, x, w: F.max_pool2d(x, 2),
    'avg_pool2d': lambda F, x, w: F.avg_pool2d(x, 2),
    'adaptive_avg_pool2d': lambda F, x, w: F.adaptive_avg_pool2d(x, 1),
    'batch_norm': lambda F, x, w: F.batch_norm(x, None, None, training=True),
    'layer_norm': lambda F, x, w: F.layer_norm(x, (6,)),
    'group_norm': lambda F, x, w: F.group_norm(x, 3),
    'rms_norm': lambda F, x, w: F.rms_norm(x, (6,)),
    'rms_norm_weight': lambda F, x, w: F.rms_norm(x, (3,), w[0, :, 0]),
    'gelu': lambda F, x, w: F.gelu(x), 'gelu_tanh': lambda F, x, w: F.gelu(x, approximate='tanh'),
    'silu': lambda F, x, w: F.silu(x), 'softplus': lambda F, x, w: F.softplus(x),
    'elu': lambda F, x, w: F.elu(x), 'leaky_relu': lambda F, x, w: F.leaky_relu(x, 0.1),
    'hardtanh': lambda F, x, w: F.hardtanh(x), 'softmax': lambda F, x, w: F.softmax(x, 1),
    'log_softmax': lambda F, x, w: F.log_softmax(x, -1),
    'mse_loss': lambda F, x, w: F.mse_loss(x, x.detach() * 0.5),
    'l1_loss': lambda F, x, w: F.l1_loss(x, x.detach() * 0.5),
    'bce_with_logits': lambda F, x, w: F.binary_cross_entropy_with_logits(x, x.detach() > 0),
    'embedding': lambda F, x, w: F.embedding(x.new_ones(2).long().cumsum(0), x[0, 0]),
    'pad': lambda F, x, w: F.pad(x, (1, 1)),
    'interpolate': lambda F, x, w: F.interpolate(x, scale_factor=2, mode='nearest'),
    'bilinear': lambda F, x, w: F.interpolate(x, size=(4, 4), mode='bilinear'),
    'normalize': lambda F, x, w: F.normalize(x),
    'cosine_similarity': lambda F, x, w: F.cosine_similarity(x, x + 1),
    # (3-D: torch's math kernel; for 4-D inputs torch picks its flash kernel, another grad_fn)
    'scaled_dot_product_attention': lambda F, x, w: F.scaled_dot_product_attention(
        x[0], x[1], x[1]),
    'sdpa_causal': lambda F, x, w: F.scaled_dot_product_attention(x[0], x[0], x[0],
                                                                  is_causal=True),
}


@pytest.mark.parametrize('name', NN)
def test_nn_functional(name):
    """nn.functional on bfloat16: bfloat16 results, torch's grad_fn, values and gradients
    within bfloat16 tolerance."""
    def fn(T, x, w):
        if name.startswith('bce'):  # (a bool target: made a float of the input's dtype)
            return T.nn.functional.binary_cross_entropy_with_logits(x, (x.detach() > 0).to(x.dtype))
        return NN[name](T.nn.functional, x, w)
    check(fn, bf(2, 3, 6, 6, seed=20), bf(4, 3, 3, 3, seed=21))


def test_cross_entropy_in_bfloat16():
    check(lambda T, x: T.nn.functional.cross_entropy(x, T.tensor([0, 1, 2, 3])),
          bf(4, 6, seed=22))


def test_module_bfloat16_method():
    check(lambda T: [p.dtype for p in T.nn.Sequential(T.nn.Linear(2, 3), T.nn.ReLU(),
                                                      T.nn.Linear(3, 1)).bfloat16().parameters()],
          grad=False)


def test_requires_grad_is_allowed():
    check(lambda T: T.zeros(2, dtype=T.bfloat16).requires_grad_().requires_grad, grad=False)


# -- printing --------------------------------------------------------------------------------
@pytest.mark.parametrize('make', [
    lambda T: T.tensor([1.5, 2.25, -3.0], dtype=T.bfloat16),
    lambda T: T.tensor(DELICATE, dtype=T.bfloat16),
    lambda T: T.tensor(0.1, dtype=T.bfloat16), lambda T: T.zeros(0, dtype=T.bfloat16),
    lambda T: T.arange(12, dtype=T.bfloat16).reshape(3, 4) / 7,
    lambda T: T.tensor([1e5, 3.0], dtype=T.bfloat16),
    lambda T: T.ones(2, dtype=T.bfloat16, requires_grad=True) * 2])
def test_printing(make):
    e, t = run_both(make)
    assert repr(e) == repr(t)
    assert str(e) == str(t)


def test_save_and_load(tmp_path):
    """ember.save/load keep bfloat16 tensors bit for bit (weights_only, the default)."""
    x = ember.tensor(DELICATE, dtype=ember.bfloat16)
    ember.save({'x': x}, tmp_path / 'x.pt')
    y = ember.load(tmp_path / 'x.pt')['x']
    assert y.dtype is ember.bfloat16
    np.testing.assert_array_equal(values(y), values(x))


def test_legacy_type_names():
    check(lambda T: (T.ones(1, dtype=T.bfloat16).type(),
                     T.ones(1).type('torch.BFloat16Tensor').dtype), grad=False)


# -- the default dtype -------------------------------------------------------------------------
@pytest.mark.parametrize('fn', [
    lambda T: T.tensor([1.1, 2.2]), lambda T: T.zeros(2), lambda T: T.tensor([1, 2]) * 1.1,
    lambda T: T.tensor([1, 2]) / 3, lambda T: T.arange(0.0, 1.0, 0.25),
    lambda T: T.tensor([1, 2]).sqrt(), lambda T: T.nn.Linear(2, 2).weight.dtype,
    lambda T: T.get_default_dtype(), lambda T: T.tensor(1j), lambda T: T.tensor([1]) * 1j,
    lambda T: T.full((2,), 1.1)])
def test_bfloat16_as_default_dtype(fn):
    def with_default(T):
        T.set_default_dtype(T.bfloat16)
        try:
            return fn(T)
        finally:
            T.set_default_dtype(T.float32)
    check(with_default, grad=False, match_message=True)


@pytest.mark.parametrize('d', ['int32', 'complex64', 'bool'])
def test_set_default_dtype_errors(d):
    same_error(lambda T: T.set_default_dtype(getattr(T, d)))
    same_error(lambda T: T.set_default_dtype('float32'))
