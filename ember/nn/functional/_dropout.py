"""The dropouts of nn.functional: dropout, its channel-wise forms (dropout1d/2d/3d),
alpha_dropout and its channel-wise form feature_alpha_dropout. Each draws its mask on arrays and multiplies by it in ember ops, so the
gradients can be differentiated again."""
import warnings

import numpy as np

from ... import _dtype
from ..._ops import random as _random
from ..._ops._core import make
from ..._tensor import Tensor


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the rest by ``1 / (1 - p)``."""
    _check_p(p)
    kernel_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input  # torch returns the input itself here
    noise = _scaled_keep(input._data.shape, p, input._data.dtype)
    return input.mul_(noise) if inplace else input * noise


def _scaled_keep(shape, p, dtype):
    """Random keep mask of ``shape`` (each kept with probability ``1 - p``) over ``1 - p``."""
    if p == 1:
        return make(np.zeros(shape, dtype))
    _float_mask(dtype)
    keep = _random._rng(None).random(shape) >= p
    return make(keep.astype(dtype) / np.asarray(1 - p, dtype))


def _float_mask(dtype, bool_as='Bool'):
    """torch draws dropout's mask in the input's dtype and scales it as a float: its errors
    for an integer input (``bool_as``: the name its alpha dropout gives a bool one) and a
    complex one."""
    kind = np.dtype(dtype).kind
    if kind in 'biuc':
        name = _dtype.FROM_NP[np.dtype(dtype)].kernel_name
        if kind == 'c':
            raise NotImplementedError(f'"bernoulli_scalar_cpu_" not implemented for \'{name}\'')
        name = bool_as if kind == 'b' else name
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")


# -- channel-wise and alpha dropout ------------------------------------------------------------
def _check_p(p):
    """torch's Python-level check of ``p`` (a ValueError showing ``p`` as given); a ``p``
    that does not compare with a float fails the comparison first, in Python's words."""
    try:
        bad = p < 0.0 or p > 1.0
    except TypeError as e:
        from ..._ops._args import stands
        raise stands(e) from None
    if bad:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def kernel_p(p):
    """The dropout kernels' check of ``p``, which NaN fails too (a RuntimeError showing ``p``
    as a C++ double: 2 not 2.0), made before they look at ``training``."""
    if not 0 <= p <= 1:  # (before anything else: an in-place call's overlap check too)
        from ..._ops._args import stands
        raise stands(RuntimeError(f"dropout probability has to be between 0 and 1, but got "
                                  f"{float(p):g}"))


def _zeroed(input, inplace):
    """Dropout with p = 1: the input times zero (a MulBackward0 node, as in torch)."""
    zero = make(np.zeros((), input._data.dtype))
    return input.mul_(zero) if inplace else input * zero


def _feature_dropout(input, p, training, inplace):
    """Zeroes whole channels (dim 1 of a batched input) with probability ``p``, scaling the
    rest by ``1 / (1 - p)``: one draw per (sample, channel), broadcast over the rest."""
    kernel_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    x = input._data
    if p == 1:  # (before the rank check, as in torch)
        return _zeroed(input, inplace)
    if x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
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
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` of whole channels: one draw per (sample, channel) of a batched
    input, broadcast over its other dims."""
    _check_p(p)
    return _alpha_dropout(input, p, training, inplace, True)


def _alpha_dropout(input, p, training, inplace, feature):
    if type(training) is not bool or not isinstance(input, Tensor):
        # (torch hands them to its op, whose parser refuses another type, even in eval mode)
        from ..._ops import _args
        _args.check(('feature_' if feature else '') + 'alpha_dropout' + ('_' if inplace else ''),
                    (input, p, training), None)
    kernel_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    x = input._data
    if p == 1:  # (before the rank check, as in torch)
        return _zeroed(input, inplace)
    if feature and x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    _float_mask(x.dtype, bool_as='Long')
    shape = x.shape[:2] + (1,) * (x.ndim - 2) if feature else x.shape
    keep = (_random._rng(None).random(shape) >= p).astype(x.dtype)
    a = 1 / np.sqrt((_ALPHA ** 2 * p + 1) * (1 - p))
    shift = make(((keep - 1) * _ALPHA * a + _ALPHA * a * p).astype(x.dtype))
    scale = make((keep * a).astype(x.dtype))
    return input.mul_(scale).add_(shift) if inplace else input * scale + shift
