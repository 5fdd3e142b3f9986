"""PyTorch's test/autograd/test_functional.py, class TestAutogradFunctional (which
test/test_autograd.py imports and runs), adapted to run on ember and torch.

Each upstream test keeps its name and its assertions; ``torch.`` became ``lib.`` and
``autogradF.`` ``lib.autograd.functional.``; a test upstream parametrizes over ``vectorize``
is parametrized the same way, and every test runs twice (``[ember]`` and ``[torch]``).
ember's run of a test listed in ``XFAIL`` is expected to fail (strict), for the reason given.

Upstream runs each test with plain tensors and with LoggingTensor (a __torch_dispatch__
subclass); only the plain-tensor runs are adapted: ember has no __torch_dispatch__.
TestAutogradFunctionalDeviceType (upstream's other class of the file) runs on accelerators
only (``except_for="cpu"``), so it is not adapted.
"""
import warnings

import pytest

from ._upstream import lib_fixture, eq, raises

XFAIL = {}

lib = lib_fixture(XFAIL)

vectorizes = pytest.mark.parametrize('vectorize', [True, False])


def F(lib):
    return lib.autograd.functional


def gradcheck(lib, *a, **k):
    return lib.autograd.gradcheck(*a, **k)


def gradgradcheck(lib, *a, **k):
    return lib.autograd.gradgradcheck(*a, **k)


def _assert_same_struct(lib, res, base):
    # base and res: Tensors, or tuples of Tensors, of the same sizes
    if isinstance(base, lib.Tensor):
        assert isinstance(res, lib.Tensor)
        eq(base.size(), res.size())
    elif isinstance(base, tuple):
        assert isinstance(res, tuple)
        eq(len(base), len(res))
        for el_base, el_res in zip(base, res):
            assert isinstance(el_base, lib.Tensor)
            assert isinstance(el_res, lib.Tensor)
            eq(el_base.size(), el_res.size())
    else:
        raise RuntimeError("The base given to `_assert_same_struct` doesn't have the right "
                           "structure.")


def _assert_interleaved_struct(lib, res, base1, base2):
    # res[i][j][k][l] is (base1[i][k], base2[j][l]), with the tuple levels present only
    # where base1 / base2 are tuples
    T = lib.Tensor
    if isinstance(base1, T) and isinstance(base2, T):
        assert isinstance(res, T)
        eq(res.size(), base1.size() + base2.size())
    elif isinstance(base1, tuple) and isinstance(base2, T):
        assert isinstance(res, tuple)
        eq(len(res), len(base1))
        for el_res, el_base1 in zip(res, base1):
            assert isinstance(el_res, T)
            assert isinstance(el_base1, T)
            eq(el_res.size(), el_base1.size() + base2.size())
    elif isinstance(base1, T) and isinstance(base2, tuple):
        assert isinstance(res, tuple)
        eq(len(res), len(base2))
        for el_res, el_base2 in zip(res, base2):
            assert isinstance(el_res, T)
            assert isinstance(el_base2, T)
            eq(el_res.size(), base1.size() + el_base2.size())
    elif isinstance(base1, tuple) and isinstance(base2, tuple):
        assert isinstance(res, tuple)
        eq(len(res), len(base1))
        for el_res, el_base1 in zip(res, base1):
            assert isinstance(el_res, tuple)
            eq(len(res), len(base2))
            for el_el_res, el_base2 in zip(el_res, base2):
                assert isinstance(el_el_res, T)
                assert isinstance(el_base2, T)
                eq(el_el_res.size(), el_base1.size() + el_base2.size())
    else:
        raise RuntimeError("The bases given to `_assert_interleaved_struct` don't have the "
                           "right structure.")


def _assert_not_equal(a, b):
    with pytest.raises(AssertionError):
        eq(a, b)


def _test_construct_standard_basis_for(lib, inputs):
    numels = tuple(tensor.numel() for tensor in inputs)
    results = F(lib)._construct_standard_basis_for(inputs, numels)
    for result, inp in zip(results, inputs):
        eq(result.dtype, inp.dtype)
        eq(result.device, inp.device)
    results = lib.cat([result.to(device="cpu", dtype=lib.float) for result in results], dim=1)
    expected = lib.eye(results[0].shape[0], dtype=lib.float)
    eq(results, expected)


def _test_vectorize_raises_no_warnings(lib, api):
    # jacobian/hessian(vectorize=True) do not warn
    def foo(a):
        return (a ** 2).sum()

    x = lib.randn(3)
    with warnings.catch_warnings(record=True) as wa:
        warnings.simplefilter('always')
        api(foo, x, vectorize=True)
    eq(len(wa), 0)


def _check_jacobian_vectorize_correctness(lib, f, inputs, test_forward_ad=True):
    expected = F(lib).jacobian(f, inputs, vectorize=False)
    result_backward_mode = F(lib).jacobian(f, inputs, vectorize=True)
    eq(result_backward_mode, expected)

    if test_forward_ad:
        result_forward_mode = F(lib).jacobian(f, inputs, strategy="forward-mode",
                                              vectorize=True)
        eq(result_forward_mode, expected)


def _check_hessian_vectorize_correctness(lib, f, inputs):
    expected = F(lib).hessian(f, inputs, vectorize=False)
    result = F(lib).hessian(f, inputs, vectorize=True)
    eq(result, expected)

    result_forward_mode = F(lib).hessian(f, inputs, outer_jacobian_strategy="forward-mode",
                                         vectorize=True)
    eq(result_forward_mode, expected)


