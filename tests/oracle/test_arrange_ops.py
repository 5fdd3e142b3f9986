"""Arrangement ops (ember/_ops/arrange.py) against torch: values, dtypes, grad_fn names,
gradients (to second order where the op is differentiable), views, warnings and errors."""
import warnings

import numpy as np
import pytest

import ember
from .oracle import check, arr, torch

A = arr(3, 4)
B = arr(3, 4, seed=1)
V = arr(3, seed=2)
W = arr(4, seed=3)
C3 = arr(2, 3, 4, seed=4)
I = arr(3, 4, dtype=np.int64)
BO = arr(3, 4, dtype=np.bool_)


def R(T, v, dt='int64'):
    return T.tensor(v, dtype=getattr(T, dt))


CASES = [
    # item 1
    lambda T, v, w: T.meshgrid(v, w, indexing='ij'),
    lambda T, v, w: T.meshgrid([v, w, v], indexing='xy'),
    lambda T, v, w: T.meshgrid(v, indexing='xy'),
    lambda T, v, w: T.meshgrid(v, w[0], indexing='ij'),
    lambda T, v, w: v.repeat_interleave(2),
    lambda T, v, w: T.repeat_interleave(T.outer(v, w), 2, dim=1),
    lambda T, v, w: T.outer(v, w).repeat_interleave(R(T, [1, 0, 3]), dim=0),
    lambda T, v, w: T.outer(v, w).repeat_interleave(R(T, [2]), dim=-1, output_size=8),
    lambda T, v, w: T.outer(v, w).repeat_interleave(R(T, 2)),
    lambda T, v, w: T.repeat_interleave(R(T, [1, 0, 3])),
    lambda T, v, w: T.outer(v, w).rot90(),
    lambda T, v, w: T.rot90(T.outer(v, w), 2, [1, 0]),
    lambda T, v, w: T.rot90(T.outer(v, w), -1, (0, 1)),
    lambda T, v, w: T.rot90(T.outer(v, w), 0),
    lambda T, v, w: T.diff(w),
    lambda T, v, w: T.outer(v, w).diff(n=2, dim=0),
    lambda T, v, w: T.diff(w, prepend=v, append=w[:2]),
    lambda T, v, w: T.diff(w, n=5),
    lambda T, v, w: T.kron(v, w),
    lambda T, v, w: T.outer(v, w).kron(T.outer(w, v)),
    lambda T, v, w: T.kron(T.outer(v, w), w),
    lambda T, v, w: T.tensordot(T.outer(v, w), T.outer(w, v), dims=1),
    lambda T, v, w: T.tensordot(T.outer(v, w), T.outer(v, w), dims=2),
    lambda T, v, w: T.tensordot(v, w, dims=0),
    lambda T, v, w: T.tensordot(T.outer(v, w), T.outer(v, w), dims=([0], [0])),
    lambda T, v, w: T.tensordot(T.outer(v, w), T.outer(w, v), dims=([1, 0], [0, 1])),
    lambda T, v, w: T.outer(v, w).trace(),
    lambda T, v, w: T.trace(T.outer(w, v)),
    lambda T, v, w: T.cross(T.outer(w, v), T.outer(w, v).flip(1), dim=1),
    lambda T, v, w: T.outer(v, v).cross(v, dim=-1),
    lambda T, v, w: T.diagflat(T.outer(v, w)),
    lambda T, v, w: v.diagflat(-2),
    # item 2
    lambda T, v, w: T.hsplit(T.outer(v, w), 2),
    lambda T, v, w: T.outer(v, w).hsplit([1, 3]),
    lambda T, v, w: w.hsplit(2),
    lambda T, v, w: T.vsplit(T.outer(v, w), 3),
    lambda T, v, w: T.outer(v, w).vsplit([2]),
    lambda T, v, w: T.dsplit(T.outer(v, w).reshape(1, 3, 4), 2),
    lambda T, v, w: T.dsplit(T.outer(v, w).reshape(1, 3, 4), [1, 5]),
    lambda T, v, w: T.dstack([v, v]),
    lambda T, v, w: T.dstack((T.outer(v, w), T.outer(v, w))),
    lambda T, v, w: T.dstack([v[0], v[1]]),
    lambda T, v, w: T.column_stack([v, T.outer(v, w), v[0].expand(3)]),
    lambda T, v, w: T.column_stack((v[0], v[1])),
    lambda T, v, w: T.cartesian_prod(v, w),
    lambda T, v, w: T.cartesian_prod(v, w, v[:2]),
    lambda T, v, w: T.cartesian_prod(v),
    lambda T, v, w: T.combinations(w),
    lambda T, v, w: T.combinations(w, 3),
    lambda T, v, w: T.combinations(v, 3, with_replacement=True),
    lambda T, v, w: T.combinations(v, 0),
    lambda T, v, w: T.combinations(v, 4),
    lambda T, v, w: T.vander(v),
    lambda T, v, w: T.vander(v, 4, True),
    lambda T, v, w: T.vander(v, N=1),
    lambda T, v, w: T.vander(v, N=0),
    lambda T, v, w: T.trapezoid(T.outer(v, w)),
    lambda T, v, w: T.trapezoid(T.outer(v, w), w),
    lambda T, v, w: T.trapezoid(T.outer(v, w), v, dim=0),
    lambda T, v, w: T.trapezoid(T.outer(v, w), T.outer(v, w).cumsum(1)),
    lambda T, v, w: T.trapezoid(T.outer(v, w), dx=0.5, dim=0),
    lambda T, v, w: T.trapezoid(v[:0]),
    # item 3
    lambda T, v, w: T.cummax(T.outer(v, w), 1),
    lambda T, v, w: T.outer(v, w).cummax(0),
    lambda T, v, w: T.cummin(T.outer(v, w), -1),
    lambda T, v, w: v[0].cummin(0),
    lambda T, v, w: T.logcumsumexp(T.outer(v, w), 1),
    lambda T, v, w: (T.outer(v, w) * 100).logcumsumexp(0),
    lambda T, v, w: T.select_scatter(T.outer(v, w), w * 2, 0, 1),
    lambda T, v, w: T.outer(v, w).select_scatter(v, 1, -1),
    lambda T, v, w: T.slice_scatter(T.outer(v, w), T.outer(v, w)[:, :2], 1, 0, 4, 2),
    lambda T, v, w: T.outer(v, w).slice_scatter(T.outer(w, w)[:1], start=2),
    lambda T, v, w: T.as_strided(T.outer(v, w), (2, 2), (1, 2), 1),
    lambda T, v, w: T.outer(v, w).as_strided((3, 3), (1, 1)),
    lambda T, v, w: T.outer(v, w)[1:].as_strided((2,), (3,)),
]


