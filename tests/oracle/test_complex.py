"""Complex tensors against torch: gradients of every op whose derivative multiplies by another
operand or by a derivative (torch's convention ``grad_a = grad * conj(d out / d a)``), first
and second order, complex64 and complex128; conj/real/imag; forward AD; and ember's own
gradcheck on complex inputs."""
import warnings

import numpy as np
import pytest

import ember
from .oracle import check, arr, torch

C64, C128 = np.complex64, np.complex128


def c(*shape, seed=0, low=None, high=None):
    """A complex128 array with random real and imaginary parts."""
    return arr(*shape, dtype=C128, seed=seed, low=low, high=high)


def away_from_zero(*shape, seed=0):
    """Complex entries with real part in [0.5, 1.5): safe for division, log, sqrt."""
    return c(*shape, seed=seed, low=0.5, high=1.5)


A, B = c(3, 4, seed=1), c(3, 4, seed=2)
P = away_from_zero(3, 4, seed=3)
M1, M2, V = c(3, 4, seed=4), c(4, 2, seed=5), c(4, seed=6)
B1, B2 = c(2, 3, 4, seed=7), c(2, 4, 2, seed=8)
R = arr(3, 4, seed=9)

# name -> (fn(lib, *tensors), *arrays). Every rule that multiplies the gradient by something.
OPS = {
    'mul': (lambda T, x, y: x * y, A, B),
    'mul_broadcast': (lambda T, x, y: x * y, c(3, 1), c(4, seed=2)),
    'mul_complex_number': (lambda T, x: x * (2 - 3j), A),
    'complex_number_mul': (lambda T, x: (2 - 3j) * x, A),
    'mul_real_tensor': (lambda T, x, y: x * y, R, B),
    'real_tensor_mul_complex_number': (lambda T, x: x * (2 - 3j), R),
    'mul_0d_complex': (lambda T, x, y: x * y, arr(3, dtype=np.float32), c(seed=2)),
    'mul_mixed_precision': (lambda T, x, y: x * y, arr(3, dtype=C64), c(3, seed=2)),
    'div': (lambda T, x, y: x / y, A, P),
    'div_complex_number': (lambda T, x: x / (2 - 3j), A),
    'complex_number_div': (lambda T, x: (2 - 3j) / x, P),
    'add_alpha': (lambda T, x, y: T.add(x, y, alpha=2j), A, B),
    'sub_alpha': (lambda T, x, y: T.sub(x, y, alpha=2j), A, B),
    'rsub': (lambda T, x: T.rsub(x, 1 + 1j, alpha=2j), A),
    'exp': (lambda T, x: x.exp(), A),
    'exp2': (lambda T, x: x.exp2(), A),
    'expm1': (lambda T, x: x.expm1(), A),
    'log': (lambda T, x: x.log(), P),
    'log2': (lambda T, x: x.log2(), P),
    'log10': (lambda T, x: x.log10(), P),
    'log1p': (lambda T, x: x.log1p(), P),
    'sqrt': (lambda T, x: x.sqrt(), P),
    'rsqrt': (lambda T, x: x.rsqrt(), P),
    'reciprocal': (lambda T, x: x.reciprocal(), P),
    'sin': (lambda T, x: x.sin(), A),
    'cos': (lambda T, x: x.cos(), A),
    'tan': (lambda T, x: x.tan(), A),
    'asin': (lambda T, x: x.asin(), A),
    'acos': (lambda T, x: x.acos(), A),
    'atan': (lambda T, x: x.atan(), A),
    'sinh': (lambda T, x: x.sinh(), A),
    'cosh': (lambda T, x: x.cosh(), A),
    'tanh': (lambda T, x: x.tanh(), A),
    'sigmoid': (lambda T, x: x.sigmoid(), A),
    'square': (lambda T, x: x.square(), A),
    'pow_int': (lambda T, x: x.pow(3), A),
    'pow_half': (lambda T, x: x ** 0.5, P),
    'pow_complex_exponent': (lambda T, x: x ** (2 + 1j), P),
    'real_tensor_pow_complex_exponent': (lambda T, x: x ** 1j, arr(3, low=1, high=2)),
    'pow_tensors': (lambda T, x, y: x ** y, P, B),
    'number_pow': (lambda T, x: 2 ** x, A),
    'complex_number_pow': (lambda T, x: (1 + 1j) ** x, A),
    'abs': (lambda T, x: x.abs(), A),
    'sgn': (lambda T, x: x.sgn(), A),
    'lerp': (lambda T, x, y: T.lerp(x, y, 0.3 + 0.2j), A, B),
    'lerp_tensor_weight': (lambda T, x, y, w: T.lerp(x, y, w), A, B, P),
    'addcmul': (lambda T, x, y, z: T.addcmul(x, y, z, value=1 + 2j), A, B, P),
    'addcdiv': (lambda T, x, y, z: T.addcdiv(x, y, z, value=2), A, B, P),
    'where': (lambda T, x, y: T.where(T.tensor([True, False, True, False]), x, y), A, B),
    'sum': (lambda T, x: x.sum(), A),
    'mean': (lambda T, x: x.mean(1), A),
    'prod': (lambda T, x: x.prod(), A),
    'prod_dim': (lambda T, x: x.prod(1), A),
    'cumsum': (lambda T, x: x.cumsum(1), A),
    'cumprod': (lambda T, x: x.cumprod(1), A),
    'cumprod_with_zero': (lambda T, x: (x * T.tensor([1., 0., 1., 1.])).cumprod(1), A),
    'logsumexp': (lambda T, x: x.logsumexp(1), A),
    'softmax': (lambda T, x: x.softmax(1), A),
    'log_softmax': (lambda T, x: x.log_softmax(1), A),
    'index_add': (lambda T, x, s: x.index_add(0, T.tensor([0, 2]), s, alpha=2 - 1j), A,
                  c(2, 4, seed=2)),
    'var': (lambda T, x: x.var(1), A),
    'std': (lambda T, x: x.std(1), A),
    'norm': (lambda T, x: x.norm(), A),
    'norm_1': (lambda T, x: x.norm(p=1, dim=1), A),
    'norm_3': (lambda T, x: x.norm(p=3), A),
    'mm': (lambda T, x, y: x.mm(y), M1, M2),
    'mm_transposed': (lambda T, x, y: x.mm(y.t()), M1, c(2, 4, seed=5)),
    'matmul': (lambda T, x, y: x @ y, M1, M2),
    'matmul_mv': (lambda T, x, y: x @ y, M1, V),
    'matmul_vm': (lambda T, x, y: x @ y, V, M2),
    'matmul_dot': (lambda T, x, y: x @ y, V, c(4, seed=9)),
    'matmul_batched_left': (lambda T, x, y: x @ y, B1, M2),
    'matmul_batched_right': (lambda T, x, y: x @ y, M1, B2),
    'matmul_batched': (lambda T, x, y: x @ y, B1, B2),
    'matmul_vector_batched': (lambda T, x, y: x @ y, V, B2),
    'bmm': (lambda T, x, y: x.bmm(y), B1, B2),
    'mv': (lambda T, x, y: x.mv(y), M1, V),
    'dot': (lambda T, x, y: x.dot(y), V, c(4, seed=9)),
    'vdot': (lambda T, x, y: T.vdot(x, y), V, c(4, seed=9)),
    'outer': (lambda T, x, y: T.outer(x, y), V, c(3, seed=9)),
    'inner': (lambda T, x, y: T.inner(x, y), M1, c(2, 4, seed=9)),
    'addmm': (lambda T, x, y, z: T.addmm(z, x, y, beta=0.5j, alpha=2 - 1j), M1, M2,
              c(3, 2, seed=11)),
    'addmv': (lambda T, x, y, z: T.addmv(z, x, y, alpha=2j), M1, V, c(3, seed=11)),
    'addbmm': (lambda T, x, y, z: T.addbmm(z, x, y, alpha=1 + 1j), B1, B2, c(3, 2, seed=11)),
    'baddbmm': (lambda T, x, y, z: T.baddbmm(z, x, y, beta=2j), B1, B2, c(2, 3, 2, seed=11)),
    'einsum': (lambda T, x, y: T.einsum('ij,jk->ik', x, y), M1, M2),
    'einsum_diagonal': (lambda T, x: T.einsum('ii->i', x), c(3, 3)),
    'einsum_three': (lambda T, x, y, z: T.einsum('ij,jk,k->i', x, y, z), M1, M2, c(2, seed=3)),
    'linear': (lambda T, x, w, b: T.nn.functional.linear(x, w, b), M1, c(2, 4, seed=3),
               c(2, seed=4)),
    'sdpa': (lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v),
             c(2, 3, 4), c(2, 3, 4, seed=2), c(2, 3, 4, seed=3)),
    'conj': (lambda T, x: x.conj() * x, A),
    'conj_physical': (lambda T, x: T.conj_physical(x) * B.sum(), A),
    'real_imag': (lambda T, x: x.real * x.imag, A),
    'real_view_of_product': (lambda T, x, y: (x * y).real, A, B),
    'imag_view_of_product': (lambda T, x, y: (x * y).imag, A, B),
    'adjoint': (lambda T, x, y: x.mH @ y, M1, c(3, 2, seed=2)),
    'to_complex': (lambda T, x: x.to(T.complex128).exp() * (1 + 2j), R),
}


