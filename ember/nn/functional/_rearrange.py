"""Rearranging functionals (exported by ``ember.nn.functional``): pixel_shuffle,
pixel_unshuffle, channel_shuffle, and unfold / fold (sliding blocks to columns and back,
on the convolution's im2col / col2im kernels). Each forward runs on arrays; each backward
is the opposite rearrangement as an ember op, so all derivative orders work."""
import numpy as np

from ..._memory_format import channels_last, in_format, suggested_format
from ..._ops import _args, _core
from ..._ops._core import Node
from ...autograd.graph import name_saved_values
from ._conv import _col2im, _im2col, _pad_arr


def _rearranged(node_cls, input, out, keep_format=False, **attrs):
    """``out`` as the op's result, row-major (``keep_format``: channels-last where the input
    suggests it, as torch's shuffles), with a ``node_cls`` node given ``attrs``."""
    if keep_format and out.ndim == 4 and suggested_format(input._data) is channels_last:
        out = in_format(out, channels_last)
    else:
        out = np.ascontiguousarray(out)
    n = _core.track(node_cls, (input,))
    result = _core.result(out, n)
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
                       out.reshape(lead + (c // (r * r), h * r, w * r)), True, factor=r)


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
                       out.reshape(lead + (c * r * r, h // r, w // r)), True, factor=r)


class ChannelShuffleBackward0(Node):
    """Gradient of channel_shuffle: the inverse shuffle (by channels / groups groups)."""

    def backward(self, g):
        return channel_shuffle(g, g.shape[1] // self.groups)


class _NativeChannelShuffleBackward(Node):
    """torch has no derivative of native_channel_shuffle: asking for one is its error."""

    def backward(self, g):
        raise RuntimeError("derivative for aten::native_channel_shuffle is not implemented")

    def name(self):
        return 'torch::autograd::NotImplemented'


_NativeChannelShuffleBackward.__name__ = 'NotImplemented'    # (its type's name in torch)


def channel_shuffle(input, groups):
    """Splits the channels (dim 1) into ``groups`` groups and interleaves them: channel
    ``i * (C / groups) + j`` moves to ``j * groups + i``."""
    return _channel_shuffle(input, groups, ChannelShuffleBackward0)


def native_channel_shuffle(input, groups):
    """``channel_shuffle`` as torch's native kernel, which has no derivative."""
    return _channel_shuffle(input, groups, _NativeChannelShuffleBackward)


def _channel_shuffle(input, groups, node_cls):
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
    return _rearranged(node_cls, input, out.reshape(x.shape), True, groups=groups)


# -- sliding blocks ----------------------------------------------------------------------------
class Im2ColBackward0(Node):
    """Gradient of unfold: fold of the gradient."""

    def backward(self, g):
        return fold(g, self.size, *self.geometry)


class Col2ImBackward0(Node):
    """Gradient of fold: unfold of the gradient."""

    def backward(self, g):
        return unfold(g, *self.geometry)


def _pairs(values, names, op):
    out = []
    for v, name in zip(values, names):
        t = tuple(v) if isinstance(v, (tuple, list)) else (v, v)
        out.append(t)
    # (torch's Python hands the pairs to ``op``, whose parser wants ints: that first)
    _args.int_lists(op, 2, **dict(zip(names, out)))
    for t, name in zip(out, names):
        if len(t) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(t)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = out[-4:]
    for bad, what, msg in (
            (kh <= 0 or kw <= 0, 'kernel size', f"kernel_height: {kh} kernel_width: {kw}"),
            (sh <= 0 or sw <= 0, 'stride', f"stride_height: {sh} stride_width: {sw}"),
            (dh <= 0 or dw <= 0, 'dilation', f"dilation_height: {dh} dilation_width: {dw}")):
        if bad:
            raise RuntimeError(f"{what} should be greater than zero, but got {msg}")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} "
                           f"pad_width: {pw}")
    return out


def _blocks(size, k, d, p, s):
    """The number of sliding blocks along each dim (a division rounded down, as torch's)."""
    return tuple((n + 2 * pi - (di * (ki - 1) + 1)) // si + 1
                 for n, ki, di, pi, si in zip(size, k, d, p, s))


def _kernel_dtype(input, kernel):
    """torch's im2col/col2im kernels take bool and the floating and complex types only."""
    if input._data.dtype.kind in 'iu':
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype.kernel_name}'")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Each ``kernel_size`` block of the (zero-padded) last two dims as a column:
    ``(N, C, H, W)`` -> ``(N, C*kh*kw, L)`` (``(C, H, W)`` -> ``(C*kh*kw, L)``), ``L`` the
    number of blocks."""
    k, d, p, s = _pairs((kernel_size, dilation, padding, stride),
                        ('kernel_size', 'dilation', 'padding', 'stride'), 'im2col')
    shape = tuple(input.shape)
    if input.size(1):  # torch reads dims 1 and 2 (the second only if the first is not 0)
        input.size(2)  # before it checks the rank
    if len(shape) not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(shape)}")
    blocks = _blocks(shape[-2:], k, d, p, s)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {shape[-2:]}, kernel_size={k}, "
                           f"dilation={d}, padding={p}, calculated shape of the array of "
                           f"sliding blocks as {blocks}, but its components must be at least one.")
    _kernel_dtype(input, 'im2col_out_cpu')
    x = input._data.reshape((-1,) + shape[-3:])
    cols = _im2col(_pad_arr(x, p), k, s, d, blocks)        # a scratch array: copied out
    out = cols.reshape(shape[:-3] + (shape[-3] * k[0] * k[1], blocks[0] * blocks[1]))
    return _rearranged(Im2ColBackward0, input, np.array(out), size=shape[-2:],
                       geometry=(k, d, p, s))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of ``unfold``: columns ``(N, C*kh*kw, L)`` summed back into their blocks of
    an ``(N, C, *output_size)`` output (overlaps add up)."""
    size, k, d, p, s = _pairs((output_size, kernel_size, dilation, padding, stride),
                              ('output_size', 'kernel_size', 'dilation', 'padding', 'stride'),
                              'col2im')
    shape = tuple(input.shape)
    if len(shape) not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: {list(shape)}")
    if shape[-2] % (k[0] * k[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={shape[-2]} and "
                           f"kernel_size={k}.")
    blocks = _blocks(size, k, d, p, s)
    if shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size={size}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, stride={s}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {blocks[0]} * "
                           f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)="
                           f"{shape[-1]}.")
    if min(blocks) < 1:   # (after the count check, as torch: two negatives pass it)
        raise RuntimeError(f"Given output_size={size}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, stride={s}, calculated shape of the array of sliding "
                           f"blocks as {blocks}, which is too small (non-positive)")
    _kernel_dtype(input, 'col2im_out_cpu')
    c = shape[-2] // (k[0] * k[1])
    cols = input._data.reshape((-1, c) + k + blocks)
    full = _col2im(cols, [n + 2 * pi for n, pi in zip(size, p)], s, d)  # a scratch array
    out = full[..., p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
    return _rearranged(Col2ImBackward0, input, np.array(out.reshape(shape[:-2] + (c,) + size)),
                       geometry=(k, d, p, s))


__all__ = ['pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle', 'native_channel_shuffle',
           'unfold', 'fold']


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``): ``geometry``
# is (kernel_size, dilation, padding, stride).
_GEOMETRY = {k: (lambda n, i=i: tuple(n.geometry[i]))
             for i, k in enumerate(('kernel_size', 'dilation', 'padding', 'stride'))}
name_saved_values(Im2ColBackward0, inputs=('self',),
                  sizes=('self_sym_argsize_minus_2', 'self_sym_argsize_minus_1'), attrs=_GEOMETRY)
name_saved_values(Col2ImBackward0, attrs=_GEOMETRY)
