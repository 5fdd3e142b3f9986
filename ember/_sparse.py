"""Sparse storage: what a sparse tensor holds instead of a NumPy array.

A sparse tensor is an ordinary ``ember.Tensor`` (``type(t) is Tensor``, as in torch) whose
``_data`` is a ``COO`` (layout ``sparse_coo``: an int64 ``indices`` array of shape
(sparse_dim, nnz) and a ``values`` array of shape (nnz, *dense_shape)) or a ``Compressed``
(the CSR/CSC/BSR/BSC layouts) instead of an ndarray. These stand-ins answer the array
questions that are the same for every layout (``shape``, ``dtype``, ``ndim``, ``size``), so
the tensor's metadata, the autograd engine's shape checks and the op machinery work
unchanged. Elementwise arithmetic reaches them through NumPy's ufunc protocol
(``__array_ufunc__``): ``x * y``, ``2 * x``, ``x + y``, ``-x`` and ``x / 2`` on sparse operands
give torch's sparse (or dense) results, with the dense ops' autograd nodes. Anything else an op
asks of them (a dense array, an array method) raises torch's NotImplementedError for an op
without a kernel for the layout (``unsupported``; ``_ops._args.refuse`` names the op).

Nothing here is imported until a sparse tensor is made, so dense code pays nothing for it.
"""
import numpy as np

from . import _layout

__all__ = ['COO', 'Compressed', 'unsupported', 'unsupported_message', 'COMPRESSED']


def unsupported(what, backend):
    """The NotImplementedError for an op that asked sparse storage for something only dense
    arrays have (``what``: the array method or NumPy function; the ufunc's torch name).
    ``backend`` is torch's name of the dispatch key the tensor would have (``SparseCPU``,
    ``SparseCsrCPU``); ``_ops._args.refuse`` re-raises it naming the op that was called."""
    error = NotImplementedError(unsupported_message(_TORCH_NAMES.get(what, what), backend))
    error.sparse_backend = backend
    return error


# NumPy's names of ufuncs whose torch op is named otherwise
_TORCH_NAMES = {'negative': 'neg', 'true_divide': 'div', 'divide': 'div', 'absolute': 'abs',
                'power': 'pow', 'multiply': 'mul', 'subtract': 'sub', 'arctan2': 'atan2',
                'arcsin': 'asin', 'arccos': 'acos', 'arctan': 'atan', 'equal': 'eq',
                'not_equal': 'ne', 'greater': 'gt', 'less': 'lt', 'greater_equal': 'ge',
                'less_equal': 'le', 'floor_divide': 'floor_divide', 'remainder': 'remainder'}


def refusal(message):
    """torch's RuntimeError for a sparse operand it refuses; it stands as raised (the op
    machinery's later argument checks would ask the sparse storage for strides)."""
    error = RuntimeError(message)
    error._stands = True
    return error


# ops torch refuses for a sparse operand with their own message (others: no kernel)
_OWN_REFUSALS = {'reshape': "reshape is not implemented for sparse tensors"}


def op_refusal(op, backend):
    """What torch raises when ``op`` meets a tensor of ``backend`` it has no kernel for."""
    if op in _OWN_REFUSALS and backend == 'SparseCPU':
        return RuntimeError(_OWN_REFUSALS[op])
    return NotImplementedError(unsupported_message(op, backend))


# The dispatch keys of torch 2.13's CPU build that every op has a fallback or an autograd
# kernel for: its "Could not run" message lists them after the backends the op has kernels for.
_FALLBACK_KEYS = (
    'BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, '
    'Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, '
    'AutogradHIP, AutogradXLA, AutogradMPS, AutogradIPU, AutogradXPU, AutogradHPU, AutogradVE, '
    'AutogradLazy, AutogradMTIA, AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, '
    'AutogradPrivateUse3, AutogradMeta, AutogradNestedTensor, Tracer, AutocastCPU, '
    'AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, '
    'BatchedNestedTensor, FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, '
    'PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PreDispatch, PythonDispatcher')


