"""The functional forms of pooling (exported by ``ember.nn.functional``): max and average
pooling over 1-d and 2-d windows, and adaptive average pooling.

Max pooling takes each window's maximum from NumPy sliding-window views (padding with -inf);
its backward scatters the gradient to the saved argmax positions. Average pooling (plain and
adaptive) is separable, so it is two matrix products, ``Mh @ x @ Mw.T``, whose backward is
``Mh.T @ g @ Mw`` in ember ops. Both backwards are ember ops, so they differentiate again.
The 1-d forms run the 2-d ones over an inserted height-1 axis, as torch does (their grad_fn
is the ``SqueezeBackward1`` on top)."""
import numpy as np

from ..._ops import _args, _core
from ..._ops._core import Node, make
from ...autograd.grad_mode import STATE
from ._loss import _not_differentiable
from ._separable import SeparableBackward, apply, apply_windows


# -- argument handling and torch's shape checks -----------------------------------------------
_INT = (int, np.integer)  # a size given as one number (torch's parser takes NumPy ints)

def _pair(v, msg):
    t = (v,) if isinstance(v, _INT) else tuple(v)
    if len(t) not in (1, 2):
        raise RuntimeError(msg)
    return t * 2 if len(t) == 1 else t


def _single(v, fn, name):
    t = (v,) if isinstance(v, _INT) else tuple(v)
    if len(t) != 1:
        raise RuntimeError(f"{fn}() argument '{name}' should contain one int (got {len(t)})")
    return t[0]


def _no_stride(stride):
    """Whether ``stride`` was left out (None or an empty list: the kernel size)."""
    return stride is None or (not isinstance(stride, _INT) and len(stride) == 0)


def _out_size(n, k, p, s, d, ceil_mode):
    """torch's ``pooling_output_shape`` (with its checks)."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    span = (k - 1) * d + 1
    if p > (span // 2 if span >= 0 else -(-span // 2)):  # (C's division, toward zero)
        raise RuntimeError("pad should be at most half of effective kernel size, but got "
                           f"pad={p}, kernel_size={k} and dilation={d}")
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1  # the last window must start inside the (left-padded) input
    return o


def _shape_check(shape, k, s, p, d, out):
    """torch's ``pool2d_shape_check``."""
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} "
                           f"kW: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} "
                           f"dilationW: {d[1]}")
    valid = len(shape) >= 3 and shape[1] != 0 and shape[2] != 0
    if not ((len(shape) == 3 and shape[0] != 0 and valid)
            or (len(shape) == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:[{', '.join(map(str, shape))}]")
    if k[1] // 2 < p[1] or k[0] // 2 < p[0]:
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {p[1]}, padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    if out[0] < 1 or out[1] < 1:
        c, h, w = shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}). Output size is too small")


# -- max pooling -------------------------------------------------------------------------------
def _tap_views(a, k, s, d, out):
    """For each kernel tap (in row-major order), the strided view of the padded ``a``
    (..., *spatial) holding that tap of every window, shape (..., *out)."""
    return [a[(Ellipsis,) + tuple(slice(t * dd, t * dd + (o - 1) * ss + 1, ss)
                                  for t, dd, o, ss in zip(tap, d, out, s))]
            for tap in np.ndindex(*k)]


class MaxPool2DWithIndicesBackward0(Node):
    """Gradient of max pooling: each output's gradient added at its window's argmax."""

    def _indices(self):
        return _flat_indices(self.tap, self.geometry, self.in_shape[-len(self.padded_hw):])

    def backward(self, g):
        nd = len(self.padded_hw)
        if STATE.enabled:     # a graph of the gradient is wanted: scatter in ember ops
            return _scatter_to_planes(g, self._indices(), self.in_shape, nd)
        # on arrays, tap by tap: one tap's view never meets the same input element twice, so
        # each tap is a plain strided add (a window-overlap safe scatter without ufunc.at)
        k, s, p, d, out_hw = self.geometry
        ga = g._data
        gp = np.zeros(self.in_shape[:-nd] + self.padded_hw, ga.dtype)
        disjoint = all(si >= (ki - 1) * di + 1 for ki, si, di in zip(k, s, d))
        # gradient * mask is the fast form of where(mask, gradient, 0), but not when an inf
        # or NaN gradient would leak (inf * 0 = NaN) to the elements that did not win
        finite = bool(np.isfinite(ga).all()) if ga.dtype.kind in 'fcV' else True
        for t, view in enumerate(_tap_views(gp, k, s, d, out_hw)):
            won = self.tap == t
            if finite and disjoint:  # windows don't overlap: every element is written once
                np.multiply(ga, won, out=view)
                continue
            part = ga * won if finite else np.where(won, ga, ga.dtype.type(0))
            if disjoint:
                np.copyto(view, part)
            else:
                view += part
        crop = tuple(slice(a, a + m) for a, m in zip(p, self.in_shape[-nd:]))
        return make(np.ascontiguousarray(gp[(Ellipsis,) + crop]))


class MaxPool3DWithIndicesBackward0(MaxPool2DWithIndicesBackward0):
    """Gradient of 3-d max pooling (the same scatter)."""


def _scatter_to_planes(g, indices, shape, nd=2):
    """``g`` added into zeros of ``shape`` at the flat indices into each plane of its last
    ``nd`` dims (the gradient of picking those elements), in ember ops so that it
    differentiates again."""
    planes = int(np.prod(shape[:-nd], dtype=np.int64))
    zeros = make(np.zeros((planes, int(np.prod(shape[-nd:], dtype=np.int64))), g._data.dtype))
    picked = int(np.prod(g.shape[-nd:], dtype=np.int64))  # (not -1: no planes leaves it open)
    return zeros.scatter_add(1, indices.reshape(planes, picked),
                             g.reshape(planes, picked)).reshape(shape)


