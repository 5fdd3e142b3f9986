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

# whether the constructors check their indices when ``check_invariants`` is not given
# (``ember.sparse.check_sparse_tensor_invariants`` switches it)
INVARIANTS = [False]


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
    if check_invariants or (check_invariants is None and INVARIANTS[0]):
        for d in range(sparse_dim):
            if idx.shape[1] and (idx[d].min() < 0 or idx[d].max() >= size[d]):
                bad = idx[d].min() if idx[d].min() < 0 else idx[d].max()
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                                   f"{size[d]} but found index {bad}")
    # (a values tensor is aliased, as torch does, and its gradient flows back to it)
    coo = _storage().COO(idx, vals, size, bool(is_coalesced))
    if isinstance(values, Tensor) and values._requires_grad:
        node = track1(SparseCooTensorWithDimsAndTensorsBackward0, values)
        if node is not None:
            check_device(device, 'sparse_coo_tensor')
            node.indices = idx
            return result(coo, node)
    return _finish(coo, requires_grad, device, 'sparse_coo_tensor')


class SparseCooTensorWithDimsAndTensorsBackward0(Node):
    """The gradient of the values: each entry's share of the output gradient (the
    gradient at its position, which duplicate positions all get)."""
    def backward(self, g):
        dense = g.to_dense()
        nnz = self.indices.shape[1]
        if not self.indices.shape[0]:  # (no sparse dims: every entry is the whole tensor)
            return dense.unsqueeze(0).expand((nnz,) + tuple(dense.shape))
        return dense[tuple(make(row) for row in self.indices)]


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
    node = track1(ValuesBackward0, self) if data.layout is _layout.sparse_coo else None
    if node is not None:
        node.coo = data
    return result(data.values, node)


class ValuesBackward0(Node):
    """The gradient of a COO tensor's values: a sparse tensor of its pattern holding it."""
    def backward(self, g):
        coo = self.coo
        return sparse_coo_tensor(make(coo.indices), g, coo.shape, is_coalesced=True)


# the backends torch has kernels of these ops for, as its error for a dense tensor lists them
_KERNELS = {'_nnz': ('Meta', 'SparseCPU', 'SparseMeta', 'SparseCsrCPU', 'SparseCsrMeta')}


def _stored(self, op):
    """``self``'s COO storage; for a dense tensor torch's error for an op without a CPU
    kernel."""
    data = self._data
    if type(data) is np.ndarray:
        from .._sparse import unsupported_message
        raise NotImplementedError(unsupported_message(
            op, 'CPU', _KERNELS.get(op, ('Meta', 'SparseCPU', 'SparseMeta'))))
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