def unsupported_message(op, backend, kernels=None):
    """torch's message for an op (``op``: aten's name, with its overload) with no kernel for
    ``backend``. ``kernels`` are the backends the op has kernels for, which torch lists
    (``('Meta',)`` for a CUDA-only op); None where they are not known -- an op's dense
    kernels met by a sparse layout -- gives the message's first sentence only."""
    head = (f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This "
            f"could be because the operator doesn't exist for this backend")
    if kernels is None:
        return head + '.'
    return (f"{head}, or was omitted during the selective/custom build process (if using "
            f"custom build). If you are a Facebook employee using PyTorch on mobile, please "
            f"visit https://fburl.com/ptmfixes for possible resolutions. 'aten::{op}' is only "
            f"available for these backends: [{', '.join(kernels)}, {_FALLBACK_KEYS}].")


class _Flags:
    """The array flags the op machinery reads: sparse storage is written by rebuilding it
    (in-place ops go through ``__array_ufunc__``'s ``out``) and has no strided layout."""
    writeable = True
    c_contiguous = f_contiguous = False


def _is_chalf(values):
    """Whether ``values`` hold complex32 (NumPy's structured dtype: no arithmetic)."""
    return values.dtype.names is not None


def _cast(values, dtype):
    """``values.astype(dtype)``, complex32 included (NumPy cannot cast to or from its
    structured dtype: ``_dtype.cast`` does)."""
    from . import _dtype
    return _dtype.cast(values, np.dtype(dtype))


class _Stand:
    """What every sparse stand-in shares: the array metadata and the refusals."""
    __slots__ = ()
    backend = 'SparseCPU'
    base = None  # (never a view of another array)
    flags = _Flags()

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        """The number of elements of the dense tensor (torch's ``numel``)."""
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def itemsize(self):
        return self.values.itemsize

    def sum(self, axis=None, dtype=None, keepdims=False, **kwargs):
        """The sum of all elements (``torch.sum(sparse)``): the stored values' sum."""
        if axis is not None or keepdims or kwargs:
            raise unsupported('sum', self.backend)
        return self.values.sum(dtype=dtype)

    def tolist(self):
        raise refusal("Cannot access data pointer of Tensor that doesn't have storage")

    @property
    def ctypes(self):
        raise refusal("Cannot access data pointer of Tensor that doesn't have storage")

    def reshape(self, *shape, **kwargs):
        raise refusal("reshape is not implemented for sparse tensors")

    def __array__(self, *args, **kwargs):
        raise unsupported('_to_dense', self.backend)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.copyto and type(args[0]) is type(self) and type(args[1]) is type(self):
            # (an in-place op's result written back: sparse storage takes the new storage)
            for name in type(self).__slots__:
                setattr(args[0], name, getattr(args[1], name))
            return None
        if func is np.swapaxes and type(self) is COO:  # (``transpose`` of sparse dims)
            return self.swapaxes(*args[1:], **kwargs)
        if func is np.transpose and type(self) is COO:  # (``permute``)
            return self.permuted(args[1] if len(args) > 1 else kwargs['axes'])
        raise unsupported(func.__name__, self.backend)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise unsupported(ufunc.__name__, self.backend)

    def __mul__(self, other):  # (kernels that scale an operand with ``*``: through the ufunc)
        return np.multiply(self, other)

    __rmul__ = __mul__

    def __getattr__(self, name):
        # Only reached for names the stand-in lacks: an array method a dense op wanted.
        if name.startswith('__'):
            raise AttributeError(name)
        raise unsupported(name, self.backend)


