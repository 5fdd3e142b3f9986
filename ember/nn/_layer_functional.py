"""The functional forms of dropout, layer normalisation and embedding lookup (exported by
``ember.nn.functional``). Each forward works on NumPy arrays; each backward is written in
ember ops so the gradients can be differentiated again."""
import math
import warnings

import numpy as np

from .. import _native
from .._ops import _core, random as _random
from .._ops._scratch import scratch
from .._ops.index import add_rows_at
from .._ops.reduce import row_sums, column_sums
from .._ops._core import Node, make
from .._tensor import Tensor
from ..autograd.grad_mode import STATE, no_grad
from ._norm_functional import _affine_result, _normalised_grad, _standardised


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the rest by ``1 / (1 - p)``."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input  # torch returns the input itself here
    noise = _scaled_keep(input._data.shape, p, input._data.dtype)
    return input.mul_(noise) if inplace else input * noise


def _scaled_keep(shape, p, dtype):
    """Random keep mask of ``shape`` (each kept with probability ``1 - p``) over ``1 - p``."""
    if p == 1:
        return make(np.zeros(shape, dtype))
    keep = _random._rng(None).random(shape) >= p
    return make(keep.astype(dtype) / np.asarray(1 - p, dtype))


class NativeLayerNormBackward0(Node):
    """Gradients of layer_norm; recomputes the statistics in ember ops (for double backward)."""

    def backward(self, g):
        x, w, b = self.saved_tensors
        dims, eps = self.dims, self.eps
        if not STATE.enabled:   # no graph of the gradient wanted: on arrays, from the forward's
            return self._backward_arrays(g._data, x, w, b)          # xhat and rstd
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

    def _backward_arrays(self, g, x, w, b):
        xhat, rstd, dims = self.xhat, self.rstd, self.dims
        if xhat is None:
            xhat, rstd = _standardised_array(x._data, dims, self.eps)
        size = math.prod(xhat.shape[xhat.ndim - len(dims):])
        g2, xh = g.reshape(-1, size), xhat.reshape(-1, size)
        shape = xhat.shape[xhat.ndim - len(dims):]
        want_w = w is not None and self.next_functions[1][0] is not None
        want_b = b is not None and self.next_functions[2][0] is not None
        done = _native.layer_norm_backward(
            g2, xh, None if w is None else w._data.reshape(size), rstd,
            self.next_functions[0][0] is not None, want_w, want_b)
        if done is not None:
            gx, gw, gb = done
            return (None if gx is None else make(gx.reshape(xhat.shape)),
                    None if gw is None else make(gw.reshape(shape)),
                    None if gb is None else make(gb.reshape(shape)))
        gw = gb = gx = None
        if w is not None and self.next_functions[1][0]:
            gw = make(column_sums(np.multiply(g2, xh, out=scratch('ln.t', xh.shape, xh.dtype)))
                      .reshape(shape))
        if b is not None and self.next_functions[2][0]:
            gb = make(column_sums(g2).reshape(shape))
        if self.next_functions[0][0] is not None:
            # rstd (gxhat - mean(gxhat) - xhat mean(gxhat xhat)), row by row
            gxhat = g2 if w is None else np.multiply(
                g2, w._data.reshape(size), out=scratch('ln.gxhat', xh.shape, xh.dtype))
            gx = np.multiply(gxhat, xh)
            m2 = row_sums(gx, 1 / size)
            m1 = row_sums(gxhat, 1 / size)
            np.multiply(xh, m2, out=gx)
            np.subtract(gxhat, gx, out=gx)
            gx -= m1
            gx *= rstd
            gx = make(gx.reshape(xhat.shape))
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
    xhat, rstd = _standardised_array(x, dims, eps)
    result, n = _affine_result(NativeLayerNormBackward0, input, xhat, weight, bias)
    if n is not None:
        n.dims, n.eps = dims, eps
        # for the backward on arrays; not when the result is xhat itself (no weight or
        # bias), which the caller may change in place: the backward recomputes it then
        n.xhat = xhat if result._data is not xhat else None
        n.rstd = rstd
    return result


