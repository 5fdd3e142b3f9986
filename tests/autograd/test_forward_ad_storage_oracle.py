"""Forward-AD tangents and the memory they live in, checked against torch: storage offsets
and ``as_strided`` over a tensor's whole storage (a ``detach()``ed slice keeps it), the
layout make_dual gives a tangent, a view written in place sharing its base's tangent, and
batched tangents under the older vmap (used as given, views of one another, ``as_strided``
kept within one element). Each case runs the same code on ember and torch and compares
what it returns (values, flags, offsets) or raises."""
import pytest

from ._upstream import torch, ember, oracle  # noqa: F401


@pytest.fixture(autouse=True)
def exit_dual_levels():
    """A failing case leaves no dual level behind in either library."""
    yield
    for lib in (ember, torch):
        while lib.autograd.forward_ad._current_level >= 0:
            lib.autograd.forward_ad.exit_dual_level()



def _data(lib, n, *shape):
    return lib.arange(float(n), dtype=lib.float64).reshape(shape or (n,))


def test_storage_offset_and_as_strided_keep_the_storage():
    def f(lib):
        x = _data(lib, 6)
        y = x[2:5].detach()
        z = y.as_strided((3,), (1,), 1)
        w = x.as_strided((2, 2), (1, 2), 1)
        c = lib.complex(x, -x).imag
        return [y.storage_offset(), len(y.untyped_storage()) // 8, z, z.storage_offset(),
                y.as_strided((6,), (1,), 0), w.storage_offset(), w[1:].storage_offset(),
                c.storage_offset(), x.t().storage_offset() if x.dim() == 2 else 0]
    oracle(f)


def test_as_strided_out_of_storage_refused():
    oracle(lambda lib: _data(lib, 6)[:4].detach().as_strided((7,), (1,), 0))


def test_make_dual_lays_a_tangent_out_as_its_primal():
    def f(lib):
        fwAD = lib.autograd.forward_ad
        primal = _data(lib, 5)[1:4].detach()
        tangent = _data(lib, 3) + 10
        with fwAD.dual_level():
            dual = fwAD.make_dual(primal, tangent)
            t = fwAD.unpack_dual(dual).tangent
            whole = dual.as_strided((5,), (1,), 0)
            return [t is tangent, t.storage_offset(), len(t.untyped_storage()) // 8, t,
                    whole, fwAD.unpack_dual(whole).tangent]
    oracle(f)


def test_make_dual_same_layout_keeps_the_tangent():
    def f(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            tangent = _data(lib, 4, 2, 2)
            dual = fwAD.make_dual(_data(lib, 4, 2, 2), tangent)
            t = fwAD.unpack_dual(dual).tangent
            other = fwAD.make_dual(_data(lib, 4, 2, 2).t(), tangent)
            u = fwAD.unpack_dual(other).tangent
            return [t is tangent, u is tangent, u.stride(), u]
    oracle(f)


@pytest.mark.parametrize('make_view', ['view_as', 'full_slice', 'transpose', 'row'])
def test_view_written_in_place_shares_its_base_tangent(make_view):
    def f(lib):
        fwAD = lib.autograd.forward_ad
        base = lib.zeros(2, 2, dtype=lib.float64)
        view = {'view_as': lambda: base.view_as(base), 'full_slice': lambda: base[:],
                'transpose': lambda: base.t(), 'row': lambda: base[1]}[make_view]()
        with fwAD.dual_level():
            src = fwAD.make_dual(_data(lib, 4, 2, 2)[:view.shape[0]].reshape(view.shape),
                                 _data(lib, 4, 2, 2)[:view.shape[0]].reshape(view.shape) + 1)
            view.copy_(src)
            vt = fwAD.unpack_dual(view).tangent
            bt = fwAD.unpack_dual(base).tangent
            vt.mul_(3)  # (writes through the view's tangent reach the base's)
            return [vt is bt, vt._is_view(), vt._base is bt, bt, vt]
    oracle(f)


def test_vmapped_tangents_are_used_as_given():
    def f(lib):
        fwAD = lib.autograd.forward_ad
        primal = _data(lib, 5)[:4].detach()
        seen = []

        def jvp(tangent):
            with fwAD.dual_level():
                dual = fwAD.make_dual(primal, tangent)
                seen.append(fwAD.unpack_dual(dual).tangent is tangent)
                return fwAD.unpack_dual(dual * 2).tangent
        out = lib._vmap_internals._vmap(jvp, 0, 0)(_data(lib, 12, 3, 4))
        return [all(seen), out]  # (torch runs jvp once, on the batch; ember per element)
    oracle(f)


@pytest.mark.parametrize('size, stride, offset', [((5,), (1,), 0), ((2,), (1,), 3),
                                                  ((2,), (2,), 1), ((3,), (1,), 1)])
def test_as_strided_of_a_vmapped_tangent_stays_in_its_element(size, stride, offset):
    def f(lib):
        fwAD = lib.autograd.forward_ad
        primal = _data(lib, 5)[:4].detach()

        def jvp(tangent):
            with fwAD.dual_level():
                dual = fwAD.make_dual(primal, tangent)
                return fwAD.unpack_dual(dual.as_strided(size, stride, offset)).tangent.clone()
        return lib._vmap_internals._vmap(jvp, 0, 0)(_data(lib, 8, 2, 4))
    oracle(f)


def test_vmapped_tangent_of_a_view_is_a_view_of_its_base_tangent():
    def f(lib):
        fwAD = lib.autograd.forward_ad
        tangent = _data(lib, 8, 2, 2, 2)
        view = lib.zeros(2, 2, dtype=lib.float64).t()

        def jvp(tangent):
            with fwAD.dual_level():
                x = fwAD.make_dual(lib.zeros(2, 2, dtype=lib.float64), tangent)
                view.copy_(x)
                return (fwAD.unpack_dual(x)[1], fwAD.unpack_dual(view)[1],
                        fwAD.unpack_dual(view._base)[1])
        xt, vt, bt = lib._vmap_internals._vmap(jvp, 0, 0)(tangent)
        return [xt is tangent, vt._base is bt, vt, bt, vt.stride(), vt.storage_offset()]
    oracle(f)