# -- vjp ---------------------------------------------------------------------------------
def test_vjp_err_check(lib):
    def foo(a):
        return 3 * a.narrow(0, 0, 3)

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    inp = lib.rand(4)
    v = lib.ones(3)
    with raises(TypeError, "The inputs given to vjp must be either a Tensor"):
        F(lib).vjp(foo, (inp, 2), v)

    with raises(TypeError, "The outputs of the user-provided function given to vjp must"):
        F(lib).vjp(bar, inp, v)

    with raises(RuntimeError,
                "The vector v can only be None if the user-provided function returns"):
        F(lib).vjp(foo, inp)

    with raises(RuntimeError, "The given v should contain a single Tensor."):
        F(lib).vjp(foo, inp, (lib.ones_like(inp), lib.ones_like(inp)))

    with raises(RuntimeError, "v has invalid size: should be torch.Size"):
        F(lib).vjp(foo, inp, v[:2])

    res = F(lib).vjp(foo, inp, v)[1]
    _assert_same_struct(lib, res, inp)


def test_vjp_err_check_strict(lib):
    def foo(a):
        return a.detach()

    def bar(a):
        # a non-leaf that requires grad, not connected to the input
        return a.long().float().requires_grad_().clone()

    inp = lib.rand(4)
    v = lib.rand(4)
    with raises(RuntimeError, "Output 0 of the user-provided function does not require "
                              "gradients."):
        F(lib).vjp(foo, inp, v, strict=True)
    res = F(lib).vjp(foo, inp, v, strict=False)
    _assert_same_struct(lib, res[1], inp)
    eq(res[1].abs().sum(), 0.0)

    with raises(RuntimeError, "The output of the user-provided function is independent of "
                              "input 0"):
        F(lib).vjp(bar, inp, v, strict=True)
    res = F(lib).vjp(bar, inp, v, strict=False)
    _assert_same_struct(lib, res[1], inp)
    eq(res[1].abs().sum(), 0.0)

    # the Jacobian does not depend on the input
    def foo(a):
        return a.clone()

    inp.requires_grad_()
    with raises(RuntimeError, "jacobian of the user-provided function is independent of "
                              "input 0."):
        F(lib).vjp(foo, inp, v, create_graph=True, strict=True)
    res = F(lib).vjp(foo, inp, v, create_graph=True, strict=False)
    _assert_same_struct(lib, res[1], inp)
    eq(res[1], v)


def test_vjp_no_grad(lib):
    def reducer(x):
        return x.sum(dim=1)

    inputs = lib.rand(4, 4)
    v = lib.ones(4)
    with lib.no_grad():
        res = F(lib).vjp(reducer, inputs, v)
    assert res[0].grad_fn is None
    assert res[1].grad_fn is None
    _assert_not_equal(res[1], lib.zeros(4, 4))

    inputs.requires_grad_()
    v.requires_grad_()
    with lib.no_grad():
        res = F(lib).vjp(reducer, inputs, v, create_graph=True)
    assert res[0].grad_fn is not None
    assert res[1].grad_fn is not None
    _assert_not_equal(res[1], lib.zeros(4, 4))


def test_vjp_output(lib):
    def reducer(x):
        return x.sum(dim=1)

    inputs = lib.rand(4, 4)
    v = lib.ones(4)
    res = F(lib).vjp(reducer, inputs, v)
    _assert_same_struct(lib, res[1], inputs)
    assert res[0].grad_fn is None
    assert res[1].grad_fn is None

    def adder(x, y):
        return 2 * x + 3 * y

    inputs = (lib.rand(2), lib.rand(2))
    v = lib.ones(2)
    out, vjp_val = F(lib).vjp(adder, inputs, v)
    _assert_same_struct(lib, vjp_val, inputs)
    assert out.grad_fn is None
    assert vjp_val[0].grad_fn is None
    assert vjp_val[1].grad_fn is None

    def adder(x, y):
        return 2 * x + 3 * y, x + y

    inputs = (lib.rand(2), lib.rand(2))
    v = (lib.tensor([1.0, 0.0]), lib.tensor([1.0, 0.0]))
    out, vjp_val = F(lib).vjp(adder, inputs, v)
    _assert_same_struct(lib, vjp_val, inputs)
    assert out[0].grad_fn is None
    assert out[1].grad_fn is None
    assert vjp_val[0].grad_fn is None
    assert vjp_val[1].grad_fn is None


def test_vjp_scalar(lib):
    def reducer(x):
        return x.sum()

    inputs = lib.rand(4, 4)
    v = lib.ones([])
    res = F(lib).vjp(reducer, inputs, v)
    _assert_same_struct(lib, res[0], v)
    _assert_same_struct(lib, res[1], inputs)

    res = F(lib).vjp(reducer, inputs)
    _assert_same_struct(lib, res[0], v)
    _assert_same_struct(lib, res[1], inputs)

    def expander(x):
        return x.unsqueeze(0).repeat(4)

    inputs = lib.rand([])
    v = lib.ones(4)
    res = F(lib).vjp(expander, inputs, v)
    _assert_same_struct(lib, res[0], v)
    _assert_same_struct(lib, res[1], inputs)


def test_vjp_create_graph(lib):
    def reducer(x):
        return x.sum(dim=1)

    inputs = lib.rand(2, 2, dtype=lib.double)
    v = lib.ones(2, dtype=lib.double)

    inputs.requires_grad_()
    v.requires_grad_()
    res = F(lib).vjp(reducer, inputs, v, create_graph=True)
    _assert_same_struct(lib, res[1], inputs)
    assert res[0].grad_fn is not None
    assert res[1].grad_fn is not None

    gradcheck(lib, lambda inp, v: F(lib).vjp(reducer, inputs, v, create_graph=True),
              (inputs, v))
    gradgradcheck(lib, lambda inp, v: F(lib).vjp(reducer, inputs, v, create_graph=True),
                  (inputs, v))

    def adder(x, y):
        return 2 * x + 3 * y, x * y

    inputs = (lib.rand(2, dtype=lib.double, requires_grad=True),
              lib.rand(2, dtype=lib.double, requires_grad=True))
    v = (lib.tensor([1.0, 0.0], dtype=lib.double, requires_grad=True),
         lib.tensor([1.0, 0.0], dtype=lib.double, requires_grad=True))

    gradcheck(lib, lambda *args: F(lib).vjp(adder, args[:2], args[2:], create_graph=True)[1],
              inputs + v)
    gradgradcheck(lib,
                  lambda *args: F(lib).vjp(adder, args[:2], args[2:], create_graph=True)[1],
                  inputs + v)

    def foo(*args):
        x, y = args[:2]
        v = args[2:]

        x = x.cos()
        val, grad = F(lib).vjp(adder, (x, y), v, create_graph=True)

        return (val[0].exp() + val[1].exp() + grad[0].exp() + grad[1].exp() + x.exp()
                + y.exp())

    gradcheck(lib, foo, inputs + v)
    gradgradcheck(lib, foo, inputs + v)


