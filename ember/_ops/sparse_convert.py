"""The layout conversions (``to_dense``, ``to_sparse``, ``to_sparse_csr``/``csc``/``bsr``/
``bsc``) and ``sparse_mask``, with their gradients.

Every conversion goes through one function, ``_convert``: the source's dense array, then the
target layout's storage. Its gradient is the output gradient converted back to the input's
layout (and blocksize), as torch's ``to_sparse_backward``; ``to_dense``'s is the output
gradient masked to the input's pattern (``sparse_mask``) unless ``masked_grad=False`` asks
for the whole gradient in the input's layout.
"""
import copy

import numpy as np

from .. import _layout
from .._tensor import make
from ..autograd.graph import Node
from ._core import register, track1, result
from .sparse import _storage, _layout_name

__all__ = []

_BLOCKED = (_layout.sparse_bsr, _layout.sparse_bsc)
_UNBLOCKED = (_layout.sparse_csr, _layout.sparse_csc)


def _layout_of(data):
    return _layout.strided if type(data) is np.ndarray or not hasattr(data, 'layout') \
        else data.layout


def _dense(data):
    return data if type(data) is np.ndarray or not hasattr(data, 'layout') else data.dense()


def _back_to(g, layout, blocksize):
    """The gradient ``g`` in ``layout`` (an input's layout), with ember ops so that it
    records its own graph."""
    if layout is _layout.strided:
        return g.to_dense()
    return g.to_sparse(layout=layout, blocksize=blocksize)


class _Conversion(Node):
    """The gradient of a conversion: the output gradient in the input's layout."""
    def backward(self, g):
        return _back_to(g, self.layout, self.blocksize)


class ToSparseBackward0(_Conversion):
    """(``to_sparse(sparse_dim)``; ``to_sparse()`` is ``ToSparseBackward1``, as in torch)"""


class ToSparseBackward1(_Conversion):
    pass


class ToSparseCsrBackward0(_Conversion):
    pass


class ToSparseCscBackward0(_Conversion):
    pass


class ToSparseBsrBackward0(_Conversion):
    pass


class ToSparseBscBackward0(_Conversion):
    pass


def _convert(self, layout, blocksize, node_cls, sparse_dim=None):
    """``self`` in ``layout`` (``blocksize`` for BSR/BSC): ``self`` itself when it has that
    layout already and no graph is recorded, else a new tensor whose gradient goes back to
    ``self``'s layout through ``node_cls``."""
    data = self._data
    source = _layout_of(data)
    if isinstance(blocksize, int):
        blocksize = (blocksize, blocksize)
    if source in _BLOCKED and layout in _UNBLOCKED:
        raise RuntimeError(f"sparse_compressed_to_{layout.name}: expected SparseCsr or "
                           f"SparseCsc layout but got {source.word}")
    if source is _layout.sparse_coo and layout is source and sparse_dim is not None \
            and sparse_dim != data.sparse_dim:
        raise RuntimeError(f"to_sparse: conversion from Sparse to Sparse with sparse_dim "
                           f"argument !=self.sparse_dim() is not supported")
    same = source is layout and (layout not in _BLOCKED or blocksize is None
                                 or tuple(blocksize) == data.blocksize)
    node = track1(node_cls, self)
    if same:
        if node is None:
            return self
        out = copy.copy(data)  # (its own stand-in over the same arrays: torch's alias)
    elif layout is _layout.sparse_coo:
        out = _to_coo(data, sparse_dim)
    else:
        out = _to_compressed(self, layout, blocksize)
    if node is not None:
        node.layout = source
        node.blocksize = data.blocksize if source in _BLOCKED else None
    return result(out, node)


def _to_coo(data, sparse_dim):
    dense = _dense(data)
    nd = dense.ndim
    sd = nd if sparse_dim is None else sparse_dim
    if not 0 <= sd <= nd:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{nd}] range, "
                           f"but {sd} is given")
    if sd == 0 and nd:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                           "self.dim()>0")
    return _storage().dense_to_coo(dense, sd)


