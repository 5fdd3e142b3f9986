"""The per-dim weight matrices of antialiased resampling (``interpolate(..., antialias=True)``,
as PIL's resize): output ``i`` is a normalised weighted sum of the inputs near its centre
``scale * (i + 0.5)``, under a filter (triangle for 'bilinear', Keys' cubic with A = -0.5 for
'bicubic', Lanczos-3 for 'lanczos'). When downsampling (``scale`` > 1) the filter is stretched
by ``scale``, so each output averages over every input it covers. Edges are not padded: the
taps outside the input are dropped and the rest renormalised. Precision follows torch's CPU
kernel: the weights in the input's float type, a few intermediate steps in double."""
import numpy as np


def _triangle(x):
    x = np.abs(x)
    return np.where(x < 1, 1 - x, 0).astype(x.dtype, copy=False)


def _cubic(x):
    a = x.dtype.type(-0.5)           # (PIL's; torch's non-antialiased bicubic uses -0.75)
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1, near, np.where(x < 2, far, 0)).astype(x.dtype, copy=False)


def _lanczos(x):
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0).astype(x.dtype, copy=False)


# (filter, its support in input pixels at scale 1)
FILTERS = {'bilinear': (_triangle, 2), 'bicubic': (_cubic, 4), 'lanczos': (_lanczos, 6)}


def matrix(in_size, out_size, scale, mode, dtype):
    """The (out_size, in_size) antialiased resampling matrix along one dim, ``scale`` being
    the input pixels per output pixel (in ``dtype``, as ``interpolate`` works it out)."""
    dt = np.dtype(dtype)
    filt, size = FILTERS[mode]
    s = float(scale)
    stretch = s >= 1.0
    support = dt.type(size * 0.5 * s if stretch else size * 0.5)
    inv = dt.type(1.0 / s) if stretch else dt.type(1)
    centre = (s * (np.arange(out_size) + 0.5)).astype(dt)
    lo = np.maximum(((centre - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    hi = np.minimum(((centre + support).astype(np.float64) + 0.5).astype(np.int64), in_size)
    taps = lo[:, None] + np.arange(max(int((hi - lo).max()), 0))
    inside = taps < hi[:, None]
    x = ((taps.astype(dt) - centre[:, None]).astype(np.float64) + 0.5) * np.float64(inv)
    w = np.where(inside, filt(x.astype(dt)), dt.type(0))
    total = np.cumsum(w, axis=1, dtype=dt)[:, -1:] if w.shape[1] else np.zeros((out_size, 1), dt)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(dt, copy=False)
    m = np.zeros((out_size, in_size), dt)
    rows = np.broadcast_to(np.arange(out_size)[:, None], taps.shape)
    m[rows[inside], taps[inside]] = w[inside]
    return m