# -- jvp ---------------------------------------------------------------------------------
def test_jvp_err_check(lib):
    def foo(a):
        return 3 * a.narrow(0, 0, 3)

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    inp = lib.rand(4)
    v = lib.rand(4)
    with raises(TypeError, "The inputs given to jvp must be either a Tensor"):
        F(lib).jvp(foo, (inp, 2), v)

    with raises(TypeError, "The outputs of the user-provided function given to jvp must"):
        F(lib).jvp(bar, inp, v)

    with raises(RuntimeError,
                "The vector v can only be None if the input to the user-provided function"):
        F(lib).jvp(foo, inp)

    with raises(RuntimeError, "The given v should contain a single Tensor."):
        F(lib).jvp(foo, inp, (v, v))

    with raises(RuntimeError, "v has invalid size: should be torch.Size"):
        F(lib).jvp(foo, inp, v[:2])

    res = F(lib).jvp(foo, inp, v)[1]
    _assert_same_struct(lib, res, foo(inp))


def test_jvp_err_check_strict(lib):
    def foo(a):
        return a.detach()

    def bar(a):
        # a non-leaf that requires grad, not connected to the input
        return a.long().float().requires_grad_().clone()

    inp = lib.rand(4)
    v = lib.rand(4)
    with raises(RuntimeError, "Output 0 of the user-provided function does not require "
                              "gradients."):
        F(lib).jvp(foo, inp, v, strict=True)
    res = F(lib).jvp(foo, inp, v, strict=False)
    _assert_same_struct(lib, res[1], res[0])
    eq(res[1].abs().sum(), 0.0)

    with raises(RuntimeError, "The output of the user-provided function is independent of "
                              "input 0"):
        F(lib).jvp(bar, inp, v, strict=True)
    res = F(lib).jvp(bar, inp, v, strict=False)
    _assert_same_struct(lib, res[1], res[0])
    eq(res[1].abs().sum(), 0.0)

    # the Jacobian does not depend on the input
    def foo(a):
        return a.clone()

    inp.requires_grad_()
    with raises(RuntimeError, "jacobian of the user-provided function is independent of "
                              "input 0."):
        F(lib).jvp(foo, inp, v, create_graph=True, strict=True)
    res = F(lib).jvp(foo, inp, v, create_graph=True, strict=False)
    _assert_same_struct(lib, res[1], inp)
    eq(res[1], v)


def test_jvp_no_grad(lib):
    def reducer(x):
        return x.sum(dim=1)

    inputs = lib.rand(4, 4)
    v = lib.ones(4, 4)
    with lib.no_grad():
        res = F(lib).jvp(reducer, inputs, v)
    assert res[0].grad_fn is None
    assert res[1].grad_fn is None
    _assert_not_equal(res[1], lib.zeros(4, 4))

    inputs.requires_grad_()
    v.requires_grad_()
    with lib.no_grad():
        res = F(lib).jvp(reducer, inputs, v, create_graph=True)
    assert res[0].grad_fn is not None
    assert res[1].grad_fn is not None
    _assert_not_equal(res[1], lib.zeros(4, 4))


def test_jvp_output(lib):
    def reducer(x):
        return x.sum(dim=1)

    inputs = lib.rand(4, 4)
    v = lib.ones(4, 4)
    res = F(lib).jvp(reducer, inputs, v)
    _assert_same_struct(lib, res[1], res[0])
    assert res[0].grad_fn is None
    assert res[1].grad_fn is None

    def adder(x, y):
        return 2 * x + 3 * y

    inputs = (lib.rand(2), lib.rand(2))
    v = (lib.ones(2), lib.ones(2))
    out, jvp_val = F(lib).jvp(adder, inputs, v)
    _assert_same_struct(lib, jvp_val, out)
    assert out.grad_fn is None
    assert jvp_val[0].grad_fn is None
    assert jvp_val[1].grad_fn is None

    def adder(x, y):
        return 2 * x + 3 * y, x + y

    inputs = (lib.rand(2), lib.rand(2))
    v = (lib.tensor([1.0, 0.0]), lib.tensor([1.0, 0.0]))
    out, jvp_val = F(lib).jvp(adder, inputs, v)
    _assert_same_struct(lib, jvp_val, out)
    assert out[0].grad_fn is None
    assert out[1].grad_fn is None
    assert jvp_val[0].grad_fn is None
    assert jvp_val[1].grad_fn is None


def test_jvp_scalar(lib):
    def reducer(x):
        return x.sum()

    inputs = lib.rand(4, 4)
    v = lib.ones(4, 4)
    res = F(lib).jvp(reducer, inputs, v)
    _assert_same_struct(lib, res[0], lib.zeros([]))
    _assert_same_struct(lib, res[1], res[0])

    def expander(x):
        return x.unsqueeze(0).repeat(4)

    inputs = lib.rand([])
    v = lib.ones([])
    res = F(lib).jvp(expander, inputs, v)
    _assert_same_struct(lib, res[0], lib.zeros(4))
    _assert_same_struct(lib, res[1], res[0])

    res = F(lib).jvp(expander, inputs)
    _assert_same_struct(lib, res[0], lib.zeros(4))
    _assert_same_struct(lib, res[1], res[0])


