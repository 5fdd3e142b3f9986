"""The sparse functions of nn.functional: embedding (a row lookup whose gradient adds each
looked-up row's gradient into its row), embedding_bag (sums, means or maxima of bags of
rows) and one_hot."""
import warnings

import numpy as np

from ... import _dtype
from ..._ops import _core
from ..._ops.index import add_rows_at
from ..._ops._core import Node, make
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE, no_grad
from ._recompute import RecomputedBackward, recomputed


class EmbeddingBackward0(Node):
    """Gradient of a row lookup: each looked-up row's gradient added into its row."""
    sparse = False  # (``sparse=True``: the gradient is a sparse COO tensor)

    def backward(self, g):
        idx = self.indices.reshape(-1)
        rows = g.reshape(-1, g.shape[-1])
        keep = idx._data != self.padding_idx
        if self.sparse:
            return self._sparse(idx, rows, keep), None
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

    def _sparse(self, idx, rows, keep):
        """``sparse=True``: the gradient as a sparse COO tensor, one (uncoalesced) entry per
        looked-up row outside ``padding_idx``."""
        if self.scale_grad_by_freq:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                               "sparse gradients")
        from ..._ops.sparse import sparse_coo_tensor
        if not keep.all():
            idx, rows = make(idx._data[keep]), make(rows._data[keep])
        return sparse_coo_tensor(idx.reshape(1, -1), rows, (self.num_weights, rows.shape[-1]))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the integer ``input`` (shape ``input.shape + (dim,)``)."""
    # (torch's Python function: padding_idx against weight's rows, max_norm's renorm --
    # after ``input.contiguous()`` -- and its checks, then the op's parser: weight first)
    if padding_idx is not None and padding_idx > 0:
        if padding_idx >= _rows(weight):
            raise AssertionError("Padding_idx must be within num_embeddings")
    elif padding_idx is not None and padding_idx < 0:
        if padding_idx < -_rows(weight):
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + _rows(weight)
    if max_norm is not None:  # (torch renorms before its op checks the indices' range)
        if not isinstance(input, Tensor):
            raise AttributeError(f"'{type(input).__name__}' object has no attribute "
                                 "'contiguous'")
        from ... import embedding_renorm_  # (the public op: its parser's checks first)
        if not isinstance(weight, Tensor):  # (torch renorms ``weight.detach()``)
            raise AttributeError(f"'{type(weight).__name__}' object has no attribute "
                                 "'detach'")
        embedding_renorm_(weight, input, max_norm, norm_type)
    for i, (what, t) in enumerate((('weight', weight), ('indices', input))):
        if not isinstance(t, Tensor):
            raise TypeError(f"embedding(): argument '{what}' (position {i + 1}) must be "
                            f"Tensor, not {type(t).__name__}")
    return embedding_kernel(input, weight, padding_idx, None, norm_type, scale_grad_by_freq,
                            sparse)


def _rows(weight):
    """``weight.size(0)``, with torch's IndexError for a 0-d weight."""
    if not isinstance(weight, Tensor):
        raise AttributeError(f"'{type(weight).__name__}' object has no attribute 'size'")
    if weight._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return weight._data.shape[0]


def embedding_kernel(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
                     scale_grad_by_freq=False, sparse=False):
    """``embedding`` past the checks torch's Python function makes (``torch.embedding``'s
    own, for a ``padding_idx`` already in range or None)."""
    if weight.requires_grad and STATE.enabled:
        _rows(weight)  # (torch's autograd reads the rows first)
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"{input.dtype.type_string} instead (while checking arguments for "
                           "embedding)")
    num = weight.shape[0]
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= num):  # (torch's is index_select's)
        from ..._ops.index import check_select_bounds
        check_select_bounds(weight._data, 0, idx.reshape(-1), num)
    if max_norm is not None:
        _renorm_rows(weight, np.unique(idx), max_norm, norm_type)
    n = _core.track(EmbeddingBackward0, (weight, input))
    out = _core.result(np.take(weight._data, idx, axis=0), n)   # (take: 1.6x faster than [])
    if n is not None:
        n.indices, n.num_weights = input, num
        n.padding_idx = -1 if padding_idx is None else padding_idx
        n.scale_grad_by_freq = scale_grad_by_freq
        n.sparse = sparse
    return out


