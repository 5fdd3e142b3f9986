"""``torch.sparse``: the functions of sparse tensors that torch keeps in their own namespace
(``mm``, ``addmm``, ``sum``, ``softmax``, ``log_softmax``) and the switch of invariant checks.

The sparse storage and the ops every layout shares live in ``ember._sparse`` and
``ember._ops.sparse``; this namespace loads on first use (``ember.sparse``). Each function has
torch's autograd node (``SparseAddmmBackward0``, ``SparseSumBackward0``,
``SparseSoftmaxBackward0``...): a sparse operand's gradient keeps its pattern.
"""
import numpy as np

from .. import _layout
from .._tensor import Tensor, make
from .._ops import sparse as _ops
from .._ops._core import Node, track, track1, result

__all__ = ['addmm', 'check_sparse_tensor_invariants', 'mm', 'sum', 'softmax', 'log_softmax']


def _is_coo(t):
    return isinstance(t, Tensor) and t.layout is _layout.sparse_coo


class SparseAddmmBackward0(Node):
    """``beta * input + alpha * mat1 @ mat2`` with a sparse ``mat1``: its gradient is masked
    to ``mat1``'s pattern."""
    def backward(self, g):
        mat1, mat2 = self.saved_tensors
        g_input = g * self.beta if self.beta != 1 else g
        g_mat1 = (g.mm(mat2.mH) * self.alpha).sparse_mask(mat1.coalesce())
        g_mat2 = mat1.mH.mm(g) * self.alpha
        return g_input, g_mat1, g_mat2


def addmm(mat, mat1, mat2, *, beta=1., alpha=1.):
    """``beta * mat + alpha * (mat1 @ mat2)`` for a sparse COO ``mat1`` and dense ``mat2``
    (a dense result)."""
    if not _is_coo(mat1) or mat2.layout is not _layout.strided:
        return mat * beta + (mat1.mm(mat2)) * alpha
    product = mat1._data.__array_ufunc__(np.matmul, '__call__', mat1._data, mat2._data)
    value = np.broadcast_to(mat._data, product.shape) * beta + product * alpha
    node = track(SparseAddmmBackward0, (mat, mat1, mat2))
    if node is not None:
        node.save(mat1.detach(), mat2.detach())
        node.beta, node.alpha = beta, alpha
    return result(value.astype(product.dtype), node)


def mm(mat1, mat2, reduce='sum'):
    """The matrix product with a sparse operand: dense for sparse times dense (its gradient
    for ``mat1`` masked to ``mat1``'s pattern), sparse for two sparse operands."""
    if reduce != 'sum':
        raise NotImplementedError("ember.sparse.mm: only reduce='sum' is supported")
    if _is_coo(mat1) and mat2.layout is _layout.strided:
        zeros = make(np.zeros((mat1.shape[0], mat2.shape[1]), mat2._data.dtype))
        return addmm(zeros, mat1, mat2, beta=0., alpha=1.)
    return mat1.mm(mat2)


class SparseSumBackward0(Node):
    """The gradient of a sum over some dims: the output gradient spread back over the summed
    dims, at the input's entries."""
    def backward(self, g):
        (inp,) = self.saved_tensors
        g = g.to_dense()
        for d in self.dims:
            g = g.unsqueeze(d)
        return g.expand(tuple(inp.shape)).sparse_mask(inp.coalesce())


class SumBackward0(SparseSumBackward0):
    """(``sparse.sum`` over all dims: torch names it as the dense sum, its gradient stays
    masked to the input's entries)"""


def sum(input, dim=None, dtype=None):
    """The sum of a sparse COO tensor: of all elements (a dense scalar), or over ``dim``
    (sparse while sparse dims remain, else dense)."""
    if dtype is not None:
        input = input.to(dtype)
    data = _ops._coo(input, 'sparse.sum')
    nd = len(data.shape)
    dims = tuple(range(nd)) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(sorted({d % nd for d in dims}))
    value = data.dense().sum(axis=dims)
    left = data.sparse_dim - len([d for d in dims if d < data.sparse_dim])
    out = _ops._storage().dense_to_coo(value, left) if left else np.asarray(value)
    node = track1(SumBackward0 if dim is None else SparseSumBackward0, input)
    if node is not None:
        node.save(input.detach())
        node.dims = dims
    return result(out, node)


def _pattern(data):
    """The dense mask of a coalesced COO tensor's entries."""
    mask = np.zeros(data.shape, bool)
    mask[tuple(data.indices)] = True
    return mask


def _softmax(input, dim, dtype, log, node_cls):
    if dtype is not None:
        input = input.to(dtype)
    data = _ops._coo(input, 'softmax').coalesce()
    dim = dim % len(data.shape)
    mask = _pattern(data)
    x = np.where(mask, data.dense(), -np.inf)
    top = np.max(x, axis=dim, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    shifted = x - top
    total = np.exp(shifted).sum(axis=dim, keepdims=True)
    value = shifted - np.log(total) if log else np.exp(shifted) / total
    out = _ops._storage().COO(data.indices, value[tuple(data.indices)].astype(data.dtype),
                              data.shape, True)
    node = track1(node_cls, input)
    t = result(out, node)
    if node is not None:
        node.dim, node.mask = dim, mask
        node.out = t.detach()
    return t


class SparseSoftmaxBackward0(Node):
    def backward(self, g):
        y = self.out.to_dense()
        g = g.to_dense()
        return (y * (g - (g * y).sum(self.dim, keepdim=True))).sparse_mask(self.out)


class SparseLogSoftmaxBackward0(Node):
    def backward(self, g):
        p = self.out.to_dense().exp() * make(self.mask.astype(self.out._data.dtype))
        g = g.to_dense()
        return (g - p * g.sum(self.dim, keepdim=True)).sparse_mask(self.out)


def softmax(input, dim, *, dtype=None):
    """Softmax of a sparse COO tensor along ``dim`` over its entries only (the missing ones
    count as -inf): sparse, with ``input``'s pattern."""
    return _softmax(input, dim, dtype, False, SparseSoftmaxBackward0)


def log_softmax(input, dim, *, dtype=None):
    """``log(softmax(input, dim))`` of a sparse COO tensor, over its entries."""
    return _softmax(input, dim, dtype, True, SparseLogSoftmaxBackward0)


class check_sparse_tensor_invariants:
    """Turns the checks of sparse tensors' indices on (``enable``) or off, globally or in a
    ``with`` block / decorated function; ``sparse_coo_tensor`` reads the switch when its
    ``check_invariants`` is not given."""

    @staticmethod
    def is_enabled():
        """Whether the constructors check their indices by default."""
        return _ops.INVARIANTS[0]

    @staticmethod
    def enable():
        """Turn the checks on."""
        _ops.INVARIANTS[0] = True

    @staticmethod
    def disable():
        """Turn the checks off."""
        _ops.INVARIANTS[0] = False

    def __init__(self, enable=True):
        self.state = enable
        self.saved = None

    def __enter__(self):
        if self.saved is not None:
            raise RuntimeError("This context manager instance is already activated. Use a "
                               "different context manager instance for context nesting.")
        self.saved = self.is_enabled()
        _ops.INVARIANTS[0] = self.state
        return self

    def __exit__(self, *exc):
        _ops.INVARIANTS[0] = self.saved
        self.saved = None

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with check_sparse_tensor_invariants(self.state):
                return fn(*args, **kwargs)
        return wrapped