def test_jvp_create_graph(lib):
    def reducer(x):
        return x.sum(dim=1)

    inputs = lib.rand(2, 2, dtype=lib.double)
    v = lib.ones(2, 2, dtype=lib.double)

    inputs.requires_grad_()
    v.requires_grad_()
    res = F(lib).jvp(reducer, inputs, v, create_graph=True)
    _assert_same_struct(lib, res[1], res[0])
    assert res[0].grad_fn is not None
    assert res[1].grad_fn is not None

    gradcheck(lib, lambda inp, v: F(lib).jvp(reducer, inp, v, create_graph=True),
              (inputs, v))
    gradgradcheck(lib, lambda inp, v: F(lib).jvp(reducer, inp, v, create_graph=True),
                  (inputs, v))

    def adder(x, y):
        return 2 * x + 3 * y, x * y

    inputs = (lib.rand(2, dtype=lib.double, requires_grad=True),
              lib.rand(2, dtype=lib.double, requires_grad=True))
    v = (lib.tensor([1.0, 0.0], dtype=lib.double, requires_grad=True),
         lib.tensor([1.0, 0.0], dtype=lib.double, requires_grad=True))

    gradcheck(lib, lambda *args: F(lib).jvp(adder, args[:2], args[2:], create_graph=True)[1],
              inputs + v)
    gradgradcheck(lib,
                  lambda *args: F(lib).jvp(adder, args[:2], args[2:], create_graph=True)[1],
                  inputs + v)

    def foo(*args):
        x, y = args[:2]
        v = args[2:]

        x = x.cos()
        val, grad = F(lib).jvp(adder, (x, y), v, create_graph=True)

        return (val[0].exp() + val[1].exp() + grad[0].exp() + grad[1].exp() + x.exp()
                + y.exp())

    gradcheck(lib, foo, inputs + v)
    gradgradcheck(lib, foo, inputs + v)


def test_construct_standard_basis_for(lib):
    test_cases = [
        (lib.randn(2, 3),),
        (lib.randn(1),),
        (lib.randn([]),),
        (lib.randn(1), lib.randn([]), lib.randn([])),
        (lib.randn(2), lib.randn(3), lib.randn([])),
        (lib.randn(2), lib.randn([]), lib.randn(3)),
        (lib.randn(2, 3), lib.randn(3), lib.randn(3, 4, 2)),
        (lib.randn(2, dtype=lib.float64), lib.randn(3, dtype=lib.float32)),
    ]

    for inputs in test_cases:
        _test_construct_standard_basis_for(lib, inputs)


# -- jacobian ----------------------------------------------------------------------------
def test_jacobian_vectorize_raises_no_warnings(lib):
    _test_vectorize_raises_no_warnings(lib, F(lib).jacobian)


def test_hessian_vectorize_raises_no_warnings(lib):
    _test_vectorize_raises_no_warnings(lib, F(lib).hessian)


@vectorizes
def test_jacobian_err_check(lib, vectorize):
    def foo(a):
        return 3 * a.narrow(0, 0, 3)

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    inp = lib.rand(4)
    with raises(TypeError, "The inputs given to jacobian must be either a Tensor"):
        F(lib).jacobian(foo, (inp, 2), vectorize=vectorize)

    with raises(TypeError,
                "The outputs of the user-provided function given to jacobian must"):
        F(lib).jacobian(bar, inp, vectorize=vectorize)

    res = F(lib).jacobian(foo, inp, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, foo(inp), inp)

    def foo(a, b):
        return b, 3 * a.narrow(0, 0, 3)

    inp = (lib.rand(4), lib.rand(5))

    res = F(lib).jacobian(foo, inp, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, foo(*inp), inp)


def test_jacobian_err_check_strict(lib):
    def foo(a):
        return a.detach()

    def bar(a):
        # a non-leaf that requires grad, not connected to the input
        return a.long().float().requires_grad_().clone()

    inp = lib.rand(4)
    with raises(RuntimeError, "Output 0 of the user-provided function does not require "
                              "gradients."):
        F(lib).jacobian(foo, inp, strict=True)
    res = F(lib).jacobian(foo, inp, strict=False)
    _assert_interleaved_struct(lib, res, foo(inp), inp)
    eq(res.abs().sum(), 0.0)

    with raises(RuntimeError, "Output 0 of the user-provided function is independent of "
                              "input 0."):
        F(lib).jacobian(bar, inp, strict=True)
    res = F(lib).jacobian(bar, inp, strict=False)
    _assert_interleaved_struct(lib, res, foo(inp), inp)
    eq(res.abs().sum(), 0.0)

    # the Jacobian does not depend on the input
    def foo(a):
        return a.clone()

    inp.requires_grad_()
    with raises(RuntimeError, "jacobian of the user-provided function is independent of "
                              "input 0."):
        F(lib).jacobian(foo, inp, create_graph=True, strict=True)
    res = F(lib).jacobian(foo, inp, create_graph=True, strict=False)
    _assert_interleaved_struct(lib, res, inp, inp)
    eq(res, lib.eye(4))


def test_jacobian_err_check_strict_vectorize(lib):
    def foo(x):
        return x

    inp = lib.rand(4)
    with raises(RuntimeError, "not supported together"):
        F(lib).jacobian(foo, inp, strict=True, vectorize=True)


