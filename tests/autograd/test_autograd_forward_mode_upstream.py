"""PyTorch's test/test_autograd.py, class TestAutogradForwardMode, adapted to run on ember and
torch (``lib``), as test_autograd_upstream.py does for TestAutograd. ember's run of a test
named in ``XFAIL`` is expected to fail (strict), for the reason given.

Upstream tests not adapted, and why:
- TestAutogradForwardModeBatchedGrad: in test_autograd_forward_mode_batched_upstream.py.
- test_fwd_grad_enabled, test_set_fwd_grad_enabled: torch._C._set_fwd_grad_enabled, private.
- test_make_dual_torch_dispatch: a __torch_dispatch__ subclass made by the private
  torch.Tensor._make_subclass, with torch.utils._mode_utils.no_dispatch.
test_setup_context_when_forward_has_default_args (upstream a TestAutograd test) is adapted
at the end of this file.
The weak references upstream takes with torch._C._WeakTensorRef are plain weakref.ref here.
"""
import gc
import operator
import weakref
from functools import partial, reduce
from itertools import product

import pytest

from ._upstream import exit_dual_levels  # noqa: F401 (an autouse fixture)
from ._upstream import lib_fixture, eq, raises, torch, ember

XFAIL = {}

lib = lib_fixture(XFAIL)




def fw(lib):
    return lib.autograd.forward_ad


def test_forward_level_cleanup(lib):
    fwAD = fw(lib)

    def get_tensor_and_weak_ref():
        t = lib.rand(2, requires_grad=True)
        return t, weakref.ref(t)

    t, t_ref = get_tensor_and_weak_ref()
    assert t_ref() is not None
    del t
    assert t_ref() is None
    foo = lib.rand(2)
    with fwAD.dual_level():
        tangent, tangent_ref = get_tensor_and_weak_ref()
        assert tangent_ref() is not None
        dual = fwAD.make_dual(foo, tangent)
        assert tangent_ref() is not None
        assert fwAD.unpack_dual(dual)[1] is tangent
        del tangent
        assert tangent_ref() is not None
        del dual
        assert tangent_ref() is None


def test_size_check(lib):
    fwAD = fw(lib)
    foo = lib.rand(2)
    tangent = lib.rand(3)
    with fwAD.dual_level():
        with raises(RuntimeError, "Trying to set a forward gradient that has a different size"):
            dual = fwAD.make_dual(foo, tangent)
        dual = fwAD.make_dual(foo, tangent[1:])


def test_metadata_check_checks_storage_numel(lib):
    fwAD = fw(lib)
    primal = lib.randn(5)[:4].detach()
    assert len(primal.storage()) == 5
    tangent = lib.randn(4)
    with fwAD.dual_level():
        dual = fwAD.make_dual(primal, tangent)
        _, unpacked_tangent = fwAD.unpack_dual(dual)
        tangent_clone = tangent.clone()
        unpacked_tangent *= 2
        assert lib.allclose(tangent_clone, tangent)
        dual.as_strided((5,), (1,), 0)


def test_metadata_check_checks_ignores_size_zero(lib):
    fwAD = fw(lib)
    a = lib.ones(0).as_strided((0, 1), (1, 1), 0)
    b = lib.ones(0).as_strided((0, 1), (1, 0), 0)
    with fwAD.dual_level():
        dual = fwAD.make_dual(a, b)
        lib.diagonal(dual, offset=0)
    input = lib.rand([0, 1], dtype=lib.complex128, requires_grad=True)
    func = partial(lib.diagonal, offset=0)
    lib.autograd.gradcheck(func, (input,), check_forward_ad=True)


def test_metadata_check_when_primal_has_conj_bit(lib):
    fwAD = fw(lib)
    a = lib.randn(2, 2, dtype=lib.cdouble).conj()
    b = lib.rand_like(a)
    assert lib.is_conj(a)
    assert len(a.storage()) == len(b.storage())
    with fwAD.dual_level():
        dual = fwAD.make_dual(a, b)
        dual[1:]


def test_metadata_check_when_primal_has_neg_bit(lib):
    fwAD = fw(lib)
    a = lib.randn(2, 2, dtype=lib.cdouble).conj().imag
    b = lib.randn(2, 2, dtype=lib.cdouble).imag
    assert lib.is_neg(a)
    assert len(a.storage()) == len(b.storage())
    with fwAD.dual_level():
        dual = fwAD.make_dual(a, b)
        dual[1:]


