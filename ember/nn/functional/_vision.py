"""The vision functions of nn.functional: resampling (``interpolate``). ``interpolate`` is
separable: per spatial dim a matrix ``M`` (out x in) maps the input, so the forward applies each
``M`` along its dim and the backward applies ``M.T`` in ember ops (linear, so it differentiates
again). Index and weight formulas follow torch's CPU kernels, in the same precision; the
antialiased weights are ``_antialias``'s, and uint8 images go through torch's fixed-point
passes (``_separable.apply_fixed_point``)."""
import math
import warnings

import numpy as np

from ... import _dtype
from ..._memory_format import in_format, suggested_format
from ..._ops import _core, creation as _creation, pointwise as _pw, shape as _shape
from ..._ops._core import make
from ...autograd.grad_mode import STATE, no_grad
from ...autograd.graph import name_saved_values
from . import _antialias, _grid_taps
from ._recompute import RecomputedBackward, recomputed
from ._separable import SeparableBackward, apply, apply_fixed_point


# -- interpolate ---------------------------------------------------------------------------
_DIMS = {1: 'Upsample{}1DBackward0', 2: 'Upsample{}2DBackward0', 3: 'Upsample{}3DBackward0'}
_KINDS = {'linear': 'Linear', 'bilinear': 'Bilinear', 'bicubic': 'Bicubic',
          'trilinear': 'Trilinear', 'lanczos': 'Lanczos'}


def _node_class(kind, k, antialias=False):
    name = _DIMS[k].format(kind)
    if antialias:
        name = name.replace('DBackward', 'DAaBackward')
    cls = type(name, (SeparableBackward,), {'__doc__': f"Gradient of {kind.lower()} "
                                            f"resampling over {k} spatial dim(s)"
                                            + " with antialiasing." * antialias})
    scales = {1: ('scales',), 2: ('scales_h', 'scales_w'), 3: ('scales_d', 'scales_h',
                                                             'scales_w')}[k]
    attrs = {s: (lambda n, i=i: n.scales[i]) for i, s in enumerate(scales)}
    attrs['output_size'] = 'output_size'
    if not kind.startswith('Nearest'):
        attrs['align_corners'] = 'align_corners'
    if kind.startswith('Nearest') or \
            {'Linear': 1, 'Bilinear': 2, 'Bicubic': 2, 'Trilinear': 3, 'Lanczos': 2}[kind] == k:
        # (the combinations torch has)
        name_saved_values(cls, inputs=('self',), sizes=('self_sym_sizes',), attrs=attrs)
    return cls


_NODES = {(kind, k): _node_class(kind, k) for kind in ('Nearest', 'NearestExact', 'Linear',
                                                        'Bilinear', 'Bicubic', 'Trilinear')
          for k in (1, 2, 3)}
_AA_NODES = {mode: _node_class(_KINDS[mode], 2, True) for mode in _antialias.FILTERS}


def _scale(in_size, out_size, scale, dtype):
    """torch's compute_scales_value: 1/scale_factor if given, else in/out, in ``dtype``."""
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(in_size) / dtype.type(out_size)


def _source_scale(in_size, out_size, scale, align_corners, dtype):
    """Input pixels per output pixel, in ``dtype`` (torch's area_pixel_compute_scale): with
    ``align_corners`` the corner pixels' centres meet, else ``_scale``."""
    if align_corners:
        return dtype.type(in_size - 1) / dtype.type(out_size - 1) if out_size > 1 \
            else dtype.type(0)
    return _scale(in_size, out_size, scale, dtype)


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


def _nearest_exact_index(in_size, out_size, scale):
    """Source index of each output position for 'nearest-exact': the input pixel whose
    centre is nearest, ``floor((i + 0.5) * scale)`` (in float, as torch)."""
    s = _scale(in_size, out_size, scale, np.dtype(np.float32))
    src = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * s)
    return np.minimum(src.astype(np.int64), in_size - 1)


