"""The functional forms of dropout, layer normalisation and embedding lookup (exported by
``ember.nn.functional``). Each forward works on NumPy arrays; each backward is written in
ember ops so the gradients can be differentiated again."""
import numpy as np

from .._ops import _core, random as _random
from .._ops._core import Node, make
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ._norm_functional import _affine_result, _normalised_grad, _standardised


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the rest by ``1 / (1 - p)``."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input  # torch returns the input itself here
    x = input._data
    if p == 1:
        noise = np.zeros_like(x)
    else:
        keep = _random._rng(None).random(x.shape) >= p
        noise = keep.astype(x.dtype) / np.asarray(1 - p, x.dtype)
    noise = make(noise)
    return input.mul_(noise) if inplace else input * noise


class NativeLayerNormBackward0(Node):
    """Gradients of layer_norm; recomputes the statistics in ember ops (for double backward)."""

    def backward(self, g):
        x, w, b = self.saved_tensors
        dims, eps = self.dims, self.eps
        xhat, rstd = _standardised(x, dims, eps)
        batch = tuple(range(x.dim() - len(dims)))

        def over_batch(t):  # (sum over no dims would reduce them all)
            return t.sum(batch) if batch else t
        gw = over_batch(g * xhat) if w is not None and self.next_functions[1][0] else None
        gb = over_batch(g) if b is not None and self.next_functions[2][0] else None
        gx = None
        if self.next_functions[0][0] is not None:
            gxhat = g * w if w is not None else g
            gx = _normalised_grad(gxhat, xhat, rstd, dims)
        return gx, gw, gb


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalises over the trailing ``normalized_shape`` dims, then scales and shifts."""
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(normalized_shape)
    k = len(shape)
    x = input._data
    if k == 0 or x.shape[x.ndim - k:] != shape or x.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(x.shape)}")
    for t, name in ((weight, 'weight'), (bias, 'bias')):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    dims = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(dims, keepdims=True)
    centred = x - mean
    out = centred / np.sqrt((centred * centred).mean(dims, keepdims=True) + eps)
    result, n = _affine_result(NativeLayerNormBackward0, input, out, weight, bias)
    if n is not None:
        n.dims, n.eps = dims, eps
    return result


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