def test_metadata_check_ignore_storage_offset_for_zero_numel_tensor(lib):
    fwAD = fw(lib)
    a = lib.tensor([1.0]).as_strided((0,), (1,), 1)
    b = lib.tensor([1.0]).as_strided((0,), (1,), 2)
    with fwAD.dual_level():
        dual_input = fwAD.make_dual(a, b)
        assert fwAD.unpack_dual(dual_input).tangent is b
    a = lib.tensor([1.0]).as_strided((1,), (2,), 0)
    b = lib.tensor([1.0]).as_strided((1,), (1,), 0)
    with fwAD.dual_level():
        dual_input = fwAD.make_dual(a, b)
        dual_input[1:]


def test_default_level(lib):
    fwAD = fw(lib)
    foo = lib.rand(2)
    bar = lib.rand(2)
    with fwAD.dual_level():
        baz = fwAD.make_dual(foo, bar)
        baz_primal, baz_tangent = fwAD.unpack_dual(baz)
    eq(baz_primal, foo)
    assert baz_tangent is bar
    baz_primal, baz_tangent = fwAD.unpack_dual(baz)
    eq(baz_primal, foo)
    assert baz_tangent is None


def test_nested_level(lib):
    fwAD = fw(lib)
    with fwAD.dual_level() as level:
        assert level == 0
    with fwAD.dual_level():
        with raises(RuntimeError, "Nested forward mode AD is not supported at the moment"):
            nest_level = fwAD.enter_dual_level()


def test_set_fw_grad_having_own_fw_grad_at_same_level(lib):
    # (the case: a tangent that is itself dual at the same level is refused)
    fwAD = fw(lib)
    foo = lib.rand(2)
    bar = lib.rand(2)
    baz = lib.rand(2)
    with fwAD.dual_level():
        dual = fwAD.make_dual(foo, bar)
        with raises(RuntimeError, "has a forward gradient at the same level"):
            fwAD.make_dual(baz, dual)


def test_make_dual_inference_tensor_in_inference_mode(lib):
    fwAD = fw(lib)
    with lib.inference_mode():
        foo = lib.rand(2)
        bar = lib.rand(2)
        foo_copy = foo.clone()
        with fwAD.dual_level():
            dual = fwAD.make_dual(foo, bar)
            assert not dual._is_view()
            dual += 1
            assert not lib.allclose(foo, foo_copy)


def test_make_dual_forbid_integral_dtype(lib):
    fwAD = fw(lib)
    primal_f = lib.ones(2, 2, dtype=lib.float)
    primal_l = lib.ones(2, 2, dtype=lib.long)
    tangent_f = lib.ones(2, 2, dtype=lib.float)
    tangent_l = lib.ones(2, 2, dtype=lib.long)
    with fwAD.dual_level():
        with raises(ValueError, "Expected tangent to be floating point or complex"):
            fwAD.make_dual(primal_f, tangent_l)
        with raises(ValueError, "Expected primal to be floating point or complex"):
            fwAD.make_dual(primal_l, tangent_l)
        with raises(ValueError, "Expected primal to be floating point or complex"):
            fwAD.make_dual(primal_l, tangent_f)


def test_print(lib):
    fwAD = fw(lib)
    with fwAD.dual_level() as level:
        a = lib.rand(3)
        assert "tangent=" not in str(a)
        b = fwAD.make_dual(a, lib.rand(3))
        assert "tangent=" not in str(a)
        assert "tangent=" in str(b)
        b_primal, b_tangent = fwAD.unpack_dual(b)
        assert "tangent=" not in str(b_primal)
        assert "tangent=" not in str(b_tangent)


def test_basic_packing_unpacking(lib):
    fwAD = fw(lib)
    foo = lib.rand(2)
    bar = lib.rand(2)
    with fwAD.dual_level():
        baz = fwAD.make_dual(foo, bar)
        baz_primal, baz_tangent = fwAD.unpack_dual(baz)
        eq(baz_primal, foo)
        assert baz_tangent is bar
        assert baz_primal is not fwAD.unpack_dual(baz).primal
        eq(baz_primal, fwAD.unpack_dual(baz).primal)
        assert baz_tangent is fwAD.unpack_dual(baz).tangent
        foo_primal, foo_tangent = fwAD.unpack_dual(foo)
        eq(foo_primal, foo)
        assert foo_tangent is None


