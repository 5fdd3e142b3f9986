"""The sparse ops: the constructors (``sparse_coo_tensor``, ``sparse_csr_tensor`` and the
other compressed layouts), the conversions (``to_sparse``, ``to_dense``), and what torch
answers about a sparse tensor's storage (``indices``/``values``, ``coalesce``, ``_nnz``,
``sparse_dim``/``dense_dim``, ``crow_indices``...).

The storage classes live in ``ember._sparse`` and load with the first sparse tensor; for a
dense tensor these ops give torch's dense answers or its layout errors.
"""
import numpy as np

from .. import _layout
from .._device import check_device
from .._tensor import Tensor, make, to_array
from ..autograd.graph import Node
from ._core import register, track1, result

__all__ = []


def _storage():
    from .. import _sparse  # (first use: dense code never loads it)
    return _sparse


def _layout_name(t):
    """torch's name of a tensor's layout in its layout errors (``Strided``, ``SparseCsr``)."""
    return t.layout.word


def _coo(self, op):
    """``self``'s COO storage; torch's error for another layout."""
    data = self._data
    if type(data) is np.ndarray or data.layout is not _layout.sparse_coo:
        raise RuntimeError(f"{op} expected sparse coordinate tensor layout but got "
                           f"{_layout_name(self)}")
    return data


def _array(x, dtype=None):
    """An ndarray of ``x`` (a tensor, array, nested list or number)."""
    if isinstance(x, Tensor):
        arr = x._data
        if type(arr) is not np.ndarray:
            raise TypeError("expected a strided tensor for the indices and values of a "
                            "sparse tensor")
        return arr if dtype is None else arr.astype(dtype.np)
    return to_array(x, dtype)


def _finish(data, requires_grad, device, op):
    """A tensor over sparse storage ``data``, a leaf requiring grad if asked."""
    check_device(device, op)
    t = make(data)
    if requires_grad:
        if data.dtype.kind not in 'fcV':
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


# -- COO ---------------------------------------------------------------------------------------

