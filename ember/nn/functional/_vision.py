"""The vision functions of nn.functional: resampling (``interpolate``). ``interpolate`` is
separable: per spatial dim a matrix ``M`` (out x in) maps the input, so the forward applies each
``M`` along its dim and the backward applies ``M.T`` in ember ops (linear, so it differentiates
again). Index and weight formulas follow torch's CPU kernels, in the same precision."""
import math

import numpy as np

from ..._ops import _core
from ._separable import SeparableBackward, apply


# -- interpolate ---------------------------------------------------------------------------
_DIMS = {1: 'Upsample{}1DBackward0', 2: 'Upsample{}2DBackward0', 3: 'Upsample{}3DBackward0'}


def _node_class(kind, k):
    name = _DIMS[k].format(kind)
    return type(name, (SeparableBackward,), {'__doc__': f"Gradient of {kind.lower()} "
                                             f"resampling over {k} spatial dim(s)."})


_NODES = {(kind, k): _node_class(kind, k) for kind in ('Nearest', 'Linear', 'Bilinear',
                                                        'Trilinear') for k in (1, 2, 3)}


def _scale(in_size, out_size, scale, dtype):
    """torch's compute_scales_value: 1/scale_factor if given, else in/out, in ``dtype``."""
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(in_size) / dtype.type(out_size)


def _nearest_index(in_size, out_size, scale, shortcuts=False):
    """Source index of each output position: ``floor(i * scale)``. torch's backward kernel
    (not its forward one) takes shortcuts for equal and doubled sizes; ``shortcuts`` copies it."""
    if shortcuts and out_size == in_size:
        return np.arange(out_size)
    if shortcuts and out_size == 2 * in_size:
        return np.arange(out_size) >> 1
    s = _scale(in_size, out_size, scale, np.dtype(np.float32))  # torch uses float here
    src = np.floor(np.arange(out_size, dtype=np.float32) * s).astype(np.int64)
    return np.minimum(src, in_size - 1)


def _linear_matrix(in_size, out_size, scale, align_corners, dtype):
    """The (out, in) matrix of linear interpolation, as torch's upsample_linear kernels."""
    dt = np.dtype(dtype)
    if align_corners:
        s = dt.type(in_size - 1) / dt.type(out_size - 1) if out_size > 1 else dt.type(0)
        src = s * np.arange(out_size, dtype=dt)
    else:
        s = _scale(in_size, out_size, scale, dt)
        src = s * (np.arange(out_size, dtype=dt) + dt.type(0.5)) - dt.type(0.5)
        src = np.maximum(src, dt.type(0))
    i0 = np.minimum(src.astype(np.int64), in_size - 1)
    offset = (i0 < in_size - 1).astype(np.int64)
    l1 = np.clip(src - i0.astype(dt), 0, 1).astype(dt)
    m = np.zeros((out_size, in_size), dt)
    rows = np.arange(out_size)
    np.add.at(m, (rows, i0), dt.type(1) - l1)
    np.add.at(m, (rows, i0 + offset), l1)
    return m


def _resample(input, sizes, scales, mode, align_corners):
    x = input._data
    k = len(sizes)
    ins = x.shape[2:]
    if any(o <= 0 for o in sizes) or any(i <= 0 for i in ins):
        names = 'DHW'[3 - k:]
        fmt = ', '.join
        raise RuntimeError("Input and output sizes should be greater than 0, but got input ("
                           + fmt(f"{n}: {i}" for n, i in zip(names, ins)) + ") output ("
                           + fmt(f"{n}: {o}" for n, o in zip(names, sizes)) + ")")
    if mode == 'nearest':
        # torch's 2-d forward kernel takes the shortcuts too, its 1-d and 3-d ones do not
        idx = [_nearest_index(i, o, s, k == 2) for i, o, s in zip(ins, sizes, scales)]
        out = x
        for ax, ix in zip(range(2, 2 + k), idx):
            out = np.take(out, ix, axis=ax)
        out = np.ascontiguousarray(out)
        back = [_nearest_index(i, o, s, True) for i, o, s in zip(ins, sizes, scales)]
        mats = [(ix[:, None] == np.arange(i)).astype(np.float64) for ix, i in zip(back, ins)]
        kind = 'Nearest'
    else:
        mats = [_linear_matrix(i, o, s, align_corners, x.dtype)
                for i, o, s in zip(ins, sizes, scales)]
        out = apply(x, mats).astype(x.dtype, copy=False)
        kind = {'linear': 'Linear', 'bilinear': 'Bilinear', 'trilinear': 'Trilinear'}[mode]
    n = _core.track(_NODES[kind, k], (input,))
    result = _core.result(out, n)
    if n is not None:
        n.mats = mats
    return result


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dims (all but the first two) to ``size`` or by ``scale_factor``;
    modes 'nearest' (1-3 spatial dims), 'linear' (3-D), 'bilinear' (4-D), 'trilinear' (5-D)."""
    if mode in ('nearest', 'area', 'nearest-exact'):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = [None] * dim
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {spatial} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            sizes = [int(s) for s in size]
        else:
            sizes = [int(size)] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {spatial} and scale_factor of "
                    f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, "
                    "...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        sizes = [math.floor(float(i * s)) for i, s in zip(spatial, scales)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        scales = [None] * dim
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported by ember")
    supported = {'nearest': (1, 2, 3), 'linear': (1,), 'bilinear': (2,), 'trilinear': (3,)}
    need = {'linear': 3, 'bilinear': 4, 'trilinear': 5}
    if mode in need and input.dim() in (3, 4, 5) and input.dim() != need[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{need[mode]}D input")
    if mode in ('bicubic', 'area', 'nearest-exact') and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"interpolate(mode={mode!r}) is not supported by ember")
    if mode not in supported or dim not in supported[mode]:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
            "for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | "
            f"area | nearest-exact (got {mode})")
    return _resample(input, sizes, scales, mode, align_corners)