def _renorm_rows(weight, rows, max_norm, norm_type):
    """In place and outside the graph, as torch: rows longer than ``max_norm`` shrink to it."""
    with no_grad():
        w = weight._data
        wrapped = np.asarray(rows) % max(w.shape[0], 1)
        # (torch goes through the distinct indices in order: a row named twice -- -5 and 3
        # of 8 rows -- shrinks twice, the second time from its shrunk values)
        for part in ([rows] if np.unique(wrapped).size == wrapped.size else
                     [[r] for r in rows]):
            norms = np.linalg.norm(w[part], ord=norm_type, axis=1)
            scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            w[part] = w[part] * scale[:, None].astype(w.dtype)
        weight._vc[0] += 1


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding of class indices (a new last dim of ``num_classes``, inferred
    as max + 1 when -1)."""
    if not isinstance(tensor, Tensor) or tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = tensor._data
    if idx.size and idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if not idx.size and num_classes <= 0:  # (torch infers any count up to 0 from the data)
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(idx.max()) + 1
    elif idx.size and idx.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return make((idx[..., None] == np.arange(num_classes)).astype(np.int64))


# -- embedding_bag -------------------------------------------------------------------------------
class EmbeddingBagBackward0(RecomputedBackward):
    """Gradient of ``embedding_bag`` (the sums, means or maxima of looked-up rows)."""


_BAG_MODES = {'sum': 0, 'mean': 1, 'max': 2}
_TORCH_TENSOR = "<class 'torch.Tensor'>"  # (how torch's message prints a tensor's type)


def _check_indices(t, fn):
    if t._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"{t.dtype.type_string} instead (while checking arguments for {fn})")


def _check_bag_shapes(weight, indices, offsets, padding_idx):
    """torch.embedding_bag's first checks, in its order: padding_idx against the number of
    rows (and, where a graph is recorded, the row count it keeps for the backward), then the
    dims of indices, offsets and weight."""
    if weight.dim() == 0 and (padding_idx is not None or weight.requires_grad and STATE.enabled):
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if padding_idx is not None:
        num = weight.shape[0]
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} "
                               f"through {num - 1}, but got {padding_idx}")
    if indices.dim() not in (1, 2):
        raise RuntimeError(f"input has to be a 1D or 2D Tensor, but got Tensor of dimension "
                           f"{indices.dim()}")
    if indices.dim() == 1 and offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension "
                           f"{offsets.dim()}")
    if weight.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                           f"{weight.dim()}")


def _check_offsets(idx, off):
    if off.size and off[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                           "mini-batch has to start from position 0. However, got "
                           f"{int(off[0])}")
    if off.size and off[-1] > idx.size:
        raise RuntimeError("offsets[-1] can not be greater than input's length "
                           f"{idx.size} but got offsets[-1] of {int(off[-1])}")


def _check_sample_weights(psw, weight, n_indices):
    """per_sample_weights: one value per index, of the weight's dtype."""
    if psw.dtype != weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as "
                           "tensor for argument #1 'per_sample_weights'; but type "
                           f"{weight.dtype.type_string} does not equal "
                           f"{psw.dtype.type_string} (while checking "
                           "arguments for embedding_bag)")
    for what, ok in (('dim() == 1', psw.dim() == 1), ('numel() == indices.numel()',
                                                     psw.numel() == n_indices)):
        if not ok:
            raise RuntimeError(f"Expected per_sample_weights.value().{what} to be true, but "
                               "got false.  (Could this error message be improved?  If so, "
                               "please report an enhancement request to PyTorch.)")


def _bags(idx, off, n_weights, include_last_offset, padding_idx, fast):
    """The bag of each index and the kept (non-padding) indices' mask, checked as torch."""
    bad = (idx < 0) | (idx >= n_weights)
    if bad.any() and not fast:      # (torch's float32 sum/mean kernel says the other thing)
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found "
                           f"idx to be {int(idx[np.argmax(bad)])}")
    if bad.any() or np.any(np.diff(off) < 0):
        raise RuntimeError("Expected i < index_size to be true, but got false.  (Could this "
                           "error message be improved?  If so, please report an enhancement "
                           "request to PyTorch.)")
    n_bags = max(off.size - 1, 0) if include_last_offset else off.size
    bag = np.zeros(idx.size, np.int64)
    if off.size:
        starts = off[1:n_bags] if n_bags else off[:0]
        np.add.at(bag, starts[starts < idx.size], 1)
        bag = np.cumsum(bag)
    keep = idx != padding_idx if padding_idx is not None else np.ones(idx.size, bool)
    return n_bags, bag, keep