@register(method=False)
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor: ``values[k]`` sits at the position ``indices[:, k]``; ``size``
    is inferred (one past the largest index of each sparse dim) when not given. Duplicate
    positions are allowed (their values add up); ``is_coalesced()`` says whether the indices
    are known to be sorted and unique."""
    idx = _array(indices).astype(np.int64)
    vals = _array(values, dtype)
    if idx.ndim == 1:
        idx = idx.reshape(-1, 1)  # (a single position, as torch reads a 1-d index list)
    if vals.ndim == 0:
        vals = vals.reshape(1)
    sparse_dim = idx.shape[0]
    if idx.shape[1] != vals.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{idx.shape[1]}, nnz from values: {vals.shape[0]}")
    if size is None:
        size = (tuple(int(m) + 1 for m in idx.max(1)) if idx.shape[1]
                else (0,) * sparse_dim) + vals.shape[1:]
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + vals.ndim - 1:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) "
                           f"= {len(size)}, sparse_dim = {sparse_dim}, dense_dim = "
                           f"{vals.ndim - 1}")
    if check_invariants:
        for d in range(sparse_dim):
            if idx.shape[1] and (idx[d].min() < 0 or idx[d].max() >= size[d]):
                bad = idx[d].min() if idx[d].min() < 0 else idx[d].max()
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                                   f"{size[d]} but found index {bad}")
    coo = _storage().COO(idx, vals.copy() if isinstance(values, Tensor) else vals, size,
                         bool(is_coalesced))
    return _finish(coo, requires_grad, device, 'sparse_coo_tensor')


@register(function=False)
def is_coalesced(self):
    """Whether the indices are known to be sorted and unique (sparse COO only)."""
    return _coo(self, 'is_coalesced').coalesced


class CoalesceBackward0(Node):
    def backward(self, g):
        return g


@register(function=False)
def coalesce(self):
    """The same values with sorted, unique indices (duplicates summed); ``self`` when it
    already is coalesced."""
    data = _coo(self, 'coalesce')
    if data.coalesced:
        return self
    return result(data.coalesce(), track1(CoalesceBackward0, self))


@register(function=False)
def indices(self):
    """The (sparse_dim, nnz) int64 positions of a coalesced sparse COO tensor."""
    data = _coo(self, 'indices')
    if not data.coalesced:
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                           ".coalesce() first")
    return make(data.indices)


@register(function=False)
def values(self):
    """The (nnz, *dense_shape) values of a coalesced sparse COO tensor."""
    data = self._data
    if type(data) is np.ndarray:
        raise RuntimeError("values expected sparse tensor layout but got Strided")
    if data.layout is _layout.sparse_coo and not data.coalesced:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                           ".coalesce() first")
    return make(data.values)


def _stored(self, op):
    """``self``'s COO storage; for a dense tensor torch's error for an op without a CPU
    kernel."""
    data = self._data
    if type(data) is np.ndarray:
        from .._sparse import unsupported_message
        raise NotImplementedError(unsupported_message(op, 'CPU'))
    return _coo(self, op)


@register(function=False)
def _indices(self):
    """The positions as stored (coalesced or not)."""
    return make(_stored(self, '_indices').indices)


@register(function=False)
def _values(self):
    """The values as stored (coalesced or not)."""
    return make(_stored(self, '_values').values)


@register(function=False)
def _nnz(self):
    """The number of stored entries."""
    data = self._data
    if type(data) is np.ndarray:
        _stored(self, '_nnz')
    return data.nnz


@register(function=False)
def sparse_dim(self):
    """The number of sparse dims: 0 for a dense tensor, 2 for a compressed one."""
    data = self._data
    if type(data) is np.ndarray:
        return 0
    return data.sparse_dim if data.layout is _layout.sparse_coo else 2


@register(function=False)
def dense_dim(self):
    """The number of dense dims: all of them, for a dense tensor."""
    data = self._data
    if type(data) is np.ndarray:
        return data.ndim
    if data.layout is _layout.sparse_coo:
        return data.values.ndim - 1
    return data.values.ndim - data.compressed.ndim - (2 if data.blocked else 0)


class ToDenseBackward0(Node):
    def backward(self, g):
        (inp,) = self.saved_tensors
        return sparse_mask(g, coalesce(inp.detach()))


@register(function=False)
def to_dense(self, dtype=None, *, masked_grad=None):
    """The dense tensor: ``self`` when it is dense already (converted to ``dtype`` if
    given); a sparse one's entries written out, duplicates summed."""
    data = self._data
    if type(data) is np.ndarray:
        return self if dtype is None or dtype == self.dtype else self.to(dtype)
    if dtype is not None:
        raise RuntimeError(f"dtype argument is not supported by "
                           f"{'sparse' if self.is_sparse else 'sparse_csr'}_to_dense")
    out = data.dense()
    node = track1(ToDenseBackward0, self) if data.layout is _layout.sparse_coo else None
    if node is not None:
        node.save(self)
    return result(out, node)


class SparseMaskBackward0(Node):
    def backward(self, g):
        return g.to_dense()


@register(function=False)
def sparse_mask(self, mask):
    """The entries of ``self`` at the positions of the sparse ``mask``, as a sparse tensor
    with ``mask``'s pattern (duplicates, if any, repeat the entry)."""
    m = mask._data
    if type(m) is np.ndarray or m.layout is not _layout.sparse_coo:
        from .._sparse import unsupported_message
        raise NotImplementedError(unsupported_message('sparse_mask', 'CPU'))
    if tuple(self.shape) != m.shape:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(self.shape)} but mask has size {list(m.shape)}")
    dense = self._data if type(self._data) is np.ndarray else self._data.dense()
    node = track1(SparseMaskBackward0, self)
    return result(_storage().COO(m.indices, m.gather(dense).astype(dense.dtype), m.shape,
                                 m.coalesced), node)