class COO(_Stand):
    """Sparse COO storage: ``indices`` (int64, (sparse_dim, nnz)), ``values`` ((nnz,
    *dense_shape)), the dense ``shape``, and whether the indices are known to be sorted and
    unique (``coalesced``)."""
    __slots__ = ('indices', 'values', 'shape', 'coalesced')
    layout = _layout.sparse_coo

    def __init__(self, indices, values, shape, coalesced):
        self.indices = indices
        self.values = values
        self.shape = tuple(shape)
        self.coalesced = bool(coalesced) or values.shape[0] <= 1

    @property
    def sparse_dim(self):
        return self.indices.shape[0]

    @property
    def nnz(self):
        return self.values.shape[0]

    def copy(self, order=None):
        return COO(self.indices.copy(), self.values.copy(), self.shape, self.coalesced)

    def astype(self, dtype, copy=True, **kwargs):
        return COO(self.indices, _cast(self.values, dtype), self.shape, self.coalesced)

    @property
    def T(self):
        """The transpose of a sparse matrix (``t``)."""
        return self.swapaxes(0, 1) if len(self.shape) == 2 else self

    def swapaxes(self, a, b):
        """The transpose over two sparse dims (``t``/``transpose`` of a sparse COO tensor):
        the index rows swap; the values are shared."""
        a, b = a % len(self.shape), b % len(self.shape)
        if a >= self.sparse_dim or b >= self.sparse_dim:
            raise unsupported('transpose', self.backend)
        order = list(range(self.sparse_dim))
        order[a], order[b] = b, a
        shape = list(self.shape)
        shape[a], shape[b] = shape[b], shape[a]
        return COO(self.indices[order], self.values, shape, a == b and self.coalesced)

    def permuted(self, axes):
        """The dims reordered (``permute`` of a sparse COO tensor): sparse dims among
        themselves (the index rows), dense dims among themselves (the values' dims)."""
        sd = self.sparse_dim
        axes = tuple(axes)
        if sorted(axes[:sd]) != list(range(sd)):
            raise RuntimeError("permute(sparse_coo): transpositions between sparse and dense "
                               "dimensions are not allowed.Only transpositions within sparse "
                               "and dense dimensions are supported.")
        values = self.values.transpose((0,) + tuple(a - sd + 1 for a in axes[sd:]))
        same = axes[:sd] == tuple(range(sd))
        return COO(self.indices[list(axes[:sd])], values, [self.shape[a] for a in axes],
                   same and self.coalesced)

    def _linear(self):
        """Each entry's position in the flattened sparse dims."""
        if self.sparse_dim == 0:
            return np.zeros(self.nnz, np.int64)
        return np.ravel_multi_index(tuple(self.indices), self.shape[:self.sparse_dim])

    def coalesce(self):
        """The same tensor with sorted, unique indices (duplicates summed)."""
        if self.coalesced:
            return self
        if _is_chalf(self.values):  # (summed in complex64, rounded back)
            return self.astype(np.complex64).coalesce().astype(self.values.dtype)
        order, inverse = np.unique(self._linear(), return_inverse=True)
        values = np.zeros((len(order),) + self.values.shape[1:], self.values.dtype)
        np.add.at(values, inverse.reshape(-1), self.values)
        if self.sparse_dim:
            indices = np.array(np.unravel_index(order, self.shape[:self.sparse_dim]), np.int64)
        else:
            indices = np.zeros((0, len(order)), np.int64)
        return COO(indices.reshape(self.sparse_dim, len(order)), values, self.shape, True)

    def dense(self):
        """The dense array (duplicate entries summed)."""
        if _is_chalf(self.values):  # (summed in complex64, rounded back)
            return _cast(self.astype(np.complex64).dense(), self.values.dtype)
        if not self.sparse_dim:  # (every entry is the whole tensor)
            return self.values.sum(0, dtype=self.values.dtype)
        out = np.zeros(self.shape, self.values.dtype)
        np.add.at(out, tuple(self.indices), self.values)
        return out

    def gather(self, arr):
        """The entries of dense ``arr`` at this tensor's indices, shaped as ``values``."""
        return arr[tuple(self.indices)]

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__
        out = kwargs.pop('out', None)
        kwargs.pop('casting', None)  # (the result's dtype is the operands', as in torch)
        if method != '__call__' or kwargs or len(inputs) > 2 or (out and len(out) > 1):
            raise unsupported(name, self.backend)
        r = _ufunc(name, ufunc, inputs)
        if not out:
            return r
        # in place (``a += b``, ``a.mul_(2)``): the result written into ``out``
        target = out[0]
        if type(target) is COO:
            if type(r) is not COO:
                raise unsupported(name + '_', self.backend)
            target.indices, target.values, target.coalesced = r.indices, r.values, r.coalesced
        elif isinstance(target, np.ndarray):
            target[...] = r.dense() if type(r) is COO else r
        else:
            raise unsupported(name, self.backend)
        return target


