"""PyTorch's test/test_autograd.py, class TestAutogradDeviceType, instantiated for the CPU,
adapted to run on ember and torch.

Each upstream test keeps its name and its assertions; ``torch.`` became ``lib.``, ``device``
is ``'cpu'``, a test upstream runs per dtype is parametrized over the same dtypes, and every
test runs twice (``[ember]`` and ``[torch]``). ember's run of a test listed in ``XFAIL`` is
expected to fail (strict), for the reason given.

Upstream tests of the class not adapted, and why:
- test_sparse_ctor_getter_backward, test_sparse_backward, test_sparse_mask_autograd: in
  test_autograd_sparse_upstream.py, with the other sparse tests.
- test_advanced_indexing_backwards_large, test_reentrant_parent_error_on_cpu,
  test_free_unneeded_tensor, test_pin_memory, test_profiler_emit_nvtx,
  test_rnn_backward_to_input_but_not_parameters, test_simple_reentrant_cross_device,
  test_cross_device_reentrant_autograd, test_gradcheck_input_output_different_device:
  ``@onlyCUDA``.
- test_unused_output_device, test_backward_device, test_inputbuffer_add_multidevice: need two
  devices.
- test_zero_dim_param_mixed_device_grad: needs an accelerator.
- test_profiler_emit_itt: the ITT profiler (Intel VTune's API), which ember does not have.
- test_warning_in_backward: needs torch._C._nn._test_warn_in_autograd, a private test op.

The other classes test/test_autograd.py runs, besides TestAutograd and
TestAutogradForwardMode (test_autograd_upstream*.py, test_autograd_forward_mode_upstream.py):
- TestAutogradInferenceMode: test_autograd_inference_mode_upstream.py
- TestAutogradForwardModeBatchedGrad: test_autograd_forward_mode_batched_upstream.py
- TestMultithreadAutograd: test_autograd_multithread_upstream.py
- TestAllowMutationOnSaved: test_autograd_allow_mutation_on_saved_upstream.py
- TestNestedCheckpoint: test_autograd_nested_checkpoint_upstream.py
- TestAutogradMultipleDispatch: test_autograd_multiple_dispatch_upstream.py
- TestSelectiveActivationCheckpoint: test_autograd_selective_checkpoint_upstream.py
- TestAutogradComplex (test/autograd/test_complex.py): test_autograd_complex_upstream.py
- TestAutogradLogging (test/autograd/test_logging.py): test_autograd_logging_upstream.py
- TestAutogradFunctional (test/autograd/test_functional.py):
  test_autograd_functional_upstream.py
Not adapted:
- TestAutogradStreamSynchronization: accelerator streams (every test skips on the CPU).
- TestAutogradFunctionalDeviceType: instantiated for accelerators only.
"""
import math
import sys
import warnings
from itertools import product

import pytest

from ._upstream import lib_fixture, eq, raises

XFAIL = {}

lib = lib_fixture(XFAIL)

device = 'cpu'


def gradcheck(lib, *a, **k):
    return lib.autograd.gradcheck(*a, **k)


def gradgradcheck(lib, *a, **k):
    return lib.autograd.gradgradcheck(*a, **k)


def mask_not_all_zeros(lib, shape):
    """A random boolean mask of ``shape`` with at least one True."""
    while True:
        mask = lib.randn(shape).gt(0)
        if mask.sum() > 0:
            return mask


def test_min_max_median_backprops_to_all_values(lib):
    for f in [lib.min, lib.max, lib.median, lib.nanmedian]:
        x1 = lib.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], device=device, requires_grad=True)
        x2 = lib.tensor([float("nan"), float("nan"), float("nan")], requires_grad=True)
        for x in [x1, x2]:
            y = f(x)
            y.backward()
            eq(x.grad.sum(), 1.0)
            eq((x.grad == 1 / 3).sum(), 3)


