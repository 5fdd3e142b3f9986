"""Simulated quantization on floating tensors (``fake_quantize_per_tensor_affine``,
``fake_quantize_per_channel_affine``): each value is rounded to the integer grid
``round(x / scale) + zero_point``, clamped to [quant_min, quant_max] and mapped back,
staying a float tensor. The gradient is the straight-through estimate torch uses: the
output gradient where the value fell inside the grid's range, zero where it was clamped.
(Real quantized tensors are a deliberate omission; see the README.)
"""
import numpy as np

from .._tensor import Tensor
from ._core import Node, register, track1, result, wrap_dim


class _Cachemask(Node):
    """Straight-through gradient: ``g`` where the value was not clamped."""

    def backward(self, g):
        return g * self.mask


def _named(name):
    return type(name, (_Cachemask,), {'__doc__': f"Gradient of fake quantization ({name})."})


_PER_TENSOR = _named('FakeQuantizePerTensorAffineCachemaskBackward0')
_PER_TENSOR_QPARAMS = _named('FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0')
_PER_CHANNEL = _named('FakeQuantizePerChannelAffineCachemaskBackward0')


def _check_range(quant_min, quant_max):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")


def _no_derivative(qparams, fn):
    """torch's refusal of a scale or zero point tensor that requires grad (its kernels have
    no derivative for them)."""
    for t, arg in zip(qparams, ('scale', 'zero_point')):
        if isinstance(t, Tensor) and t.requires_grad:
            from ..nn.functional._loss import _not_differentiable
            _not_differentiable(t, fn, arg)


def _quantize(input, scale, zero_point, quant_min, quant_max, node):
    x = input._data
    # as torch's kernel: the reciprocal of the scale in float32, rounding half to even
    inv = (np.float32(1) / np.asarray(scale, np.float32)).astype(x.dtype)
    if isinstance(zero_point, np.ndarray) and zero_point.dtype.kind == 'f':
        # a floating zero point (per-channel form) is added before rounding, in float32
        q = np.rint(x * inv + zero_point.astype(np.float32))
    else:
        q = np.rint(x * inv) + zero_point
    mask = (q >= quant_min) & (q <= quant_max)
    # back to floats in float32, the kernel's arithmetic (a float64 input too)
    out = (np.clip(q, quant_min, quant_max) - zero_point).astype(np.float32) * \
        np.asarray(scale, np.float32)
    n = track1(node, input)
    if n is not None:
        from .._tensor import make
        n.mask = make(mask.astype(x.dtype))
    return result(np.asarray(out, x.dtype), n)


@register(method=False)
def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """``input`` quantized to ``quant_min..quant_max`` with one ``scale`` and
    ``zero_point`` (numbers, or 1-element tensors) and mapped back to floats."""
    _check_range(quant_min, quant_max)
    node = _PER_TENSOR
    if isinstance(scale, Tensor) or isinstance(zero_point, Tensor):
        node = _PER_TENSOR_QPARAMS
        _no_derivative((scale, zero_point),
                       '_fake_quantize_per_tensor_affine_cachemask_tensor_qparams')
        scale = float(scale) if isinstance(scale, Tensor) else scale
        zero_point = int(zero_point) if isinstance(zero_point, Tensor) else zero_point
    elif not quant_min <= zero_point <= quant_max:
        # (only the number form checks: torch's kernel for tensor qparams takes any zero
        # point, truncated to an integer)
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    return _quantize(input, scale, zero_point, quant_min, quant_max, node)


@register(method=False)
def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """``input`` quantized with one ``scale`` and ``zero_point`` per index of ``axis``
    (1-D tensors of that dim's size) and mapped back to floats."""
    # (torch's order: autograd's refusal of qparams requiring grad, the dtypes of scale and
    # zero point, their shapes, the axis -- wrapped as a dim --, the range, then the rest)
    _no_derivative((scale, zero_point), 'fake_quantize_per_channel_affine_cachemask')
    zp = zero_point._data
    if scale._data.dtype != np.float32 and scale.dtype.name != 'bfloat16':
        raise RuntimeError(f"Scale must be Float or BFloat16, found {scale.dtype.kernel_name}")
    if zp.dtype not in (np.int32, np.float32, np.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found "
                           f"{zero_point.dtype.kernel_name}")
    if scale._data.ndim != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zp.ndim != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale._data.shape[0] != zp.shape[0]:
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    d = wrap_dim(axis, input._data.ndim)  # (its size is read as a dim's: a negative wraps)
    _check_range(quant_min, quant_max)
    if not input._data.ndim:
        raise IndexError(f"Dimension specified as {axis} but tensor has no dimensions")
    if scale._data.shape[0] != input._data.shape[d]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input "
                           "tensor")
    if not 0 <= axis < input._data.ndim:
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    # (torch checks the range of an integer zero point only; a floating one is any offset)
    if zp.dtype.kind != 'f' and (np.any(zp < quant_min) or np.any(zp > quant_max)):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    if input._data.dtype.kind not in 'fV':  # (its kernel's loops, even for no elements)
        raise NotImplementedError(f'"fake_quantize_channel_cachemask_cpu_type_handling" not '
                                  f"implemented for '{input.dtype.kernel_name}'")
    shape = [1] * input._data.ndim
    shape[axis] = -1
    return _quantize(input, scale._data.reshape(shape), zp.reshape(shape),
                     quant_min, quant_max, _PER_CHANNEL)