def _to_compressed(self, layout, blocksize):
    """The storage of a 2-d tensor in a compressed layout (unbatched, no dense dims)."""
    dense = _dense(self._data)
    if dense.ndim != 2:
        raise RuntimeError(f"to_sparse: ember converts only 2-d tensors to {layout}")
    rows_first = _storage().COMPRESSED[layout][2]
    if layout in _BLOCKED:
        if blocksize is None:
            raise RuntimeError(f"dense_to_sparse: conversion from {_layout_name(self)} to "
                               f"{layout.word} without blocksize argument given is not "
                               f"supported")
        br, bc = blocksize
        grid = dense.reshape(dense.shape[0] // br, br, dense.shape[1] // bc, bc)
        grid = grid.transpose(0, 2, 1, 3)
        present = grid.any((2, 3))
    else:
        present = dense != 0
    major, minor = np.nonzero(present if rows_first else present.T)
    counts = np.bincount(major, minlength=present.shape[0 if rows_first else 1])
    ci = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    r, c = (major, minor) if rows_first else (minor, major)
    vals = grid[r, c] if layout in _BLOCKED else dense[r, c]
    return _storage().Compressed(ci, minor.astype(np.int64), vals.copy(), dense.shape, layout)


@register(function=False)
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """This tensor in a sparse layout (COO unless ``layout`` says otherwise): the positions
    of its nonzero entries (over the first ``sparse_dim`` dims) and their values."""
    node_cls = ToSparseBackward1 if sparse_dim is None else ToSparseBackward0
    return _convert(self, _layout.sparse_coo if layout is None else layout, blocksize,
                    node_cls, sparse_dim)


@register(function=False)
def to_sparse_coo(self):
    """``to_sparse()``: the sparse COO form."""
    return to_sparse(self)


def _to_layout_method(layout, node_cls, blocked):
    name = f'to_{layout.name}'
    if blocked:
        def method(self, blocksize, dense_dim=None):
            return _convert(self, layout, blocksize, node_cls)
    else:
        def method(self, dense_dim=None):
            return _convert(self, layout, None, node_cls)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"This matrix in the sparse {layout.name[7:].upper()} layout"
                      f"{' (blocks of ``blocksize``)' if blocked else ''}.")
    register(method, function=False)


_to_layout_method(_layout.sparse_csr, ToSparseCsrBackward0, False)
_to_layout_method(_layout.sparse_csc, ToSparseCscBackward0, False)
_to_layout_method(_layout.sparse_bsr, ToSparseBsrBackward0, True)
_to_layout_method(_layout.sparse_bsc, ToSparseBscBackward0, True)


class ToDenseBackward0(Node):
    def backward(self, g):
        if self.masked:  # (an uncoalesced input's duplicates share one gradient entry)
            mask = self.saved_tensors[0]
            return sparse_mask(g, mask.coalesce() if mask.is_sparse else mask)
        return _back_to(g, self.layout, self.blocksize)


@register(function=False)
def to_dense(self, dtype=None, *, masked_grad=None):
    """The dense tensor: ``self`` when it is dense already (converted to ``dtype`` if
    given); a sparse one's entries written out, duplicates summed. Its gradient is the
    output gradient at ``self``'s entries (``masked_grad``, the default), or all of it."""
    data = self._data
    if type(data) is np.ndarray:
        return self if dtype is None or dtype == self.dtype else self.to(dtype)
    if dtype is not None:
        raise RuntimeError(f"dtype argument is not supported by "
                           f"{'sparse' if self.is_sparse else 'sparse_csr'}_to_dense")
    node = track1(ToDenseBackward0, self)
    if node is not None:
        node.masked = masked_grad is None or bool(masked_grad)
        node.layout = data.layout
        node.blocksize = data.blocksize if data.layout in _BLOCKED else None
        node.save(self.detach())
    return result(data.dense(), node)


class SparseMaskBackward0(Node):
    def backward(self, g):
        return g.to_dense()


@register(function=False)
def sparse_mask(self, mask):
    """The entries of ``self`` at the positions of the sparse ``mask``, as a sparse tensor
    with ``mask``'s layout and pattern (duplicates, if any, repeat the entry)."""
    m = mask._data
    if type(m) is np.ndarray:
        from .._sparse import unsupported_message
        raise NotImplementedError(unsupported_message('sparse_mask', 'CPU'))
    if tuple(self.shape) != m.shape:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(self.shape)} but mask has size {list(m.shape)}")
    dense = _dense(self._data)
    if m.layout is _layout.sparse_coo:
        out = _storage().COO(m.indices, m.gather(dense).astype(dense.dtype), m.shape,
                             m.coalesced)
    else:
        out = m.with_values_of(dense)
    return result(out, track1(SparseMaskBackward0, self))

