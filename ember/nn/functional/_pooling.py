"""The functional forms of pooling (exported by ``ember.nn.functional``): max and average
pooling over 1-d and 2-d windows, and adaptive average pooling.

Max pooling takes each window's maximum from NumPy sliding-window views (padding with -inf);
its backward scatters the gradient to the saved argmax positions. Average pooling (plain and
adaptive) is separable, so it is two matrix products, ``Mh @ x @ Mw.T``, whose backward is
``Mh.T @ g @ Mw`` in ember ops. Both backwards are ember ops, so they differentiate again.
The 1-d forms run the 2-d ones over an inserted height-1 axis, as torch does (their grad_fn
is the ``SqueezeBackward1`` on top)."""
import numpy as np

from ..._ops import _core
from ..._ops._core import Node, make
from ...autograd.grad_mode import STATE


# -- argument handling and torch's shape checks -----------------------------------------------
def _pair(v, msg):
    t = (v,) if isinstance(v, int) else tuple(v)
    if len(t) not in (1, 2):
        raise RuntimeError(msg)
    return t * 2 if len(t) == 1 else t


def _single(v, fn, name):
    t = (v,) if isinstance(v, int) else tuple(v)
    if len(t) != 1:
        raise RuntimeError(f"{fn}() argument '{name}' should contain one int (got {len(t)})")
    return t[0]


def _out_size(n, k, p, s, d, ceil_mode):
    """torch's ``pooling_output_shape`` (with its checks)."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > ((k - 1) * d + 1) // 2:
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
def _tap_views(a, k, s, d, out_hw):
    """For each kernel tap (i, j), the strided view of the padded ``a`` (..., H, W) holding
    that tap of every window, shape (..., oh, ow)."""
    (oh, ow), (sh, sw), (dh, dw) = out_hw, s, d
    return [a[..., i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
            for i in range(k[0]) for j in range(k[1])]


class MaxPool2DWithIndicesBackward0(Node):
    """Gradient of max pooling: each output's gradient added at its window's argmax."""

    def _indices(self):
        return _flat_indices(self.tap, self.geometry, self.in_shape[-1])

    def backward(self, g):
        if STATE.enabled:     # a graph of the gradient is wanted: scatter in ember ops
            return _scatter_to_planes(g, self._indices(), self.in_shape)
        # on arrays, tap by tap: one tap's view never meets the same input element twice, so
        # each tap is a plain strided add (a window-overlap safe scatter without ufunc.at)
        k, s, p, d, out_hw = self.geometry
        ga = g._data
        gp = np.zeros(self.in_shape[:-2] + self.padded_hw, ga.dtype)
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
        h, w = self.in_shape[-2:]
        return make(np.ascontiguousarray(gp[..., p[0]:p[0] + h, p[1]:p[1] + w]))


def _scatter_to_planes(g, indices, shape):
    """``g`` added into zeros of ``shape`` at the flat per-plane ``indices`` (the gradient
    of picking those elements), in ember ops so that it differentiates again."""
    planes = int(np.prod(shape[:-2], dtype=np.int64))
    zeros = make(np.zeros((planes, shape[-2] * shape[-1]), g._data.dtype))
    return zeros.scatter_add(1, indices.reshape(planes, -1), g.reshape(planes, -1)).reshape(shape)


def _fill(dtype):
    if dtype.kind in 'fV':
        return -np.inf
    return np.iinfo(dtype).min if dtype.kind in 'iu' else False


def _flat_indices(tap, geometry, width):
    """Window-local argmax taps -> flat positions in each input plane (torch's indices)."""
    k, s, p, d, _ = geometry
    ki, kj = np.divmod(tap, k[1])
    oh, ow = tap.shape[-2:]
    rows = np.arange(oh)[:, None] * s[0] - p[0] + ki * d[0]
    cols = np.arange(ow) * s[1] - p[1] + kj * d[1]
    return make((rows * width + cols).astype(np.int64))


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


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over each (dilated) ``kernel_size`` window of the last two dims of a
    ``(N, C, H, W)`` or ``(C, H, W)`` input; with ``return_indices`` also the argmax positions
    (flat indices into each ``H * W`` plane)."""
    k = _pair(kernel_size, "max_pool2d: kernel_size must either be a single int, or a tuple "
                           "of two ints")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _pair(
        stride, "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints")
    p = _pair(padding, "max_pool2d: padding must either be a single int, or a tuple of two ints")
    d = _pair(dilation, "max_pool2d: dilation must be either a single int, or a tuple of two "
                        "ints")
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    H, W = x.shape[-2:]
    out_hw = tuple(_out_size(n, k[i], p[i], s[i], d[i], ceil_mode) for i, n in enumerate((H, W)))
    _shape_check(x.shape, k, s, p, d, out_hw)
    eff = [(k[i] - 1) * d[i] + 1 for i in range(2)]
    after = [max(0, (out_hw[i] - 1) * s[i] + eff[i] - p[i] - n) for i, n in enumerate((H, W))]
    xp = x
    if any(p) or any(after):
        xp = np.pad(x, ((0, 0),) * (x.ndim - 2) + ((p[0], after[0]), (p[1], after[1])),
                    constant_values=_fill(x.dtype))
    views = _tap_views(xp, k, s, d, out_hw)
    out, tap = _window_max(views, x.dtype.kind in 'fcV')
    n = _core.track(MaxPool2DWithIndicesBackward0, (input,))
    result = _core.result(out, n)
    geometry = (k, s, p, d, out_hw)
    if n is not None:
        n.in_shape, n.padded_hw, n.tap, n.geometry = x.shape, xp.shape[-2:], tap, geometry
    return (result, _flat_indices(tap, geometry, W)) if return_indices else result


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over each (dilated) window of the last dim of a ``(N, C, L)`` or
    ``(C, L)`` input (``return_indices``: also the argmax positions along ``L``)."""
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:[{', '.join(map(str, input.shape))}]")
    args = []
    for name, v in (('kernel_size', kernel_size), ('stride', stride), ('padding', padding),
                    ('dilation', dilation)):
        if name == 'stride' and (v is None or (not isinstance(v, int) and len(v) == 0)):
            v = args[0]
        t = (v,) if isinstance(v, int) else tuple(v)
        if len(t) != 1:
            raise RuntimeError(f"max_pool1d() {name} must be an int, list of ints or tuple of "
                               f"ints of size 1 but got size {len(t)}")
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
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, True)
    out, idx = out[0].squeeze(-2), out[1].squeeze(-2)
    return (out, idx) if return_indices else out


