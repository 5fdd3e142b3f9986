"""The normalisations of nn.functional: batch, group, instance, layer, RMS and local-response
norm, and Lp ``normalize``. Each forward works on NumPy arrays; each backward recomputes the
statistics from the saved input in ember ops, so the gradients can be differentiated again
(batch_norm's and layer_norm's run on the forward's arrays instead when no graph of the
gradient is wanted)."""
import math

import numpy as np

from ... import _dtype, _native
from ..._memory_format import in_format, suggested_format
from ..._ops import _core
from ..._ops._core import Node, make
from ._recompute import RecomputedBackward, recomputed
from ..._dtype import opmath
from ..._finfo import of_array_dtype
from ..._ops._args import stands
from ..._ops._scratch import scratch
from ..._ops.pointwise import dtype_name
from ..._ops.reduce import _mean_array, column_sums, row_dots, row_sums
from ...autograd.forward_ad import FWD, tangent_of
from ...autograd.grad_mode import STATE


def _channel_view(t, ndim):
    """A per-channel vector shaped ``(1, C, 1, ...)`` to broadcast against an ``ndim`` input."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


def _saved(*tensors):
    return tuple((t, t._vc[0]) if t is not None else (None, 0) for t in tensors)


def _affine_result(node_cls, input, out, weight, bias, shape=None, done=False):
    """The normalised array ``out`` times ``weight`` plus ``bias`` (reshaped to ``shape`` to
    broadcast; ``done``: ``out`` has them already), as the op's result, with a ``node_cls``
    node that saves input, weight and bias. Returns (result, node or None)."""
    fused = None if done or shape is not None or out.dtype != input._data.dtype else \
        _native.affine_rows(out, None if weight is None else weight._data,
                            None if bias is None else bias._data)
    if done:
        pass
    elif fused is not None:
        out = fused
    elif weight is not None:
        out = np.asarray(out * (weight._data if shape is None else weight._data.reshape(shape)))
        if bias is not None:    # (into the fresh product: one temporary fewer)
            out += bias._data if shape is None else bias._data.reshape(shape)
    elif bias is not None:
        out = out + (bias._data if shape is None else bias._data.reshape(shape))
    n = _core.track(node_cls, (input, weight, bias))
    result = _core.result(np.asarray(out, input._data.dtype), n)
    if n is not None:
        n._saved = _saved(input, weight, bias)
    return result, n


def _standardised(x, dims, eps):
    """``(x - mean) * rstd`` with the statistics over ``dims``, in ember ops, and ``rstd``."""
    centred = x - x.mean(dims, keepdim=True)
    rstd = ((centred * centred).mean(dims, keepdim=True) + eps).rsqrt()
    return centred * rstd, rstd


def _normalised_grad(gxhat, xhat, rstd, dims):
    """The input gradient of ``(x - mean) * rstd`` (statistics over ``dims``), given the
    gradient ``gxhat`` of the normalised values."""
    return rstd * (gxhat - gxhat.mean(dims, keepdim=True)
                   - xhat * (gxhat * xhat).mean(dims, keepdim=True))


class NativeBatchNormBackward0(Node):
    """Gradients of batch_norm: with batch statistics (training) recomputed in ember ops, or
    through the constant running statistics (eval)."""
    #: the batch mean when the forward ran in the compiled kernels (it kept no xhat)
    kernel_mean = None

    def backward(self, g):
        x, w, b = self.saved_tensors
        dims, nd = self.dims, x.dim()
        if not STATE.enabled and self.kernel_mean is not None:
            done = _native.batch_norm_backward(
                x._data, g._data, self.kernel_mean, self.rstd,
                None if w is None else w._data, self.next_functions[0][0] is not None,
                w is not None and self.next_functions[1][0] is not None,
                b is not None and self.next_functions[2][0] is not None)
            if done is not None:
                return tuple(None if a is None else make(a) for a in done)
            # (the kernels were switched off since): xhat for the NumPy path
            self.xhat = (x._data - _channel_view(self.kernel_mean, nd)) * \
                _channel_view(self.rstd, nd)
        if not STATE.enabled and self.xhat is not None:   # no graph of the gradient wanted
            return self._backward_arrays(g._data, w, b)
        if self.stats is None:
            xhat, rstd = _standardised(x, dims, self.eps)
        else:
            mean, rstd = (make(_channel_view(a, nd)) for a in self.stats)
            xhat = (x - mean) * rstd
        gw = (g * xhat).sum(dims) if w is not None and self.next_functions[1][0] else None
        gb = g.sum(dims) if b is not None and self.next_functions[2][0] else None
        gx = None
        if self.next_functions[0][0] is not None:
            gxhat = g * _channel_view(w, nd) if w is not None else g
            gx = gxhat * rstd if self.stats is not None else \
                _normalised_grad(gxhat, xhat, rstd, dims)
        return gx, gw, gb

    def _backward_arrays(self, g, w, b):
        """The same on arrays, from the forward's xhat and rstd (per channel): with k =
        w rstd, gx = k g - k/count (sum g + xhat sum(g xhat)) under batch statistics."""
        xhat = self.xhat
        shape = (1, xhat.shape[1]) + (1,) * (xhat.ndim - 2)
        sum_gx = _channel_sums(g, xhat)
        sum_g = _channel_sums(g)
        k = self.rstd if w is None else self.rstd * w._data
        gx = None
        if self.next_functions[0][0] is not None:
            # (a float16/bfloat16 g with float32 statistics: NumPy casts no such loop itself)
            gx = np.multiply(np.asarray(g, xhat.dtype), k.reshape(shape))
            if self.stats is None:
                per = k / (xhat.size // xhat.shape[1])
                t = np.multiply(xhat, (per * sum_gx).reshape(shape), out=scratch(
                    'bn', xhat.shape, xhat.dtype))
                gx -= t
                gx -= (per * sum_g).reshape(shape)
            gx = make(gx)
        gw = make(sum_gx) if w is not None and self.next_functions[1][0] else None
        gb = make(sum_g) if b is not None and self.next_functions[2][0] else None
        return gx, gw, gb


def _channel_sums(a, b=None):
    """The sums of ``a`` (or of ``a * b``) over every dim but the channels (dim 1). For
    C-contiguous float32/float64 arrays as the sums of the (N * C) rows of each sample's
    channel -- BLAS (or einsum) dots along contiguous memory, 2-3x faster than NumPy's
    reduction over dims (0, 2, ...) -- then over the batch."""
    if a.ndim < 3 or a.dtype not in _ROW_DTYPES or not a.flags.c_contiguous or \
            (b is not None and (b.dtype != a.dtype or not b.flags.c_contiguous)):
        # (a float16/bfloat16 gradient times float32 statistics: the product in the wider)
        t = a if b is None else np.multiply(a, b, out=scratch('bn', a.shape,
                                                             np.result_type(a, b)))
        return t.sum((0,) + tuple(range(2, a.ndim)))
    rows = a.reshape(a.shape[0] * a.shape[1], -1)
    per = row_sums(rows) if b is None else _row_dots(rows, b.reshape(rows.shape))
    return per[:, 0].reshape(a.shape[:2]).sum(0)


_ROW_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# einsum's row dots accumulate in one pass, whose error grows with the row: past this length
# the products are summed by ``row_sums`` instead (float32 statistics of a 256 x 256 x 144
# layer norm were off by 1e-3 relative, where torch's are exact to float32)
_EINSUM_ROW_MAX = 4096


def _row_dots(a, b):
    """The dot products of the rows of 2-D float32/float64 arrays ``a`` and ``b``, as a
    column."""
    if a.shape[1] <= _EINSUM_ROW_MAX:
        return np.einsum('ij,ij->i', a, b)[:, None]
    return row_sums(np.multiply(a, b, out=scratch('rowdot', a.shape, a.dtype)))


def _check_size(t, name, channels):
    if t is not None and t.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")


def _unbiased(var, count):
    """The unbiased variance from the biased ``var`` of ``count`` values (NaN for one value,
    as torch's 0 * inf: only the aten op, not the functional form, lets one through)."""
    return var * (count / (count - 1)) if count > 1 else np.full_like(var, np.nan)


def _update(running, value, momentum):
    """``running <- (1 - momentum) * running + momentum * value``, in place, outside autograd."""
    r = running._data
    r[...] = ((1 - momentum) * r + momentum * value).astype(r.dtype)
    running._vc[0] += 1


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalises each channel (dim 1) over the batch and any trailing dims, then scales and
    shifts. Training uses the batch statistics and moves ``running_mean``/``running_var``
    (when given) towards them by ``momentum`` (the variance unbiased); eval uses them."""
    if training:
        # (the functional form's own check, before aten's: one value per channel has no
        # variance to normalise by)
        size = input.shape
        if not size:  # (torch's Python function reads size[0] first)
            raise IndexError("tuple index out of range")
        if size[0] * math.prod(size[2:]) == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {size!r}")
    return batch_norm_kernel(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)


def batch_norm_kernel(input, running_mean, running_var, weight, bias, training, momentum,
                      eps):
    """aten's ``batch_norm`` (``torch.batch_norm``), the functional form's argument order:
    its checks in its order (none for an empty input; the channel dim, the statistics' and parameters' sizes, the
    pair of statistics, the dtype), then the normalisation."""
    x = input._data
    if x.size == 0:
        return _empty_batch_norm(input, weight, bias)
    channels = x.shape[1] if x.ndim > 1 else 0  # (what torch's kernel reads from 1-d input)
    for t, name in ((running_mean, 'running_mean'), (running_var, 'running_var')):
        if t is not None:
            _check_size(t, name, channels)
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    _check_size(weight, 'weight', channels)
    _check_size(bias, 'bias', channels)
    from ...autograd.grad_mode import STATE as _GRAD
    for name, t in (('running_mean', running_mean), ('running_var', running_var)):
        if t is not None and t.requires_grad and _GRAD.enabled:  # (autograd's, before dtypes)
            raise RuntimeError(f"The function 'native_batch_norm' is not differentiable "
                               f"with respect to argument '{name}'. This input cannot have "
                               "requires_grad True.")
    if training and x.dtype.kind in 'biu':
        _strided_stats_dtype(input, (weight, bias, running_mean, running_var))
    channels = batch_norm_channels(input)
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither "
                         "be None")
    if x.dtype.kind not in 'fV':  # (last, as in torch: ``stands`` keeps it so)
        raise stands(NotImplementedError(f"\"batch_norm\" not implemented for "
                                         f"'{dtype_name(x.dtype)}'"))
    _refuse_statistics_tangents(input, running_mean, running_var)
    batch_norm_mixed_dtypes(input, (weight, bias, running_mean, running_var))
    batch_norm_statistics_dims(running_mean, running_var)
    dims = (0,) + tuple(range(2, x.ndim))
    shape = (1, channels) + (1,) * (x.ndim - 2)
    fused = None if not training else _native.batch_norm_forward(
        x, None if weight is None else weight._data, None if bias is None else bias._data, eps)
    if fused is not None:        # statistics and affine in the compiled kernels
        return _batch_norm_fused(input, fused, running_mean, running_var, weight, bias,
                                 momentum, eps, dims)
    centred, narrow = None, False
    if x.dtype == np.float16:   # (float16: statistics and xhat in float32, as torch)
        x = x.astype(np.float32)
    if training:
        if x.dtype in _ROW_DTYPES:
            # np.var's steps, on x - mean kept as xhat's start
            mean = _channel_sums(x) / x.dtype.type(x.size // channels)
            centred = np.asarray(x - mean.reshape(shape))
            var = _channel_sums(centred, centred)
            var /= x.size // channels
        elif x.dtype.kind == 'V':
            narrow = all(p is None or p._data.dtype == x.dtype
                         for p in (weight, bias, running_mean, running_var))
            mean, var, centred = _bfloat16_stats(x, dims, shape, narrow)
        else:
            mean, var = x.mean(dims), x.var(dims)
        count = x.size // channels
        if running_mean is not None:
            _update(running_mean, mean, momentum)
        if running_var is not None:
            _update(running_var, _unbiased(var, count), momentum)
        stats = None
    else:
        mean, var = running_mean._data.copy(), running_var._data.copy()
        stats = (mean, 1 / np.sqrt(var + eps))
    rstd = np.asarray(1 / np.sqrt(var + eps), x.dtype if centred is None else centred.dtype)
    if narrow:
        rstd = rstd.astype(x.dtype).astype(rstd.dtype)
    xhat = centred if centred is not None else \
        np.asarray(x - mean.reshape(shape).astype(x.dtype, copy=False))
    xhat *= rstd.reshape(shape)
    # (bfloat16's xhat is float32 here: the affine is applied before the one rounding)
    result, n = _affine_result(NativeBatchNormBackward0, input, xhat, weight, bias, shape)
    if n is not None:
        n.dims, n.eps, n.stats = dims, eps, stats
        # for the backward on arrays (not when the result is xhat itself, which the
        # caller may change in place: the backward in ember ops recomputes it then)
        n.xhat = xhat.astype(x.dtype, copy=False) if result._data is not xhat else None
        n.rstd = rstd.astype(x.dtype, copy=False)
    return result


def _refuse_statistics_tangents(input, running_mean, running_var):
    """Forward AD: torch's batch_norm has no derivative along the running statistics; a
    tangent on one of them (with one on the input, which makes the jvp run) is its error."""
    if FWD.level is None or tangent_of(input) is None:
        return
    if any(t is not None and tangent_of(t) is not None for t in (running_mean, running_var)):
        raise RuntimeError("batch_norm is not differentiable wrt running_mean and running_var, "
                           "they cannot have forward grad defined")


def _strided_stats_dtype(input, params):
    """torch's CPU kernel takes the statistics of a strided input (neither contiguous nor
    channels-last) whose parameters are all of its dtype with ``mean`` first: an integer or
    bool input meets mean's dtype refusal there, before the pair and dtype checks."""
    from ... import channels_last, channels_last_3d
    fmt = {4: channels_last, 5: channels_last_3d}.get(input.dim())
    if input.is_contiguous() or fmt is not None and input.is_contiguous(memory_format=fmt):
        return
    if all(t is None or t.dtype == input.dtype for t in params):
        _mean_array(input, None)


