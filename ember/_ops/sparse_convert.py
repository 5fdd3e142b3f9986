"""The layout conversions (``to_dense``, ``to_sparse``, ``to_sparse_csr``/``csc``/``bsr``/
``bsc``) and ``sparse_mask``, with their gradients.

Every conversion goes through one function, ``_convert``: the source's dense array, then the
target layout's storage. Its gradient is the output gradient converted back to the input's
layout (and blocksize), as torch's ``to_sparse_backward``; ``to_dense``'s is the output
gradient masked to the input's pattern (``sparse_mask``) unless ``masked_grad=False`` asks
for the whole gradient in the input's layout.
"""
import numpy as np

from .. import _layout
from ..autograd.graph import Node
from ._core import register, track1, result, refuse_complex_grad
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


def _check_compressed(data, source, layout, blocksize, dense_dim):
    """torch's refusals of a conversion to a compressed layout (its messages name the
    conversion: ``dense_to_sparse_bsr``, ``sparse_compressed_to_sparse_csc``...); returns
    the blocksize as a pair."""
    what = ('dense' if source is _layout.strided else 'sparse_compressed'
            if source is not _layout.sparse_coo else 'sparse_coo') + '_to_' + layout.name
    shape = data.shape
    if layout in _BLOCKED and blocksize is not None:
        if isinstance(blocksize, int):
            blocksize = (blocksize, blocksize)
        blocksize = tuple(int(b) for b in blocksize)
        if len(blocksize) != 2:
            raise RuntimeError(f"{what}: blocksize needs to be a tuple of size 2, but got "
                               f"{len(blocksize)}")
    if layout in _BLOCKED and source is _layout.strided and dense_dim is not None:
        # (torch's blocked conversion first looks up the block dims before the dense ones,
        # size(-2 - dense_dim) and size(-1 - dense_dim), and checks they divide into blocks
        # before it checks dense_dim's range)
        n = len(shape)
        for d in (-2 - dense_dim, -1 - dense_dim):
            if not n:
                raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
            if not -n <= d < n:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                                 f"{n - 1}], but got {d})")
        if blocksize is not None and min(blocksize) > 0:
            rows, cols = shape[-2 - dense_dim], shape[-1 - dense_dim]
            if rows % blocksize[0] or cols % blocksize[1]:
                raise RuntimeError(f"{what}: tensor sparse size ({rows},{cols}) must be "
                                   f"divisible by given blocksize ({blocksize[0]},"
                                   f"{blocksize[1]})")
    if dense_dim is not None and source is _layout.strided and \
            not 0 <= dense_dim <= len(shape) - 2:
        raise RuntimeError(f"{what}: dense_dim argument must be in [0,{len(shape) - 2}] "
                           f"range, but {dense_dim} is given")
    if len(shape) < 2:
        if layout is _layout.sparse_csr:
            raise IndexError(f"select(): index 1 out of range for tensor of size "
                             f"[{shape[0] if shape else 1}, {1 if shape else 0}] at dimension 1")
        got = 1 if layout is _layout.sparse_csc else -2
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"{got})")
    if layout not in _BLOCKED or blocksize is None:
        return blocksize
    if min(blocksize) <= 0:
        raise RuntimeError(f"{what}: blocksize needs to be positive, but got "
                           f"{list(blocksize)}")
    rows, cols = shape[len(shape) - 2 - (dense_dim or 0):][:2]
    if rows % blocksize[0] or cols % blocksize[1]:
        raise RuntimeError(f"{what}: tensor sparse size ({rows},{cols}) must be divisible by "
                           f"given blocksize ({blocksize[0]},{blocksize[1]})")
    return blocksize