def test_jacobian_no_grad(lib):
    def exp_reducer(x):
        return x.exp().sum(dim=1)

    inputs = lib.rand(4, 4)
    with lib.no_grad():
        res = F(lib).jacobian(exp_reducer, inputs)
    assert res.grad_fn is None
    _assert_not_equal(res, lib.zeros(4, 4))

    with lib.no_grad():
        res = F(lib).jacobian(exp_reducer, inputs, create_graph=True)
    assert res.grad_fn is not None
    _assert_not_equal(res, lib.zeros(4, 4))


@vectorizes
def test_jacobian_output(lib, vectorize):
    def exp_reducer(x):
        return x.exp().sum(dim=1)

    inputs = lib.rand(4, 4)
    res = F(lib).jacobian(exp_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, exp_reducer(inputs), inputs)
    assert res.grad_fn is None

    def identity(x):
        return x.clone()

    inputs = lib.rand(4)
    res = F(lib).jacobian(identity, inputs, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, identity(inputs), inputs)
    assert res.grad_fn is None
    eq(res, lib.eye(4))

    def add_exp_reducer(x, y):
        return (x + y.exp()).sum(dim=1)

    inputs = (lib.rand(4, 4), lib.rand(4, 4))
    res = F(lib).jacobian(add_exp_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, add_exp_reducer(*inputs), inputs)
    assert res[0].grad_fn is None
    assert res[1].grad_fn is None


@vectorizes
def test_jacobian_scalar(lib, vectorize):
    def reducer(x):
        return x.sum()

    inputs = lib.rand(4, 4)
    res = F(lib).jacobian(reducer, inputs, vectorize=vectorize)
    _assert_same_struct(lib, res, inputs)

    def expander(x):
        return x.unsqueeze(0).repeat(4)

    inputs = lib.rand([])
    res = F(lib).jacobian(expander, inputs, vectorize=vectorize)
    _assert_same_struct(lib, res, lib.zeros(4))


@vectorizes
def test_jacobian_create_graph(lib, vectorize):
    def exp_reducer(x):
        return x.exp().sum(dim=1)

    inputs = lib.rand(4, 4, dtype=lib.double, requires_grad=True)
    res = F(lib).jacobian(exp_reducer, inputs, create_graph=True, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, exp_reducer(inputs), inputs)
    assert res.grad_fn is not None

    gradcheck(lib, lambda inp: F(lib).jacobian(exp_reducer, inp, create_graph=True,
                                               vectorize=vectorize), inputs)
    gradgradcheck(lib, lambda inp: F(lib).jacobian(exp_reducer, inp, create_graph=True,
                                                   vectorize=vectorize), inputs)

    def add_exp_reducer(x, y):
        return (x + y).exp().sum(dim=1)

    inputs = (lib.rand(4, 4, dtype=lib.double, requires_grad=True),
              lib.rand(4, 4, dtype=lib.double, requires_grad=True))
    res = F(lib).jacobian(add_exp_reducer, inputs, create_graph=True, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, add_exp_reducer(*inputs), inputs)
    assert res[0].grad_fn is not None
    assert res[1].grad_fn is not None

    gradcheck(lib, lambda *inp: F(lib).jacobian(add_exp_reducer, inp, create_graph=True,
                                                vectorize=vectorize), inputs)
    gradgradcheck(lib, lambda *inp: F(lib).jacobian(add_exp_reducer, inp, create_graph=True,
                                                    vectorize=vectorize), inputs)

    def foo(x, y):
        x = x.cos()
        val, jac = F(lib).jacobian(add_exp_reducer, (x, y), create_graph=True,
                                   vectorize=vectorize)

        res = val[0].exp().sum() + val[1].exp().sum() + jac[0].exp().sum()
        res = res + jac[1].exp().sum() + x.exp().sum() + y.exp().sum()
        return res

    gradcheck(lib, foo, inputs)
    gradgradcheck(lib, foo, inputs)


def test_jacobian_vectorize_correctness_simple(lib):
    def f(x):
        return 3 * x ** 2

    x = lib.randn(2, 3, 5)
    _check_jacobian_vectorize_correctness(lib, f, x)


def test_jacobian_vectorize_correctness_multi_input(lib):
    def f(x, y):
        return (x.cos() * x) @ y.sin()

    x = lib.randn(2, 3)
    y = lib.randn(3, 5)
    _check_jacobian_vectorize_correctness(lib, f, (x, y))


def test_jacobian_vectorize_correctness_multi_input_multi_output(lib):
    def f(x, y):
        return (x * x) @ y, x @ (x.sum(1) * y), y.sum()

    x = lib.randn(5, 3)
    y = lib.randn(3, 5)
    _check_jacobian_vectorize_correctness(lib, f, (x, y))


def test_jacobian_vectorize_correctness_unrelated_outputs(lib):
    def f(x, y):
        return x, y, x, y

    x = lib.randn(2)
    y = lib.randn(3)
    _check_jacobian_vectorize_correctness(lib, f, (x, y))


def test_jacobian_vectorize_correctness_zero_dim(lib):
    # a zero-dim output
    def f(x, y):
        return x.sum(), y.sum(), x * y

    x = lib.randn(3)
    y = lib.randn(3)
    _check_jacobian_vectorize_correctness(lib, f, (x, y))

    # a zero-dim input
    def g(x):
        return lib.stack([x, x, x])

    x = lib.randn([])
    _check_jacobian_vectorize_correctness(lib, g, x)

    # both
    def h(x, y):
        return y.sum(), x * y

    x = lib.randn([])
    y = lib.randn(1)
    _check_jacobian_vectorize_correctness(lib, h, (x, y))


def test_jacobian_vectorize_correctness_different_dtype(lib):
    def f(x, y):
        return (x * y).float(), (x * y).double()

    x = lib.randn(3)
    y = lib.randn(3)
    # (forward mode gives the Jacobian the output's dtype, reverse mode the input's)
    _check_jacobian_vectorize_correctness(lib, f, (x, y), test_forward_ad=False)


