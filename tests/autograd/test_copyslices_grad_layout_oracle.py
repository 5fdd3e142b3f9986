"""CopySlices (the history of a base after an in-place write through a view) with a
gradient that arrives non-contiguous: the view is replayed on it whatever its layout."""
from ..oracle.oracle import arr, check


def _write_through_view(T, d):
    out = T.zeros(2, 3, 2, dtype=d.dtype)
    out.view(6, 2)[T.tensor([0, 1, 3, 4])] = d
    return out.transpose(0, 1)  # the gradient reaching CopySlices is transposed


def _copy_into_view(T, d):
    out = T.zeros(4, 3, dtype=d.dtype)
    out.view(3, 4)[1:].copy_(d)
    return out.t() * 2


def test_view_then_transpose():
    check(_write_through_view, arr(4, 2, seed=1), double=True)
    check(_copy_into_view, arr(2, 4, seed=2), double=True)