def test_advanced_packing_unpacking(lib):
    fwAD = fw(lib)
    foo = lib.rand(2)
    bar = lib.ones(2)
    with fwAD.dual_level():
        dual = fwAD.make_dual(foo, bar)
        assert dual.storage().data_ptr() == foo.storage().data_ptr()
        assert foo._version == dual._version
        foo.add_(1)
        assert foo._version == dual._version
        dual_primal, dual_tangent = fwAD.unpack_dual(dual)
        assert dual_primal.storage().data_ptr() == foo.storage().data_ptr()
        assert dual_tangent.storage().data_ptr() == bar.storage().data_ptr()
        assert dual_tangent is bar
        assert foo._version == dual_primal._version
        foo.add_(1)
        assert foo._version == dual_primal._version
        assert bar._version == dual_tangent._version
        bar.add_(1)
        assert bar._version == dual_tangent._version
    with fwAD.dual_level():
        foo.requires_grad_()
        bar.requires_grad_()
        dual = fwAD.make_dual(foo, bar)
        p, t = fwAD.unpack_dual(dual)
        gfoo, gbar = lib.autograd.grad(p.sum(), (foo, bar), retain_graph=True,
                                       allow_unused=True)
        eq(gfoo, lib.ones_like(foo))
        assert gbar is None
        gfoo, gbar = lib.autograd.grad(t.sum(), (foo, bar), retain_graph=True,
                                       allow_unused=True)
        assert gfoo is None
        eq(gbar, lib.ones_like(bar))
        detached_dual = dual.detach()
        out = detached_dual * 2
        p, t = fwAD.unpack_dual(out)
        assert not p.requires_grad
        eq(p, foo * 2)
        assert t is None
        with lib.no_grad():
            out = dual * 3
        p, t = fwAD.unpack_dual(out)
        assert not p.requires_grad
        assert not t.requires_grad
        eq(p, foo * 3)
        eq(t, bar * 3)
        dual = dual.clone()
        dual.detach_()
        out = dual * 2
        p, t = fwAD.unpack_dual(out)
        assert not p.requires_grad
        eq(p, foo * 2)
        assert t is None


def test_view_inplace_non_differentiable_views(lib):
    fwAD = fw(lib)
    original_foo = lib.rand(2, dtype=lib.double)
    original_bar = lib.ones(2, dtype=lib.double)
    foo = original_foo.clone()
    bar = original_bar.clone()
    with fwAD.dual_level():
        dual = fwAD.make_dual(foo, bar)
        dual *= 2
        assert fwAD.unpack_dual(foo)[1] is None
        eq(bar, original_bar * 2)
        eq(fwAD.unpack_dual(dual)[1], original_bar * 2)
        eq(foo, original_foo * 2)
        eq(fwAD.unpack_dual(dual)[0], original_foo * 2)
        dual_primal, dual_tangent = fwAD.unpack_dual(dual)
        assert fwAD.unpack_dual(dual_primal)[1] is None
        assert fwAD.unpack_dual(dual_tangent)[1] is None
        dual_primal *= 2
        eq(fwAD.unpack_dual(dual)[0], original_foo * 4)
        eq(fwAD.unpack_dual(dual)[1], original_bar * 2)
        dual_tangent *= 2
        eq(fwAD.unpack_dual(dual)[0], original_foo * 4)
        eq(fwAD.unpack_dual(dual)[1], original_bar * 4)


def test_view_inplace_differentiable_views(lib):
    fwAD = fw(lib)
    original_foo = lib.rand(2)
    original_bar = lib.ones(2)
    foo = original_foo.clone()
    bar = original_bar.clone()
    with fwAD.dual_level():
        dual = fwAD.make_dual(foo, bar)
        view = dual.narrow(0, 0, 1)
        view *= 2
        assert fwAD.unpack_dual(foo)[1] is None
        eq(fwAD.unpack_dual(dual)[1], lib.tensor([2.0, 1.0]))
        eq(fwAD.unpack_dual(view)[1], lib.tensor([2.0]))
        baz = lib.rand(2)
        baz += dual
        eq(fwAD.unpack_dual(baz)[1], fwAD.unpack_dual(dual)[1])
        baz = lib.rand(2)
        baz[0] = dual[0]
        eq(fwAD.unpack_dual(baz)[1][0], fwAD.unpack_dual(dual)[1][0])
        eq(fwAD.unpack_dual(baz)[1][1], 0.0)
        baz = lib.rand(2)
        view = baz.detach()
        view += dual
        assert fwAD.unpack_dual(baz)[1] is None