# -- hessian -----------------------------------------------------------------------------
def test_hessian_vectorize_correctness_simple(lib):
    def f(x):
        return (3 * x ** 2).sum()

    x = lib.randn(2, 3, 5)
    _check_hessian_vectorize_correctness(lib, f, x)


def test_hessian_vectorize_correctness_multi_input(lib):
    def f(x, y, z):
        return ((x.relu() * x) @ y.sin() @ z).sum()

    x = lib.randn(2, 3)
    y = lib.randn(3, 5)
    z = lib.randn(5, 5)
    _check_hessian_vectorize_correctness(lib, f, (x, y, z))


def test_hessian_vectorize_correctness_unrelated_outputs(lib):
    # the output does not depend on one input
    def f(x, y):
        return (x ** 2).sum()

    x = lib.randn(2)
    y = lib.randn(3)
    _check_hessian_vectorize_correctness(lib, f, (x, y))

    # nor on any
    def f(x, y):
        return lib.ones([])

    x = lib.randn(2)
    y = lib.randn(3)
    _check_hessian_vectorize_correctness(lib, f, (x, y))


@vectorizes
def test_hessian_err_check(lib, vectorize):
    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    def bar2(a):
        return 3 * a.narrow(0, 0, 3)

    def bar3(a):
        return 3 * a.narrow(0, 0, 3), 3 * a.narrow(0, 0, 3)

    inp = lib.rand(4)
    with raises(TypeError, "The inputs given to hessian must be either a Tensor"):
        F(lib).hessian(foo, (inp, 2), vectorize=vectorize)

    with raises(TypeError,
                "The outputs of the user-provided function given to hessian must"):
        F(lib).hessian(bar, inp, vectorize=vectorize)

    err_msg_out = ("The Tensor returned by the function given to hessian should contain a "
                   "single element")
    with raises(RuntimeError, err_msg_out):
        F(lib).hessian(bar2, inp, vectorize=vectorize)

    with raises(RuntimeError, "The function given to hessian should return a single Tensor"):
        F(lib).hessian(bar3, inp, vectorize=vectorize)

    res = F(lib).hessian(foo, inp, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, inp, inp)

    def foo(a, b):
        return (3 * b.narrow(0, 0, 3) * a.narrow(0, 0, 3)).sum()

    inp = (lib.rand(4), lib.rand(5))

    res = F(lib).hessian(foo, inp, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, inp, inp)


def test_hessian_err_check_strict(lib):
    def foo(a):
        return a.detach().sum()

    def bar(a):
        # a non-leaf that requires grad, not connected to the input
        return a.long().float().requires_grad_().clone().sum()

    def bar2(a):
        # linear: its Jacobian does not depend on the input
        return (3 * a).sum()

    inp = lib.rand(4)
    with raises(RuntimeError, "Output 0 of the user-provided function does not require "
                              "gradients."):
        F(lib).hessian(foo, inp, strict=True)
    res = F(lib).hessian(foo, inp, strict=False)
    _assert_interleaved_struct(lib, res, inp, inp)
    eq(res.abs().sum(), 0.0)

    with raises(RuntimeError, "jacobian of the user-provided function with respect to "
                              "input 0"):
        F(lib).hessian(bar, inp, strict=True)
    res = F(lib).hessian(bar, inp, strict=False)
    _assert_interleaved_struct(lib, res, inp, inp)
    eq(res.abs().sum(), 0.0)

    with raises(RuntimeError, "jacobian of the user-provided function with respect to "
                              "input 0 is"):
        F(lib).hessian(bar2, inp, strict=True)
    res = F(lib).hessian(bar2, inp, strict=False)
    _assert_interleaved_struct(lib, res, inp, inp)
    eq(res.abs().sum(), 0.0)


def test_hessian_err_check_strict_vectorize(lib):
    def foo(x):
        return (x ** 3).sum()

    inp = lib.rand(4)
    with raises(RuntimeError, "not supported together"):
        F(lib).hessian(foo, inp, strict=True, vectorize=True)


def test_hessian_no_grad(lib):
    def pow_reducer(x):
        return x.pow(3).sum()

    inputs = lib.rand(2, 2)
    with lib.no_grad():
        res = F(lib).hessian(pow_reducer, inputs)
    assert res[0][0].grad_fn is None
    assert res[0][1].grad_fn is None
    assert res[1][0].grad_fn is None
    assert res[1][1].grad_fn is None
    _assert_not_equal(res, lib.zeros(2, 2, 2))

    with lib.no_grad():
        res = F(lib).hessian(pow_reducer, inputs, create_graph=True)
    assert res[0][0].grad_fn is not None
    assert res[0][1].grad_fn is not None
    assert res[1][0].grad_fn is not None
    assert res[1][1].grad_fn is not None
    _assert_not_equal(res, lib.zeros(2, 2, 2))


@vectorizes
def test_hessian_output(lib, vectorize):
    def pow_reducer(x):
        return x.pow(3).sum()

    inputs = lib.rand(2, 2)
    res = F(lib).hessian(pow_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, inputs, inputs)
    assert res.grad_fn is None

    def add_pow_reducer(x, y):
        return (x + y).pow(3).sum()

    inputs = (lib.rand(2, 2), lib.rand(2, 2))
    res = F(lib).hessian(add_pow_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, inputs, inputs)
    assert res[0][0].grad_fn is None
    assert res[0][1].grad_fn is None
    assert res[1][0].grad_fn is None
    assert res[1][1].grad_fn is None


@vectorizes
def test_hessian_scalar(lib, vectorize):
    def reducer(x):
        return x.sum()

    inputs = lib.rand(4, 4)
    res = F(lib).hessian(reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, inputs, inputs)

    inputs = lib.rand([])
    res = F(lib).hessian(reducer, inputs, vectorize=vectorize)
    _assert_same_struct(lib, res, inputs)

    def bad_reducer(x):
        return x.sum().view(1, 1, 1)

    inputs = lib.rand(4, 4)
    res = F(lib).hessian(bad_reducer, inputs, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, inputs, inputs)


