"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), the tests whose
names sort before ``test_m`` about activation functions and fold: gradchecks of hardsigmoid
and hardswish, hardswish's gradient at its corners, activations in bfloat16 and float16
against float32, in-place activations on overlapping (expanded) memory, in-place elu /
leaky_relu / rrelu with a negative slope refusing backward, leaky_relu with a zero slope,
logsigmoid's ``out=``, and fold (gradcheck, forward AD, bfloat16).

Not adapted: test_activations_bfloat16 (CUDA only).
"""
import pytest

from ._nn_rest import eq, lib_fixture, randn, raises

XFAIL = {}
lib = lib_fixture(XFAIL)

# assertEqual's default tolerances for the reduced-precision dtypes
_TOL = {'bfloat16': dict(rtol=1.6e-2, atol=1e-5), 'float16': dict(rtol=1e-3, atol=1e-5)}


def test_hardsigmoid_grad(lib):
    inputs = (randn(lib, 4, 16, 16, dtype='double') - 0.5) * 10
    inputs.requires_grad = True
    assert lib.autograd.gradcheck(lib.nn.functional.hardsigmoid, (inputs,))


def test_hardswish_grad(lib):
    inputs = (randn(lib, 4, 16, 16, dtype='double') - 0.5) * 10
    inputs.requires_grad = True
    assert lib.autograd.gradcheck(lib.nn.functional.hardswish, (inputs,))


@pytest.mark.parametrize('dtype', ['half', 'bfloat16', 'float'])
def test_hardswish_grad_corner(lib, dtype):
    dt = getattr(lib, dtype)
    for scalar, ref_fn in [(3, lib.ones), (-3, lib.zeros)]:
        shape = (1, 9, 9, 1)
        inputs = lib.ones(shape, dtype=dt) * scalar
        inputs.requires_grad = True
        out = lib.nn.Hardswish()(inputs)
        out.backward(lib.ones_like(out))
        eq(inputs.grad, ref_fn(shape, dtype=dt))
        assert inputs.grad.dtype == dt


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_activations_bfloat16_half_cpu(lib, dtype):
    dt = getattr(lib, dtype)
    nn = lib.nn

    def check(fn, shape, seed, prec=None):
        fn = fn.to(dtype=dt)
        input = randn(lib, *shape, seed=seed).to(dt).requires_grad_(True)
        out = fn(input)
        grad_input = randn(lib, *out.shape, seed=seed + 1).to(dt)
        out.backward(grad_input)
        input2 = input.detach().clone().float().requires_grad_(True)
        out2 = fn.float()(input2)
        out2.backward(grad_input.detach().clone().float())
        assert out.dtype == dt and input.grad.dtype == dt
        tol = _TOL[dtype] if prec is None else dict(rtol=prec, atol=prec)
        eq(out, out2.to(dtype=dt), **tol)
        eq(input.grad.data, input2.grad.data.to(dtype=dt), **tol)

    for i, shape in enumerate([[1, 3, 1, 6], [1, 3, 1, 128], [1, 3, 256, 256]]):
        for j, (fn, prec) in enumerate([
                (nn.LogSigmoid(), None), (nn.Hardsigmoid(), None), (nn.Hardshrink(), None),
                (nn.Softshrink(), None), (nn.Hardswish(), None), (nn.Softplus(), None),
                (nn.SiLU(), None), (nn.Hardtanh(), None), (nn.Mish(), None), (nn.ELU(), None),
                (nn.PReLU(), None), (nn.GLU(), 1e-2), (nn.Threshold(0.1, 20), None),
                (nn.GELU(), None), (nn.Hardtanh(), None), (nn.LeakyReLU(), None)]):
            check(fn, shape, seed=100 * i + 2 * j, prec=prec)


def _overlapping(lib, dtype='float'):
    """A 6 x 6 tensor whose rows share memory (an expanded row)."""
    return randn(lib, 1, 6).to(getattr(lib, dtype)).expand((6, 6))


def test_elu_inplace_overlap(lib):
    x = _overlapping(lib, 'bfloat16')
    with raises(RuntimeError, 'unsupported operation'):
        lib.nn.functional.elu(x, inplace=True)
    with raises(RuntimeError, 'unsupported operation'):
        lib.nn.functional.elu_(x)


def test_elu_inplace_with_neg_alpha(lib):
    for fn in (lib.nn.functional.elu_, lib.nn.functional.celu_):
        a = lib.tensor([-1., 1.], requires_grad=True)
        b = fn(a.clone(), alpha=-2)
        with raises(RuntimeError, "call out-of-place version"):
            b.backward(lib.ones(2))


def test_hardswish_inplace_overlap(lib):
    x = _overlapping(lib)
    with raises(RuntimeError, 'unsupported operation'):
        lib.nn.functional.hardswish(x, inplace=True)


def test_leaky_relu_inplace_overlap(lib):
    x = _overlapping(lib)
    with raises(RuntimeError, 'unsupported operation'):
        lib.nn.functional.leaky_relu(x, inplace=True)
    with raises(RuntimeError, 'unsupported operation'):
        lib.nn.functional.leaky_relu_(x)


def test_leaky_relu_inplace_with_neg_slope(lib):
    a = lib.tensor([-1., 1.], requires_grad=True)
    b = lib.nn.functional.leaky_relu_(a.clone(), -2)
    with raises(RuntimeError, "call out-of-place version"):
        b.backward(lib.ones(2))
    a = lib.tensor([-1., 1.], requires_grad=True)
    b = lib.nn.functional.rrelu_(a.clone(), -5.0, 1.0)
    with raises(RuntimeError, "call out-of-place version"):
        b.backward(lib.ones(2))


def test_leaky_relu_inplace_with_zero_slope(lib):
    for dt in (lib.float, lib.bfloat16):
        a = lib.tensor([-2., 0., 2.], dtype=dt, requires_grad=True)
        b = lib.nn.functional.leaky_relu_(a.clone(), 0.0)
        b.backward(lib.ones(3))
        eq(a.grad, lib.tensor([0., 0., 1.], dtype=dt))
        assert a.grad.dtype == dt


def test_logsigmoid_out(lib):
    F = lib.nn.functional
    x = randn(lib, 2, 3).t()
    empty_out = randn(lib, 0, seed=1)
    eq(F.logsigmoid(x), F.logsigmoid(x, out=empty_out))
    noncontig_out = randn(lib, 2, 3, seed=2).t()
    eq(F.logsigmoid(x), F.logsigmoid(x, out=noncontig_out))


def test_fold(lib):
    F = lib.nn.functional

    def func(x):
        return F.fold(x, output_size=(4, 5), kernel_size=(2, 2))

    for sd in (44, 83, 71, 25, 999):
        x = randn(lib, 1, 12, 12, seed=sd, dtype='double', requires_grad=True)
        assert lib.autograd.gradcheck(func, [x], check_forward_ad=True)
        assert lib.autograd.gradgradcheck(func, [x], check_fwd_over_rev=True)
        input = x.detach().clone().to(dtype=lib.bfloat16).requires_grad_(True)
        input2 = input.detach().clone().float().requires_grad_(True)
        out = func(input)
        out.sum().backward()
        out2 = func(input2)
        out2.sum().backward()
        assert out.dtype == lib.bfloat16 and input.grad.dtype == lib.bfloat16
        eq(out, out2.to(dtype=lib.bfloat16), atol=0.05, rtol=0)
        eq(input.grad, input2.grad.to(dtype=lib.bfloat16), **_TOL['bfloat16'])