def _ufunc(name, ufunc, inputs):
    """The ufunc ``name`` of ``inputs``, one of them sparse: the elementwise ops torch has
    sparse kernels for."""
    if name == 'multiply':
        return _multiply(*inputs)
    if name in ('add', 'subtract'):
        return _add(*inputs, subtract=name == 'subtract')
    a = inputs[0]
    if name in ('true_divide', 'divide') and type(a) is COO and \
            not isinstance(inputs[1], (COO, np.ndarray)):
        return COO(a.indices, ufunc(a.values, inputs[1]), a.shape, a.coalesced)
    if name == 'negative':
        return COO(a.indices, -a.values, a.shape, a.coalesced)
    if name == 'matmul':
        return _matmul(*inputs)
    raise unsupported(name, COO.backend)


def _matmul(a, b):
    """The product of two matrices, one of them or both sparse COO (``mm``): sparse times
    sparse stays sparse, as in torch; a dense operand makes the product dense."""
    sparse_a, sparse_b = type(a) is COO, type(b) is COO
    if (sparse_a and a.sparse_dim != 2) or (sparse_b and b.sparse_dim != 2):
        raise unsupported('mm', COO.backend)
    if sparse_a and sparse_b:
        return dense_to_coo(a.dense() @ b.dense(), 2)
    if sparse_a:  # (each entry adds its value times a row of ``b`` to a row of the result)
        out = np.zeros((a.shape[0], b.shape[1]), np.result_type(a.values, b))
        np.add.at(out, a.indices[0], a.values[:, None] * b[a.indices[1]])
        return out
    out = np.zeros((a.shape[0], b.shape[1]), np.result_type(a, b.values))
    np.add.at(out.T, b.indices[1], b.values[:, None] * a[:, b.indices[0]].T)
    return out


def dense_to_coo(data, sparse_dim):
    """The coalesced COO storage of the dense array ``data``: an entry for each position of
    the first ``sparse_dim`` dims with a nonzero anywhere in its block."""
    nd = data.ndim
    nonzero = (data != 0).any(tuple(range(sparse_dim, nd))) if sparse_dim < nd else data != 0
    if sparse_dim:
        idx = np.array(np.nonzero(nonzero), np.int64).reshape(sparse_dim, -1)
        vals = data[tuple(idx)].copy()
    else:  # (a 0-d tensor: one entry, with no index, if it is nonzero)
        idx = np.zeros((0, int(nonzero)), np.int64)
        vals = data.reshape(1)[:int(nonzero)].copy()
    return COO(idx, vals, data.shape, True)


def _multiply(a, b):
    """``a * b`` with a sparse operand: sparse, on the sparse operand's pattern."""
    if type(a) is not COO:
        a, b = b, a
    if type(b) is COO:
        if b.shape != a.shape:
            raise refusal(f"mul(sparse, sparse): operands have incompatible sizes "
                               f"{list(a.shape)} and {list(b.shape)}")
        if a.coalesced and b.coalesced:
            # both sorted and unique: the product lives where both have entries
            _, ia, ib = np.intersect1d(a._linear(), b._linear(), assume_unique=True,
                                       return_indices=True)
            return COO(a.indices[:, ia], a.values[ia] * b.values[ib], a.shape, True)
        return COO(a.indices, a.values * a.gather(b.dense()), a.shape, a.coalesced)
    if isinstance(b, np.ndarray) and b.ndim:
        if b.shape != a.shape:
            raise refusal(f"mul(sparse, dense): operands must have the same size, got "
                               f"{list(a.shape)} and {list(b.shape)}")
        return COO(a.indices, a.values * a.gather(b), a.shape, a.coalesced)
    return COO(a.indices, a.values * b, a.shape, a.coalesced)