# -- average pooling (separable: two matrix products) ------------------------------------------
class _SeparableBackward(Node):
    """Gradient of ``Mh @ x @ Mw.T``: ``Mh.T @ g @ Mw`` (linear, so it differentiates again)."""

    def backward(self, g):
        mh, mw = (make(m.astype(g._data.dtype)) for m in self.mats)
        return mh.t().matmul(g).matmul(mw)


class AvgPool2DBackward0(_SeparableBackward):
    """Gradient of average pooling."""


class AdaptiveAvgPool2DBackward0(_SeparableBackward):
    """Gradient of adaptive average pooling."""


def _separable(node_cls, input, mh, mw):
    x = input._data
    if x.dtype.kind == 'f':
        out = mh.astype(x.dtype) @ x @ mw.T.astype(x.dtype)
    elif x.dtype.kind == 'V':  # bfloat16: in float32, rounded once
        out = _core.opmath_call(lambda a: mh.astype(a.dtype) @ a @ mw.T.astype(a.dtype), x)
    else:  # integer averages truncate, as torch's integer division does: exact sums first
        den = np.outer(*(np.round(1 / m.max(1, initial=1e-300)) for m in (mh, mw)))
        out = np.trunc(((mh > 0) @ x @ (mw > 0).T) / den).astype(x.dtype)
    n = _core.track(node_cls, (input,))
    result = _core.result(out, n)
    if n is not None:
        n.mats = (mh, mw)
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
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _pair(
        stride, "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints")
    p = _pair(padding, "avg_pool2d: padding must either be a single int, or a tuple of two ints")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    ndim = input.dim()
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
    return _separable(AvgPool2DBackward0, input, mh, mw)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """The mean over each window of the last dim of a ``(N, C, L)`` or ``(C, L)`` input."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "avg_pool1d)")
    k = _single(kernel_size, 'avg_pool1d', 'kernel_size')
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _single(
        stride, 'avg_pool1d', 'stride')
    p = _single(padding, 'avg_pool1d', 'padding')
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def _adaptive_windows(n, o):
    """torch's adaptive windows over ``n`` elements: window ``i`` of ``o`` spans
    ``floor(i*n/o)`` to ``ceil((i+1)*n/o)``."""
    i = np.arange(o)
    return i * n // o, -(-(i + 1) * n // o)


def adaptive_avg_pool2d(input, output_size):
    """The mean over ``output_size`` windows that evenly tile the last two dims (window ``i``
    spans ``floor(i*H/oh)`` to ``ceil((i+1)*H/oh)``); a None entry keeps that size."""
    if not isinstance(output_size, int):
        if input.dim() <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
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
    return _separable(AdaptiveAvgPool2DBackward0, input, *mats)


__all__ = ['max_pool1d', 'max_pool2d', 'avg_pool1d', 'avg_pool2d', 'adaptive_avg_pool2d']


# -- adaptive max pooling ----------------------------------------------------------------------
class AdaptiveMaxPool2DBackward0(Node):
    """Gradient of adaptive max pooling: each output's gradient added at its argmax."""

    def backward(self, g):
        return _scatter_to_planes(g, self.indices, self.in_shape)


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
    if not isinstance(output_size, int):
        output_size = tuple(v if v is not None else n for v, n in
                            zip(output_size, tuple(input.shape)[-len(output_size):]))
    size = (output_size,) * 2 if isinstance(output_size, int) else tuple(output_size)
    if len(size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    shape = tuple(input.shape)
    if len(shape) not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{_shape_list(shape)}")
    for i in range(len(shape) - 2, len(shape)):
        if shape[i] == 0:
            raise RuntimeError("adaptive_max_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {_shape_list(shape)} "
                               f"with dimension {i} being empty")
    if min(size) < 0:
        bad = next(v for v in size if v < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"{_shape_list(shape[:-2] + size)}")
    x = input._data
    if x.dtype.kind not in 'fV':
        raise NotImplementedError(f'"adaptive_max_pool2d" not implemented for '
                                  f"'{input.dtype.kernel_name}'")
    (rows, rok), (cols, cok) = _adaptive_taps(shape[-2], size[0]), _adaptive_taps(shape[-1],
                                                                                   size[1])
    if 0 in size:
        out, flat = np.empty(shape[:-2] + size, x.dtype), np.empty(shape[:-2] + size, np.int64)
    else:
        # every window gathered at the longest window's size, the padding taps at -inf (tap 0
        # is always real, so a padding tap never wins a tie)
        win = x[..., rows[:, None, :, None], cols[None, :, None, :]]   # (..., oh, ow, kh, kw)
        win = np.where(rok[:, None, :, None] & cok[None, :, None, :], win, -np.inf)
        kh, kw = rows.shape[1], cols.shape[1]
        out, tap = _window_max([win[..., i, j] for i in range(kh) for j in range(kw)], True)
        ki, kj = np.divmod(tap.astype(np.int64), kw)
        flat = (rows[np.arange(size[0])[:, None], ki] * shape[-1]
                + cols[np.arange(size[1]), kj])
    out = out.astype(x.dtype, copy=False)
    indices = make(np.ascontiguousarray(flat, np.int64))
    n = _core.track(AdaptiveMaxPool2DBackward0, (input,))
    result = _core.result(out, n)
    if n is not None:
        n.indices, n.in_shape = indices, shape
    return (result, indices) if return_indices else result


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` always returning ``(output, indices)``."""
    return adaptive_max_pool2d(input, output_size, True)


def _pool1d_input(input, fn):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {fn})")


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
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, o), True)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d`` always returning ``(output, indices)``."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_avg_pool1d(input, output_size):
    """The mean over ``output_size`` windows that evenly tile the last dim of an
    ``(N, C, L)`` or ``(C, L)`` input."""
    _pool1d_input(input, 'adaptive_avg_pool1d')
    o = _output_size1d(output_size, 'adaptive_avg_pool1d')
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


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
        planes = int(np.prod(self.in_shape[:-2], dtype=np.int64))
        return g.reshape(planes, -1).gather(1, self.indices.reshape(planes, -1)).reshape(
            self.in_shape), None


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
        if size[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size[d]}")
    return list(size)


def _max_unpool2d(input, indices, size):
    """Scatters ``input`` into zero planes of ``size`` at the flat ``indices``."""
    if indices._data.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64 but got: "
                           f"{indices.dtype.kernel_name}")
    shape = tuple(input.shape)
    if len(shape) not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {len(shape)} dimensions.")
    if tuple(indices.shape) != shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({_shape_list(shape)}) but got indices tensor with shape: "
                           f"{_shape_list(indices.shape)}")
    for i in range(1, len(shape)):
        if shape[i] == 0:
            raise RuntimeError("max_unpooling2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {_shape_list(shape)} with "
                               f"dimension {i} being empty.")
    oh, ow = size
    planes = int(np.prod(shape[:-2], dtype=np.int64))
    idx = indices._data.reshape(planes, -1)
    bad = (idx < 0) | (idx >= oh * ow)
    if bad.any():  # torch reports the last bad one it meets (one thread: the last in order)
        raise RuntimeError(f"Found an invalid max index: {idx.ravel()[np.flatnonzero(bad)[-1]]} "
                           f"(output volumes are of size {oh}x{ow})")
    out = np.zeros((planes, oh * ow), input._data.dtype)
    np.put_along_axis(out, idx, input._data.reshape(planes, -1), 1)
    n = _core.track(MaxUnpool2DBackward0, (input, indices))
    result = _core.result(out.reshape(shape[:-2] + (oh, ow)), n)
    if n is not None:
        n.indices, n.in_shape = indices, shape
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
    out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
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