def _cubic_matrix(in_size, out_size, scale, align_corners, dtype):
    """The (out, in) matrix of bicubic interpolation along one dim, as torch's
    upsample_bicubic2d: Keys' cubic convolution (A = -0.75) over the four nearest input
    positions, indices clamped to the edge; the source position is not clamped at 0."""
    dt = np.dtype(dtype)
    s = _source_scale(in_size, out_size, scale, align_corners, dt)
    if align_corners:
        src = s * np.arange(out_size, dtype=dt)
    else:
        src = s * (np.arange(out_size, dtype=dt) + dt.type(0.5)) - dt.type(0.5)
    i0 = np.floor(src)
    t = (src - i0).astype(dt)
    a = dt.type(-0.75)

    def near(x):      # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):       # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    weights = (far(t + 1), near(t), near(1 - t), far(2 - t))
    m = np.zeros((out_size, in_size), dt)
    rows = np.arange(out_size)
    for k, w in enumerate(weights):
        np.add.at(m, (rows, np.clip(i0.astype(np.int64) - 1 + k, 0, in_size - 1)), w)
    return m


def _linear_matrix(in_size, out_size, scale, align_corners, dtype):
    """The (out, in) matrix of linear interpolation, as torch's upsample_linear kernels."""
    dt = np.dtype(dtype)
    s = _source_scale(in_size, out_size, scale, align_corners, dt)
    if align_corners:
        src = s * np.arange(out_size, dtype=dt)
    else:
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


_INT_KERNELS = {'nearest': 'compute_indices_weights_nearest',
                'nearest-exact': 'compute_indices_weights_nearest',
                'linear': 'compute_indices_weights_linear',
                'trilinear': 'compute_indices_weights_linear',
                'bicubic': 'compute_indices_weights_cubic'}


def _refuse_integers(x, mode, k, antialias):
    """torch's kernels resample integer and bool inputs only as uint8 in the nearest modes
    and 2-d bilinear / bicubic; the others are its kernel's NotImplementedError.
    Its antialiased kernel takes float32, float64 and uint8 only."""
    if antialias:
        if x.dtype in (np.float32, np.float64, np.uint8):
            return
        raise NotImplementedError('"compute_index_ranges_weights" not implemented for '
                                  f"'{_pw.dtype_name(x.dtype)}'")
    if x.dtype.kind not in 'biu':
        return
    if x.dtype == np.uint8 and (mode.startswith('nearest') or
                                (k == 2 and mode in ('bilinear', 'bicubic'))):
        return
    if k == 2 and mode != 'bicubic':
        kernel = f"upsample_{'nearest' if mode.startswith('nearest') else mode}2d_channels_last"
    else:
        kernel = _INT_KERNELS[mode]
    raise NotImplementedError(f'"{kernel}" not implemented for \'{_pw.dtype_name(x.dtype)}\'')


def _interpolating_matrices(ins, sizes, scales, mode, align_corners, antialias, dtype):
    """The (out, in) matrix of each spatial dim for the interpolating modes, in ``dtype``."""
    mats = []
    for i, o, s in zip(ins, sizes, scales):
        if antialias:
            scale = _source_scale(i, o, s, align_corners, np.dtype(dtype))
            mats.append(_antialias.matrix(i, o, scale, mode, dtype))
        else:
            matrix = _cubic_matrix if mode == 'bicubic' else _linear_matrix
            mats.append(matrix(i, o, s, align_corners, dtype))
    return mats


