"""Winograd's minimal filtering F(2x2, 3x3): 3x3 stride-1 convolutions in 2.25x fewer
multiplications than im2col (Lavin & Gray, "Fast Algorithms for Convolutional Neural
Networks", 2015).

The padded input is cut into 4x4 tiles overlapping by 2; each tile ``d`` and each 3x3 filter
``g`` are taken to a 4x4 "Winograd domain" (``Bt d B`` and ``G g Gt``), where the convolution of
a tile is an elementwise product; summed over input channels, that is one small matrix
product per domain position (16 of them), and ``At m A`` brings each product back to a 2x2
output tile. The transforms are sums and differences (a few halvings in ``G``), exact in
binary floating point, so results match im2col to rounding.

Every step is linear, so the backward runs the adjoint steps in reverse order and reuses the
domain forms of the input and the filters that the forward made; the output gradient is taken
to the domain once and serves both the input and the weight gradient.

Where the time goes: the matrix products are a third of it, the rest is moving memory. So the
tiles are never cut out as copies -- each transform pass reads the overlapping tiles as
strided views (rows ``j, j+2, ...``) and the output pass writes straight into the interleaved
positions of the result -- and intermediates live in reused scratch buffers: a fresh
multi-megabyte array costs a page fault per 4 KiB on first touch, which on a virtual machine
took longer than the arithmetic.
"""
import threading

import numpy as np

# the transforms, written for correlation (what convolution layers compute)
_BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]])
_G = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]])
_AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]])

_SCRATCH_LIMIT = 32 << 20      # bytes; bigger intermediates are allocated fresh each time
_scratch_buffers = threading.local()


def eligible(w, stride, dilation, groups):
    """Whether a convolution with weight array ``w`` can take this path: 2-d, 3x3, stride 1,
    no dilation, one group, floating point."""
    return (w.ndim == 4 and w.shape[2:] == (3, 3) and stride == (1, 1)
            and dilation == (1, 1) and groups == 1 and w.dtype.kind == 'f')


