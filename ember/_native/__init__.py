"""The optional compiled kernels behind ``ember.backends.native`` (see its docstring).

``kernels(a)`` is the hook ops call: the C library when the kernels are enabled and ``a`` is
a C-contiguous float32 array large enough for C to pay off, else None (the op then takes its
NumPy path). ``ptr`` hands an array to C without a copy.
"""
import os
import threading
import warnings

import numpy as np

__all__ = ['kernels', 'ptr', 'build']

# Below this many elements NumPy's per-call cost is small and the NumPy path is kept (so small
# tensors give the same bits whether or not the kernels are on).
MIN_SIZE = 1 << 14

_HERE = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_built = []          # [] until a build was tried; then [lib or None]
_ffi = None


def kernels(a):
    """The compiled library for float32 array ``a``, or None to use NumPy."""
    # (the array tests first: they are what most calls stop at, and they cost no import)
    if a.size < MIN_SIZE or a.dtype != np.float32 or not a.flags.c_contiguous:
        return None
    from ..backends import native
    return build() if native.enabled else None


def build():
    """The compiled library (built or loaded from the cache on first call), or None when it
    cannot be built here (warned once)."""
    if _built:
        return _built[0]
    with _lock:
        if not _built:
            _built.append(_load())
    return _built[0]


def _load():
    global _ffi
    import platform
    flags = ['-O3']
    if platform.machine() in ('x86_64', 'AMD64'):   # (built on the machine that runs it)
        flags.append('-march=native')
    try:
        from ..utils.ffi import load
        module = load('ember_native_kernels',
                      [os.path.join(_HERE, f) for f in ('kernels.h', 'winograd.h')],
                      [os.path.join(_HERE, f) for f in ('kernels.c', 'winograd.c')],
                      extra_compile_args=flags)
    except Exception as e:   # no cffi, no compiler, ...: NumPy it is
        warnings.warn(f'ember.backends.native: the compiled kernels could not be built, '
                      f'computing with NumPy instead ({type(e).__name__}: {e})', RuntimeWarning)
        return None
    _ffi = module.ffi
    return module.lib


_C_TYPES = {np.dtype(np.float32): 'float[]', np.dtype(np.int64): 'int64_t[]'}


def ptr(a):
    """A C pointer into C-contiguous array ``a``'s data (no copy; it keeps ``a`` alive).
    (``from_buffer`` takes 0.1 us where ``a.ctypes.data`` took 3: a convolution's backward
    hands C a dozen arrays.)"""
    return _ffi.from_buffer(_C_TYPES[a.dtype], a)


# -- the array-level entry points: each returns None when the op should use NumPy ----------
def gelu_forward(x):
    """``(gelu(x), cdf(x))`` (erf form), or None."""
    return _pointwise_forward('ember_gelu_forward', x)


def gelu_backward(x, h, g):
    """``g * gelu'(x)`` from the forward's cdf ``h``, or None."""
    return _pointwise_backward('ember_gelu_backward', x, h, g)


def silu_forward(x):
    """``(silu(x), sigmoid(x))``, or None."""
    return _pointwise_forward('ember_silu_forward', x)


def silu_backward(x, s, g):
    """``g * silu'(x)`` from the forward's sigmoid ``s``, or None."""
    return _pointwise_backward('ember_silu_backward', x, s, g)


def _pointwise_forward(name, x):
    """``(result, aux)`` of the kernel ``name`` (the value the backward reuses), or None."""
    lib = kernels(x)
    if lib is None:
        return None
    y, aux = np.empty_like(x), np.empty_like(x)
    getattr(lib, name)(ptr(x), ptr(y), ptr(aux), x.size)
    return y, aux


def _pointwise_backward(name, x, aux, g):
    lib = kernels(x)
    if lib is None or not _same_layout(x, aux, g):
        return None
    gx = np.empty_like(x)
    getattr(lib, name)(ptr(x), ptr(aux), ptr(g), ptr(gx), x.size)
    return gx