@pytest.mark.parametrize('dtype', [C64, C128], ids=['complex64', 'complex128'])
@pytest.mark.parametrize('name', list(OPS))
def test_gradients_match_torch(name, dtype):
    fn, *arrays = OPS[name]
    arrays = [a.astype(dtype) if a.dtype.kind == 'c' else a for a in arrays]
    double = dtype == C128
    check(fn, *arrays, double=double, **({} if double else {'rtol': 1e-4, 'atol': 1e-4}))


@pytest.mark.parametrize('conv', ['conv1d', 'conv2d_groups', 'conv_transpose2d'])
def test_convolution_gradients_match_torch(conv):
    # torch runs a complex convolution as three real ones, so its grad_fn is an AddBackward0;
    # compared here: values and first/second-order gradients.
    x, w = {'conv1d': (c(2, 3, 8), c(4, 3, 3, seed=2)),
            'conv2d_groups': (c(2, 4, 6, 6), c(4, 2, 3, 3, seed=2)),
            'conv_transpose2d': (c(2, 3, 5, 5), c(3, 4, 3, 3, seed=2))}[conv]

    def run(lib):
        F = lib.nn.functional
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        out = {'conv1d': lambda: F.conv1d(xt, wt, stride=2),
               'conv2d_groups': lambda: F.conv2d(xt, wt, padding=1, groups=2, dilation=2),
               'conv_transpose2d': lambda: F.conv_transpose2d(xt, wt, stride=2)}[conv]()
        first = lib.autograd.grad((out * lib.tensor(c(*out.shape, seed=9))).sum().real,
                                  [xt, wt], create_graph=True)
        loss2 = sum((g * lib.tensor(c(*g.shape, seed=7 + k))).sum().real
                    for k, g in enumerate(first))
        second = lib.autograd.grad(loss2, [xt, wt])
        return [t.detach().numpy().copy() for t in (out, *first, *second)]

    for e, t in zip(run(ember), run(torch)):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-9)