def _standardised_array(x, dims, eps):
    """``((x - mean) * rstd, rstd)`` over the trailing ``dims``, on arrays; ``rstd`` is a
    column, one value per row of ``x`` seen as (rows, normalised elements)."""
    x2 = x.reshape(-1, math.prod(x.shape[x.ndim - len(dims):]))
    done = _native.standardise_rows(x2, eps)
    if done is not None:
        return done[0].reshape(x.shape), done[1]
    xhat = x2 - row_sums(x2, 1 / x2.shape[1])
    rstd = row_sums(np.square(xhat, out=scratch('ln', xhat.shape, xhat.dtype)), 1 / x2.shape[1])
    rstd += eps
    np.sqrt(rstd, out=rstd)
    np.reciprocal(rstd, out=rstd)
    xhat *= rstd
    return xhat.reshape(x.shape), rstd


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


# -- channel-wise and alpha dropout ------------------------------------------------------------
def _check_p(p):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input, p, training, inplace):
    """Zeroes whole channels (dim 1 of a batched input) with probability ``p``, scaling the
    rest by ``1 / (1 - p)``: one draw per (sample, channel), broadcast over the rest."""
    if p == 0 or not training or input.numel() == 0:
        return input
    x = input._data
    noise = _scaled_keep(x.shape[:2] + (1,) * (x.ndim - 2), p, x.dtype)
    return input.mul_(noise) if inplace else input * noise


def _channelwise(input, p, training, inplace, batched):
    if batched:
        return _feature_dropout(input, p, training, inplace)
    x = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _feature_dropout(x, p, training, inplace)
    return out.squeeze_(0) if inplace else out.squeeze(0)


def _warn_rank(fn, rank, nd):
    warnings.warn(f"{fn}: Received a {rank}-D input to {fn}, which is deprecated and will "
                  "result in an error in a future release. To retain the behavior and silence "
                  f"this warning, please use dropout instead. Note that {fn} exists to provide "
                  f"channel-wise dropout on inputs with {nd} spatial dimensions, a channel "
                  "dimension, and an optional batch dimension (i.e. "
                  f"{nd + 1}D or {nd + 2}D inputs).", stacklevel=4)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an ``(N, C, L)`` or ``(C, L)`` input with probability ``p``
    and scales the rest by ``1 / (1 - p)``."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    return _channelwise(input, p, training, inplace, input.dim() == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an ``(N, C, H, W)`` input with probability ``p`` and scales
    the rest by ``1 / (1 - p)``. As torch, a 3-D input is taken as ``(N, C, L)``."""
    _check_p(p)
    rank = input.dim()
    if rank not in (3, 4):
        _warn_rank('dropout2d', rank, 2)
    if rank == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change in "
                      "a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
                      "behavior, please switch to using dropout1d instead.", stacklevel=3)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with
    probability ``p`` and scales the rest by ``1 / (1 - p)``."""
    _check_p(p)
    rank = input.dim()
    if rank not in (4, 5):
        _warn_rank('dropout3d', rank, 3)
    return _channelwise(input, p, training, inplace, rank == 5)


# SELU's negative saturation value, -scale * alpha: where alpha dropout sends dropped units
_ALPHA = 1.7580993408473766


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped units are set to SELU's saturation value and an
    affine map ``a * x + b`` restores the input's mean and variance."""
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    x = input._data
    if p == 1:
        zero = make(np.zeros((), x.dtype))
        return input.mul_(zero) if inplace else input * zero
    keep = (_random._rng(None).random(x.shape) >= p).astype(x.dtype)
    a = 1 / np.sqrt((_ALPHA ** 2 * p + 1) * (1 - p))
    shift = make(((keep - 1) * _ALPHA * a + _ALPHA * a * p).astype(x.dtype))
    scale = make((keep * a).astype(x.dtype))
    return input.mul_(scale).add_(shift) if inplace else input * scale + shift