def softmax_forward(x, dim, log):
    """softmax (or log_softmax) of ``x`` along its last dim ``dim``, or None."""
    lib = kernels(x)
    if lib is None or dim != x.ndim - 1:
        return None
    y = np.empty_like(x)
    lib.ember_softmax_forward(ptr(x), ptr(y), x.size // x.shape[-1], x.shape[-1], int(log))
    return y


def softmax_backward(y, g, dim, log):
    """The input gradient of softmax (or log_softmax) from its output ``y``, or None."""
    lib = kernels(y)
    if lib is None or dim != y.ndim - 1 or not _same_layout(y, g):
        return None
    gx = np.empty_like(y)
    lib.ember_softmax_backward(ptr(y), ptr(g), ptr(gx), y.size // y.shape[-1], y.shape[-1],
                               int(log))
    return gx


def standardise_rows(x2, eps):
    """``(xhat, rstd)`` of the rows of 2-D ``x2`` (rstd a column), or None."""
    lib = kernels(x2)
    if lib is None:
        return None
    rows, cols = x2.shape
    xhat, rstd = np.empty_like(x2), np.empty((rows, 1), np.float32)
    lib.ember_standardise_rows(ptr(x2), ptr(xhat), ptr(rstd), rows, cols, float(eps))
    return xhat, rstd


def affine_rows(xhat, w, b):
    """``xhat * w + b`` with ``w``/``b`` (either may be None) of ``xhat``'s trailing shape,
    or None."""
    lib = kernels(xhat)
    given = [t for t in (w, b) if t is not None]
    if lib is None or not given or not _same_layout(xhat, *given) or \
            any(t.shape != xhat.shape[xhat.ndim - t.ndim:] for t in given):
        return None
    cols = given[0].size
    y = np.empty_like(xhat)
    lib.ember_affine_rows(ptr(xhat), _nullable(w), _nullable(b), ptr(y), xhat.size // cols, cols)
    return y


def layer_norm_backward(g2, xhat2, w, rstd, need_input, need_weight, need_bias):
    """layer_norm's ``(gx, gw, gb)`` for 2-D ``g2``/``xhat2`` rows, ``w`` the flat weight or
    None, ``rstd`` the forward's column (each gradient None unless needed); or None."""
    lib = kernels(g2)
    if lib is None or not _same_layout(g2, xhat2, rstd) or \
            (w is not None and not _same_layout(g2, w)):
        return None
    rows, cols = g2.shape
    gx = np.empty_like(g2) if need_input else None
    gw = np.empty(cols, np.float32) if need_weight else None
    gb = np.empty(cols, np.float32) if need_bias else None
    lib.ember_layer_norm_backward(ptr(g2), ptr(xhat2), _nullable(w), ptr(rstd), _nullable(gx),
                                  _nullable(gw), _nullable(gb), rows, cols)
    return gx, gw, gb


def batch_norm_forward(x, w, b, eps):
    """batch_norm with batch statistics of ``x`` (N, C, ...): ``(y, mean, var, rstd)`` (var
    biased; ``w``/``b`` per-channel arrays or None), or None."""
    lib = kernels(x)
    if lib is None or x.ndim < 2 or any(t is not None and not _same_layout(x, t) for t in (w, b)):
        return None
    n, c = x.shape[:2]
    y = np.empty_like(x)
    mean, var, rstd = (np.empty(c, np.float32) for _ in range(3))
    lib.ember_batch_norm_forward(ptr(x), _nullable(w), _nullable(b), ptr(y), ptr(mean),
                                 ptr(var), ptr(rstd), n, c, x.size // max(n * c, 1), float(eps))
    return y, mean, var, rstd


def batch_norm_backward(x, g, mean, rstd, w, need_input, need_weight, need_bias):
    """batch_norm's ``(gx, gw, gb)`` under batch statistics, from the input ``x``, the
    forward's ``mean``/``rstd`` and the output gradient ``g`` (each None unless needed); or
    None."""
    lib = kernels(x)
    if lib is None or g.dtype != np.float32 or (w is not None and not _same_layout(x, w)):
        return None
    g = np.ascontiguousarray(g)
    n, c = x.shape[:2]
    gx = np.empty_like(x) if need_input else None
    gw = np.empty(c, np.float32) if need_weight else None
    gb = np.empty(c, np.float32) if need_bias else None
    lib.ember_batch_norm_backward(ptr(x), ptr(g), ptr(mean), ptr(rstd), _nullable(w),
                                  _nullable(gx), _nullable(gw), _nullable(gb), n, c,
                                  x.size // max(n * c, 1))
    return gx, gw, gb


def _nullable(a):
    return _ffi.NULL if a is None else ptr(a)


def add_rows_at(out, idx, rows):
    """``np.add.at(out, idx, rows)`` for float32 rows and int64 indices; False when the
    kernels are off (nothing done)."""
    lib = kernels(rows)
    if lib is None or not (out.dtype == rows.dtype and out.flags.c_contiguous) \
            or idx.dtype != np.int64 or not idx.flags.c_contiguous:
        return False
    lib.ember_add_rows_at(ptr(out), ptr(idx), ptr(rows), idx.size, rows.size // max(idx.size, 1))
    return True


# -- Winograd F(2x2, 3x3) convolution (layout and maths: nn/functional/_winograd.py)
def winograd_conv_forward(x, u, bias, tiles):
    """conv2d of float32 ``x`` (N, C, H, W) with U = G w G^T (16, K, C), plus ``bias`` (or
    None): (N, K, *out), a block of samples at a time (see winograd.c)."""
    k = u.shape[1]
    y = np.empty((tiles.n, k) + tiles.out, np.float32)
    if bias is not None:
        bias = np.ascontiguousarray(bias, np.float32)
    dims = _conv_dims(tiles, k, BLOCK_BYTES)
    build().ember_winograd_conv_forward(ptr(x), ptr(u), _nullable(bias), ptr(y),
                                        _workspace(dims, False), *dims)
    return y


def winograd_conv_backward(x, g, u, tiles, need_input, need_weight):
    """The gradients of ``winograd_conv_forward`` from the output gradient ``g``: the
    input's (N, C, H, W) and U's (16, K, C), each None unless needed."""
    k = u.shape[1]
    g = np.ascontiguousarray(g)
    gx = np.empty((tiles.n, tiles.c, tiles.h, tiles.w), np.float32) if need_input else None
    gu = np.empty((16, k, tiles.c), np.float32) if need_weight else None
    lanes = k * tiles.c <= LANES_MAX
    dims = _conv_dims(tiles, k, BLOCK_BYTES if lanes else LONG_BLOCK_BYTES)
    build().ember_winograd_conv_backward(ptr(x), ptr(g), ptr(u), _nullable(gx), _nullable(gu),
                                         _workspace(dims, lanes), *dims, int(lanes))
    return gx, gu


#: Bytes of domain arrays (V and M, or dM, V and U^T dM) one block of samples may fill: they
#: stay in the core's cache (1-2 MiB of L2 on current x86) through all its steps ...
BLOCK_BYTES = 1 << 20
#: ... but a block holds at least this many tiles (the products' loops run along them).
MIN_TILES = 256
#: Up to this many (output, input) channel pairs the weight gradient's sums keep a vector of
#: partial sums per pair (16 floats: 1 MiB at 64 x 64) and add its lanes at the end; beyond,
#: they are products with the domain transposed, in blocks of up to LONG_BLOCK_BYTES (the
#: products' inner dimension is the block's tiles: long blocks).
LANES_MAX = 64 * 64
LONG_BLOCK_BYTES = 1 << 24


def _conv_dims(tiles, k, block_bytes):
    """The C drivers' sizes, and how many samples go in a block: enough tiles for the
    products' long loops, few enough for the cache, a multiple of 16 tiles where one is
    near (the products' vectors of 16 then have no scalar remainder)."""
    t = tiles
    per = t.th * t.gw
    nb = max(1, min(t.n, max(block_bytes // (64 * (t.c + k) * per), -(-MIN_TILES // per))))
    for m in range(nb, min(t.n, 2 * nb) + 1):
        if m * per % 16 == 0:
            nb = m
            break
    return (t.n, t.c, k, t.h, t.w, t.ph, t.pw, t.th, t.tw) + t.out + (nb,)


def _workspace(dims, lanes):
    """The C drivers' work memory (see winograd.c), kept between calls."""
    from .._ops._scratch import scratch
    _, c, k, _, _, _, _, th, tw, _, _, nb = dims
    tiles = nb * th * (tw + 1)
    size = 16 * (2 * c + k) * tiles + (16 * k * c * 16 if lanes else 16 * c * tiles)
    return ptr(scratch('native_winograd', (size,), np.float32))


def _same_layout(a, *others):
    """Every array C-contiguous float32 (``a`` already is: kernels() checked it)."""
    return all(o.dtype == np.float32 and o.flags.c_contiguous for o in others)