def _scratch(name, shape, dtype):
    """An uninitialised array for an intermediate that does not outlive the call, carved
    from a per-thread buffer kept between calls (see the module docstring for why)."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if nbytes > _SCRATCH_LIMIT:
        return np.empty(shape, dtype)
    buf = getattr(_scratch_buffers, name, None)
    if buf is None or buf.nbytes < nbytes:
        buf = np.empty(nbytes, np.uint8)
        setattr(_scratch_buffers, name, buf)
    return buf[:nbytes].view(dtype).reshape(shape)


def _combine(mat, parts, outs, accumulate=False):
    """``outs[k] (+)= sum_j mat[k, j] * parts[j]`` for each row ``k``, where parts and outs may
    be strided views. The matrices are tiny and nearly all 0 and +-1, so this is a few
    in-place additions and subtractions (the first two terms in one), faster than a matrix
    product."""
    for row, dst in zip(mat, outs):
        terms = [(c, src) for c, src in zip(row, parts) if c != 0]
        if not accumulate:
            (c0, s0), terms = terms[0], terms[1:]
            if terms and abs(c0) == 1 and abs(terms[0][0]) == 1:
                (c1, s1), terms = terms[0], terms[1:]
                if c0 == 1:
                    (np.add if c1 == 1 else np.subtract)(s0, s1, out=dst)
                elif c1 == 1:
                    np.subtract(s1, s0, out=dst)
                else:
                    np.negative(np.add(s0, s1, out=dst), out=dst)
            elif c0 == 1:
                np.copyto(dst, s0)
            else:
                np.multiply(s0, dst.dtype.type(c0), out=dst)
        for c, src in terms:
            if c == 1:
                np.add(dst, src, out=dst)
            elif c == -1:
                np.subtract(dst, src, out=dst)
            else:
                dst += dst.dtype.type(c) * src


def _tiled(a, axis, count, tiles):
    """The ``count`` strided views of ``a`` along ``axis`` that hold element ``j`` of every
    tile (tiles start every 2 elements): ``a[j], a[j+2], ..., a[j + 2*(tiles-1)]``."""
    lead = (slice(None),) * axis
    return [a[lead + (slice(j, j + 2 * tiles, 2),)] for j in range(count)]


def _overlap_add(mat, parts, dst, axis, tiles):
    """The adjoint of reading ``dst``'s overlapping tiles: element ``j`` of every tile
    receives ``sum_k mat[j, k] * parts[k]``, where tiles overlap by 2 elements (so views 0 and
    1 cover all but the last two elements, which views 2 and 3 add into)."""
    views = _tiled(dst, axis, 4, tiles)
    dst[(slice(None),) * axis + (slice(2 * tiles, None),)] = 0
    _combine(mat[:2], parts, views[:2])
    _combine(mat[2:], parts, views[2:], accumulate=True)


def _both(mat, arr):
    """``mat @ a @ mat.T`` for every 2-d slice ``a`` over the first two axes of ``arr``
    (for the small filter arrays)."""
    rows = np.empty((mat.shape[0],) + arr.shape[1:], arr.dtype)
    _combine(mat, list(arr), list(rows))
    out = np.empty(rows.shape[:1] + mat.shape[:1] + rows.shape[2:], arr.dtype)
    _combine(mat, list(rows.swapaxes(0, 1)), list(out.swapaxes(0, 1)))
    return out


def _tiles(out_hw):
    return tuple(-(-m // 2) for m in out_hw)      # 2x2 output tiles per dim, rounded up


def forward(x, w, padding):
    """Correlation of ``x`` (N, C, H, W) with ``w`` (O, C, 3, 3) after zero-padding ``x`` by
    ``padding`` (top/bottom, left/right). Returns the output (N, O, Ho, Wo) and what the
    backward reuses.

    The work happens channels-last (N, H, W, C): a tile's rows and columns are then strided
    views whose innermost run is a whole contiguous channel vector, and the transposes in and
    out of that layout are cheap.
    """
    n, c, h, wd = x.shape
    o, dt = w.shape[0], x.dtype
    out_hw = (h + 2 * padding[0] - 2, wd + 2 * padding[1] - 2)
    th, tw = _tiles(out_hw)
    # padded (and grown to whole tiles), channels-last
    xh = _scratch('input', (n, 2 * th + 2, 2 * tw + 2, c), dt)
    top, left = padding
    xh[:, :top] = 0
    xh[:, top + h:] = 0
    xh[:, top:top + h, :left] = 0
    xh[:, top:top + h, left + wd:] = 0
    np.copyto(xh[:, top:top + h, left:left + wd], x.transpose(0, 2, 3, 1))
    # input tiles to the domain: rows, then columns, reading the tiles as strided views
    rows = _scratch('rows', (4, n, th, xh.shape[2], c), dt)
    _combine(_BT, _tiled(xh, 1, 4, th), rows)
    v = np.empty((4, 4, n, th, tw, c), dt)                          # [row, col] positions
    for i in range(4):
        _combine(_BT, _tiled(rows[i], 2, 4, tw), v[i])
    v = v.reshape(16, -1, c)                                        # (16, N*th*tw, C)
    u = _both(_G, w.transpose(2, 3, 1, 0)).reshape(16, c, o)
    m = np.matmul(v, u, out=_scratch('prod', (16, v.shape[1], o), dt))
    m = m.reshape(4, 4, n, th, tw, o)
    # back from the domain: rows, then columns written into the interleaved output
    half = _scratch('half', (2, 4, n, th, tw, o), dt)
    _combine(_AT, list(m), half)
    out = _scratch('output', (n, 2 * th, 2 * tw, o), dt)
    for a in range(2):
        _combine(_AT, list(half[a]), _tiled(out[:, a::2], 2, 2, tw))
    out = np.ascontiguousarray(out[:, :out_hw[0], :out_hw[1]].transpose(0, 3, 1, 2))
    return out, (v, u, x.shape, padding)


def backward(saved, g, want_input, want_weight):
    """Gradients for the output gradient ``g`` (N, O, Ho, Wo): (input gradient (N, C, H, W)
    or None, weight gradient (O, C, 3, 3) or None)."""
    v, u, (n, c, h, wd), (top, left) = saved
    o, dt = g.shape[1], g.dtype
    th, tw = _tiles(g.shape[2:])
    gh = _scratch('output', (n, 2 * th, 2 * tw, o), dt)
    gh[:, g.shape[2]:] = 0
    gh[:, :, g.shape[3]:] = 0
    np.copyto(gh[:, :g.shape[2], :g.shape[3]], g.transpose(0, 2, 3, 1))
    # the adjoint of the output pass: columns, then rows
    half = _scratch('half', (2, 4, n, th, tw, o), dt)
    for a in range(2):
        _combine(_AT.T, _tiled(gh[:, a::2], 2, 2, tw), list(half[a]))
    gm = _scratch('prod', (4, 4, n, th, tw, o), dt)
    _combine(_AT.T, list(half), list(gm))
    gm = gm.reshape(16, -1, o)                                      # (16, N*th*tw, O)
    gx = gw = None
    if want_weight:
        gu = np.matmul(gm.transpose(0, 2, 1), v).reshape(4, 4, o, c)
        gw = np.ascontiguousarray(_both(_G.T, gu).transpose(2, 3, 0, 1))
    if want_input:
        gv = np.matmul(gm, u.transpose(0, 2, 1), out=_scratch('grad_v', v.shape, dt))
        gv = gv.reshape(4, 4, n, th, tw, c)
        # the adjoint of the input pass: overlap-add columns, then rows
        rows = _scratch('rows', (4, n, th, 2 * tw + 2, c), dt)
        for i in range(4):
            _overlap_add(_BT.T, list(gv[i]), rows[i], 2, tw)
        gxh = _scratch('input', (n, 2 * th + 2, 2 * tw + 2, c), dt)
        _overlap_add(_BT.T, list(rows), gxh, 1, th)
        gx = np.ascontiguousarray(gxh[:, top:top + h, left:left + wd].transpose(0, 3, 1, 2))
    return gx, gw