@pytest.mark.parametrize('fn', CASES)
def test_ops_values_and_gradients(fn):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(fn, V, W, double=True)


INT_CASES = [
    lambda T, x: x.repeat_interleave(2, 0), lambda T, x: T.rot90(x), lambda T, x: T.diff(x),
    lambda T, x: T.kron(x, x[0]), lambda T, x: T.trace(x), lambda T, x: T.diagflat(x[0]),
    lambda T, x: T.cross(x[:, :3], x[:, 1:], dim=1), lambda T, x: T.tensordot(x, x.T, 1),
    lambda T, x: T.vander(x[0]), lambda T, x: T.trapezoid(x), lambda T, x: T.cummax(x, 1),
    lambda T, x: T.cummin(x, 0), lambda T, x: T.combinations(x[0]), lambda T, x: T.dstack([x]),
    lambda T, x: T.cross(x[:, :3], x[:, 1:].double(), dim=1), lambda T, x: T.logcumsumexp(x, 1),
    lambda T, x: T.kron(x, x[0].float()), lambda T, x: T.vander(x[0].float(), 3),
]


@pytest.mark.parametrize('fn', INT_CASES)
@pytest.mark.parametrize('x', [I, BO], ids=['int', 'bool'])
def test_integer_and_bool_inputs(fn, x):
    check(fn, x, match_message=False)


def test_nan_and_ties_in_cummax_cummin():
    x = np.array([1., 3., 3., np.nan, 2., np.nan, 5.])
    check(lambda T, x: T.cummax(x, 0), x)
    check(lambda T, x: T.cummin(x, 0), x)
    check(lambda T, x: T.cummax(x, 0), np.array([2, 1, 2, 0, 3]))


def test_index_generators():
    for args in [(3, 3), (4, 3, 1), (3, 5, -1), (0, 2), (3, 3, 10), (3, 4, -10)]:
        for name in ('tril_indices', 'triu_indices'):
            check(lambda T: getattr(T, name)(*args))
            check(lambda T: getattr(T, name)(*args, dtype=T.int32))
    check(lambda T: T.unravel_index(T.tensor([4, 7, -1]), (2, 4)))
    check(lambda T: T.unravel_index(T.tensor([12, -13]), (3, 4)))  # wraps, no range check
    check(lambda T: T.unravel_index(5, (2, 3)))  # torch refuses a plain int
    check(lambda T: T.unravel_index(T.tensor([[1, 2], [3, 0]]), T.Size([2, 2])))