def _fill(dtype):
    if dtype.kind in 'fV':
        return -np.inf
    return np.iinfo(dtype).min if dtype.kind in 'iu' else False


def _flat_indices(tap, geometry, sizes):
    """Window-local argmax taps -> flat positions in each input plane of spatial ``sizes``
    (torch's indices)."""
    k, s, p, d, out = geometry
    nd = len(k)
    flat = 0
    for ax, t in enumerate(np.unravel_index(tap, k)):
        start = np.arange(out[ax]).reshape((-1,) + (1,) * (nd - 1 - ax)) * s[ax] - p[ax]
        flat = flat * sizes[ax] + start + t.astype(np.int64) * d[ax]
    return make(np.asarray(flat, np.int64))


def _window_max(views, floating):
    """The elementwise maximum of the tap views and, for each output, the tap it came from,
    with torch's choice: the first of equal maxima, the last NaN (a NaN wins). Taps are
    found with integer arithmetic on the masks (``copyto(where=)`` is several times slower)."""
    out = views[0].copy()
    for view in views[1:]:
        np.maximum(out, view, out=out)
    kind = np.int8 if len(views) < 2 ** 7 else np.int32
    tap = np.zeros(out.shape, kind)
    found = views[0] == out
    for t in range(1, len(views)):
        new = views[t] == out
        new &= ~found
        found |= new
        tap += new.view(np.int8).astype(kind, copy=False) * kind(t)
    if floating and len(views) > 1:
        nan = np.isnan(out)
        if nan.any():
            for t, view in enumerate(views):             # ascending: the last NaN stays
                np.copyto(tap, t, where=np.isnan(view) & nan)
    return out, tap


