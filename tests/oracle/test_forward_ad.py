"""Forward-mode AD against torch: the tangent of every kind of op, make_dual/unpack_dual
semantics, and errors."""
import numpy as np
import pytest

import ember
from .oracle import torch, arr, assert_same_tensor

OPS = [
    lambda T, x, y: x * y, lambda T, x, y: x + 2 * y, lambda T, x, y: x / y,
    lambda T, x, y: x - y, lambda T, x, y: x ** 3, lambda T, x, y: x ** y,
    lambda T, x, y: 2 ** x, lambda T, x, y: T.maximum(x, y), lambda T, x, y: x.exp(),
    lambda T, x, y: x.log(), lambda T, x, y: x.sin().cos(), lambda T, x, y: x.tanh(),
    lambda T, x, y: x.sigmoid(), lambda T, x, y: x.sqrt(), lambda T, x, y: x.relu(),
    lambda T, x, y: x.abs(), lambda T, x, y: T.atan2(x, y), lambda T, x, y: x.clamp(0.6, 1.5),
    lambda T, x, y: T.where(x > y, x, y), lambda T, x, y: x.sum(), lambda T, x, y: x.sum(0),
    lambda T, x, y: x.mean(1, keepdim=True), lambda T, x, y: x.prod(1),
    lambda T, x, y: x.amax(0), lambda T, x, y: x.var(1), lambda T, x, y: x.std(),
    lambda T, x, y: x.norm(), lambda T, x, y: x.logsumexp(1), lambda T, x, y: x.softmax(1),
    lambda T, x, y: x.log_softmax(0), lambda T, x, y: x.cumsum(1),
    lambda T, x, y: x.t(), lambda T, x, y: x.reshape(-1), lambda T, x, y: x.unsqueeze(0),
    lambda T, x, y: x.expand(2, 2, 3), lambda T, x, y: x.transpose(0, 1).contiguous(),
    lambda T, x, y: x.narrow(1, 1, 2), lambda T, x, y: x.select(0, 1),
    lambda T, x, y: T.cat([x, y.expand(2, 3)]), lambda T, x, y: T.stack([x, x * 2]),
    lambda T, x, y: x.flip(0), lambda T, x, y: x.repeat(2, 1), lambda T, x, y: x.tril(),
    lambda T, x, y: x @ x.t(), lambda T, x, y: T.mm(x, x.t()), lambda T, x, y: x.matmul(y),
    lambda T, x, y: T.einsum('ij,kj->ik', x, x), lambda T, x, y: x.max(1).values,
    lambda T, x, y: x.sort(1).values, lambda T, x, y: x.topk(2).values,
    lambda T, x, y: x.unbind(0)[1], lambda T, x, y: x.split(1, 1)[2],
    lambda T, x, y: x.clone().mul_(y), lambda T, x, y: x.double(),
    lambda T, x, y: T.lerp(x, y.expand(2, 3), 0.3), lambda T, x, y: T.addcmul(x, x, y),
]


def _dual_result(lib, fn, primals, tangents):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        duals = [fw.make_dual(lib.tensor(p), lib.tensor(t)) for p, t in zip(primals, tangents)]
        out = fn(lib, *duals)
        primal, tangent = fw.unpack_dual(out)
        return primal.detach().clone(), (None if tangent is None else tangent.detach().clone())


@pytest.mark.parametrize('fn', OPS)
def test_tangents_match_torch(fn):
    primals = [arr(2, 3, low=0.5, high=2, seed=1), arr(3, low=0.5, high=2, seed=2)]
    tangents = [arr(2, 3, seed=3), arr(3, seed=4)]
    e = _dual_result(ember, fn, primals, tangents)
    t = _dual_result(torch, fn, primals, tangents)
    assert_same_tensor(e[0], t[0], 'primal')
    if t[1] is None:
        assert e[1] is None
    else:
        assert e[1] is not None, "ember lost the tangent"
        np.testing.assert_allclose(e[1]._data, t[1].numpy(), rtol=1e-7, atol=1e-9)


def test_make_dual_and_unpack_dual_semantics():
    for lib in (ember, torch):
        fw = lib.autograd.forward_ad
        x = lib.ones(3)
        with fw.dual_level():
            d = fw.make_dual(x, lib.full((3,), 2.))
            assert d._base is x and not d.requires_grad
            p = fw.unpack_dual(d * d)
            assert type(p).__name__ == 'UnpackedDualTensor' and p.tangent.tolist() == [4.] * 3
            assert fw.unpack_dual(x).tangent is None
            kept = d * 3
        assert fw.unpack_dual(kept).tangent is None  # tangents vanish with their level


@pytest.mark.parametrize('fn', [
    lambda T, fw: fw.make_dual(T.ones(3), T.ones(2)),
    lambda T, fw: fw.make_dual(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64)),
])
def test_errors_match_torch(fn):
    errs = []
    for lib in (ember, torch):
        with lib.autograd.forward_ad.dual_level():
            with pytest.raises(Exception) as info:
                fn(lib, lib.autograd.forward_ad)
            errs.append(info.value)
    assert type(errs[0]) is type(errs[1]) and str(errs[0]) == str(errs[1])


def test_no_level_and_nesting_errors():
    for lib in (ember, torch):
        fw = lib.autograd.forward_ad
        with pytest.raises(RuntimeError, match="no level exists"):
            fw.make_dual(lib.ones(2), lib.ones(2))
        with fw.dual_level():
            with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
                with fw.dual_level():
                    pass


def test_function_jvp_is_called_and_required():
    class MulConstant(ember.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, g):
            return g * ctx.constant, None

        @staticmethod
        def jvp(ctx, t, _):
            return t * ctx.constant

    class NoJvp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    fw = ember.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(ember.ones(2), ember.tensor([1., 2.]))
        assert fw.unpack_dual(MulConstant.apply(d, 3.)).tangent.tolist() == [3., 6.]
        with pytest.raises(RuntimeError, match="You must implement the jvp function"):
            NoJvp.apply(d)
    # outside a level, jvp is never needed
    assert NoJvp.apply(ember.ones(2)).tolist() == [2., 2.]


def test_jvp_must_return_a_view_for_a_view_output():
    def run(lib, clone):
        class Head(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:2]

            @staticmethod
            def backward(ctx, g):
                return lib.cat([g, g.new_zeros(1)])

            @staticmethod
            def jvp(ctx, t):
                return t[:2].clone() if clone else t[:2]
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            out = Head.apply(fw.make_dual(lib.ones(3), lib.tensor([1., 2., 3.])))
            return fw.unpack_dual(out).tangent.tolist()
    for lib in (ember, torch):
        assert run(lib, clone=False) == [1., 2.]
        with pytest.raises(RuntimeError, match="forward is returning a view \\(or an input "
                                               "as-is\\) but the jvp is not returning a view"):
            run(lib, clone=True)