def test_views_share_memory_and_version():
    for make_view in (lambda T, x: T.hsplit(x, 2)[1], lambda T, x: x.vsplit([1])[1],
                      lambda T, x: x.as_strided((2, 2), (1, 4), 1),
                      lambda T, x: T.meshgrid(x[0], x[1], indexing='ij')[0]):
        outs = []
        for T in (ember, torch):
            x = T.tensor(A)
            v = make_view(T, x)
            before = v._version
            x.add_(1)
            outs.append((v._version - before, v.sum().item(), v._base is x))
        assert outs[0][0] == outs[1][0] and outs[0][2] == outs[1][2]
        assert outs[0][1] == pytest.approx(outs[1][1])
    for T in (ember, torch):  # copies, not views
        x = T.tensor(A)
        assert T.rot90(x)._base is None and T.select_scatter(x, x[0], 0, 0)._base is None


def test_warnings():
    for T in (ember, torch):
        with pytest.warns(UserWarning, match='indexing argument'):
            T.meshgrid(T.zeros(2), T.zeros(3))
        with pytest.warns(UserWarning, match='without specifying the dim arg is deprecated'):
            r = T.cross(T.ones(2, 3), T.ones(2, 3))
        assert r.shape == (2, 3)
    check(lambda T, a, b: T.cross(a, b), arr(3, 3), arr(3, 3, seed=5))


ERRORS = [
    lambda T, x: T.meshgrid(x, x[0], indexing='yx'),
    lambda T, x: T.meshgrid(x[0], x[0].int(), indexing='ij'),
    lambda T, x: x.repeat_interleave(R(T, [1, 2]), dim=0),
    lambda T, x: x.repeat_interleave(R(T, [1, -2, 1]), dim=0),
    lambda T, x: x.repeat_interleave(-1),
    lambda T, x: T.rot90(x, 1, [0, 0]), lambda T, x: T.rot90(x, 1, [0, 1, 1]),
    lambda T, x: T.rot90(x[0]), lambda T, x: T.rot90(x, 1, [0, 5]),
    lambda T, x: T.diff(x[0, 0]), lambda T, x: T.diff(x, n=-1),
    lambda T, x: T.tensordot(x, x, dims=-1),
    lambda T, x: T.tensordot(x, x, dims=([0], [0, 1])),
    lambda T, x: T.tensordot(x, x, dims=([0], [1])),
    lambda T, x: T.trace(x[0]), lambda T, x: T.trace(x.unsqueeze(0)),
    lambda T, x: T.cross(x, x, dim=1), lambda T, x: T.cross(x[:, :3], x[0, :3], dim=1),
    lambda T, x: T.hsplit(x, 3), lambda T, x: T.vsplit(x[0], 2), lambda T, x: T.dsplit(x, 2),
    lambda T, x: T.hsplit(x[0, 0], 1),
    lambda T, x: T.cartesian_prod(x), lambda T, x: T.combinations(x),
    lambda T, x: T.combinations(x[0], -1),
    lambda T, x: T.unravel_index(x, (3, 4)), lambda T, x: T.unravel_index(R(T, [12]), (3, 4)),
    lambda T, x: T.unravel_index(R(T, [1]), (3, -4)),
    lambda T, x: T.vander(x), lambda T, x: T.vander(x[0], -1),
    lambda T, x: T.trapezoid(x, x[0, :3]),
    lambda T, x: T.cummax(x, 2), lambda T, x: T.logcumsumexp(x, -3),
    lambda T, x: T.select_scatter(x, x[0, :3], 0, 0),
    lambda T, x: T.select_scatter(x, x[0], 0, 3),
    lambda T, x: T.slice_scatter(x, x[:2], 0, 0, 3),
    lambda T, x: T.as_strided(x, (5, 5), (1, 2)),
    lambda T, x: T.as_strided(x, (2, 2), (1,)),
    lambda T, x: T.tril_indices(-1, 2), lambda T, x: T.triu_indices(2, 2, dtype=T.float32),
]


def test_meshgrid_refuses_matrices():
    # (torch prints the tensor in its legacy format in the message, so only the type and
    # the message's start are compared)
    with pytest.raises(RuntimeError, match='Expected 0D or 1D tensor in the tensor list'):
        ember.meshgrid(ember.zeros(2, 2), indexing='ij')
    check(lambda T, x: T.meshgrid(x, indexing='ij'), A)


@pytest.mark.parametrize('fn', ERRORS)
def test_errors(fn):
    check(fn, A, match_message=True)