def test_view_inplace_always_creates_a_view(lib):
    fwAD = fw(lib)
    inplace_binary_ops = (lambda x, y: x.add_(y), lambda x, y: x.mul_(y),
                          lambda x, y: x.copy_(y))
    for inplace_binary_op in inplace_binary_ops:
        base = lib.randn(2, 2)
        view = base.transpose(0, 1)
        primal = lib.randn(2, 2)
        tangent = lib.randn(2, 2)
        with fwAD.dual_level():
            dual = fwAD.make_dual(primal, tangent)
            inplace_binary_op(view, dual)
            p, t = fwAD.unpack_dual(base)
            p_clone = p.clone()
            t_clone = t.clone()
            view *= 2
            p, t = fwAD.unpack_dual(base)
            assert lib.allclose(p_clone * 2, p)
            assert lib.allclose(t_clone * 2, t)


def test_grad_cleanup(lib):
    fwAD = fw(lib)
    foo = lib.rand(2)
    bar = lib.rand(2)
    baz = lib.rand(2)
    with fwAD.dual_level():
        dual = fwAD.make_dual(foo, bar)
        assert fwAD.unpack_dual(foo)[1] is None
        assert fwAD.unpack_dual(dual)[1] is bar
    assert fwAD.unpack_dual(dual)[1] is None
    with fwAD.dual_level():
        assert fwAD.unpack_dual(foo)[1] is None
        new_dual = fwAD.make_dual(foo, baz)
        dual_primal, dual_tangent = fwAD.unpack_dual(dual)
        new_dual_primal, new_dual_tangent = fwAD.unpack_dual(new_dual)
        eq(dual_primal, new_dual_primal)
        assert dual_tangent is None
        eq(new_dual_tangent, baz)


def test_detach_view_tracking(lib):
    foo = lib.rand(2)
    foo_weak = weakref.ref(foo)
    out = foo.detach()
    del foo
    assert foo_weak() is None


def test_out_variant(lib):
    fwAD = fw(lib)
    with fwAD.dual_level():
        foo = fwAD.make_dual(lib.rand(2), lib.rand(2))
        bar = lib.rand(2)
        with raises(RuntimeError, "out= function"):
            lib.add(bar, bar, out=foo)
        with raises(RuntimeError, "out= function"):
            lib.add(foo, bar, out=bar)


def test_non_differentiable(lib):
    fwAD = fw(lib)
    with fwAD.dual_level():
        foo = fwAD.make_dual(lib.rand(2), lib.rand(2))
        bar = lib.rand(2)
        eq_ = foo == bar
        foo.eq_(bar)


def test_backward_graph_destruction(lib):
    # (from TestAutograd: forward AD in a level, with a graph kept by the tangent)
    fwAD = fw(lib)

    def fn():
        a = lib.rand(10, requires_grad=True)
        da = fwAD.make_dual(lib.rand_like(a), a)
        db = da.exp()

    with fwAD.dual_level():
        fn()


def test_setup_context_when_forward_has_default_args(lib):
    # (from TestAutograd; the case: setup_context's inputs include forward's
    # defaulted arguments)
    class PowFunction(lib.autograd.Function):
        @staticmethod
        def forward(x, y=3):
            return lib.pow(x, y)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x)
            ctx.y = y

        @staticmethod
        def backward(ctx, gO):
            (x,) = ctx.saved_tensors
            y = ctx.y
            return gO * y * lib.pow(x, y - 1), None

    class PowFunctionWithClassmethod(lib.autograd.Function):
        @classmethod
        def forward(cls, x, y=3):
            return lib.pow(x, y)

        @classmethod
        def setup_context(cls, ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x)
            ctx.y = y

        @classmethod
        def backward(cls, ctx, gO):
            (x,) = ctx.saved_tensors
            y = ctx.y
            return gO * y * lib.pow(x, y - 1), None

    x = lib.tensor(2.0, requires_grad=True)
    y = lib.tensor(8.0)
    y_expected = lib.tensor(12.0)
    y1 = PowFunction.apply(x)
    (y1_expected,) = lib.autograd.grad(y1, x)
    y2 = PowFunctionWithClassmethod.apply(x)
    (y2_expected,) = lib.autograd.grad(y2, x)
    eq(y, y1)
    eq(y_expected, y1_expected)
    eq(y, y2)
    eq(y_expected, y2_expected)