@vectorizes
def test_hessian_create_graph(lib, vectorize):
    def pow_reducer(x):
        return x.pow(3).sum()

    inputs = lib.rand(2, 2, dtype=lib.double, requires_grad=True)
    res = F(lib).hessian(pow_reducer, inputs, create_graph=True, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, inputs, inputs)
    assert res.grad_fn is not None

    gradcheck(lib, lambda inp: F(lib).hessian(pow_reducer, inp, create_graph=True,
                                              vectorize=vectorize), inputs)
    gradgradcheck(lib, lambda inp: F(lib).hessian(pow_reducer, inp, create_graph=True,
                                                  vectorize=vectorize), inputs)

    def add_pow_reducer(x, y):
        return (x + y).pow(3).sum()

    inputs = (lib.rand(2, 2, dtype=lib.double, requires_grad=True),
              lib.rand(2, 2, dtype=lib.double, requires_grad=True))
    res = F(lib).hessian(add_pow_reducer, inputs, create_graph=True, vectorize=vectorize)
    _assert_interleaved_struct(lib, res, inputs, inputs)
    assert res[0][0].grad_fn is not None
    assert res[0][1].grad_fn is not None
    assert res[1][0].grad_fn is not None
    assert res[1][1].grad_fn is not None

    def flatten(inp):
        return tuple(el_lvl2 for el_lvl1 in inp for el_lvl2 in el_lvl1)

    gradcheck(lib, lambda *inp: flatten(F(lib).hessian(add_pow_reducer, inp, create_graph=True,
                                                       vectorize=vectorize)), inputs)
    gradgradcheck(lib, lambda *inp: flatten(F(lib).hessian(add_pow_reducer, inp,
                                                           create_graph=True,
                                                           vectorize=vectorize)), inputs)

    def foo(x, y):
        x = x.cos()
        val, hess = F(lib).hessian(add_pow_reducer, (x, y), create_graph=True,
                                   vectorize=vectorize)

        res = val[0].cos().sum() + val[1].cos().sum() + hess[0].cos().sum()
        res = res + hess[1].cos().sum() + x.cos().sum() + y.cos().sum()
        return res

    gradcheck(lib, foo, inputs)
    gradgradcheck(lib, foo, inputs)


# -- vhp / hvp ---------------------------------------------------------------------------
def _hp_err_check(lib, name):
    api = getattr(F(lib), name)

    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    def bar(a):
        return 3 * a.narrow(0, 0, 3), "bar"

    def bar2(a):
        return 3 * a.narrow(0, 0, 3)

    inp = lib.rand(4)
    v = lib.rand(4)
    if name == 'hvp':
        res = api(foo, inp, v)
    with raises(TypeError, f"The inputs given to {name} must be either a Tensor"):
        api(foo, (inp, 2), v)

    with raises(TypeError, f"The outputs of the user-provided function given to {name} must"):
        api(bar, inp, v)

    err_msg_out = (f"The Tensor returned by the function given to {name} should contain a "
                   "single element")
    with raises(RuntimeError, err_msg_out):
        api(bar2, inp, v)

    with raises(RuntimeError, "v has invalid size:"):
        api(foo, inp, lib.rand(5))

    with raises(TypeError,
                f"The v given to {name} must be either a Tensor or a tuple of Tensors"):
        api(foo, inp, (v, 2))

    res = api(foo, inp, v)
    _assert_same_struct(lib, res[1], inp)

    def foo(a, b):
        return (3 * b.narrow(0, 0, 3) * a.narrow(0, 0, 3)).sum()

    inp = (lib.rand(4), lib.rand(5))
    v = (lib.rand(4), lib.rand(5))

    res = api(foo, inp, v)
    _assert_same_struct(lib, res[1], inp)


def _hp_err_check_strict(lib, name):
    api = getattr(F(lib), name)

    def foo(a):
        return a.detach().sum()

    def bar(a):
        # a non-leaf that requires grad, not connected to the input
        return a.long().float().requires_grad_().clone().sum()

    def bar2(a):
        # linear: its Jacobian does not depend on the input
        return (3 * a).sum()

    inp = lib.rand(4)
    v = lib.rand(4)
    with raises(RuntimeError, "Output 0 of the user-provided function does not require "
                              "gradients."):
        api(foo, inp, v, strict=True)
    res = api(foo, inp, v, strict=False)
    _assert_same_struct(lib, res[1], inp)
    eq(res[1].abs().sum(), 0.0)

    with raises(RuntimeError, "The output of the user-provided function is independent of "
                              "input 0"):
        api(bar, inp, v, strict=True)
    res = api(bar, inp, v, strict=False)
    _assert_same_struct(lib, res[1], inp)
    eq(res[1].abs().sum(), 0.0)

    with raises(RuntimeError, "jacobian of the user-provided function with respect to "
                              "input 0 is"):
        api(bar2, inp, v, strict=True)
    res = api(bar2, inp, v, strict=False)
    _assert_same_struct(lib, res[1], inp)
    eq(res[1].abs().sum(), 0.0)


def _hp_no_grad(lib, name):
    api = getattr(F(lib), name)

    def reducer(x):
        return x.exp().sum()

    inputs = lib.rand(4, 4)
    v = lib.ones(4, 4)
    with lib.no_grad():
        res = api(reducer, inputs, v)
    assert res[0].grad_fn is None
    assert res[1].grad_fn is None
    _assert_not_equal(res[1], lib.zeros(4, 4))

    with lib.no_grad():
        res = api(reducer, inputs, v, create_graph=True)
    assert res[0].grad_fn is not None
    assert res[1].grad_fn is not None
    _assert_not_equal(res[1], lib.zeros(4, 4))