def _bfloat16_stats(x, dims, shape, narrow):
    """torch's batch statistics of a bfloat16 ``x``: (mean, biased variance, x - mean), the
    sums in float32; where the parameters are bfloat16 too (``narrow``) torch keeps the
    mean and the sum of squared deviations (taken from the float32 mean) in bfloat16, so
    they are rounded to it."""
    wide = opmath(x)
    mean = wide.mean(dims)
    var = np.square(wide - mean.reshape(shape)).sum(dims)
    if narrow:
        mean, var = (a.astype(x.dtype).astype(wide.dtype) for a in (mean, var))
    var /= x.size // x.shape[1]
    return mean, var, np.asarray(wide - mean.reshape(shape))


def batch_norm_channels(input):
    """The size of ``input``'s channel dim (1), torch's IndexError for a 1-d input."""
    if input._data.ndim == 0:
        # (torch's kernel fails making its list of the ndim - 1 reduced dims)
        raise RuntimeError("SmallVector unable to grow. Requested capacity "
                           "(18446744073709551615) is larger than maximum value for size type "
                           "(4294967295)")
    return input.size(1)


def batch_norm_statistics_dims(running_mean, running_var):
    """torch's kernel reads the running statistics of a non-empty input as 1-d arrays: one
    of another dim (a (1, C) one, whose size check passed) is its accessor's refusal."""
    for t in (running_mean, running_var):
        if t is not None and t.dim() != 1:
            raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {t.dim()}")