def test_metadata_check_check_conj(lib):
    fwAD = fw(lib)
    keys = {
        "NEITHER": lambda x: x,
        "CONJ": lambda x: x.conj(),
        "NEG": lambda x: x._neg_view(),
    }
    for primal_key, tangent_key in product(keys, keys):
        x = keys[primal_key](lib.randn(2, 3, 4, dtype=lib.cdouble))
        t = keys[tangent_key](lib.randn(2, 3, 4, dtype=lib.cdouble))
        if primal_key == tangent_key:
            with fwAD.dual_level():
                dual = fwAD.make_dual(x, t)
                assert fwAD.unpack_dual(dual).tangent is t
                lib.real(dual)
                lib.imag(dual)
        else:
            with fwAD.dual_level():
                dual = fwAD.make_dual(x, t)
                assert fwAD.unpack_dual(dual).tangent is not t
                lib.real(dual)
                lib.imag(dual)


def test_codegen_ignores_undefined_outputs(lib):
    fwAD = fw(lib)
    # grad_input is left out of the output mask, so convolution_backward returns an
    # undefined tensor (None) there even though the weight is a dual tensor
    weight = lib.randn(6, 1, 30, 30)
    inp = lib.rand((1, 1, 32, 32))
    out = lib.nn.functional.conv2d(inp, weight)
    grad_out = lib.ones_like(out)
    with fwAD.dual_level():
        dual_weight = fwAD.make_dual(weight, lib.ones_like(weight))
        grad_input, _, _ = lib.ops.aten.convolution_backward(
            grad_out, inp, dual_weight, (0,), (1, 1), (0, 0), (1, 1), False, (0, 0), 1,
            (False, True, False))
    assert grad_input is None


def test_create_new_zeros_with_same_meta(lib):
    new_zeroes_fn = lib.ops.aten._new_zeros_with_same_feature_meta

    def check(a, b):
        def assert_same_meta(t, target):
            for num_bdim in range(t.dim()):
                result = new_zeroes_fn(t, target, self_num_batch_dims=num_bdim)
                assert result.dim() == target.dim() + num_bdim
                # sizes and strides match for the feature dims only
                for i in range(num_bdim, result.dim()):
                    assert result.size()[i] == target.size()[i - num_bdim]
                    assert result.stride()[i] == target.stride()[i - num_bdim]
                # strides are generated reasonably
                if target.is_contiguous():
                    assert result.is_contiguous()
                assert result.storage_offset() == target.storage_offset()
                prod_of_t_bdims = reduce(operator.mul, t.size()[:num_bdim], 1)
                assert len(result.storage()) == len(target.storage()) * prod_of_t_bdims
                # the TensorOptions are the same
                assert result.dtype == target.dtype

        assert_same_meta(a, b)
        assert_same_meta(b, a)

    a = lib.randn(5, dtype=lib.float)
    b = lib.randn(2, 3, 4, dtype=lib.double)
    check(a, b)
    # non-contiguous case
    a = lib.randn(2, 3, 4).transpose(0, 1).contiguous().transpose(0, 1)
    b = lib.randn(2, 3, 4)
    check(a, b)
    a = lib.randn(5).narrow(0, 1, 2)
    b = lib.randn(2)
    check(a, b)
    # not a view, but still not indexing all of its storage
    a = lib.randn(5).resize_(4)
    b = lib.randn(4)
    check(a, b)
    # zero-numel tensors
    a = lib.randn(1, 0, 2)
    b = lib.randn(1, 2)
    check(a, b)
    # a scalar tensor
    a = lib.tensor(1.0)
    b = lib.randn(1, 2)
    check(a, b)