def _add(a, b, subtract):
    """``a + b`` / ``a - b`` with a sparse operand: sparse + sparse stays sparse (the
    entries merged as torch merges them, ``_merge``, when both values arrays are contiguous;
    else concatenated, as torch's kernel for strided values does); dense + sparse is
    dense."""
    op = 'sub' if subtract else 'add'
    if type(a) is not COO:
        if not isinstance(a, np.ndarray) or a.shape != b.shape:
            raise refusal(f"{op}: expected 'self' and 'other' to have same size, but "
                               f"self has size {list(np.shape(a))} while other has size "
                               f"{list(b.shape)} (FYI: dense-sparse addition does not "
                               f"currently support broadcasting)")
        out = np.array(a, b.dtype if a.dtype != b.dtype else None)
        np.add.at(out, tuple(b.indices), -b.values if subtract else b.values)
        return out
    if type(b) is not COO:
        raise refusal(f"{op}(sparse, dense) is not supported. Use {op}(dense, sparse) "
                           f"instead.")
    if a.shape != b.shape:
        raise refusal(f"{op}: expected 'self' and 'other' to have same size, but self has "
                           f"size {list(a.shape)} while other has size {list(b.shape)} (FYI: "
                           f"op2-sparse addition does not currently support broadcasting)")
    if not (a.values.flags.c_contiguous and b.values.flags.c_contiguous):
        values = np.concatenate([a.values, -b.values if subtract else b.values])
        return COO(np.concatenate([a.indices, b.indices], 1), values, a.shape, False)
    ia, ib = _merge(a._linear(), b._linear())
    take_a, take_b = ia >= 0, ib >= 0
    values = np.zeros((len(ia),) + a.values.shape[1:],
                      np.result_type(a.values, b.values))
    values[take_a] += a.values[ia[take_a]]
    values[take_b] += -b.values[ib[take_b]] if subtract else b.values[ib[take_b]]
    indices = np.where(take_a, a.indices[:, np.maximum(ia, 0)] if a.nnz else 0,
                       b.indices[:, np.maximum(ib, 0)] if b.nnz else 0)
    return COO(indices.astype(np.int64).reshape(a.sparse_dim, len(ia)), values, a.shape,
               a.coalesced and b.coalesced)


def _merge(la, lb):
    """How torch adds two COO tensors' entries (positions ``la`` and ``lb`` in the
    flattened sparse dims): one pass over both lists at once, as in merging two sorted
    lists -- equal positions under the two cursors become one entry, else the smaller comes
    first. (Sorted, unique lists give their union; others keep duplicates.) Returns, per
    result entry, the entry of each operand it holds (-1: none)."""
    n, m = len(la), len(lb)
    if (n < 2 or np.all(np.diff(la) > 0)) and (m < 2 or np.all(np.diff(lb) > 0)):
        keys = np.union1d(la, lb)
        ia, ib = np.full(len(keys), -1), np.full(len(keys), -1)
        ia[np.searchsorted(keys, la)] = np.arange(n)
        ib[np.searchsorted(keys, lb)] = np.arange(m)
        return ia, ib
    ia, ib, i, j = [], [], 0, 0
    while i < n or j < m:
        if j == m or (i < n and la[i] < lb[j]):
            ia.append(i), ib.append(-1)
            i += 1
        elif i == n or lb[j] < la[i]:
            ia.append(-1), ib.append(j)
            j += 1
        else:
            ia.append(i), ib.append(j)
            i, j = i + 1, j + 1
    return np.array(ia, np.int64), np.array(ib, np.int64)


