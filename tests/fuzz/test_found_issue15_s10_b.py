"""Gated findings of the fuzzer on wide-shape seeds 600-999 and dtype-restricted seeds
7000-7199 (issue 15), each pinned against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check


@pytest.mark.parametrize('shape,dim,src', [((1, 1), 0, (1, 1)), ((1, 1), -2, (1, 1)),
                                           ((3, 2), 1, (3, 1)), ((3,), 0, (1,))])
@pytest.mark.parametrize('index_dtype', ['int32', 'int64'])
def test_index_add_bounds_error_follows_the_index_dtype(shape, dim, src, index_dtype):
    """torch's scatter_add kernel (n-d, first or last dim) names the bad index only for an
    int64 index; an int32 one goes through the slice loop's IndexError (ember named it)."""
    check(lambda T: T.ones(shape).index_add(
        dim, T.tensor([-4], dtype=getattr(T, index_dtype)), T.ones(src)),
        grad=False, match_message=True)


def _expanded(T, dtype='float32'):
    return T.tensor([[1], [2], [3]], dtype=getattr(T, dtype)).expand(3, 2)


def _written(fn):
    """``fn(T, x)`` on an expanded ``x``; the tensor written, or the error."""
    def run(T):
        x = _expanded(T)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # (torch's deprecation warning)
            fn(T, x)
        return x
    return run


@pytest.mark.parametrize('fn', [
    lambda T, x: x.index_put_((T.tensor([0, 1]),), T.tensor([5., 6])),
    lambda T, x: x.index_put_((T.tensor([0, 1]),), T.tensor([5., 6]), accumulate=True),
    lambda T, x: x.index_put_((T.tensor([0, 0]),), T.tensor([5., 6]), accumulate=True),
    lambda T, x: x.index_put_((T.tensor([[True, True], [False, True], [False, False]]),),
                              T.tensor([5., 6, 7]), True),
    lambda T, x: x.index_put_((T.tensor([[True, True], [False, True], [False, False]]),),
                              T.tensor([5., 6, 7])),
    lambda T, x: x.t().index_put_((T.tensor([1, 0]), T.tensor([2, 1])), T.tensor([5., 6])),
    lambda T, x: x.__setitem__(T.tensor([0, 1]), T.tensor([5., 6])),
    lambda T, x: x.__setitem__((T.tensor([0, 1]), T.tensor([1, 0])), T.tensor([5., 6])),
    lambda T, x: x.__setitem__(T.tensor([True, False, True]), T.tensor([7., 8])),
    lambda T, x: x.__setitem__((slice(None), T.tensor([1])), T.tensor([7.])),
    lambda T, x: x.__setitem__(0, 5.),
    lambda T, x: x.index_put_((T.tensor([0, 1]),), T.tensor([5, 6])),
    lambda T, x: x.index_put_((T.tensor([0, 5]),), T.tensor([5., 6])),
    lambda T, x: x.index_put_((T.tensor([0, 1]),), T.tensor([5., 6, 7])),
], ids=['put', 'accumulate', 'accumulate_repeated', 'mask_accumulate', 'mask', 'two_indices',
        'setitem', 'setitem_two', 'setitem_mask', 'setitem_slice', 'setitem_basic_refused',
        'dtype_error', 'bounds_error', 'shape_error'])
def test_index_put_writes_an_expanded_tensor(fn):
    """torch's index_put_ (and x[index] = v) writes a tensor whose elements share memory
    (deprecated): the last write to a place stays, accumulated values add up there; its
    own errors stand (ember refused every write to such a tensor)."""
    check(_written(fn), grad=False, match_message=True)


def test_index_put_writes_an_expanded_integer_tensor():
    """The fuzzer's case: an int64 tensor expanded along dim 1, a 2-d index."""
    check(lambda T: T.tensor([[-1], [2], [1], [-5], [2], [5]]).expand(6, 2).index_put_(
        [T.tensor([[-3, 0], [3, -2], [2, -5], [-3, 5], [3, 0], [2, -2]])], T.tensor([2, 5])),
        grad=False)
