"""PyTorch's test/test_autograd.py, class TestAutogradForwardModeBatchedGrad, adapted to run
on ember and torch (``lib``), as test_autograd_forward_mode_upstream.py does for
TestAutogradForwardMode: forward-mode AD under the older vmap (``torch._vmap_internals``,
which ember's vmap loop stands for) and gradcheck's batched checks. ember's run of a test
named in ``XFAIL`` is expected to fail (strict), for the reason given.
"""
import pytest

from ._upstream import exit_dual_levels  # noqa: F401 (an autouse fixture)
from ._upstream import lib_fixture, raises

XFAIL = {}

lib = lib_fixture(XFAIL)




def _vmap(lib, *a):
    return lib._vmap_internals._vmap(*a)


def test_out_of_place_basic(lib):
    a = lib.rand(4, 4, dtype=lib.double, requires_grad=True)
    b = lib.rand(4, 4, dtype=lib.double, requires_grad=True)
    assert lib.autograd.gradcheck(lib.sin, a, check_forward_ad=True, check_batched_grad=True,
                                  check_batched_forward_grad=True)
    assert lib.autograd.gradcheck(lib.add, (a, b), check_forward_ad=True,
                                  check_batched_grad=True, check_batched_forward_grad=True)


def test_out_of_place_not_same_layout(lib):
    fwAD = lib.autograd.forward_ad
    input = lib.zeros([2, 2]).transpose(0, 1)
    tangent = lib.zeros([2, 2, 2])

    def jvp(tangent):
        with fwAD.dual_level():
            x = fwAD.make_dual(input, tangent)
            return fwAD.unpack_dual(x)[1]

    x_tangent = _vmap(lib, jvp, 0, 0)(tangent)
    assert x_tangent is not tangent


def test_inplace_on_view_same_layout(lib):
    fwAD = lib.autograd.forward_ad
    input = lib.zeros([2, 2])
    tangent = lib.zeros([2, 2, 2])
    base = lib.zeros([2, 2])
    view = base.view_as(base)

    def jvp(tangent):
        with fwAD.dual_level():
            x = fwAD.make_dual(input, tangent)
            view.copy_(x)
            return (fwAD.unpack_dual(x)[1], fwAD.unpack_dual(view)[1],
                    fwAD.unpack_dual(view._base)[1])

    x_tangent, view_tangent, base_tangent = _vmap(lib, jvp, 0, 0)(tangent)
    assert not view_tangent._is_view()  # Optimization to share the same tensor!
    assert view_tangent is base_tangent
    assert x_tangent is tangent


def test_inplace_on_view_not_same_layout(lib):
    fwAD = lib.autograd.forward_ad
    input = lib.zeros([2, 2])
    tangent = lib.zeros([2, 2, 2])
    view = lib.zeros([2, 2]).transpose(0, 1)

    def jvp(tangent):
        with fwAD.dual_level():
            x = fwAD.make_dual(input, tangent)
            view.copy_(x)
            return (fwAD.unpack_dual(x)[1], fwAD.unpack_dual(view)[1],
                    fwAD.unpack_dual(view._base)[1])

    x_tangent, view_tangent, base_tangent = _vmap(lib, jvp, 0, 0)(tangent)
    assert view_tangent._base is base_tangent
    assert x_tangent is tangent
    assert view_tangent is not tangent


def test_metadata_check_for_storage_numel_skipped(lib):
    fwAD = lib.autograd.forward_ad
    primal = lib.randn(5)[:4].detach()
    assert len(primal.storage()) == 5
    tangent = lib.randn(10, 4)

    def jvp(tangent):
        with fwAD.dual_level():
            dual = fwAD.make_dual(primal, tangent)
            _, unpacked_tangent = fwAD.unpack_dual(dual)
            # No copy is made
            assert tangent is unpacked_tangent
            # as_strided raises
            with raises(RuntimeError, "can access memory outside of `tensor`"):
                dual.as_strided((5,), (1,), 0)
        return unpacked_tangent

    _vmap(lib, jvp, 0, 0)(tangent)