_layout.STORAGE.add(COO)


# -- the compressed layouts ---------------------------------------------------------------------

# layout -> (name of the compressed indices, of the plain ones, whether rows are compressed)
COMPRESSED = {
    _layout.sparse_csr: ('crow_indices', 'col_indices', True),
    _layout.sparse_csc: ('ccol_indices', 'row_indices', False),
    _layout.sparse_bsr: ('crow_indices', 'col_indices', True),
    _layout.sparse_bsc: ('ccol_indices', 'row_indices', False),
}


class Compressed(_Stand):
    """CSR/CSC/BSR/BSC storage: ``compressed`` (where each row's -- or column's -- entries
    start, plus the end), ``plain`` (each entry's column -- or row), ``values`` ((nnz,
    *block, *dense) for the blocked layouts), the dense ``shape`` and the ``layout``."""
    __slots__ = ('compressed', 'plain', 'values', 'shape', 'layout')
    backend = 'SparseCsrCPU'

    def __init__(self, compressed, plain, values, shape, layout):
        self.compressed = compressed
        self.plain = plain
        self.values = values
        self.shape = tuple(shape)
        self.layout = layout

    @property
    def blocked(self):
        return self.layout in (_layout.sparse_bsr, _layout.sparse_bsc)

    @property
    def nnz(self):
        return self.plain.shape[-1]

    def copy(self, order=None):
        return Compressed(self.compressed.copy(), self.plain.copy(), self.values.copy(),
                          self.shape, self.layout)

    def astype(self, dtype, copy=True, **kwargs):
        return Compressed(self.compressed, self.plain, _cast(self.values, dtype), self.shape,
                          self.layout)

    def dense(self):
        """The dense array: each batch's matrix written out (duplicate entries summed)."""
        if _is_chalf(self.values):  # (summed in complex64, rounded back)
            return _cast(self.astype(np.complex64).dense(), self.values.dtype)
        out = np.zeros(self.shape, self.values.dtype)
        batch = self.compressed.ndim - 1
        for b in np.ndindex(*self.compressed.shape[:batch]):
            self._write(out[b], self.compressed[b], self.plain[b], self.values[b])
        return out

    @property
    def blocksize(self):
        """The (rows, columns) of a block of the blocked layouts; None for CSR/CSC."""
        if not self.blocked:
            return None
        batch = self.compressed.ndim - 1
        return tuple(self.values.shape[batch + 1:batch + 3])

    def with_values_of(self, dense):
        """The same pattern holding the entries (blocks) of the dense array ``dense``
        (``sparse_mask`` with this tensor as the mask)."""
        values = np.empty_like(self.values, dtype=dense.dtype)
        batch = self.compressed.ndim - 1
        for b in np.ndindex(*self.compressed.shape[:batch]):
            r, c = self._positions(self.compressed[b], self.plain[b])
            if not self.blocked:
                values[b] = dense[b][r, c]
                continue
            br, bc = self.blocksize
            for k in range(len(r)):
                values[b][k] = dense[b][r[k] * br:(r[k] + 1) * br, c[k] * bc:(c[k] + 1) * bc]
        return Compressed(self.compressed, self.plain, values, self.shape, self.layout)

    def _positions(self, compressed, plain):
        """Each entry's (row, column) -- of blocks, for the blocked layouts."""
        counts = np.diff(compressed)
        major = np.repeat(np.arange(len(counts)), counts)
        return (major, plain) if COMPRESSED[self.layout][2] else (plain, major)

    def _write(self, out, compressed, plain, values):
        """Writes one (unbatched) compressed matrix into ``out``."""
        r, c = self._positions(compressed, plain)
        if not self.blocked:
            np.add.at(out, (r, c), values)
            return
        br, bc = values.shape[1:3]
        for k in range(len(plain)):
            out[r[k] * br:(r[k] + 1) * br, c[k] * bc:(c[k] + 1) * bc] += values[k]


_layout.STORAGE.add(Compressed)