class ToSparseBackward0(Node):
    """(``to_sparse(sparse_dim)``; ``to_sparse()`` is ``ToSparseBackward1``, as in torch)"""
    def backward(self, g):
        return g.to_dense()


class ToSparseBackward1(ToSparseBackward0):
    pass


@register(function=False)
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """This tensor in a sparse layout (COO unless ``layout`` says otherwise): the positions
    of its nonzero entries (over the first ``sparse_dim`` dims) and their values."""
    data = self._data
    if layout is not None and layout is not _layout.sparse_coo:
        return _to_compressed(self, layout, blocksize)
    if type(data) is not np.ndarray:
        if data.layout is _layout.sparse_coo:
            return self
        data = data.dense()
    nd = data.ndim
    sd = nd if sparse_dim is None else sparse_dim
    if not 0 <= sd <= nd:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{nd}] range, "
                           f"but {sd} is given")
    if sd == 0 and nd:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                           "self.dim()>0")
    # an entry for each position of the sparse dims with a nonzero anywhere in its block
    nonzero = (data != 0).any(tuple(range(sd, nd))) if sd < nd else data != 0
    if sd:
        idx = np.array(np.nonzero(nonzero), np.int64).reshape(sd, -1)
        vals = data[tuple(idx)].copy()
    else:  # (a 0-d tensor: one entry, with no index, if it is nonzero)
        idx = np.zeros((0, int(nonzero)), np.int64)
        vals = data.reshape(1)[:int(nonzero)].copy()
    coo = _storage().COO(idx, vals, data.shape, True)
    return result(coo, track1(ToSparseBackward1 if sparse_dim is None else ToSparseBackward0,
                              self))


@register(function=False)
def to_sparse_coo(self):
    """``to_sparse()``: the sparse COO form."""
    return to_sparse(self)


# -- the compressed layouts --------------------------------------------------------------------

def _compressed(compressed_indices, plain_indices, values, size, layout, dtype, device,
                requires_grad, op):
    """A sparse tensor of a compressed layout; batched when the indices have more than one
    dim (one compressed matrix per leading index)."""
    ci = _array(compressed_indices)
    pi = _array(plain_indices)
    # (int32 indices stay int32 when both are; anything else becomes int64, as in torch)
    itype = np.int32 if ci.dtype == pi.dtype == np.int32 else np.int64
    ci, pi = ci.astype(itype), pi.astype(itype)
    vals = _array(values, dtype)
    first, second, rows_first = _storage().COMPRESSED[layout]
    blocked = layout in (_layout.sparse_bsr, _layout.sparse_bsc)
    if size is None:  # (torch checks the indices' dims only where it infers the size)
        if ci.ndim < 1:
            raise RuntimeError(f"{first} must have dimensionality >= 1 but got {ci.ndim}")
        if ci.ndim != pi.ndim:
            raise RuntimeError(f"{first} and {second} dimensionalities must be equal but got "
                               f"{ci.ndim} and {pi.ndim}, respectively")
    batch = ci.ndim - 1
    block = 2 if blocked else 0
    if vals.ndim <= batch + block:
        raise RuntimeError(f"values must have dimensionality > sum of batch and block "
                           f"dimensionalities (={batch} + {block}) but got {vals.ndim}")
    if size is None:
        # (the smallest size holding every entry, as torch infers it)
        bsize = vals.shape[batch + 1:batch + 3] if blocked else (1, 1)
        major = ci.shape[-1] - 1
        minor = int(pi.max()) + 1 if pi.size else 0
        dims = (major, minor) if rows_first else (minor, major)
        size = (ci.shape[:batch] + (dims[0] * bsize[0], dims[1] * bsize[1])
                + vals.shape[batch + 1 + block:])
    size = tuple(int(s) for s in size)
    data = _storage().Compressed(ci, pi, vals, size, layout)
    return _finish(data, requires_grad, device, op)