def test_scatter_index_reduce_amin_amax_backprops_to_all_values(lib):
    # gradients are shared evenly between several maxima/minima
    fns = (lib.scatter_reduce, lib.index_reduce)
    reduces = ("amin", "amax")
    for fn, reduction in product(fns, reduces):
        input = lib.randn((2, 3), device=device, dtype=lib.float64, requires_grad=True)
        src = input.clone().detach_().requires_grad_(True)
        idx = lib.arange(2).to(dtype=lib.long, device=device)
        if fn == lib.scatter_reduce:
            idx = idx.unsqueeze(-1).expand((2, 3))

        gradcheck(lib, fn, (input, 0, idx, src, reduction), check_batched_grad=False)


def test_scatter_index_reduce_prod_gradgrad_error(lib):
    # double backward refuses two zeros of src scattered to the same place of self
    input = lib.tensor([1.0], device=device, dtype=lib.float64, requires_grad=True)
    src = lib.tensor([0.0, 0.0], device=device, dtype=lib.float64, requires_grad=True)
    idx = lib.tensor([0, 0], device=device, dtype=lib.long)

    for fn in (lib.scatter_reduce, lib.index_reduce):
        gradcheck(lib, fn, (input, 0, idx, src, "prod"), check_batched_grad=False)
        with raises(RuntimeError, "Double backward is unsupported for"):
            gradgradcheck(lib, fn, (input, 0, idx, src, "prod"))


def test_parameter_resize(lib):
    asd = lib.nn.Parameter(lib.ones(16, dtype=lib.double, device=device))

    for _ in range(2):
        with lib.no_grad():
            asd.set_(asd[1:])
            asd.grad = None

        m = lib.cat((asd, asd))
        m.sum().backward()


def test_pyscalar_conversions(lib):
    nan, inf = math.nan, math.inf

    def _test_pyscalar_conversions(t, integral_conv):
        # integral -> integral
        l = t(lib.zeros(1, 1, 1, dtype=lib.long))
        pyscalar = -12345
        l[0] = pyscalar
        eq(integral_conv(l), pyscalar)

        # floating point -> floating point
        f = lib.autograd.Variable(t(lib.randn(1, 1, dtype=lib.double)))
        pyscalar = -12345.1
        f[0] = pyscalar
        eq(float(f), pyscalar)
        f[0] = nan
        assert math.isnan(float(f))
        f[0] = inf
        eq(float(f), inf)
        f[0] = -inf
        eq(float(f), -inf)

        # integral -> floating point, losing precision
        pyscalar = 1234567890123456789
        assert pyscalar != integral_conv(float(pyscalar))
        l[0] = pyscalar
        eq(float(l), float(pyscalar))

        # floating point -> integral
        f[0] = nan
        with pytest.raises(ValueError):
            integral_conv(f[0])
        f[0] = inf
        with pytest.raises(OverflowError):
            integral_conv(f[0])
        f[0] = -inf
        with pytest.raises(OverflowError):
            integral_conv(f[0])
        f[0] = sys.float_info.max
        eq(integral_conv(f), sys.float_info.max)

        # bool, nonzero
        def test_nonzero(tensor, value, expected):
            tensor[0] = value
            eq(expected, bool(tensor))
            eq(expected, bool(tensor))

        test_nonzero(l, 0, False)
        test_nonzero(l, -2, True)
        test_nonzero(f, 0.0, False)
        test_nonzero(f, sys.float_info.min, True)
        test_nonzero(f, nan, bool(nan))
        test_nonzero(f, inf, bool(inf))
        test_nonzero(f, -inf, bool(-inf))

    _test_pyscalar_conversions(lambda x: x.to(device), lambda x: int(x))


@pytest.mark.parametrize('dtype', ['float', 'double', 'int8', 'int16', 'int32', 'int64'])
def test_set_requires_grad_only_for_floats(lib, dtype):
    dtype = getattr(lib, dtype)

    def f1():
        a = lib.ones(1, dtype=dtype, device=device)
        a.requires_grad_()

    def f2():
        a = lib.ones(1, dtype=dtype, device=device)
        a.requires_grad = True

    def f3():
        lib.ones(1, dtype=dtype, device=device, requires_grad=True)

    a = lib.ones(1, dtype=dtype, device=device)
    a.requires_grad = False  # always allowed
    a.requires_grad_(False)

    for f in [f1, f2, f3]:
        if dtype.is_floating_point:
            f()
        else:
            with raises(RuntimeError, "floating point"):
                f()


