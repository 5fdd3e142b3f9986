"""Rearranging functionals (exported by ``ember.nn.functional``): pixel_shuffle,
pixel_unshuffle, channel_shuffle, and unfold / fold (sliding blocks to columns and back,
on the convolution's im2col / col2im kernels). Each forward runs on arrays; each backward
is the opposite rearrangement as an ember op, so all derivative orders work."""
import numpy as np

from .._ops import _core
from .._ops._core import Node
from ._conv_functional import _col2im, _im2col, _pad_arr


def _rearranged(node_cls, input, out, **attrs):
    n = _core.track(node_cls, (input,))
    result = _core.result(np.ascontiguousarray(out), n)
    if n is not None:
        for k, v in attrs.items():
            setattr(n, k, v)
    return result


# -- pixel and channel shuffles ----------------------------------------------------------------
class PixelShuffleBackward0(Node):
    """Gradient of pixel_shuffle: pixel_unshuffle of the gradient."""

    def backward(self, g):
        return pixel_unshuffle(g, self.factor)


class PixelUnshuffleBackward0(Node):
    """Gradient of pixel_unshuffle: pixel_shuffle of the gradient."""

    def backward(self, g):
        return pixel_shuffle(g, self.factor)


def _check_shuffle(input, factor, fn, what):
    if input.dim() < 3:
        raise RuntimeError(f"{fn} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{fn} expects a positive {what}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """``(*, C*r*r, H, W)`` -> ``(*, C, H*r, W*r)``: each group of ``r*r`` channels becomes
    an ``r x r`` block of pixels."""
    r = upscale_factor
    _check_shuffle(input, r, 'pixel_shuffle', 'upscale_factor')
    x = input._data
    c, h, w = x.shape[-3:]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           "divisible by the square of upscale_factor, but input.size(-3)="
                           f"{c} is not divisible by {r * r}")
    lead = x.shape[:-3]
    out = x.reshape(lead + (c // (r * r), r, r, h, w))
    k = len(lead)
    out = out.transpose(tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return _rearranged(PixelShuffleBackward0, input,
                       out.reshape(lead + (c // (r * r), h * r, w * r)), factor=r)


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H*r, W*r)`` -> ``(*, C*r*r, H, W)``: the inverse of ``pixel_shuffle``."""
    r = downscale_factor
    _check_shuffle(input, r, 'pixel_unshuffle', 'downscale_factor')
    x = input._data
    c, h, w = x.shape[-3:]
    for name, size, d in (('height', h, -2), ('width', w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({d})={size} is not divisible "
                               f"by {r}")
    lead = x.shape[:-3]
    out = x.reshape(lead + (c, h // r, r, w // r, r))
    k = len(lead)
    out = out.transpose(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return _rearranged(PixelUnshuffleBackward0, input,
                       out.reshape(lead + (c * r * r, h // r, w // r)), factor=r)


class ChannelShuffleBackward0(Node):
    """Gradient of channel_shuffle: the inverse shuffle (by channels / groups groups)."""

    def backward(self, g):
        return channel_shuffle(g, g.shape[1] // self.groups)


def channel_shuffle(input, groups):
    """Splits the channels (dim 1) into ``groups`` groups and interleaves them: channel
    ``i * (C / groups) + j`` moves to ``j * groups + i``."""
    x = input._data
    if x.ndim <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(x.shape)}")
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    c = x.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    out = x.reshape((x.shape[0], groups, c // groups) + x.shape[2:]).swapaxes(1, 2)
    return _rearranged(ChannelShuffleBackward0, input, out.reshape(x.shape), groups=groups)


__all__ = ['pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle']