def _resample(input, sizes, scales, mode, align_corners, antialias=False):
    x = input._data
    k = len(sizes)
    ins = x.shape[2:]
    if any(o <= 0 for o in sizes) or any(i <= 0 for i in ins):
        names = 'DHW'[3 - k:]
        fmt = ', '.join
        raise RuntimeError("Input and output sizes should be greater than 0, but got input ("
                           + fmt(f"{n}: {i}" for n, i in zip(names, ins)) + ") output ("
                           + fmt(f"{n}: {o}" for n, o in zip(names, sizes)) + ")")
    _refuse_integers(x, mode, k, antialias)
    if mode in ('nearest', 'nearest-exact'):
        if mode == 'nearest':
            # torch's 2-d forward kernel takes the shortcuts too, its 1-d and 3-d ones do not
            idx = [_nearest_index(i, o, s, k == 2) for i, o, s in zip(ins, sizes, scales)]
            back = [_nearest_index(i, o, s, True) for i, o, s in zip(ins, sizes, scales)]
        else:
            idx = back = [_nearest_exact_index(i, o, s) for i, o, s in zip(ins, sizes, scales)]
        out = x
        for ax, ix in zip(range(2, 2 + k), idx):
            out = np.take(out, ix, axis=ax)
        out = np.ascontiguousarray(out)
        mats = [(ix[:, None] == np.arange(i)).astype(np.float64) for ix, i in zip(back, ins)]
        node = _NODES['Nearest' if mode == 'nearest' else 'NearestExact', k]
    elif x.dtype == np.uint8:   # (torch's fixed-point kernels, from float64 weights)
        mats = _interpolating_matrices(ins, sizes, scales, mode, align_corners, antialias,
                                       np.float64)
        out = apply_fixed_point(x, mats)
        node = None             # (no gradient for an integer input)
    else:
        # (float16/bfloat16 weights and sums in float32, as torch's kernels)
        wdt = np.float32 if x.dtype.itemsize == 2 else x.dtype
        mats = _interpolating_matrices(ins, sizes, scales, mode, align_corners, antialias,
                                       wdt)
        forward = mats
        if antialias:
            # torch's antialiased forward leaves a dim whose size does not change alone, even
            # when a scale_factor made its weights no identity; its backward does not
            forward = [np.eye(m.shape[0], dtype=wdt) if m.shape[0] == m.shape[1] else m
                       for m in mats]
        out = apply(x.astype(wdt, copy=False), forward).astype(x.dtype, copy=False)
        node = _AA_NODES[mode] if antialias else _NODES[_KINDS[mode], k]
    # (as torch: a channels-last input gives a channels-last result)
    out = in_format(out, suggested_format(x))
    n = _core.track(node, (input,)) if node is not None else None
    result = _core.result(out, n)
    if n is not None:
        n.mats = mats
        n.output_size, n.scales, n.align_corners = tuple(sizes), tuple(scales), align_corners
    return result


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dims (all but the first two) to ``size`` or by ``scale_factor``;
    modes 'nearest', 'nearest-exact' and 'area' (1-3 spatial dims), 'linear' (3-D),
    'bilinear' and 'bicubic' (4-D), 'trilinear' (5-D). ``antialias`` (4-D 'bilinear',
    'bicubic' and 'lanczos', which needs it) filters as PIL's resize when downsampling."""
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
            if not all(_is_integer(s) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, "
                                "int] or Tuple[int, int, int], but got size with types "
                                f"{[type(s) for s in size]}")
            sizes = size
        else:
            sizes = [size] * dim
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
        sizes = [float(i * s) for i, s in zip(spatial, scales)]
        if not all(abs(v) < 2.0 ** 63 for v in sizes):  # (NaN too)
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        sizes = [math.floor(v) for v in sizes]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        scales = [None] * dim
    if antialias and not (mode in ('bilinear', 'bicubic', 'lanczos') and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == 'lanczos' and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    supported = {'nearest': (1, 2, 3), 'nearest-exact': (1, 2, 3), 'area': (1, 2, 3),
                 'linear': (1,), 'bilinear': (2,), 'bicubic': (2,), 'trilinear': (3,),
                 'lanczos': (2,)}
    need = {'linear': 3, 'bilinear': 4, 'trilinear': 5}
    if mode in need and input.dim() in (3, 4, 5) and input.dim() != need[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{need[mode]}D input")
    if mode not in supported or dim not in supported[mode]:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
            "for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | "
            f"area | nearest-exact (got {mode})")
    if not all(_is_integer(s) and not isinstance(s, bool) for s in sizes):
        # (torch hands the sizes to its C op, whose parser takes ints only)
        op = f"upsample_{mode}{dim}d"
        got = ', '.join(['Tensor', type(sizes).__name__] + ['bool'] * (mode != 'nearest')
                        + ['NoneType'])
        raise TypeError(f"{op}() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n * (Tensor input, tuple of ints output_size, "
                        "...)")
    sizes = [int(s) for s in sizes]
    if mode == 'area':    # (torch's 'area' is adaptive average pooling to the size)
        from . import _pooling
        pool = getattr(_pooling, f'adaptive_avg_pool{dim}d')
        return pool(input, sizes[0] if dim == 1 else sizes)
    return _resample(input, sizes, scales, mode, align_corners, antialias)


def _is_integer(x):
    """What torch's interpolate takes as a size: an int, a NumPy integer, or a tensor of an
    integral (or bool) dtype."""
    from ..._tensor import Tensor
    return isinstance(x, (int, np.integer)) or \
        isinstance(x, Tensor) and not x.is_floating_point() and not x.is_complex()


# -- affine_grid and grid_sample ---------------------------------------------------------------
# Both are compositions of ember ops that show torch's own node (see ``_recompute``): the
# value comes from one run without a graph, the gradients (of any order) from a rerun.
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


class AffineGridGeneratorBackward0(RecomputedBackward):
    """Gradient of ``affine_grid_generator`` (the base grid times theta's transpose)."""


class _GridSamplerBackward(RecomputedBackward):
    """Gradient of grid sampling: on arrays when no graph of it is wanted (the common case),
    else the composition's (see ``_recompute``)."""

    taps = None        # (an empty input has none: the composition handles it)

    def backward(self, g):
        taps = self.taps
        want_x, want_grid = (fn is not None for fn, _ in self.next_functions)
        if STATE.enabled or taps is None or (want_grid and not taps.ready_for_grid):
            return super().backward(g)
        input, _ = self.saved_tensors      # (checks they were not modified since)
        grads = taps.gradients(g._data, input._data, want_x, want_grid)
        return tuple(None if a is None else make(a) for a in grads)


class GridSampler2DBackward0(_GridSamplerBackward):
    """Gradient of 2-d grid sampling with respect to the input and the grid."""


class GridSampler3DBackward0(_GridSamplerBackward):
    """Gradient of 3-d grid sampling with respect to the input and the grid."""


def _base_coords(steps, align_corners, dtype):
    """torch's ``linspace_from_neg_one``: ``steps`` points over [-1, 1], pulled in to the
    pixel centres (times ``(steps - 1) / steps``) unless ``align_corners``."""
    if steps <= 1:
        return np.zeros(steps, dtype)
    c = _creation.linspace(-1, 1, steps, dtype=_dtype.from_numpy_dtype(dtype))._data
    if not align_corners:
        c = c * dtype.type(steps - 1) / dtype.type(steps)
    return c


def affine_grid_generator(theta, size, align_corners):
    """The sampling grid (N, *spatial, 2 or 3) of the affine maps ``theta`` (N, 2, 3) or
    (N, 3, 4) over an output of ``size`` (N, C, H, W) or (N, C, D, H, W)."""
    size = [int(s) for s in size]
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    nd = len(size) - 2
    dt = theta._data.dtype
    if dt == np.bool_:  # (torch's base grid is a linspace in theta's dtype, made first)
        raise NotImplementedError('"linspace_cpu" not implemented for \'Bool\'')
    # the base grid (*spatial, nd + 1): x (along W) first, then y, (z,) and a column of ones
    axes = [_base_coords(s, align_corners, dt) for s in size[2:]]
    base = np.ones(tuple(size[2:]) + (nd + 1,), dt)
    for i, c in enumerate(reversed(axes)):
        shape = [1] * nd
        shape[nd - 1 - i] = -1
        base[..., i] = c.reshape(shape)
    base = make(base.reshape(1, -1, nd + 1))
    n = size[0]
    if theta.dim() != 3:  # (the bmm's checks: the rank, then the sizes)
        raise RuntimeError("batch2 must be a 3D tensor")
    if theta.shape[0] != n or theta.shape[2] != nd + 1:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{n}, {nd + 1}] but got: [{theta.shape[0]}, {theta.shape[2]}].")

    def compose(theta):
        return base.expand(n, -1, -1).bmm(theta.transpose(1, 2)).view(n, *size[2:], nd)
    return recomputed(AffineGridGeneratorBackward0, compose, (theta,))


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine matrices ``theta`` ((N, 2, 3) for 2-d, (N, 3, 4)
    for 3-d) over an output of ``size``, in ``grid_sample``'s [-1, 1] coordinates."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        align_corners = False
    if not theta.dtype.is_floating_point:  # (complex32's arrays are of kind 'V' too)
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:  # (as given: torch's messages print a list as a list)
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=3)
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    from ..._ops import _args  # (the parser of the op torch hands ``size`` on to)
    _args.check_argument('affine_grid_generator', 'SymIntArrayRef size', size, 1)
    return affine_grid_generator(theta, size, align_corners)