def test_advanced_indexing_backwards_memory_format(lib):
    shape = (2, 8, 1, 2)
    i = lib.randint(1, shape, device=device).contiguous(memory_format=lib.channels_last)
    x = lib.randn(shape, requires_grad=True, device=device)
    x[i].sum().backward()


def test_where_functional(lib):
    x = lib.randn(5, 5, dtype=lib.double, device=device, requires_grad=True)
    y = lib.randn(5, 5, dtype=lib.double, device=device, requires_grad=True)
    cond = mask_not_all_zeros(lib, (5, 5)).to(device=device)

    def where(cond, x, y):
        return lib.where(cond, x, y)

    gradcheck(lib, where, [cond, x, y], raise_exception=True)
    gradgradcheck(lib, where, [cond, x, y], [lib.randn(5, 5, device=device)])

    x = lib.randn(5, 1, 5, dtype=lib.double, device=device, requires_grad=True)
    y = lib.randn(5, 5, 1, dtype=lib.double, device=device, requires_grad=True)
    gradcheck(lib, where, [cond, x, y], raise_exception=True)
    gradgradcheck(lib, where, [cond, x, y], [lib.randn(5, 5, 5, device=device)])


def test_where_scalar(lib):
    x = lib.randn(5, 5, dtype=lib.double, device=device, requires_grad=True)
    scalar = 4.0
    cond = mask_not_all_zeros(lib, (5, 5)).to(device=device)

    def where_scalar_first(cond, x):
        return lib.where(cond, scalar, x)

    def where_scalar_second(cond, x):
        return lib.where(cond, x, scalar)

    gradcheck(lib, where_scalar_first, (cond, x))
    gradgradcheck(lib, where_scalar_first, (cond, x))

    gradcheck(lib, where_scalar_second, (cond, x))
    gradgradcheck(lib, where_scalar_second, (cond, x))


def test_grad_assignment(lib):
    devices = [device]
    x = lib.randn(5, 5, device=devices[0])

    # the wrong type
    with raises(TypeError, "expected to be a Tensor or None"):
        x.grad = 0

    # the wrong shape
    with pytest.raises(RuntimeError):
        x.grad = lib.randn(2, 2, device=devices[0])

    # the wrong dtype
    with pytest.raises(RuntimeError):
        x.grad = lib.randn(5, 5, dtype=lib.long, device=devices[0])

    # itself
    with pytest.raises(RuntimeError):
        x.grad = x


@pytest.mark.parametrize('dtype', ['float', 'double'])
def test_requires_grad_factory(lib, dtype):
    dtype = getattr(lib, dtype)
    devices = [device]
    fns = [lib.ones_like, lib.randn_like]
    x = lib.randn(2, 3, dtype=dtype, device=devices[0])

    for fn in fns:
        for requires_grad in [True, False]:
            output = fn(x, dtype=dtype, device=devices[0], requires_grad=requires_grad)
            eq(requires_grad, output.requires_grad)
            assert dtype is output.dtype
            eq(devices[0], str(x.device))


def test_copy_(lib):
    # copy_ into every floating dtype records the copy (bfloat16 once was not seen as one)
    x = lib.randn(10, device=device, requires_grad=True)
    floating_dt = (lib.float32, lib.float64, lib.half, lib.bfloat16)
    for dt in floating_dt:
        y = lib.empty(10, device=device, dtype=dt)
        y.copy_(x)
        assert y.requires_grad
        z = x.to(lib.bfloat16)
        assert z.requires_grad


def test_copy_forward_ad_broadcasting(lib):
    # copy_ broadcasts src to self; so must its forward-mode derivative
    fwAD = lib.autograd.forward_ad
    primal = lib.rand(3, 3, device=device)
    tangent = lib.rand(3, 3, device=device)
    non_dual = lib.rand(1, 3, 3, device=device)

    with fwAD.dual_level():
        dual = fwAD.make_dual(primal, tangent)
        non_dual.copy_(dual)