def batch_norm_mixed_dtypes(input, params):
    """torch's CPU kernel's refusal of parameters (weight, bias, running statistics) whose
    dtype is not the input's: allowed only as float32 parameters of a float32, float16 or
    bfloat16 input."""
    dt = input.dtype
    if all(p is None or p.dtype is dt for p in params):
        return
    if dt not in (_dtype.float32, _dtype.float16, _dtype.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if any(p is not None and p.dtype is not _dtype.float32 for p in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")


def _empty_batch_norm(input, weight, bias):
    """Batch norm of an empty input, as torch computes it: nothing is checked or updated,
    and the (empty) result stays connected to ``weight`` and ``bias`` through their first
    elements."""
    out = input.clone()
    if weight is not None:
        out = out * weight[0]
    if bias is not None:
        out = out + bias[0]
    return out


def _batch_norm_fused(input, fused, running_mean, running_var, weight, bias, momentum, eps,
                      dims):
    """batch_norm's result and node from the kernels' ``(y, mean, var, rstd)``."""
    y, mean, var, rstd = fused
    count = y.size // y.shape[1]
    if running_mean is not None:
        _update(running_mean, mean, momentum)
    if running_var is not None:
        _update(running_var, _unbiased(var, count), momentum)
    result, n = _affine_result(NativeBatchNormBackward0, input, y, weight, bias, done=True)
    if n is not None:
        n.dims, n.eps, n.stats, n.xhat = dims, eps, None, None
        n.kernel_mean, n.rstd = mean, rstd
    return result


class NativeGroupNormBackward0(Node):
    """Gradients of group_norm; recomputes the group statistics in ember ops."""

    def backward(self, g):
        x, w, b = self.saved_tensors
        low = x._data.dtype.itemsize == 2   # (float16/bfloat16: in float32, as torch)
        if low:
            grads = self._backward(g.float(), x.float(), None if w is None else w.float(), b)
            return tuple(None if a is None else a.to(t.dtype)
                         for a, t in zip(grads, (x, w, b)))
        return self._backward(g, x, w, b)

    def _backward(self, g, x, w, b):
        groups, nd = self.groups, x.dim()
        dims = (0,) + tuple(range(2, nd))
        xg = x.reshape(x.shape[0], groups, _group_size(x.shape, groups))
        xhat, rstd = _standardised(xg, 2, self.eps)
        gw = (g * xhat.reshape(x.shape)).sum(dims) \
            if w is not None and self.next_functions[1][0] else None
        gb = g.sum(dims) if b is not None and self.next_functions[2][0] else None
        gx = None
        if self.next_functions[0][0] is not None:
            gxhat = g * _channel_view(w, nd) if w is not None else g
            gx = _normalised_grad(gxhat.reshape(xg.shape), xhat, rstd, 2).reshape(x.shape)
        return gx, gw, gb


def _group_size(shape, groups):
    """The number of values in each group of a (N, C, ...) shape (also for an empty batch,
    where a reshape's -1 could not tell)."""
    return shape[1] // groups * math.prod(shape[2:])


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalises each sample over groups of ``num_groups`` consecutive channels (and all
    trailing dims), then scales and shifts per channel."""
    x = input._data
    if x.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{x.ndim}")
    # (torch's Python function checks the groups' batch first: a ZeroDivisionError for no
    # groups, then its ValueError for one value per group)
    size = [x.shape[0] * x.shape[1] // num_groups, num_groups] + list(x.shape[2:])
    if size[0] * math.prod(size[2:]) == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         f"size {size}")
    return group_norm_kernel(input, num_groups, weight, bias, eps)


def group_norm_checks(input, channels, num_groups, weight, bias):
    """torch's checks of group norm's groups and parameters for ``channels`` channels
    (``native_group_norm`` is given the count; the others read it from ``input``)."""
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if channels % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    # torch reports the weight's shape (or [0] without one) in both messages
    shown = list(weight.shape) if weight is not None else [0]
    for t, name in ((weight, 'weight'), (bias, 'bias')):
        if t is not None and (t.dim() != 1 or t.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {shown} and input "
                               f"of shape {list(input.shape)}")


def group_norm_kernel(input, num_groups, weight=None, bias=None, eps=1e-5):
    """``torch.group_norm``: ``group_norm`` without the checks torch's Python function
    makes first."""
    x = input._data
    channels = input.size(1)
    group_norm_checks(input, channels, num_groups, weight, bias)
    shape = (1, channels) + (1,) * (x.ndim - 2)
    # (float16/bfloat16: statistics in float32, as torch)
    wide = x.astype(np.float32) if x.dtype.itemsize == 2 else x
    xg = wide.reshape(x.shape[0], num_groups, _group_size(x.shape, num_groups))
    centred = xg - xg.mean(2, keepdims=True)
    out = (centred / np.sqrt((centred * centred).mean(2, keepdims=True) + eps)).reshape(x.shape)
    # (as torch: a channels-last input gives a channels-last result)
    out = in_format(out, suggested_format(input._data))
    result, n = _affine_result(NativeGroupNormBackward0, input, out, weight, bias, shape)
    if n is not None:
        n.groups, n.eps = num_groups, eps
    return result


def _normalized_shape_checks(shape, **params):
    """torch's checks of layer and RMS norm's ``normalized_shape`` (a tuple) and of the
    parameters given (``weight=``, ``bias=``; None: not given), made before it looks at the
    input's shape."""
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, t in params.items():
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``input`` divided by its root mean square over the trailing ``normalized_shape`` dims
    (plus ``eps``, by default the machine epsilon of its dtype), times ``weight``. Composed
    of ember ops, so every derivative order works."""
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                        f"ints, not {type(normalized_shape).__name__}")
    for pos, d in enumerate(normalized_shape):
        if not isinstance(d, (int, np.integer)):
            raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                            f"of ints, but found element of type {type(d).__name__} at pos {pos}")
    shape = tuple(int(d) for d in normalized_shape)
    k = len(shape)
    _normalized_shape_checks(shape, weight=weight)
    if input.dim() < k:
        raise ValueError(f"Input tensor must have at least {k} dimensions, but got "
                         f"{input.dim()}")
    if tuple(input.shape[input.dim() - k:]) != shape:
        # (unlike layer_norm's, torch's message has no ", " after the "*")
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if not input.dtype.is_floating_point and not input.is_complex():
        raise NotImplementedError(f"\"rms_norm\" not implemented for "
                                  f"'{dtype_name(input._data.dtype)}'")
    if input._data.dtype.itemsize == 2:
        # torch computes float16 and bfloat16 in float32 (float32's eps the default), the
        # weight included, and casts the result back
        return rms_norm(input.float(), normalized_shape, weight, eps).to(input.dtype)
    if eps is None:
        eps = of_array_dtype(input._data.dtype).eps
    dims = tuple(range(input.dim() - k, input.dim()))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is None:
        return out
    out = out * weight  # (a weight of another dtype promotes; torch casts back to input's)
    return out if out.dtype == input.dtype else out.to(input.dtype)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalises each channel of each sample over its trailing (spatial) dims, then scales
    and shifts per channel: batch_norm over the ``N * C`` instances. With
    ``use_input_stats=False`` the running statistics are used instead; when given, they
    move towards the batch average of the instance statistics."""
    if use_input_stats:
        # (the functional form's own check, before aten's: one element has no variance)
        size = input.shape
        if math.prod(size[2:]) == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input "
                             f"size {size!r}")
    return instance_norm_kernel(input, weight, bias, running_mean, running_var,
                                use_input_stats, momentum, eps)


def instance_norm_kernel(input, weight, bias, running_mean, running_var, use_input_stats,
                         momentum, eps):
    """aten's ``instance_norm`` (``torch.instance_norm``'s argument order): its checks in its
    order -- the statistics in evaluation, the batch and channel dims, each per-channel
    tensor repeated per sample (a tensor of more than one dim refused there) -- then
    batch_norm's, over the ``N * C`` instances."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = input.size(0), input.size(1)
    weight, bias, mean, var = (None if t is None else t.repeat(n)
                               for t in (weight, bias, running_mean, running_var))
    out = batch_norm_kernel(input.reshape((1, n * c) + tuple(input.shape[2:])), mean, var,
                            weight, bias, use_input_stats, momentum, eps)
    for running, moved in zip((running_mean, running_var), (mean, var)):
        if running is not None and use_input_stats:  # (evaluation only reads them)
            running._data[...] = moved._data.reshape(n, c).mean(0).astype(running._data.dtype)
            running._vc[0] += 1
    return out.view(input.shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``input / (k + alpha * mean of squares over a window of size channels) ** beta``,
    the window centred on each channel (dim 1) and zero-padded at the ends."""
    dim = input.dim()
    if dim < 3:
        # (torch's message has this run of spaces)
        raise ValueError("Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    from .. import functional as F  # (the public forms: their parsers refuse a bad size)
    div = input * input
    # torch's steps (a 2-d average pool over the channels of a 3-d input, else a 3-d one),
    # so a bad ``size`` fails where torch's does
    if dim == 3:
        div = F.pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    return input / (div * alpha + k).pow(beta)


# -- layer norm and Lp normalisation ----------------------------------------------------
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
        want_x = self.next_functions[0][0] is not None
        done = _native.layer_norm_backward(
            g2, xh, None if w is None else w._data.reshape(size), rstd, want_x, want_w, want_b)
        if done is not None:
            gx, gw, gb = done
            return (None if gx is None else make(gx.reshape(xhat.shape)),
                    None if gw is None else make(gw.reshape(shape)),
                    None if gb is None else make(gb.reshape(shape)))
        gw = gb = gx = None
        # g xhat serves both the weight's gradient (its column sums) and the input's
        gxh = np.multiply(g2, xh, out=scratch('ln.t', xh.shape, xh.dtype)) \
            if want_w or want_x else None
        if want_w:
            gw = make(column_sums(gxh).reshape(shape))
        if want_b:
            gb = make(column_sums(g2).reshape(shape))
        if want_x:
            # rstd (gxhat - mean(gxhat) - xhat mean(gxhat xhat)) row by row, gxhat = g w: the
            # means are row dots of g and g xhat with w / size (no gxhat array)
            if w is None:
                m1, m2 = row_sums(g2, 1 / size), row_sums(gxh, 1 / size)
                gx = np.subtract(g2, m1)
            else:
                wv = w._data.reshape(size)
                m1, m2 = row_dots(g2, wv / size), row_dots(gxh, wv / size)
                gx = np.multiply(g2, wv)
                gx -= m1
            gx *= rstd
            m2 *= rstd
            gx -= np.multiply(xh, m2, out=gxh)
            gx = make(gx.reshape(xhat.shape))
        return gx, gw, gb


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalises over the trailing ``normalized_shape`` dims, then scales and shifts."""
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    _mixed_dtypes(input, weight, bias)
    shape = tuple(normalized_shape)
    k = len(shape)
    x = input._data
    _normalized_shape_checks(shape, weight=weight, bias=bias)
    if x.shape[x.ndim - k:] != shape or x.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(x.shape)}")
    if x.dtype.kind not in 'fV':  # (after the parser and the shapes, as in torch)
        raise NotImplementedError(f"\"LayerNormKernelImpl\" not implemented for "
                                  f"'{dtype_name(x.dtype)}'")
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


def _mixed_dtypes(input, *params):
    """torch's CPU check of parameters (the defined ones of ``params``) of another dtype than
    ``input``: allowed only as float32 parameters of a float16 or bfloat16 input. Before
    any check of shapes, as in torch."""
    given = [t._data.dtype for t in params if t is not None]
    if given and given[0] != input._data.dtype:
        if any(d != np.float32 for d in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of "
                               "Float")
        if input._data.dtype != np.float16 and input._data.dtype.kind != 'V':
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _standardised_array(x, dims, eps):
    """``((x - mean) * rstd, rstd)`` over the trailing ``dims``, on arrays; ``rstd`` is a
    column, one value per row of ``x`` seen as (rows, normalised elements)."""
    cols = math.prod(x.shape[x.ndim - len(dims):])
    x2 = x.reshape(math.prod(x.shape[:x.ndim - len(dims)]), cols)
    if x2.dtype == np.float16 or x2.dtype.kind == 'V':
        # (torch's statistics of half and bfloat16 inputs are float: the mean rounded to
        # half would leave a constant row off zero once subtracted)
        x2 = x2.astype(np.float32)
    if not cols:  # (no elements to normalise: torch's rstd is NaN)
        return x2.reshape(x.shape), np.full((x2.shape[0], 1), np.nan, x2.dtype)
    done = _native.standardise_rows(x2, eps)
    if done is not None:
        _redo_overflowed_rows(x2, done[0], done[1], eps)
        return done[0].reshape(x.shape), done[1]
    xhat = x2 - row_sums(x2, 1 / x2.shape[1])
    if xhat.dtype in _ROW_DTYPES:
        rstd = _row_dots(xhat, xhat)
        rstd /= x2.shape[1]
    else:
        rstd = row_sums(np.square(xhat, out=scratch('ln', xhat.shape, xhat.dtype)),
                        1 / x2.shape[1])
    rstd += eps
    np.sqrt(rstd, out=rstd)
    np.reciprocal(rstd, out=rstd)
    xhat *= rstd
    _redo_overflowed_rows(x2, xhat, rstd, eps)
    return xhat.reshape(x.shape), rstd


def _redo_overflowed_rows(x2, xhat, rstd, eps):
    """Recomputes in float64 the rows of float32 statistics (float32, bfloat16 inputs)
    whose sum or squares overflowed (values beyond ~1.8e19: rstd 0 or NaN, where the exact
    statistics are finite); O(rows) to find none."""
    if x2.dtype != np.float32 or (rstd.all() and np.isfinite(rstd).all()):
        return
    bad = (rstd[:, 0] == 0) | ~np.isfinite(rstd[:, 0])
    bad &= np.isfinite(x2).all(1)
    if not bad.any():
        return
    rows = x2[bad].astype(np.float64)
    centred = rows - rows.mean(1, keepdims=True)
    r = 1 / np.sqrt((centred * centred).mean(1, keepdims=True) + eps)
    xhat.reshape(x2.shape)[bad] = centred * r
    rstd[bad] = r


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``)."""
    norm = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    if out is not None:
        return out.copy_(input / norm)
    return input / norm


class WeightNormInterfaceBackward0(RecomputedBackward):
    """Gradient of ``_weight_norm``'s fused form (the norm over the first or the last dim)."""


def weight_norm_kernel(v, g, dim):
    """``ember._weight_norm``: over the first or the last dim torch runs one fused kernel,
    whose node ember shows too; elsewhere (and for ``dim=-1``, the norm of the whole tensor)
    the composition's own nodes."""
    from ..._ops.nn_entry import norm_except_dim

    def compose(v, g):
        return v * (g / norm_except_dim(v, 2, dim))
    if dim == 0 or dim == v.dim() - 1:
        return recomputed(WeightNormInterfaceBackward0, compose, (v, g))
    return compose(v, g)