def _convert(self, layout, blocksize, node_cls, sparse_dim=None, dense_dim=None):
    """``self`` in ``layout`` (``blocksize`` for BSR/BSC): ``self`` itself when it has that
    layout already and no graph is recorded, else a new tensor whose gradient goes back to
    ``self``'s layout through ``node_cls``."""
    data = self._data
    source = _layout_of(data)
    if layout in _BLOCKED or layout in _UNBLOCKED:
        blocksize = _check_compressed(data, source, layout, blocksize, dense_dim)
    if source in _BLOCKED and layout in _UNBLOCKED:
        raise RuntimeError(f"sparse_compressed_to_{layout.name}: expected SparseCsr or "
                           f"SparseCsc layout but got {source.word}")
    if source not in (_layout.strided, _layout.sparse_coo) and \
            layout is _layout.sparse_coo and sparse_dim not in (None, 2):
        raise RuntimeError(f"sparse_compressed_to_sparse: conversion from {source.word} to "
                           f"Sparse with sparse_dim argument !=2 is not supported")
    if source is _layout.sparse_coo and layout is source and sparse_dim is not None \
            and sparse_dim != data.sparse_dim:
        raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim "
                           "argument !=self.sparse_dim() is not supported")
    if source is layout and (layout not in _BLOCKED or blocksize is None
                             or tuple(blocksize) == data.blocksize):
        return self  # (torch's too, with or without a graph)
    node = track1(node_cls, self)
    if layout is _layout.sparse_coo:
        out = _to_coo(data, sparse_dim)
    else:
        out = _to_compressed(self, layout, blocksize, dense_dim)
        if layout in _BLOCKED:  # (the generated dtype table probes no blocked conversion)
            refuse_complex_grad(f'_to_{layout.name}', self)
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


def _to_compressed(self, layout, blocksize, dense_dim=None):
    """The storage of a tensor in a compressed layout: one matrix per index of the leading
    (batch) dims, each with the same number of entries, as torch requires."""
    dense = _dense(self._data)
    dd = dense_dim or 0
    if layout in _BLOCKED and blocksize is None:
        raise RuntimeError(f"dense_to_sparse: conversion from {_layout_name(self)} to "
                           f"{layout.word} without blocksize argument given is not supported")
    batch = dense.shape[:dense.ndim - 2 - dd]
    parts = [_compress(dense[b], layout, blocksize) for b in np.ndindex(*batch)]
    if len({len(p[1]) for p in parts}) > 1:
        raise RuntimeError("Expect the same number of specified elements per batch.")
    ci, pi, vals = (np.stack([p[k] for p in parts]).reshape(
        batch + parts[0][k].shape) if batch else parts[0][k] for k in range(3))
    return _storage().Compressed(ci, pi, vals, dense.shape, layout)


def _compress(matrix, layout, blocksize):
    """(compressed indices, plain indices, values) of one dense matrix."""
    rows_first = _storage().COMPRESSED[layout][2]
    if layout in _BLOCKED:
        br, bc = blocksize
        (rows, cols), dense = matrix.shape[:2], matrix.shape[2:]
        grid = matrix.reshape(rows // br, br, cols // bc, bc, *dense)
        grid = grid.transpose(0, 2, 1, 3, *range(4, grid.ndim))  # (values: a block's dense)
        present = grid.any(tuple(range(2, grid.ndim)))
    else:  # (an entry where any of its dense values is nonzero)
        present = (matrix != 0).any(tuple(range(2, matrix.ndim))) if matrix.ndim > 2 \
            else matrix != 0
    major, minor = np.nonzero(present if rows_first else present.T)
    counts = np.bincount(major, minlength=present.shape[0 if rows_first else 1])
    ci = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    r, c = (major, minor) if rows_first else (minor, major)
    vals = grid[r, c] if layout in _BLOCKED else matrix[r, c]
    return ci, minor.astype(np.int64), vals.copy()


@register(function=False)
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """This tensor in a sparse layout (COO unless ``layout`` says otherwise): the positions
    of its nonzero entries (over the first ``sparse_dim`` dims) and their values."""
    node_cls = ToSparseBackward1 if sparse_dim is None else ToSparseBackward0
    return _convert(self, _layout.sparse_coo if layout is None else layout, blocksize,
                    node_cls, sparse_dim, dense_dim)


@register(function=False)
def to_sparse_coo(self):
    """``to_sparse()``: the sparse COO form."""
    return to_sparse(self)


def _to_layout_method(layout, node_cls, blocked):
    name = f'to_{layout.name}'
    if blocked:
        def method(self, blocksize, dense_dim=None):
            return _convert(self, layout, blocksize, node_cls, dense_dim=dense_dim)
    else:
        def method(self, dense_dim=None):
            return _convert(self, layout, None, node_cls, dense_dim=dense_dim)
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
        raise NotImplementedError(unsupported_message(
            'sparse_mask', 'CPU', ('Meta', 'SparseCPU', 'SparseCsrCPU', 'SparseCsrMeta')))
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