_MODES = {'bilinear': 0, 'nearest': 1, 'bicubic': 2}
_PADDINGS = {'zeros': 0, 'border': 1, 'reflection': 2}


def _reflect(c, twice_low, twice_high):
    """torch's ``reflect_coordinates``: ``c`` folded into [low, high] by reflections."""
    if twice_low == twice_high:
        return c * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    c = (c - low).abs()
    extra = c.fmod(span)
    flips = (c / span).floor().detach()
    return _pw.where(flips.fmod(2) == 0, extra + low, span - extra + low)


def _source_index(coord, size, padding_mode, align_corners):
    """Grid coordinates in [-1, 1] -> (fractional) pixel indices along a dim of ``size``,
    with the border or reflection padding's folding (as torch's ``ComputeLocation``)."""
    return _fold(_unnormalize(coord, size, align_corners), size, padding_mode, align_corners)


def _unnormalize(coord, size, align_corners):
    """[-1, 1] -> pixel index: the corner pixels' centres (``align_corners``) or edges."""
    return ((coord + 1) * ((size - 1) / 2) if align_corners
            else (coord + 1) * (size / 2) - 0.5)


def _fold(c, size, padding_mode, align_corners):
    """A pixel index folded into the input by the border (clamp) or reflection padding."""
    if padding_mode == 2:
        c = (_reflect(c, 0, 2 * (size - 1)) if align_corners
             else _reflect(c, -1, 2 * size - 1))
    if padding_mode in (1, 2):
        # (torch's grid sampler counts the borders as outside: no gradient there, where a
        # clamp's would pass)
        inside = ((c > 0) & (c < size - 1)).detach()
        c = _pw.where(inside, c, c.detach().clamp(0, size - 1))
    return c