def _hp_output(lib, name):
    api = getattr(F(lib), name)

    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    inputs = lib.rand(4, 4)
    v = lib.ones(4, 4)
    res = api(foo, inputs, v)
    _assert_same_struct(lib, res[1], inputs)
    assert res[0].grad_fn is None
    assert res[1].grad_fn is None

    def bar(a, b):
        return (a + 3 * b.narrow(0, 0, 3)).exp().sum()

    inputs = (lib.rand(3), lib.rand(4))
    v = (lib.ones(3), lib.ones(4))
    out, val = api(bar, inputs, v)
    _assert_same_struct(lib, val, inputs)
    assert out.grad_fn is None
    assert val[0].grad_fn is None
    assert val[1].grad_fn is None


def _hp_scalar(lib, name, reducer, bad_reducer):
    api = getattr(F(lib), name)
    inputs = lib.rand(4, 4)
    v = lib.ones(4, 4)
    res = api(reducer, inputs, v)
    _assert_same_struct(lib, res[1], inputs)

    inputs = lib.rand([])
    v = lib.rand([])
    res = api(reducer, inputs, v)
    _assert_same_struct(lib, res[1], inputs)

    res = api(reducer, inputs)
    _assert_same_struct(lib, res[1], inputs)

    inputs = lib.rand(4, 4)
    v = lib.rand(4, 4)
    res = api(bad_reducer, inputs, v)
    _assert_same_struct(lib, res[1], inputs)


def _hp_create_graph(lib, name):
    api = getattr(F(lib), name)

    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    inputs = lib.rand(4, 4, dtype=lib.double, requires_grad=True)
    v = lib.ones(4, 4, dtype=lib.double, requires_grad=True)
    res = api(foo, inputs, v, create_graph=True)
    _assert_same_struct(lib, res[1], inputs)
    assert res[0].grad_fn is not None
    assert res[1].grad_fn is not None

    gradcheck(lib, lambda inp, v: api(foo, inp, v, create_graph=True), (inputs, v))
    gradgradcheck(lib, lambda inp, v: api(foo, inp, v, create_graph=True), (inputs, v))

    def bar(a, b):
        return (a + 3 * b.narrow(0, 0, 3)).exp().sum()

    inputs = (lib.rand(3, dtype=lib.double, requires_grad=True),
              lib.rand(4, dtype=lib.double, requires_grad=True))
    v = (lib.ones(3, dtype=lib.double, requires_grad=True),
         lib.ones(4, dtype=lib.double, requires_grad=True))
    out, val = api(bar, inputs, v, create_graph=True)
    _assert_same_struct(lib, val, inputs)
    assert out.grad_fn is not None
    assert val[0].grad_fn is not None
    assert val[1].grad_fn is not None

    gradcheck(lib, lambda *args: api(bar, args[:2], args[2:], create_graph=True)[1],
              inputs + v)
    gradgradcheck(lib, lambda *args: api(bar, args[:2], args[2:], create_graph=True)[1],
                  inputs + v)

    def foo(*args):
        x, y = args[:2]
        v = args[2:]

        x = x.cos()
        val, grad = api(bar, (x, y), v, create_graph=True)

        return val.cos() + grad[0].cos().sum() + grad[1].cos() + x.cos().sum() + y.cos()

    gradcheck(lib, foo, inputs + v)
    gradgradcheck(lib, foo, inputs + v)


def test_vhp_err_check(lib):
    _hp_err_check(lib, 'vhp')


def test_vhp_err_check_strict(lib):
    _hp_err_check_strict(lib, 'vhp')


def test_vhp_no_grad(lib):
    _hp_no_grad(lib, 'vhp')


def test_vhp_output(lib):
    _hp_output(lib, 'vhp')


def test_vhp_scalar(lib):
    _hp_scalar(lib, 'vhp', lambda x: x.sum(), lambda x: x.sum().view(1, 1, 1))


def test_vhp_create_graph(lib):
    _hp_create_graph(lib, 'vhp')


def test_hvp_err_check(lib):
    _hp_err_check(lib, 'hvp')


def test_hvp_err_check_strict(lib):
    _hp_err_check_strict(lib, 'hvp')


def test_hvp_no_grad(lib):
    _hp_no_grad(lib, 'hvp')


def test_hvp_output(lib):
    _hp_output(lib, 'hvp')


def test_hvp_scalar(lib):
    _hp_scalar(lib, 'hvp', lambda x: x.exp().sum(), lambda x: x.exp().sum().view(1, 1, 1))


def test_hvp_create_graph(lib):
    _hp_create_graph(lib, 'hvp')


def test_jacobian_match_vjp_jvp(lib):
    def foo(x):
        return x ** 3 + x.sum()

    inputs = lib.rand(4)
    v = lib.rand(4)

    jac = F(lib).jacobian(foo, inputs)
    jvp = F(lib).jvp(foo, inputs, v)[1]
    vjp = F(lib).vjp(foo, inputs, v)[1]

    eq(jvp, lib.mm(jac, v.unsqueeze(1)).squeeze(1))
    eq(vjp, lib.mm(v.unsqueeze(0), jac).squeeze(0))


def test_hessian_match_vhp_hvp(lib):
    def foo(a):
        return 3 * a.narrow(0, 0, 3).exp().sum()

    inputs = lib.rand(4)
    v = lib.rand(4)

    hes = F(lib).hessian(foo, inputs)
    hvp = F(lib).hvp(foo, inputs, v)[1]
    vhp = F(lib).vhp(foo, inputs, v)[1]

    eq(hvp, lib.mm(hes, v.unsqueeze(1)).squeeze(1))
    eq(vhp, lib.mm(v.unsqueeze(0), hes).squeeze(0))