def test_real_input_takes_the_real_part_without_warning():
    # A real leaf whose gradient comes back complex gets its real part, silently (as in torch).
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            (x * lib.tensor([1 + 2j, 3 - 1j])).sum().real.backward()
        assert x.grad.dtype == lib.float32
        np.testing.assert_array_equal(x.grad.numpy(), [1.0, 3.0])


# -- conj, real, imag ------------------------------------------------------------------------
@pytest.mark.parametrize('op', ['conj', 'conj_physical', 'resolve_conj', 'real'])
@pytest.mark.parametrize('dtype', [np.float32, np.int64, np.bool_])
def test_non_complex_input_is_returned_itself(op, dtype):
    for lib in (ember, torch):
        x = lib.tensor(arr(3, dtype=dtype))
        assert getattr(lib, op)(x) is x
        assert (x.real if op == 'real' else getattr(x, op)()) is x


def test_conj_values_and_grad_fn_names():
    check(lambda T, x: (T.conj(x), x.conj_physical(), x.real, x.imag, T.real(x), T.imag(x)),
          A)
    check(lambda T, x: (x * 1).resolve_conj(), A)


def test_real_and_imag_are_views():
    for lib in (ember, torch):
        x = lib.tensor(A)
        x.real[0, 0] = 5.0
        x.imag[0, 1] = -7.0
        assert complex(x[0, 0]).real == 5.0 and complex(x[0, 1]).imag == -7.0
        assert x.real._base is x and x.imag._base is x