def test_copy_forward_ad_same_layout_copies_grad(lib):
    fwAD = lib.autograd.forward_ad
    primal = lib.tensor([[3.0], [4.0]], device=device)
    tangent = lib.tensor([[5.0], [6.0]], device=device)

    with fwAD.dual_level():
        x_dual = fwAD.make_dual(primal, tangent)
        non_dual = lib.tensor([[1.0], [2.0]])
        non_dual.copy_(x_dual)
        assert fwAD.unpack_dual(non_dual).tangent is not tangent


def test_inplace_on_view_backprop_base(lib):
    # modify a view, backprop through its base
    root = lib.randn(2, 2, device=device, requires_grad=True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v1.mul_(2)
    x.sum().backward()
    eq(root.grad.tolist(), [[2, 2], [1, 1]])


def test_inplace_on_view_backprop_view_of_view(lib):
    # modify a view, backprop through another view of the same base
    root = lib.randn(2, 2, device=device, requires_grad=True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v2 = x.narrow(0, 0, 1)
    v1.mul_(2)
    v2.sum().backward()
    eq(root.grad.tolist(), [[2, 2], [0, 0]])


def test_inplace_on_view_of_view(lib):
    # modify a view of a view, backprop through the base
    root = lib.randn(2, 2, device=device, requires_grad=True)
    x = root.clone()

    v1 = x.narrow(0, 0, 1)
    v2 = v1.narrow(1, 1, 1)
    v2.mul_(2)
    x.sum().backward()
    eq(root.grad.tolist(), [[1, 2], [1, 1]])


def test_inplace_on_view_then_no_grad(lib):
    # an in-place op on a view of a non-leaf
    a = lib.ones(3, 1, dtype=lib.double, device=device, requires_grad=True)
    b = a * 2
    c = b.view_as(b)
    c[0][0] = 3

    # the graph is brought up to date with grad mode off
    with lib.no_grad():
        c.grad_fn

    c.sum().backward()


def test_inplace_on_view_gradcheck(lib):
    a = lib.randn(4, 4, dtype=lib.double, device=device, requires_grad=True)
    b = lib.randn(2, 2, dtype=lib.double, device=device, requires_grad=True)

    def func(root, b):
        x = root.clone()
        x.narrow(1, 2, 2).narrow(0, 1, 2).mul_(b)
        x.narrow(1, 0, 2).narrow(0, 1, 2).mul_(b)
        return x

    gradcheck(lib, func, [a, b], raise_exception=True)
    go = lib.randn(a.size(), dtype=lib.double, device=device, requires_grad=True)
    gradgradcheck(lib, func, (a, b), (go,))


def test_inplace_on_view_multiple_outputs(lib):
    root = lib.arange(9.0, dtype=lib.double).reshape(3, 3).requires_grad_()
    x = root.clone()
    v1 = x.unbind()
    with pytest.raises(RuntimeError):
        v1[0].mul_(2)


def test_inplace_on_view_of_multiple_output_view(lib):
    a = lib.rand(10, dtype=lib.double, device=device, requires_grad=True).clone()
    b = a.unbind(0)
    c = b[0].view_as(b[0])
    with pytest.raises(RuntimeError):
        c.mul_(2)


def test_inplace_multiple_output_view_of_view(lib):
    a = lib.rand(10, dtype=lib.double, device=device, requires_grad=True).clone()
    b = a.view_as(a)
    c = b.unbind(0)
    with pytest.raises(RuntimeError):
        c[0].mul_(2)


def test_inplace_on_view_makes_base_require_grad(lib):
    # an in-place op on a view makes its base require grad
    a = lib.randn(4, 4, dtype=lib.double, device=device, requires_grad=False)
    b = lib.randn(4, 2, dtype=lib.double, device=device, requires_grad=True)

    def func(root, b):
        x = root.clone()
        assert not x.requires_grad
        x.narrow(1, 2, 2).mul_(b)
        assert x.requires_grad
        return x

    gradcheck(lib, func, [a, b], raise_exception=True)
    go = lib.randn(a.size(), dtype=lib.double, device=device, requires_grad=True)
    gradgradcheck(lib, func, (a, b), (go,))


def test_inplace_on_view_backprop_view(lib):
    # modify a view, backprop through that view
    a = lib.tensor([2.0, 5.0], device=device, requires_grad=False)
    b = lib.tensor([3.0], device=device, requires_grad=True)
    res = a.narrow(0, 1, 1).mul_(b)
    res.sum().backward()
    eq(b.grad.tolist(), [5])
    assert a.grad is None


def test_inplace_on_view_modify_base(lib):
    # an in-place op on a base that makes it require grad makes its earlier views require
    # grad too, and backprop through them
    r = lib.ones(1, dtype=lib.double, device=device, requires_grad=True)

    def fn(r):
        x = lib.ones(5, dtype=lib.double, device=device)
        v = x.select(0, 1)
        assert not v.requires_grad
        assert v.grad_fn is None
        x.add_(r)  # v now depends on r
        assert v.requires_grad
        return v

    gradcheck(lib, fn, [r])
    gradgradcheck(lib, fn, [r])


def test_inplace_on_view_python(lib):
    # in-place changes of a view made by a custom Function
    a = lib.randn(4, 4, dtype=lib.double, device=device, requires_grad=True)
    b = lib.randn(2, 2, dtype=lib.double, device=device, requires_grad=True)

    class PyAdd(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            x.add_(y)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    def func(root, b):
        x = root.clone()
        PyAdd.apply(x.narrow(1, 2, 2).narrow(0, 1, 2), b)
        PyAdd.apply(x.narrow(1, 0, 2).narrow(0, 1, 2), b)
        return x

    gradcheck(lib, func, [a, b], raise_exception=True)
    go = lib.randn(a.size(), dtype=lib.double, device=device, requires_grad=True)
    gradgradcheck(lib, func, (a, b), (go,))


def test_inplace_on_view_non_contig(lib):
    root = lib.ones(2, 3, 2, device=device).select(2, 1).t().requires_grad_(True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v2 = v1.narrow(1, 1, 1)
    v2.mul_(2)
    x.sum().backward()
    eq(root.grad.tolist(), [[1, 2], [1, 1], [1, 1]])


def test_inplace_on_view_multi_output_unsafe(lib):
    for f in [
        lambda t: t.unsafe_split(1),
        lambda t: t.unsafe_split_with_sizes((1, 1, 1)),
        lambda t: t.unsafe_chunk(3),
    ]:
        a = lib.randn(3, 3, device=device, requires_grad=True)
        b = a + a
        s1, s2, s3 = f(b)
        s1.mul_(s2)
        s1.sum().backward()


def test_inplace_on_view_multi_output_safe(lib):
    for f in [
        lambda t: t.split(1),
        lambda t: t.split_with_sizes((1, 1, 1)),
        lambda t: t.chunk(3),
    ]:
        a = lib.randn(3, 3, device=device, requires_grad=True)
        b = a + a
        s1, s2, s3 = f(b)
        error_msg = "This view is the output of a function that returns multiple views."
        with raises(RuntimeError, error_msg):
            s1.mul_(s2)


def test_inplace_on_view_undefined_grad_output(lib):
    a = lib.tensor([1.0], requires_grad=True)
    c = a.clone()
    v = c[:]
    b = lib.tensor(1.0, requires_grad=True)

    class InplaceFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, other):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None

    out = InplaceFunc.apply(v, b)
    out.backward()
    assert b.grad is None
    eq(a.grad.item(), 2)


def test_mv_grad_stride_0(lib):
    mat = lib.randn(2, 2, dtype=lib.double, device=device)
    vec = lib.randn(1, dtype=lib.double, device=device).requires_grad_(True)

    def fn(vec):
        # expanded inside, so that gradcheck's input has no overlapping memory
        vec = vec.expand(2)
        return (mat @ vec).sum()

    gradcheck(lib, fn, (vec))
    gradgradcheck(lib, fn, (vec))


def test_strided_leaf_grad_layout(lib):
    # (1) a non-overlapping and dense leaf's grad has the leaf's layout
    for fmt_a in (lib.contiguous_format, lib.channels_last):
        for fmt_b in (lib.contiguous_format, lib.channels_last):
            a = lib.rand((2, 3, 4, 5), device=device).to(memory_format=fmt_a)
            b = lib.rand((2, 3, 4, 5), device=device).to(memory_format=fmt_b)
            a.requires_grad_()
            b.requires_grad_()
            # broadcast gradients
            a.sum().backward()
            eq(a.grad.stride(), a.stride())
            b.sum().backward()
            eq(b.grad.stride(), b.stride())
            # gradients that are not broadcast
            a.grad = None
            b.grad = None
            (a * b).sum().backward()
            eq(a.grad.stride(), a.stride())
            eq(b.grad.stride(), b.stride())

    # (2) a leaf that is not dense gets row-major contiguous grads
    c = lib.empty_strided((2, 2), (4, 2), device=device).copy_(lib.rand((2, 2), device=device))
    c.requires_grad_()
    d = lib.rand((2, 2), device=device)
    c.sum().backward()
    eq(c.grad.stride(), (2, 1))
    c.grad = None
    (c * d).sum().backward()
    eq(c.grad.stride(), (2, 1))


def _assert_not_warn(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        fn()
    assert not w, [str(x.message) for x in w]


def test_copy_r_to_c(lib):
    out_c = lib.empty(3, 2, dtype=lib.cdouble, device=device)
    inp_r = lib.randn(3, 2, dtype=lib.double, device=device, requires_grad=True)

    def do_test():
        out_c.copy_(inp_r)
        out_c_inter = out_c.sum()
        out_c_inter.abs().backward()
        with lib.no_grad():
            eq(inp_r.grad, lib.ones_like(inp_r) * lib.sgn(out_c_inter).real)

    _assert_not_warn(do_test)


def test_to_r_to_c(lib):
    def do_test():
        inp_r = lib.randn(3, 2, dtype=lib.double, device=device, requires_grad=True)
        out = inp_r.to(lib.complex128)
        out_inter = out.sum()
        out_inter.abs().backward()
        with lib.no_grad():
            eq(inp_r.grad, lib.ones_like(inp_r) * lib.sgn(out_inter).real)

    _assert_not_warn(do_test)


def test_non_differentiable_ops(lib):
    # these ops run and give results that do not require grad
    x = lib.tensor([[1, 2], [3, 4.0]], requires_grad=True, device=device)
    out = lib.isin(x, lib.tensor([2, 3], device=device))
    assert not out.requires_grad

    x = lib.randn(3, 3, requires_grad=True)
    out = lib.signbit(x)
    assert not out.requires_grad


def test_complex_scalar_backward(lib):
    a = lib.zeros(1, device=device, requires_grad=True)
    b = a * 0.5j

    msg = "grad can be implicitly created only for real scalar outputs"
    with raises(RuntimeError, msg):
        b.backward()

    with raises(RuntimeError, msg):
        lib.autograd.grad(b, a)


def test_pow_real_negative_base_complex_exponent(lib):
    base = -lib.ones(2, device=device, dtype=lib.double)
    exponent = lib.randn(2, device=device, dtype=lib.cdouble, requires_grad=True)

    def fn(exponent):
        return lib.pow(base, exponent)

    lib.autograd.gradcheck(fn, (exponent,))

    def fn(exponent):
        return lib.pow(-1, exponent)

    lib.autograd.gradcheck(fn, (exponent,))


def test_resize_version_bump(lib):
    x = lib.rand((1,), device=device)
    y = lib.randn((3,), device=device)
    x.resize_((1, 2))
    eq(x._version, 1)
    x.resize_as_(y)
    eq(x._version, 2)

    # resizing to the same shape does nothing, and bumps nothing
    x.resize_((3,))
    eq(x._version, 2)

    x.resize_as_(y)
    eq(x._version, 2)