def _first_inside(tap, best, lowest, k, s, p, d, out):
    """Where a window's maximum is the dtype's ``lowest`` value (a window of padding only,
    or of -inf), torch's kernel keeps the tap it starts from: the first at a position >= 0
    in each dim, not a left padding tap. Rewrites ``tap`` in place there. (Only windows
    starting in the left padding can differ: they are looked at first, the rest only if
    one of them does.)"""
    nd = len(k)
    border = []
    for ax in range(nd):
        if p[ax]:
            sl = [slice(None)] * best.ndim
            sl[best.ndim - nd + ax] = slice(0, -(-p[ax] // s[ax]))
            border.append(tuple(sl))
    if not any((best[sl] == lowest).any() for sl in border):
        return
    first = 0
    for ax in range(nd):
        start = np.arange(out[ax]) * s[ax] - p[ax]
        t = np.maximum(0, -(start // d[ax]))                 # ceil(-start / d), at least 0
        first = first * k[ax] + t.reshape((-1,) + (1,) * (nd - 1 - ax))
    np.copyto(tap, np.broadcast_to(first, tap.shape).astype(tap.dtype), where=best == lowest)


# The dtypes each of torch's pooling kernels has no loop for (torch's own kernel names, as
# its NotImplementedError says them); refused once every argument check has passed.
_INTS = ('uint8', 'int8', 'int16', 'int32', 'int64')
_COMPLEX = ('complex64', 'complex128')
_KERNEL_REFUSES = {
    'max_pool1d_impl': ('bool',) + _INTS + _COMPLEX,
    'max_pool2d': ('bool',) + _COMPLEX,
    'max_pool3d': ('bool',) + _COMPLEX,
    'avg_pool2d': ('bool',) + _INTS[:-1] + _COMPLEX,  # (int64 has one)
    'avg_pool3d_out_frame': ('bool', 'float16', 'bfloat16') + _COMPLEX,
    'adaptive_avg_pool2d': ('bool',) + _INTS + _COMPLEX,
    'adaptive_avg_pool3d_cpu': ('bool',) + _INTS + _COMPLEX,
}


def _refuse_kernel_dtype(input, kernel):
    """torch's NotImplementedError when pooling ``kernel`` has no loop for input's dtype."""
    if input._data.dtype.name in _KERNEL_REFUSES[kernel]:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.kernel_name}\'')


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over each (dilated) ``kernel_size`` window of the last two dims of a
    ``(N, C, H, W)`` or ``(C, H, W)`` input; with ``return_indices`` also the argmax positions
    (flat indices into each ``H * W`` plane)."""
    k = _pair(kernel_size, "max_pool2d: kernel_size must either be a single int, or a tuple "
                           "of two ints")
    s = k if _no_stride(stride) else _pair(
        stride, "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints")
    p = _pair(padding, "max_pool2d: padding must either be a single int, or a tuple of two ints")
    d = _pair(dilation, "max_pool2d: dilation must be either a single int, or a tuple of two "
                        "ints")
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out_hw = tuple(_out_size(n, k[i], p[i], s[i], d[i], ceil_mode)
                   for i, n in enumerate(x.shape[-2:]))
    _shape_check(x.shape, k, s, p, d, out_hw)
    _refuse_kernel_dtype(input, 'max_pool2d')
    return _max_pool(input, k, s, p, d, out_hw, MaxPool2DWithIndicesBackward0, return_indices)


def _max_pool(input, k, s, p, d, out, node_cls, return_indices):
    """Max pooling over the last ``len(k)`` dims (arguments checked): the windows' maxima
    from the tap views of the input padded with the dtype's lowest value."""
    x = input._data
    nd = len(k)
    sp = x.shape[-nd:]
    after = [max(0, (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 - p[i] - sp[i])
             for i in range(nd)]
    xp = x
    if any(p) or any(after):
        xp = np.pad(x, ((0, 0),) * (x.ndim - nd) + tuple(zip(p, after)),
                    constant_values=_fill(x.dtype))
    views = _tap_views(xp, k, s, d, out)
    best, tap = _window_max(views, x.dtype.kind in 'fcV')
    if any(p):
        _first_inside(tap, best, _fill(x.dtype), k, s, p, d, out)
    n = _core.track(node_cls, (input,))
    result = _core.result(best, n)
    geometry = (k, s, p, d, out)
    if n is not None:
        n.in_shape, n.padded_hw, n.tap, n.geometry = x.shape, xp.shape[-nd:], tap, geometry
    return (result, _flat_indices(tap, geometry, sp)) if return_indices else result


def _pool1d_input(input, fn):
    """torch's dims check of the 1-d pooling ops that run the 2-d ones (``checkDimRange``)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {fn})")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over each (dilated) window of the last dim of a ``(N, C, L)`` or
    ``(C, L)`` input (``return_indices``: also the argmax positions along ``L``)."""
    if return_indices:  # (torch's max_pool1d_with_indices: the 2-d op's checks and kernel)
        _pool1d_input(input, 'max_pool1d')
        k = _single(kernel_size, 'max_pool1d', 'kernel_size')
        s = k if _no_stride(stride) else _single(stride, 'max_pool1d', 'stride')
        p, d = _single(padding, 'max_pool1d', 'padding'), _single(dilation, 'max_pool1d',
                                                                    'dilation')
        out, idx = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode,
                              True)
        return out.squeeze(-2), idx.squeeze(-2)
    shape = tuple(input.shape)
    if not (len(shape) == 2 and all(shape) or len(shape) == 3 and all(shape[1:])):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:[{', '.join(map(str, shape))}]")
    args = []
    for name, v, what in (('kernel_size', kernel_size, 'an int, list of ints or tuple'),
                          ('stride', stride, 'None, an int, list of ints, or tuple'),
                          ('padding', padding, 'an int, list of ints, or tuple'),
                          ('dilation', dilation, 'an int, list of ints or tuple')):
        if name == 'stride' and _no_stride(v):
            v = args[0]
        t = (v,) if isinstance(v, _INT) else tuple(v)
        if len(t) != 1:
            raise RuntimeError(f"max_pool1d() {name} must be {what} of ints of size 1 but got "
                               f"size {len(t)}")
        args.append(t[0])
    k, s, p, d = args
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError("max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    o = _out_size(input.shape[-1], k, p, s, d, ceil_mode)
    if o <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {o}")
    _refuse_kernel_dtype(input, 'max_pool1d_impl')  # (its kernel has float loops only)
    return max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode,
                      True)[0].squeeze(-2)


# -- average pooling (separable: two matrix products) ------------------------------------------
class AvgPool2DBackward0(SeparableBackward):
    """Gradient of average pooling."""


class AdaptiveAvgPool2DBackward0(SeparableBackward):
    """Gradient of adaptive average pooling."""


class AvgPool3DBackward0(SeparableBackward):
    """Gradient of 3-d average pooling."""


class AdaptiveAvgPool3DBackward0(SeparableBackward):
    """Gradient of 3-d adaptive average pooling."""


def _separable(node_cls, input, *mats):
    """Average pooling as one matrix per spatial dim (see ``_separable``'s module)."""
    x = input._data
    if x.dtype.kind in 'fc':
        out = apply_windows(x, [m.astype(x.dtype) for m in mats])
    elif x.dtype.kind == 'V':  # bfloat16: in float32, rounded once
        out = _core.opmath_call(lambda a: apply_windows(a, [m.astype(a.dtype) for m in mats]),
                                x)
    else:  # integer averages truncate, as torch's integer division does: exact sums first
        den = 1
        for m in mats:
            den = np.multiply.outer(den, np.round(1 / m.max(1, initial=1e-300)))
        out = np.trunc(apply(x, [(m > 0).astype(np.int64) for m in mats]) / den).astype(x.dtype)
    n = _core.track(node_cls, (input,))
    result = _core.result(out, n)
    if n is not None:
        n.mats = mats
    return result


def _window_matrix(n, starts, ends, sizes):
    cols = np.arange(n)
    mask = (cols >= starts[:, None]) & (cols < ends[:, None])
    return mask / np.asarray(sizes, np.float64).reshape(-1, 1)


def _avg_matrix(n, k, p, s, o, count_include_pad, override):
    starts = np.arange(o) * s - p
    ends = np.minimum(starts + k, n + p)
    sizes = ends - starts
    lo, hi = np.maximum(starts, 0), np.minimum(ends, n)
    if override is not None:
        sizes = np.ones(o)
    elif not count_include_pad:
        sizes = hi - lo
    return _window_matrix(n, lo, hi, sizes)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean over each ``kernel_size`` window of the last two dims of a ``(N, C, H, W)`` or
    ``(C, H, W)`` input (zero padding counted unless ``count_include_pad=False``; a fixed
    divisor with ``divisor_override``)."""
    k = _pair(kernel_size, "avg_pool2d: kernel_size must either be a single int, or a tuple "
                           "of two ints")
    s = k if _no_stride(stride) else _pair(
        stride, "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints")
    p = _pair(padding, "avg_pool2d: padding must either be a single int, or a tuple of two ints")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    ndim = input.dim()
    if ndim == 0:  # (torch's C++ size(-3): no scalar wrap)
        raise IndexError("Dimension specified as -3 but tensor has no dimensions")
    if ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got -3)")
    H, W = input.shape[-2:]
    out_hw = tuple(_out_size(n, k[i], p[i], s[i], 1, ceil_mode) for i, n in enumerate((H, W)))
    _shape_check(tuple(input.shape), k, s, p, (1, 1), out_hw)
    mh = _avg_matrix(H, k[0], p[0], s[0], out_hw[0], count_include_pad, divisor_override)
    mw = _avg_matrix(W, k[1], p[1], s[1], out_hw[1], count_include_pad, divisor_override)
    if divisor_override is not None:
        mh = mh / divisor_override
    _refuse_kernel_dtype(input, 'avg_pool2d')
    return _separable(AvgPool2DBackward0, input, mh, mw)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """The mean over each window of the last dim of a ``(N, C, L)`` or ``(C, L)`` input."""
    _pool1d_input(input, 'avg_pool1d')
    k = _single(kernel_size, 'avg_pool1d', 'kernel_size')
    s = k if _no_stride(stride) else _single(stride, 'avg_pool1d', 'stride')
    p = _single(padding, 'avg_pool1d', 'padding')
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def _adaptive_windows(n, o):
    """torch's adaptive windows over ``n`` elements: window ``i`` of ``o`` spans
    ``floor(i*n/o)`` to ``ceil((i+1)*n/o)``."""
    i = np.arange(o)
    return i * n // o, -(-(i + 1) * n // o)


def _output_dims(input, output_size):
    """torch's adaptive pools fill an ``output_size`` list's None entries from the input's
    sizes first: its ValueError for an input with no more dims than the list has entries.
    (It reads the sizes whatever ``output_size`` is: a non-tensor input fails there.)"""
    sizes = input.size()
    if not isinstance(output_size, int) and len(sizes) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")


def adaptive_avg_pool2d(input, output_size):
    """The mean over ``output_size`` windows that evenly tile the last two dims (window ``i``
    spans ``floor(i*H/oh)`` to ``ceil((i+1)*H/oh)``); a None entry keeps that size."""
    _output_dims(input, output_size)
    if not isinstance(output_size, int):
        shape = tuple(input.shape)[-len(output_size):]
        output_size = [v if v is not None else n for v, n in zip(output_size, shape)]
    size = (output_size,) * 2 if isinstance(output_size, int) else tuple(output_size)
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{size[0]}, {size[1]}}}")
    if size == (1, 1):
        return input.mean((-1, -2), keepdim=True)  # torch's shortcut (MeanBackward1)
    shape = tuple(input.shape)
    if len(shape) not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"[{', '.join(map(str, shape))}]")
    for i in range(len(shape) - 3 + 1, len(shape)):
        if shape[i] == 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes "
                               f"[{', '.join(map(str, shape))}] with dimension {i} being empty")
    mats = []
    for n, o in zip(shape[-2:], size):
        starts, ends = _adaptive_windows(n, o)
        mats.append(_window_matrix(n, starts, ends, ends - starts))
    if input._data.size and 0 not in size:  # (an empty input or output runs no kernel)
        _refuse_kernel_dtype(input, 'adaptive_avg_pool2d')
    return _separable(AdaptiveAvgPool2DBackward0, input, *mats)


__all__ = ['max_pool1d', 'max_pool2d', 'avg_pool1d', 'avg_pool2d', 'adaptive_avg_pool2d']


# -- adaptive max pooling ----------------------------------------------------------------------
class AdaptiveMaxPool2DBackward0(Node):
    """Gradient of adaptive max pooling: each output's gradient added at its argmax."""

    def backward(self, g):
        return _scatter_to_planes(g, self.indices, self.in_shape, self.nd)


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    """Gradient of 3-d adaptive max pooling (the same scatter)."""


def _adaptive_taps(n, o):
    """For each of the ``o`` adaptive windows over ``n`` elements, its positions padded to
    the longest window (clipped into range) and which of them really belong to it."""
    starts, ends = _adaptive_windows(n, o)
    k = int((ends - starts).max()) if o else 0
    pos = starts[:, None] + np.arange(k)
    return np.minimum(pos, n - 1), pos < ends[:, None]


def _shape_list(shape):
    return f"[{', '.join(map(str, shape))}]"


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum over ``output_size`` windows that evenly tile the last two dims (as
    ``adaptive_avg_pool2d``'s); with ``return_indices`` also the flat argmax positions in
    each ``H * W`` plane. A None entry of ``output_size`` keeps that size."""
    _output_dims(input, output_size)
    if not isinstance(output_size, int):
        output_size = tuple(v if v is not None else n for v, n in
                            zip(output_size, tuple(input.shape)[-len(output_size):]))
    size = (output_size,) * 2 if isinstance(output_size, int) else tuple(output_size)
    shape = tuple(input.shape)
    if len(shape) not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{_shape_list(shape)}")
    _nonzero_after_first(shape, 'adaptive_max_pool2d')
    if len(size) != 2:  # (after the input's checks, as torch)
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    if min(size) < 0:
        bad = next(v for v in size if v < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"{_shape_list(shape[:-2] + size)}")
    return _adaptive_max(input, size, AdaptiveMaxPool2DBackward0, 'adaptive_max_pool2d',
                         return_indices)


def _adaptive_max(input, size, node_cls, fn, return_indices):
    """Adaptive max pooling of the last ``len(size)`` dims (arguments checked)."""
    x, shape, nd = input._data, tuple(input.shape), len(size)
    if x.dtype.kind not in 'fV':
        raise NotImplementedError(f'"{fn}" not implemented for '
                                  f"'{input.dtype.kernel_name}'")
    taps = [_adaptive_taps(n, o) for n, o in zip(shape[-nd:], size)]
    if 0 in size:
        out, flat = np.empty(shape[:-nd] + size, x.dtype), np.empty(shape[:-nd] + size, np.int64)
    else:
        # every window gathered at the longest window's size, the padding taps at -inf (tap 0
        # is always real, so a padding tap never wins a tie): (..., *out, *longest window)
        def axis(a, ax):     # (o, k) placed at output dim ax and window dim ax
            shp = [1] * (2 * nd)
            shp[ax], shp[nd + ax] = a.shape
            return a.reshape(shp)
        win = x[(Ellipsis,) + tuple(axis(pos, ax) for ax, (pos, _) in enumerate(taps))]
        ok = True
        for ax, (_, real) in enumerate(taps):
            ok = ok & axis(real, ax)
        win = np.where(ok, win, -np.inf)
        k = tuple(pos.shape[1] for pos, _ in taps)
        out, tap = _window_max([win[(Ellipsis,) + t] for t in np.ndindex(*k)], True)
        flat = 0
        for ax, (t, (pos, _)) in enumerate(zip(np.unravel_index(tap.astype(np.int64), k),
                                               taps)):
            o = np.arange(size[ax]).reshape((-1,) + (1,) * (nd - 1 - ax))
            flat = flat * shape[len(shape) - nd + ax] + pos[o, t]
    out = out.astype(x.dtype, copy=False)
    indices = make(np.ascontiguousarray(flat, np.int64))
    n = _core.track(node_cls, (input,))
    result = _core.result(out, n)
    if n is not None:
        n.indices, n.in_shape, n.nd = indices, shape, nd
    return (result, indices) if return_indices else result


def _adaptive_size_parse(op, output_size, input):
    """torch's ``*_with_indices`` functions hand ``output_size`` (for 2-d and 3-d, Nones
    filled in from the input's size, which must have more dims) to their C op, whose parser
    refuses a bool or a list that holds other than ints first."""
    if output_size is None:
        return
    if op[-2] != '1' and not isinstance(output_size, int):  # (torch's _list_with_default)
        if not hasattr(type(output_size), '__len__'):
            raise TypeError(f"object of type '{type(output_size).__name__}' has no len()")
        if input.dim() <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if isinstance(output_size, (list, tuple)):  # (past the first, a bool unpacks as an int)
        output_size = [1 if v is None or i and type(v) is bool else v
                       for i, v in enumerate(output_size)]
    _args.int_lists(op, 2, sized=True, output_size=output_size)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` always returning ``(output, indices)``."""
    _adaptive_size_parse('adaptive_max_pool2d', output_size, input)
    return adaptive_max_pool2d(input, output_size, True)


def _output_size1d(output_size, fn):
    if output_size is None:
        raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, "
                        "not NoneType")
    return _single(output_size, fn, 'output_size')


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The maximum over ``output_size`` windows that evenly tile the last dim of an
    ``(N, C, L)`` or ``(C, L)`` input (``return_indices``: also the argmax positions)."""
    _pool1d_input(input, 'adaptive_max_pool1d')
    o = _output_size1d(output_size, 'adaptive_max_pool1d')
    _nonzero_after_first(tuple(input.shape), 'adaptive_max_pool1d')
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, o), True)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d`` always returning ``(output, indices)``."""
    _adaptive_size_parse('adaptive_max_pool1d', output_size, input)
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_avg_pool1d(input, output_size):
    """The mean over ``output_size`` windows that evenly tile the last dim of an
    ``(N, C, L)`` or ``(C, L)`` input."""
    _pool1d_input(input, 'adaptive_avg_pool1d')
    o = _output_size1d(output_size, 'adaptive_avg_pool1d')
    out = adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)
    if o != 1:  # (torch's refusals are its pooling kernel's: a size of 1 is a mean)
        _args.refuse_dtypes('adaptive_avg_pool1d', _args.refusals('adaptive_avg_pool1d') or {},
                            (input,), None)
    return out


adaptive_avg_pool1d._refuses_dtypes = True  # (see overrides.overridable)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool2d`` always returning ``(output, indices)``."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool1d`` always returning ``(output, indices)``."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# -- max unpooling -----------------------------------------------------------------------------
class MaxUnpool2DBackward0(Node):
    """Gradient of max unpooling: the output gradient read back at the indices."""

    def backward(self, g):
        planes = int(np.prod(self.in_shape[:-self.nd], dtype=np.int64))
        return g.reshape(planes, -1).gather(1, self.indices.reshape(planes, -1)).reshape(
            self.in_shape), None


class MaxUnpool3DBackward0(MaxUnpool2DBackward0):
    """Gradient of 3-d max unpooling (the same gather)."""


def _as_tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _unpool_size(input, k, s, p, output_size):
    """torch's output size of max unpooling (the inverse of max pooling's, or a given size
    within one stride of it)."""
    nd = len(k)
    default = [(input.shape[-nd + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(nd)]
    size = default
    if output_size is not None:
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(nd):
            lo, hi = default[d] - s[d], default[d] + s[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f'{lo} and {hi})')
        size = output_size
    for d in range(nd):
        if not size[d] >= 0:  # (NaN too, as torch's test)
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size[d]}")
    # (torch's Python hands the size to its C op (1-d: max_unpool2d), whose parser wants ints)
    _args.int_lists('max_unpool3d' if nd == 3 else 'max_unpool2d', 3, output_size=list(size))
    return list(size)


def _max_unpool2d(input, indices, size):
    """Scatters ``input`` into zero planes of ``size`` at the flat ``indices``."""
    if indices._data.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64 but got: "
                           f"{indices.dtype.kernel_name}")
    return _max_unpool(input, indices, size, MaxUnpool2DBackward0)


def _max_unpool(input, indices, size, node_cls):
    """Scatters ``input`` into zero volumes of ``size`` (2 or 3 dims) at the flat ``indices``."""
    nd = len(size)
    shape = tuple(input.shape)
    if len(shape) not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d "
                           f"Tensor, but got a tensor with {len(shape)} dimensions.")
    if tuple(indices.shape) != shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({_shape_list(shape)}) but got indices tensor with shape: "
                           f"{_shape_list(indices.shape)}")
    for i in range(1, len(shape)):
        if shape[i] == 0:
            raise RuntimeError(f"max_unpooling{nd}d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {_shape_list(shape)} with "
                               f"dimension {i} being empty.")
    planes = int(np.prod(shape[:-nd], dtype=np.int64))
    volume = int(np.prod(size, dtype=np.int64))
    picked = int(np.prod(shape[-nd:], dtype=np.int64))  # (not -1: no planes leaves it open)
    idx = indices._data.reshape(planes, picked)
    bad = (idx < 0) | (idx >= volume)
    # (torch reports the last bad one it meets (one thread: the last in order); an empty
    # output runs no kernel to meet one)
    if volume and bad.any():
        raise RuntimeError(f"Found an invalid max index: {idx.ravel()[np.flatnonzero(bad)[-1]]} "
                           f"(output volumes are of size {'x'.join(map(str, size))})")
    out = np.zeros((planes, volume), input._data.dtype)
    if volume:
        np.put_along_axis(out, idx, input._data.reshape(planes, picked), 1)
    n = _core.track(node_cls, (input, indices))
    result = _core.result(out.reshape(shape[:-nd] + tuple(size)), n)
    if n is not None:
        n.indices, n.in_shape, n.nd = indices, shape, nd
    return result


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``: each value put back at its ``indices`` position
    in zero planes (the pooled input's size, or ``output_size``)."""
    k = _as_tuple(kernel_size, 2)
    s = _as_tuple(stride, 2) if stride is not None else k
    p = _as_tuple(padding, 2)
    return _max_unpool2d(input, indices, _unpool_size(input, k, s, p, output_size))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d``: each value put back at its ``indices`` position
    along zero rows (the pooled input's length, or ``output_size``)."""
    k = _as_tuple(kernel_size, 1)
    s = _as_tuple(stride, 1) if stride is not None else k
    p = _as_tuple(padding, 1)
    size = _unpool_size(input, k, s, p, output_size)
    # as torch: planes of L x 1, so errors name those sizes
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)


# -- power-average pooling ---------------------------------------------------------------------
def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, max_pool, avg_pool, taps):
    if isinstance(norm_type, (int, float)) and norm_type == float('inf'):
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if isinstance(norm_type, (int, float)) and norm_type == -float('inf'):
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    try:
        powered = input.pow(norm_type)
    except Exception as e:  # noqa: BLE001 - any error of it comes first, as in torch
        # (torch computes it as an argument of its avg_pool call, before that call's parser
        # looks at kernel_size and stride)
        raise _args.stands(e)
    if type(kernel_size) is bool or type(stride) is bool:
        # (our pools take a bool as an int: torch's parser of avg_poolNd does not)
        name = f'ember.nn.functional.lp_pool{avg_pool.__name__[-2]}d'
        _args.inner_check(name, lp_pool1d, (input, norm_type, kernel_size, stride,
                                            ceil_mode))
    out = avg_pool(powered, kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(taps).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window of the last two dims: ``(sum x^p)^(1/p)``
    (a max of absolute values for an infinite ``norm_type``)."""
    kh, kw = _as_tuple(kernel_size, 2)
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, max_pool2d, avg_pool2d,
                    kh * kw)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window of the last dim: ``(sum x^p)^(1/p)`` (a max
    of absolute values for an infinite ``norm_type``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, max_pool1d, avg_pool1d,
                    kernel_size)


__all__ += ['adaptive_max_pool1d', 'adaptive_max_pool2d', 'adaptive_max_pool1d_with_indices',
            'adaptive_max_pool2d_with_indices', 'adaptive_avg_pool1d', 'max_pool1d_with_indices',
            'max_pool2d_with_indices', 'max_unpool1d', 'max_unpool2d', 'lp_pool1d', 'lp_pool2d']


# -- 3-d pooling (the N-d cores above, with torch's 3-d argument checks) ------------------------
def _triple(v, msg, default=None):
    if default is not None and (v is None or (not isinstance(v, _INT) and len(v) == 0)):
        return default
    t = (v,) if isinstance(v, _INT) else tuple(v)
    if len(t) not in (1, 3):
        raise RuntimeError(msg)
    return t * 3 if len(t) == 1 else t


def _shape_check3d(shape, k, s, p, d, out, fn, check_input_size=False):
    """torch's ``pool3d_shape_check``."""
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} "
                           f"kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} "
                           f"dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} "
                           f"dilationH: {d[1]} dilationW: {d[2]}")
    for i in range(len(shape) - 4, len(shape)):
        if shape[i] <= 0:
            raise RuntimeError(f"{fn}: Expected input's non-batch dimensions to have positive "
                               f"length, but input has a shape of {_shape_list(shape)} and "
                               f"non-batch dimension {shape[i]} has length zero!")
    t, h, w = shape[-3:]
    if check_input_size and (t < k[0] or h < k[1] or w < k[2]):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if k[0] // 2 < p[0] or k[2] // 2 < p[2] or k[1] // 2 < p[1]:
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {k[0]} kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} "
                           f"padH: {p[1]}")
    if min(out) < 1:
        c = shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")


