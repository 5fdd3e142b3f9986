"""PyTorch's test/autograd/test_complex.py, class TestAutogradComplex (which
test/test_autograd.py imports and runs), adapted to run on ember and torch.

Each upstream test keeps its name and its assertions; ``torch.`` became ``lib.`` and every
test runs twice (``[ember]`` and ``[torch]``). ember's run of a test listed in ``XFAIL`` is
expected to fail (strict), for the reason given. Both upstream tests are adapted (the class's
``as_identity`` has no ``test_`` prefix, so upstream never runs it; it is not adapted).
"""
from ._upstream import lib_fixture, eq, raises

XFAIL = {}

lib = lib_fixture(XFAIL)


def test_view_func_for_complex_views(lib):
    # case 1: parent and child both have a view_func
    x = lib.randn(2, 2, 2, dtype=lib.double, requires_grad=True)
    y = x.detach().requires_grad_(True)

    x0 = x.clone()
    x1 = lib.view_as_complex(x0)
    x2 = lib.view_as_real(x1)
    x2.mul_(2)
    x2.sum().abs().backward()

    y0 = y.clone()
    y0.mul_(2)
    y0.sum().abs().backward()

    eq(x.grad, y.grad)

    # case 2: the parent has a view_func, the child does not
    x = lib.randn(2, 2, 2, dtype=lib.double, requires_grad=True)
    y = x.detach().requires_grad_(True)

    def fn(a):
        b = a.clone()
        b1 = lib.view_as_complex(b)
        b2 = b1.reshape(b1.numel())
        return b2

    x0 = fn(x)
    x0.mul_(2)
    x0.sum().abs().backward()

    y0 = fn(y)
    y1 = y0.mul(2)
    y1.sum().abs().backward()

    eq(x.grad, y.grad)

    # case 3: the parent has no view_func, the child has one
    x = lib.randn(10, dtype=lib.cdouble, requires_grad=True)
    y = x.detach().requires_grad_(True)

    def fn(a, dim0_size=5):
        b = a.clone()
        b1 = b.reshape(dim0_size, 2)
        b2 = lib.view_as_real(b1)
        return b2

    x0 = fn(x)
    x0.mul_(2)
    x0.sum().abs().backward()

    y0 = fn(y)
    y1 = y0.mul(2)
    y1.sum().abs().backward()

    eq(x.grad, y.grad)


def test_view_with_multi_output(lib):
    x = lib.randn(2, 2, 2, dtype=lib.double)

    x1 = lib.view_as_complex(x)
    # taking such a view is allowed, as long as it is not modified in place
    res = x1.unbind(0)

    with raises(RuntimeError, "output of a function that returns multiple views"):
        res[0] += lib.rand(2, requires_grad=True)

    x.requires_grad_(True)
    x1 = lib.view_as_complex(x)
    res = x1.unbind(0)

    with raises(RuntimeError, "output of a function that returns multiple views"):
        res[0] += lib.rand(2, requires_grad=True)