def _grid_sample(input, grid, mode, padding_mode, align_corners):
    """The composition: input (N, C, *sp), grid (N, *out, nd) -> (N, C, *out)."""
    nd = grid.shape[-1]
    n, c, sp = input.shape[0], input.shape[1], tuple(input.shape[2:])
    out_sp = tuple(grid.shape[1:-1])
    volume = int(np.prod(sp))
    # the input as rows of channels, with a zero row last for taps outside it
    rows = input.reshape(n, c, volume).transpose(1, 2).reshape(n * volume, c)
    rows = _shape.cat([rows, rows.new_zeros((1, c))])
    # index along each dim: grid[..., 0] is along the last spatial dim (W)
    idx = [_source_index(grid[..., nd - 1 - ax], sp[ax], padding_mode, align_corners)
           for ax in range(nd)]
    batch = np.arange(n).reshape((n,) + (1,) * len(out_sp)) * volume

    def tap(pos):
        """The rows at integer positions ``pos`` (arrays, one per dim); outside -> zeros."""
        inside = np.ones(pos[0].shape, bool)
        flat = 0
        for ax, p in enumerate(pos):
            inside &= (p >= 0) & (p < sp[ax])
            flat = flat * sp[ax] + p
        flat = np.where(inside, batch + flat, n * volume).astype(np.int64)
        return rows.index_select(0, make(flat.reshape(-1))).reshape(n, *out_sp, c)

    if mode == 1:       # nearest (rounded half to even, as torch's nearbyint)
        out = tap([np.rint(i._data).astype(np.int64) for i in idx])
    elif mode == 2:     # bicubic (2-d): 4 x 4 taps, each folded by the padding on its own
        ix = [_unnormalize(grid[..., nd - 1 - ax], sp[ax], align_corners) for ax in range(nd)]
        lows = [i.detach().floor() for i in ix]
        coeffs = [_cubic_weights(i - lo) for i, lo in zip(ix, lows)]
        out = None
        for taps in np.ndindex(*(4,) * nd):
            pos = []
            with no_grad():
                for ax, k in enumerate(taps):
                    p = _fold(lows[ax] + (k - 1), sp[ax], padding_mode, align_corners)
                    pos.append(p._data.astype(np.int64))
            w = coeffs[0][taps[0]]
            for ax in range(1, nd):
                w = w * coeffs[ax][taps[ax]]
            term = tap(pos) * w.unsqueeze(-1)
            out = term if out is None else out + term
    else:
        lows = [i.detach().floor() for i in idx]
        out = None
        for corner in np.ndindex(*(2,) * nd):
            w = None
            for ax, b in enumerate(corner):
                f = idx[ax] - lows[ax] if b else (lows[ax] + 1) - idx[ax]
                w = f if w is None else w * f
            v = tap([lo._data.astype(np.int64) + b for lo, b in zip(lows, corner)])
            term = v * w.unsqueeze(-1)
            out = term if out is None else out + term
    return out.permute(0, nd + 1, *range(1, nd + 1))