def test_imag_of_real_tensor_raises():
    check(lambda T, x: x.imag, R, match_message=True)
    check(lambda T, x: T.imag(x), R, match_message=True)


def test_sign_refuses_complex_as_torch():
    check(lambda T, x: x.sign(), A, match_message=True)


def test_conj_physical_in_place():
    for lib in (ember, torch):
        x = lib.tensor(A)
        assert x.conj_physical_() is x
        np.testing.assert_array_equal(x.numpy(), A.conj())


# -- forward AD ------------------------------------------------------------------------------
@pytest.mark.parametrize('name', ['mul', 'exp', 'matmul', 'vdot', 'sgn', 'div', 'prod',
                                  'real_tensor_mul_complex_number', 'real_imag', 'conj'])
def test_forward_ad_tangents_match_torch(name):
    fn, *arrays = OPS[name]
    tangents = []
    for lib in (ember, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            duals = [fw.make_dual(lib.tensor(a), lib.tensor(arr(*a.shape, dtype=a.dtype,
                                                                seed=20 + k)))
                     for k, a in enumerate(arrays)]
            tangents.append(fw.unpack_dual(fn(lib, *duals)).tangent.numpy())
    np.testing.assert_allclose(*tangents, rtol=1e-10, atol=1e-10)


# -- gradcheck -------------------------------------------------------------------------------
@pytest.mark.parametrize('name', ['mul', 'div', 'exp', 'abs', 'sgn', 'matmul', 'vdot', 'prod',
                                  'real_imag', 'real_tensor_mul_complex_number', 'addmm'])
@pytest.mark.parametrize('fast_mode', [False, True])
def test_gradcheck_passes_on_complex_inputs(name, fast_mode):
    fn, *arrays = OPS[name]
    small = [a[:2] if a.ndim == 1 else a[:2, :2] if name != 'addmm' else a for a in arrays]
    for lib in (ember, torch):
        ins = [lib.tensor(a, dtype=lib.complex128 if a.dtype.kind == 'c' else lib.float64,
                          requires_grad=True) for a in small]
        assert lib.autograd.gradcheck(lambda *t: fn(lib, *t), ins, fast_mode=fast_mode)
        assert lib.autograd.gradgradcheck(lambda *t: fn(lib, *t), ins)
    assert ember.autograd.gradcheck(lambda *t: fn(ember, *t), [
        ember.tensor(a, requires_grad=True) for a in small], check_forward_ad=True)


def _missing_conjugate(lib):
    """A custom Function for ``x * x`` whose backward forgets the conjugate."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x
    return Square.apply


def test_gradcheck_catches_a_missing_conjugate():
    messages = []
    for lib in (ember, torch):
        x = lib.tensor([1 + 1j, 2 - 1j], dtype=lib.complex128, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            lib.autograd.gradcheck(_missing_conjugate(lib), (x,))
        messages.append(str(info.value))
        with pytest.raises(RuntimeError, match="While considering the imaginary part of "
                                               "complex outputs only, Jacobian mismatch"):
            lib.autograd.gradcheck(_missing_conjugate(lib), (x,), fast_mode=True)
        assert not lib.autograd.gradcheck(_missing_conjugate(lib), (x,),
                                          raise_exception=False)
    assert messages[0] == messages[1]