def _compressed_factory(fixed, what):
    """``sparse_<csr|csc|bsr|bsc>_tensor``: the compressed constructor of layout ``fixed``
    (``layout=`` is accepted, as torch's signature has it, and ignored)."""
    def factory(compressed_indices, plain_indices, values, size=None, *, dtype=None,
                layout=None, device=None, pin_memory=False, requires_grad=False,
                check_invariants=None):
        return _compressed(compressed_indices, plain_indices, values, size, fixed, dtype,
                           device, requires_grad, name)
    name = f'sparse_{fixed.name[7:]}_tensor'
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = (f"A sparse {fixed.name[7:].upper()} tensor: {what}, and ``values`` "
                       f"(one per entry), of ``size`` (inferred when not given).")
    register(factory, method=False)


_compressed_factory(_layout.sparse_csr, "``crow_indices`` (where each row's entries start) "
                    "and ``col_indices``")
_compressed_factory(_layout.sparse_csc, "``ccol_indices`` (where each column's entries "
                    "start) and ``row_indices``")
_compressed_factory(_layout.sparse_bsr, "``crow_indices`` (where each row of blocks starts) "
                    "and ``col_indices`` (each block's column)")
_compressed_factory(_layout.sparse_bsc, "``ccol_indices`` (where each column of blocks "
                    "starts) and ``row_indices`` (each block's row)")


@register(method=False)
def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *,
                             dtype=None, layout=None, device=None, pin_memory=False,
                             requires_grad=False, check_invariants=None):
    """A sparse tensor in the compressed ``layout`` (CSR, CSC, BSR or BSC)."""
    if layout not in (_layout.sparse_csr, _layout.sparse_csc, _layout.sparse_bsr,
                      _layout.sparse_bsc):
        raise RuntimeError(f"sparse_compressed_tensor expected sparse compressed tensor "
                           f"layout but got {layout.word if layout is not None else 'none'}")
    return _compressed(compressed_indices, plain_indices, values, size, layout, dtype, device,
                       requires_grad, 'sparse_compressed_tensor')


def _to_compressed(self, layout, blocksize):
    """A dense 2-d tensor in a compressed layout (unbatched, no dense dims)."""
    dense = self.to_dense()._data
    if dense.ndim != 2:
        raise RuntimeError(f"to_sparse: ember converts only 2-d tensors to {layout}")
    rows_first = _storage().COMPRESSED[layout][2]
    blocked = layout in (_layout.sparse_bsr, _layout.sparse_bsc)
    if blocked:
        if blocksize is None:
            raise RuntimeError(f"dense_to_sparse: conversion from {_layout_name(self)} to "
                               f"{layout.word}"
                               f" without blocksize argument given is not supported")
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
    vals = grid[r, c] if blocked else dense[r, c]
    return make(_storage().Compressed(ci, minor.astype(np.int64), vals.copy(), dense.shape,
                                      layout))


@register(function=False)
def to_sparse_csr(self, dense_dim=None):
    """The sparse CSR form of a 2-d tensor."""
    return _to_compressed(self, _layout.sparse_csr, None)


def _compressed_part(name, which, layouts, kind):
    def get(self):
        data = self._data
        if type(data) is np.ndarray or data.layout not in layouts:
            raise RuntimeError(f"{name} expected sparse {kind} compressed tensor layout but "
                               f"got {_layout_name(self)}")
        return make(getattr(data, which))
    get.__name__ = get.__qualname__ = name
    get.__doc__ = f"The ``{name}`` of a compressed sparse tensor."
    register(get, function=False)


_ROWS = (_layout.sparse_csr, _layout.sparse_bsr)
_COLUMNS = (_layout.sparse_csc, _layout.sparse_bsc)
_compressed_part('crow_indices', 'compressed', _ROWS, 'row')
_compressed_part('col_indices', 'plain', _ROWS, 'row')
_compressed_part('ccol_indices', 'compressed', _COLUMNS, 'column')
_compressed_part('row_indices', 'plain', _COLUMNS, 'column')