_CUBIC_A = -0.75      # torch's (and Keys') cubic convolution parameter


def _cubic_weights(t):
    """The four cubic-convolution weights of the taps at -1, 0, 1, 2 for offset ``t``."""
    def near(x):          # |x| <= 1
        return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1

    def far(x):           # 1 < |x| < 2
        return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sample`` with the modes as torch's enums (interpolation 0 bilinear, 1 nearest,
    2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    xs, gs = _shape_list(input.shape), _shape_list(grid.shape)
    if input.size(0) != grid.size(0):  # (size(0): torch's error for a 0-d tensor)
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {xs} and grid with sizes {gs}")
    nd = input.dim() - 2
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last "
                           f"dimension, but got grid with sizes {gs}")
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {xs} with dimension {i} being "
                               "empty")
    want = 4 if input.dim() == 4 else 5          # torch dispatches on the input's rank
    if input.dim() != grid.dim() or input.dim() != want:
        raise RuntimeError(f"grid_sampler(): expected {want}D input and grid with same number "
                           f"of dimensions, but got input with sizes {xs} and grid with sizes "
                           f"{gs}")
    if interpolation_mode == 2 and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input._data.dtype.kind not in 'fV':
        raise NotImplementedError(f'"grid_sampler_{nd}d_cpu_kernel_impl" not implemented for '
                                  f"'{input.dtype.kernel_name}'")
    if grid._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.kernel_name} but found "
                           f"{grid.dtype.kernel_name}")
    node_cls = GridSampler2DBackward0 if nd == 2 else GridSampler3DBackward0
    modes = (interpolation_mode, padding_mode, align_corners)
    if interpolation_mode == 2:          # bicubic: the composition alone (no array path)
        return recomputed(node_cls, lambda x, g: _grid_sample(x, g, *modes), (input, grid))
    if input.numel() == 0 or grid.numel() == 0:      # nothing to sample (no channels...)
        return recomputed(node_cls, lambda x, g: _grid_sample(x, g, *modes), (input, grid),
                          np.zeros(tuple(input.shape[:2]) + tuple(grid.shape[1:-1]),
                                   input._data.dtype))
    # the arrays' gradients want the slopes of the source indices (grid) and the input's
    # rows (bilinear), computed here only when a backward may ask for them
    grid_grad = STATE.enabled and grid.requires_grad and interpolation_mode == 0
    taps = _grid_taps.Taps(grid._data, input.shape[2:], *modes, slopes=grid_grad)
    out = recomputed(node_cls, lambda x, g: _grid_sample(x, g, *modes), (input, grid),
                     taps.sample(input._data, keep_rows=grid_grad))
    if out.grad_fn is not None:
        out.grad_fn.taps = taps
    return out


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` of a 4-D input."""
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` of a 5-D input."""
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None):
    """``input`` (N, C, H, W) or (N, C, D, H, W) sampled at the ``grid`` (N, *out, 2 or 3)
    positions (x, y[, z] in [-1, 1]), bilinearly, at the nearest pixel or (2-d) bicubically;
    ``padding_mode``
    says what lies outside: zeros, the border's values, or the input's reflection."""
    # (compared, not hashed, as torch's: a list is just another wrong value)
    if not any(mode == m for m in _MODES):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if not any(padding_mode == m for m in _PADDINGS):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)


def _shape_list(shape):
    return f"[{', '.join(map(str, shape))}]"