def _input3d(input):
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over each (dilated) window of the last three dims of a ``(N, C, D, H, W)``
    or ``(C, D, H, W)`` input; with ``return_indices`` also the argmax positions (flat
    indices into each ``D * H * W`` volume)."""
    k = _triple(kernel_size, "max_pool3d: kernel_size must either be a single int, or a tuple "
                             "of three ints")
    s = _triple(stride, "max_pool3d: stride must either be omitted, a single int, or a tuple of "
                        "three ints", k)
    p = _triple(padding, "max_pool3d: padding must either be a single int, or a tuple of three "
                         "ints")
    d = _triple(dilation, "max_pool3d: dilation must be either a single int, or a tuple of "
                          "three ints")
    _input3d(input)
    shape = tuple(input.shape)
    out = tuple(_out_size(n, k[i], p[i], s[i], d[i], ceil_mode)
                for i, n in enumerate(shape[-3:]))
    _shape_check3d(shape, k, s, p, d, out, 'max_pool3d')
    _refuse_kernel_dtype(input, 'max_pool3d')
    return _max_pool(input, k, s, p, d, out, MaxPool3DWithIndicesBackward0, return_indices)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool3d`` always returning ``(output, indices)``."""
    if not isinstance(input, _core.Tensor):  # (torch's function reads input.is_cuda first)
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'is_cuda'")
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean over each window of the last three dims of a ``(N, C, D, H, W)`` or
    ``(C, D, H, W)`` input (zero padding counted unless ``count_include_pad=False``; a fixed
    divisor with ``divisor_override``)."""
    k = _triple(kernel_size, "avg_pool3d: kernel_size must be a single int, or a tuple of "
                             "three ints")
    s = _triple(stride, "avg_pool3d: stride must be omitted, a single int, or a tuple of three "
                        "ints", k)
    p = _triple(padding, "avg_pool3d: padding must be a single int, or a tuple of three ints")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _input3d(input)
    if input._data.dtype.kind in 'iu' and input._data.dtype != np.int64:
        raise NotImplementedError(f'"avg_pool3d_out_frame" not implemented for '
                                  f"'{input.dtype.kernel_name}'")
    shape = tuple(input.shape)
    out = tuple(_out_size(n, k[i], p[i], s[i], 1, ceil_mode) for i, n in enumerate(shape[-3:]))
    _shape_check3d(shape, k, s, p, (1, 1, 1), out, 'avg_pool3d', check_input_size=True)
    mats = [_avg_matrix(n, k[i], p[i], s[i], out[i], count_include_pad, divisor_override)
            for i, n in enumerate(shape[-3:])]
    if divisor_override is not None:
        mats[0] = mats[0] / divisor_override
    _refuse_kernel_dtype(input, 'avg_pool3d_out_frame')
    return _separable(AvgPool3DBackward0, input, *mats)


def _adaptive_size3d(input, output_size):
    _output_dims(input, output_size)
    if not isinstance(output_size, int):
        output_size = tuple(v if v is not None else n for v, n in
                            zip(output_size, tuple(input.shape)[-len(output_size):]))
    return (output_size,) * 3 if isinstance(output_size, int) else tuple(output_size)


def _adaptive_input3d(shape, fn, sep=''):
    if len(shape) not in (4, 5):
        raise RuntimeError(f"{fn}(): Expected 4D or 5D tensor, but got{sep} {_shape_list(shape)}")
    _nonzero_after_first(shape, fn)


def _nonzero_after_first(shape, fn):
    """torch's check of the adaptive max pools and the 3-D adaptive pools: every dim but the
    first has elements (the first may be empty, batch or, unbatched, channels)."""
    for i in range(1, len(shape)):
        if shape[i] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {_shape_list(shape)} with "
                               f"dimension {i} being empty")


def adaptive_avg_pool3d(input, output_size):
    """The mean over ``output_size`` windows that evenly tile the last three dims (as
    ``adaptive_avg_pool2d``'s); a None entry keeps that size."""
    size = _adaptive_size3d(input, output_size)
    if len(size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if min(size) < 0:
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{size[0]}, {size[1]},{size[2]}}}")
    if size == (1, 1, 1):
        return input.mean((-1, -2, -3), keepdim=True)  # torch's shortcut (MeanBackward1)
    shape = tuple(input.shape)
    _adaptive_input3d(shape, 'adaptive_avg_pool3d')
    if input._data.dtype.kind not in 'fV':
        raise NotImplementedError(f'"adaptive_avg_pool3d_cpu" not implemented for '
                                  f"'{input.dtype.kernel_name}'")
    mats = []
    for n, o in zip(shape[-3:], size):
        starts, ends = _adaptive_windows(n, o)
        mats.append(_window_matrix(n, starts, ends, ends - starts))
    _refuse_kernel_dtype(input, 'adaptive_avg_pool3d_cpu')
    return _separable(AdaptiveAvgPool3DBackward0, input, *mats)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The maximum over ``output_size`` windows that evenly tile the last three dims; with
    ``return_indices`` also the flat argmax positions in each ``D * H * W`` volume."""
    size = _adaptive_size3d(input, output_size)
    shape = tuple(input.shape)
    _adaptive_input3d(shape, 'adaptive_max_pool3d', ':')
    if len(size) != 3:  # (after the input's checks, as torch)
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    if min(size) < 0:
        bad = next(v for v in size if v < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"{_shape_list(shape[:-3] + size)}")
    return _adaptive_max(input, size, AdaptiveMaxPool3DBackward0, 'adaptive_max_pool3d_cpu',
                         return_indices)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool3d`` always returning ``(output, indices)``."""
    _adaptive_size_parse('adaptive_max_pool3d', output_size, input)
    return adaptive_max_pool3d(input, output_size, True)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool3d``: each value put back at its ``indices`` position
    in zero volumes (the pooled input's size, or ``output_size``)."""
    k = _as_tuple(kernel_size, 3)
    s = _as_tuple(stride, 3) if stride is not None else k
    p = _as_tuple(padding, 3)
    size = _unpool_size(input, k, s, p, output_size)
    if indices._data.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64")
    if min(s) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(s)}")
    return _max_unpool(input, indices, size, MaxUnpool3DBackward0)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window of the last three dims: ``(sum x^p)^(1/p)``
    (a max of absolute values for an infinite ``norm_type``)."""
    kd, kh, kw = _as_tuple(kernel_size, 3)
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, max_pool3d, avg_pool3d,
                    kd * kh * kw)


# -- fractional max pooling --------------------------------------------------------------------
class FractionalMaxPool2DBackward0(AdaptiveMaxPool2DBackward0):
    """Gradient of fractional max pooling: each output's gradient added at its argmax."""


class FractionalMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    """Gradient of 3-d fractional max pooling (the same scatter)."""


def _fractional_starts(samples, n, k, o):
    """torch's pseudo-random window starts: for sample ``u`` in [0, 1) and
    ``alpha = (n - k) / (o - 1)``, start ``i`` is ``int((i + u) * alpha) - int(u * alpha)``,
    the last one ``n - k``; computed in the samples' dtype, as torch does."""
    dt = samples.dtype
    starts = np.empty(samples.shape + (o,), np.int64)
    if o > 1:
        alpha = dt.type(n - k) / dt.type(o - 1)
        i = np.arange(o - 1, dtype=dt)
        u = samples[..., None]
        starts[..., :-1] = (((i + u) * alpha).astype(np.int64)
                            - (u * alpha).astype(np.int64))
    if o > 0:
        starts[..., -1] = n - k
    return starts


def _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                _random_samples, nd, node_cls):
    fn = f'fractional_max_pool{nd}d'
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an output_ratio")
    k = _as_tuple(kernel_size, nd)
    if output_size is None:
        if nd == 2 and isinstance(output_ratio, (list, tuple)) and len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                             "single Int or tuple of Ints.")
        ratio = _as_tuple(output_ratio, nd)
        output_size = [int(input.size(-nd + i) * ratio[i]) for i in range(nd)]
    size = _as_tuple(output_size, nd)
    if _random_samples is None:
        # torch draws the samples here, before its op checks anything: rand(n, C, nd) in
        # the input's dtype reads input.size(-nd - 1) and refuses non-floating dtypes
        from ..._ops.random import _float_dt
        if input.dim() != nd + 1:
            input.size(0)
        input.size(-nd - 1)
        _float_dt(input.dtype, 'check_uniform_bounds')
    # (then torch's C op parses its int lists and checks their lengths)
    _args.int_lists(fn, 2, sized=True, kernel_size=kernel_size, output_size=output_size)
    for name, v in (('kernel_size', kernel_size), ('output_size', output_size)):
        if isinstance(v, (list, tuple)) and len(v) != nd:
            raise RuntimeError(f"{fn}: {name} must either be a single Int or tuple of "
                               f"{'three ' if nd == 3 else ''}Ints")
    _not_differentiable(_random_samples, fn, 'random_samples')
    shape = tuple(input.shape)
    if len(shape) not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{_shape_list(shape)}")
    x = input._data
    batched = x.ndim == nd + 2
    if not batched:
        x = x[None]
    n, c, sp = x.shape[0], x.shape[1], x.shape[2:]
    # torch's checks: 2-d allows windows reaching the end, 3-d not (and goes T, W, H)
    names = ('height', 'width') if nd == 2 else ('time', 'height', 'width')
    for i in ((0, 1) if nd == 2 else (0, 2, 1)):
        if size[i] + k[i] - 1 > sp[i] - (nd == 3):
            where = fn + ('()' if nd == 2 else '_out()')
            raise RuntimeError(f"{where}: pool {names[i]} {k[i]} too large relative to input "
                               f"{names[i]} {sp[i]}")
    if _random_samples is not None and _random_samples.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if _random_samples is None:
        samples = input.new_empty((n, c, nd)).uniform_()._data
    else:
        samples = _random_samples._data
    # torch's samples run W, H for 2-d windows and T, H, W for 3-d ones
    order = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_fractional_starts(samples[..., order[i]], sp[i], k[i], size[i])
              for i in range(nd)]
    # the flat position of every window tap: (N, C, *out, *k)
    flat = 0
    for i in range(nd):
        pos = starts[i].reshape(n, c, *[size[i] if j == i else 1 for j in range(nd)],
                                *[1] * nd)
        tap = np.arange(k[i]).reshape([1] * (2 + nd + i) + [k[i]] + [1] * (nd - 1 - i))
        flat = flat * sp[i] + pos + tap
    flat = np.broadcast_to(flat, (n, c) + tuple(size) + k)
    win = np.take_along_axis(x.reshape(n, c, -1), flat.reshape(n, c, -1), 2).reshape(flat.shape)
    taps = [win[(Ellipsis,) + t] for t in np.ndindex(*k)]
    out, tap = _window_max(taps, x.dtype.kind in 'fcV')
    where = np.take_along_axis(flat.reshape(flat.shape[:2 + nd] + (-1,)),
                               tap.astype(np.int64)[..., None], -1)[..., 0]
    if not batched:
        out, where = out[0], where[0]
    indices = make(np.ascontiguousarray(where, np.int64))
    node = _core.track(node_cls, (input,))
    result = _core.result(np.ascontiguousarray(out), node)
    if node is not None:
        node.indices, node.in_shape, node.nd = indices, shape, nd
    return (result, indices) if return_indices else result


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling over pseudo-randomly placed ``kernel_size`` windows of the last two dims,
    to ``output_size`` (or ``output_ratio`` times the input size); ``_random_samples``
    (N, C, 2) in [0, 1) fixes the placement."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, 2, FractionalMaxPool2DBackward0)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``fractional_max_pool2d`` always returning ``(output, indices)``."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling over pseudo-randomly placed ``kernel_size`` windows of the last three dims
    (see ``fractional_max_pool2d``; ``_random_samples`` is (N, C, 3))."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, 3, FractionalMaxPool3DBackward0)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``fractional_max_pool3d`` always returning ``(output, indices)``."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


__all__ += ['max_pool3d', 'max_pool3d_with_indices', 'avg_pool3d', 'adaptive_avg_pool3d',
            'adaptive_max_pool3d', 'adaptive_max_pool3d_with_indices', 'max_unpool3d',
            'lp_pool3d', 'fractional_max_pool2d', 'fractional_max_pool2d_with_indices',
            'fractional_max_pool3d', 'fractional_max_pool3d_with_indices']
