"""gradcheck's sparse inputs (any sparse layout), as torch checks them.

A sparse input is perturbed through its stored values: each stored element moves one
element of the dense tensor, whose row of the Jacobian it fills (``positions``); the rows of
unspecified elements stay zero. That is ``masked=True``: the gradients of unspecified
elements are ignored. With ``masked=False`` the finite differences run on a copy of the
input with every element specified (``densified``), so every row is checked. Analytical
gradients are compared densely (``dense``).
"""
import numpy as np

from .._layout import STORAGE, sparse_coo
from .._tensor import Tensor, make

__all__ = []


def is_sparse(t):
    """Whether ``t`` is an ember tensor over sparse storage (any sparse layout)."""
    return isinstance(t, Tensor) and type(t._data) in STORAGE


def dense(g):
    """A gradient's dense array (a sparse one written out); None stays None."""
    if g is None:
        return None
    return g._data.dense() if type(g._data) in STORAGE else g._data


def positions(t):
    """For each stored value of sparse ``t``, the flat index of the dense element it is."""
    data = t._data
    where = np.arange(data.size).reshape(data.shape)
    if data.layout is sparse_coo:
        return data.gather(where)
    return data.with_values_of(where).values


def densified(t):
    """A copy of sparse ``t`` in its layout with every element specified (the missing ones
    as zeros), requiring grad as ``t`` does."""
    from .. import _sparse
    data = t._data
    full = data.dense()
    if data.layout is sparse_coo:  # (every position of the sparse dims)
        sparse_shape = data.shape[:data.sparse_dim]
        idx = np.array(np.unravel_index(np.arange(int(np.prod(sparse_shape))), sparse_shape),
                       np.int64).reshape(data.sparse_dim, -1)
        storage = _sparse.COO(idx, full[tuple(idx)].copy(), data.shape, True)
    else:
        ones = make(np.ones(data.shape, full.dtype))
        pattern = ones.to_sparse(layout=data.layout, blocksize=data.blocksize,
                                 dense_dim=t.dense_dim() or None)._data
        storage = pattern.with_values_of(full)
    return make(storage).requires_grad_(t.requires_grad)


def check_outputs(outputs):
    """torch refuses sparse outputs (their gradients would need a layout of their own)."""
    if any(is_sparse(o) for o in outputs):
        raise ValueError("Sparse output is not supported at gradcheck yet. Please call "
                         "to_dense(masked_grad=...) on the output of fn for gradcheck.")