def embedding_bag_forward(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                          sparse=False, per_sample_weights=None, include_last_offset=False,
                          padding_idx=None):
    """torch.embedding_bag: ``(output, offset2bag, bag_size, max_indices)`` for 1-D
    ``indices`` split into bags at ``offsets``; ``mode`` 0 sums, 1 averages, 2 takes the
    maximum of each bag's rows (padding_idx rows left out; empty bags give zeros). With
    ``include_last_offset`` the last offset closes no bag: the last bag runs to the end."""
    _check_bag_shapes(weight, indices, offsets, padding_idx)
    _check_indices(indices, 'embedding_bag')
    _check_indices(offsets, 'embedding_bag')
    if weight._data.dtype.kind not in 'fV':
        got = weight.dtype.type_string
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the "
                           "following scalar types: Half, BFloat16, Float, Double; but got "
                           f"{got} instead (while checking arguments for embedding_bag)")
    # (torch's order: the weights' mode, the offsets, the weights' dtype and size, the mode)
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    idx, off = indices._data.astype(np.int64), offsets._data.astype(np.int64)
    _check_offsets(idx, off)
    if per_sample_weights is not None:
        _check_sample_weights(per_sample_weights, weight, idx.size)
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if sparse and mode == 2:
        raise NotImplementedError("embedding_bag(sparse=True, mode='max'): ember has no "
                                  "sparse gradient for the maxima of bags")
    num, dim = weight.shape
    if padding_idx is not None and padding_idx < 0:
        padding_idx += num
    fast = weight._data.dtype == np.float32 and mode != 2
    n_bags, bag, keep = _bags(idx, off, num, include_last_offset, padding_idx, fast)
    counts = np.bincount(bag[keep], minlength=n_bags)[:n_bags].astype(np.int64)
    kept_idx, kept_bag = idx[keep], bag[keep]
    if mode == 2:
        # each bag's argmax row per column (the first of equal maxima); empty bags: none
        w = weight._data
        best = np.full((n_bags, dim), -1, np.int64)
        for b in range(n_bags):
            rows = kept_idx[kept_bag == b]
            if rows.size:
                best[b] = rows[np.argmax(w[rows], axis=0)]
        max_indices = best.clip(0)
    else:
        max_indices = counts.copy() if mode == 1 else np.zeros(n_bags, np.int64)
    freq = np.bincount(idx, minlength=num) if scale_grad_by_freq else None
    psw = per_sample_weights

    def compose(weight, psw):
        if mode == 2:
            flat = make(best.clip(0) * dim + np.arange(dim))
            out = weight.reshape(-1).index_select(0, flat.reshape(-1)).reshape(n_bags, dim)
            return out * make((best >= 0).astype(weight._data.dtype))
        # (sparse: the rows looked up as embedding's are, whose gradient is sparse)
        rows = embedding_kernel(make(kept_idx), weight, None, None, 2.0, False, True) \
            if sparse else weight.index_select(0, make(kept_idx))
        if freq is not None:       # the weight's gradient divided by each index's frequency
            rows = rows.detach() + (rows - rows.detach()) / make(
                freq[kept_idx].astype(weight._data.dtype)[:, None])
        if psw is not None:
            rows = rows * psw[make(np.flatnonzero(keep))].unsqueeze(1)
        out = weight.new_zeros((n_bags, dim)).index_add(0, make(kept_bag), rows)
        if mode == 1:
            out = out / make(np.maximum(counts, 1).astype(weight._data.dtype)[:, None])
        return out

    out = recomputed(EmbeddingBagBackward0, compose, (weight, psw))
    bag_size = make(counts if mode else np.zeros(n_bags, np.int64))
    offset2bag = make(bag)
    return out, offset2bag, bag_size, make(max_indices)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows, without the intermediate
    (len(input), dim) lookup: ``input`` 1-D with ``offsets`` (the start of each bag), or 2-D
    (one bag per row)."""
    if weight.dtype == _dtype.int64 and input.is_floating_point():
        # (the old argument order, embedding_bag(weight, input), still works, as in torch)
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         "is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             "offsets of type "
                             f"{_TORCH_TENSOR if isinstance(offsets, Tensor) else type(offsets)}")
        # (torch's public arange in the input's dtype: its errors for a width of 0 or a
        # dtype its kernel refuses, bool)
        from ... import arange
        offsets = arange(0, input.numel(), input.shape[1], dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:  # (torch's embedding_renorm_, with its checks, under no_grad)
        from ..._ops.nn_entry import embedding_renorm_
        embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != 'sum':
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    return embedding_bag_forward(weight, input, offsets, scale_grad_by_freq, _BAG_MODES[mode],
                                 sparse, per_sample_weights, include_last_offset,
                                 padding_idx)[0]


# (the dtype torch's Python function refuses, that of its arange over a 2-D input, is checked
# before the mode: see ``_args.refuse``)
embedding_bag._dtype_first = True
