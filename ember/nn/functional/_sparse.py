"""The sparse functions of nn.functional: embedding (a row lookup whose gradient adds each
looked-up row's gradient into its row) and one_hot."""
import numpy as np

from ..._ops import _core
from ..._ops.index import add_rows_at
from ..._ops._core import Node, make
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE, no_grad


class EmbeddingBackward0(Node):
    """Gradient of a row lookup: each looked-up row's gradient added into its row."""

    def backward(self, g):
        idx = self.indices.reshape(-1)
        rows = g.reshape(-1, g.shape[-1])
        keep = idx._data != self.padding_idx
        if self.scale_grad_by_freq:
            counts = np.bincount(idx._data, minlength=self.num_weights)[idx._data]
            rows = rows / make(counts[:, None].astype(g._data.dtype))
        if not keep.all():
            rows = rows * make(keep[:, None].astype(g._data.dtype))
        zeros = make(np.zeros((self.num_weights, g.shape[-1]), g._data.dtype))
        if not STATE.enabled:   # no graph of the gradient wanted: the scatter on arrays
            add_rows_at(zeros._data, idx._data, rows._data)
            return zeros, None
        return zeros.index_add(0, idx, rows), None


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the integer ``input`` (shape ``input.shape + (dim,)``)."""
    if not isinstance(input, Tensor):
        raise TypeError("embedding(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got torch."
                           f"{input.dtype._legacy} instead (while checking arguments for "
                           "embedding)")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if sparse:
        raise NotImplementedError("embedding(sparse=True): ember has no sparse tensors")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + num if padding_idx < 0 else padding_idx
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= num):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, np.unique(idx), max_norm, norm_type)
    n = _core.track(EmbeddingBackward0, (weight, input))
    out = _core.result(weight._data[idx], n)
    if n is not None:
        n.indices, n.num_weights = input, num
        n.padding_idx = -1 if padding_idx is None else padding_idx
        n.scale_grad_by_freq = scale_grad_by_freq
    return out


def _renorm_rows(weight, rows, max_norm, norm_type):
    """In place and outside the graph, as torch: rows longer than ``max_norm`` shrink to it."""
    with no_grad():
        w = weight._data
        norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        w[rows] = w[rows] * scale[:, None].astype(w.dtype)
        weight._vc[0] += 1


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding of class indices (a new last dim of ``num_classes``, inferred
    as max + 1 when -1)."""
    if not isinstance(tensor, Tensor) or tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = tensor._data
    if idx.size and idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not idx.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(idx.max()) + 1
    elif idx.size and idx.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return make((idx[..., None] == np.arange(num_classes)).astype(np.int64))
