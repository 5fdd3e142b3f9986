"""Winograd F(2x2, 3x3): the 3x3, stride-1 convolution with 2.25x fewer multiplications.

Why: on NumPy the matrix products of a convolution run on the BLAS, which is as fast as it
gets, so the way to a cheaper convolution is fewer products. Winograd's minimal filtering
computes each 2x2 block of outputs from the 4x4 block ("tile") of input around it as

    Y = A^T [ (G w G^T) * (B^T d B) ] A            (* elementwise, summed over channels)

16 products per tile instead of 36. For each of the 16 positions (xi, nu) of the "Winograd
domain" the channel sum is one matrix product, so a layer is 16 batched GEMMs
(K x C) @ (C x tiles) plus the transforms, which are additions only (B and A hold 0 and
+-1, G halves: exact in binary floating point, so results are as accurate as im2col's).

The backward is the forward's exact adjoint: the output gradient transformed by A (``dM``)
gives both the weight gradient (``dM @ V^T``, back through G) and the input gradient
(``U^T @ dM``, back through B, added where tiles overlap).

Layout, chosen so that NumPy's loops run over long contiguous stretches:

- the padded input is kept as its even and odd rows, channel-major: ``(2, C, N, th+1, Wp)``;
  tile row ``t`` needs rows 2t..2t+3 = even/odd row ``t`` and ``t+1``, plain slices;
- the domain is ``(4, 4, channels, N, th, tw+1)``: one extra, unused tile per row lets the
  pass along W read the rows as one flat array with stride 2 (tile ``t+1`` starts 2
  elements after tile ``t``), instead of a short loop per row. The extra tiles are kept
  finite in the forward and zero in the backward, so they add nothing;
- the output is written a row at a time: the last pass puts each tile's (b=0, b=1) outputs
  side by side, so a row of pairs is a row of the output (writing b=0 and b=1 separately
  would loop over 7-element strided runs, 3-4x slower in NumPy).
"""
import numpy as np

from ... import _native
from ..._ops._scratch import scratch, zeroed_scratch

#: G of F(2x2, 3x3): the kernel transform ...
_G = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]])
#: ... as one (16, 9) matrix on flattened 3x3 kernels: U[xi, nu] = sum G[xi, i] G[nu, j] w[i, j].
_GG = {np.dtype(d): np.kron(_G, _G).astype(d) for d in (np.float32, np.float64)}


def applies(x, w, stride, dilation, groups):
    """Whether the Winograd path serves this convolution: 3x3 kernel, stride 1, no
    dilation, no groups, float32/float64, and enough channels for the GEMMs to dominate
    (with few input or output channels im2col's one product is cheaper)."""
    return (w.shape[2:] == (3, 3) and stride == (1, 1) and dilation == (1, 1)
            and groups == 1 and x.dtype in (np.float32, np.float64)
            and x.shape[1] >= 8 and w.shape[0] >= 8)


class Tiles:
    """The tiling of one convolution: output size, tiles per dim, padded input size.
    ``native``: the convolution runs in ember's compiled kernels (``ember.backends.native``:
    the same layout and arithmetic, a block of samples at a time in cache)."""

    def __init__(self, xshape, padding, native=False):
        self.n, self.c, self.h, self.w = xshape
        self.ph, self.pw = padding
        self.native = native
        self.out = (self.h + 2 * self.ph - 2, self.w + 2 * self.pw - 2)
        self.th, self.tw = ((o + 1) // 2 for o in self.out)
        self.wp = 2 * self.tw + 2                  # padded row length
        self.gw = self.tw + 1                      # tiles per row, with the extra one
        self.p = self.n * self.th * self.gw        # GEMM columns

    def row_blocks(self):
        """For the even (r=0) and odd (r=1) padded rows: which of them (i_lo:i_hi) hold
        input rows, and the first of those input rows (they go in steps of 2)."""
        for r in (0, 1):
            lo = (self.ph - r + 1) // 2
            hi = min((self.h - 1 + self.ph - r) // 2 + 1, self.th + 1)
            if hi > lo:
                yield r, lo, hi, 2 * lo + r - self.ph


def _bt_pass(d0, d1, d2, d3, out):
    """B^T's rows applied to four slices: out[0..3] = d0-d2, d1+d2, d2-d1, d1-d3."""
    np.subtract(d0, d2, out=out[0])
    np.add(d1, d2, out=out[1])
    np.subtract(d2, d1, out=out[2])
    np.subtract(d1, d3, out=out[3])


def _flat_tiles(flat, u, rows, count):
    """Element ``u`` of every tile, as (rows, count), from ``flat``: ``rows`` contiguous
    rows of tiles, read at offset ``u`` with stride 2 (a row's extra tile runs into the next
    row; ``flat`` holds 2 elements of slack after the last row)."""
    return flat[u:u + 2 * rows * count - 1:2].reshape(rows, count)


def weight_transform(w):
    """U = G w G^T for every (out, in) channel pair, as (16, K, C): one small GEMM."""
    k, c = w.shape[:2]
    return (_GG[w.dtype] @ w.reshape(k * c, 9).T).reshape(16, k, c)


def input_transform(x, tiles, keep=True):
    """V = B^T d B for every tile of the zero-padded ``x``, as (16, C, P). ``keep``: a fresh
    array (the backward needs it) rather than a scratch one."""
    t, c, n = tiles, tiles.c, tiles.n
    xp = zeroed_scratch('winograd_xpad', (2, c, n, t.th + 1, t.wp), x.dtype,
                        (t.h, t.w, t.ph, t.pw))
    xt = x.transpose(1, 0, 2, 3)
    for r, lo, hi, first in t.row_blocks():
        xp[r, :, :, lo:hi, t.pw:t.pw + t.w] = xt[:, :, first:first + 2 * (hi - lo) - 1:2]
    # Along H: tile row i's rows 2i..2i+3 are even/odd row i, then even/odd row i+1.
    q = c * n * t.th * t.gw
    rbuf = scratch('winograd_r', (8 * q + 4,), x.dtype)
    rbuf[8 * q:] = 0                       # read (by the last extra tile) but never written
    rows = rbuf[:8 * q].reshape(4, c, n, t.th, t.wp)
    _bt_pass(*(xp[u % 2, :, :, u // 2:u // 2 + t.th] for u in range(4)), rows)
    # Along W: the same on columns 2j..2j+3, read as flat strided rows.
    v = np.empty((4, 4, q), x.dtype) if keep else scratch('winograd_v', (4, 4, q), x.dtype)
    _bt_pass(*(_flat_tiles(rbuf, u, 4, q) for u in range(4)), v.transpose(1, 0, 2))
    return v.reshape(16, c, t.p)


def _rows_view(y, tiles):
    """``y`` (N, K, 2*th, 2*tw) as (a, K, N, th, 2*tw): output row 2i + a of every tile row."""
    t = tiles
    return y.reshape(y.shape[0], y.shape[1], t.th, 2, 2 * t.tw).transpose(3, 1, 0, 2, 4)


def _pairs(z, tiles):
    """The (2, K, N, th, gw, 2) pair buffer as rows (2, K, N, th, 2*tw), extra tile cut."""
    t = tiles
    return z.reshape(2, z.shape[1], t.n, t.th, 2 * t.gw)[..., :2 * t.tw]


def output_transform(m, tiles, bias=None):
    """Y = A^T M A per tile: ``m`` (16, K, P) -> (N, K, *out), plus ``bias``."""
    t, k = tiles, m.shape[1]
    m = m.reshape(4, 4, k, t.n, t.th, t.gw)
    if bias is not None:
        # A^T's column 1 is (1, 1): adding b at (1, 1) adds it to all four outputs.
        m[1, 1] += bias.reshape(k, 1, 1, 1)
    # A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]. Along H, xi -> a, in place: a = 0 into m[0],
    # a = 1 into m[3] (no new memory: ``m`` is large, and stays in cache) ...
    tmp = scratch('winograd_tmp', (4, k, t.n, t.th, t.gw), m.dtype)
    h = m[0::3]
    _at_pass(m[0], m[1], m[2], m[3], h, tmp)
    # ... along W, nu -> b, into (b=0, b=1) pairs: a row of pairs is a row of the output.
    z = scratch('winograd_z', (2, k, t.n, t.th, t.gw, 2), m.dtype)
    _at_pass(h[:, 0], h[:, 1], h[:, 2], h[:, 3], z.transpose(5, 0, 1, 2, 3, 4), tmp[:2])
    oh, ow = t.out
    exact = (oh, ow) == (2 * t.th, 2 * t.tw)
    shape = (t.n, k, 2 * t.th, 2 * t.tw)
    y = np.empty(shape, m.dtype) if exact else scratch('winograd_y', shape, m.dtype)
    np.copyto(_rows_view(y, t), _pairs(z, t))
    return y if exact else np.array(y[:, :, :oh, :ow])


def _at_pass(m0, m1, m2, m3, out, tmp):
    """A^T's rows applied to four slices: out[0] = m0+m1+m2, out[1] = m1-m2-m3 (``out``
    may be m0 and m3 themselves)."""
    np.add(m1, m2, out=tmp)
    np.add(m0, tmp, out=out[0])
    np.subtract(m1, m2, out=tmp)
    np.subtract(tmp, m3, out=out[1])


def forward(x, w, bias, padding, keep=True):
    """conv2d(x, w, bias, padding) for a 3x3 kernel at stride 1, on arrays. Returns the
    output and what ``backward`` needs (None unless ``keep``)."""
    tiles = Tiles(x.shape, padding, _native.kernels(x) is not None)
    u = weight_transform(w)
    if tiles.native:   # all steps in C, a few samples at a time; the backward recomputes V
        return _native.winograd_conv_forward(x, u, bias, tiles), ((None, u, tiles) if keep
                                                                  else None)
    v = input_transform(x, tiles, keep)
    m = np.matmul(u, v, out=scratch('winograd_m', (16, w.shape[0], tiles.p), x.dtype))
    return output_transform(m, tiles, bias), ((v, u, tiles) if keep else None)


def backward(g, x, kept, wshape, want):
    """``(gx, gw, gb)`` from the output gradient ``g``, the input ``x`` and what ``forward``
    kept; each None unless ``want``-ed."""
    v, u, tiles = kept
    if tiles.native:
        gx, gu = _native.winograd_conv_backward(x, g, u, tiles, want[0], want[1])
        return (gx, None if gu is None else _weight_from(gu, wshape),
                g.sum((0, 2, 3)) if want[2] else None)
    dm = grad_transform(g, tiles)
    return (input_grad(dm, u, tiles) if want[0] else None,
            weight_grad(dm, v, wshape) if want[1] else None,
            bias_grad(dm) if want[2] else None)


def grad_transform(g, tiles):
    """dM = A Y A^T per tile, the adjoint of ``output_transform``: ``g`` (N, K, *out) ->
    (16, K, P), zero on the extra tiles."""
    t, k = tiles, g.shape[1]
    if g.shape[2:] != (2 * t.th, 2 * t.tw):                        # odd sizes: pad with 0
        gp = scratch('winograd_y', (t.n, k, 2 * t.th, 2 * t.tw), g.dtype)
        gp.fill(0)
        gp[:, :, :g.shape[2], :g.shape[3]] = g
        g = gp
    # Rows of g as (b=0, b=1) pairs per tile (a, K, N, th, gw, 2); the extra tile zero.
    z = zeroed_scratch('winograd_gz', (2, k, t.n, t.th, t.gw, 2), g.dtype, (t.tw,))
    np.copyto(_pairs(z, t), _rows_view(g, t))
    g0, g1 = z[..., 0], z[..., 1]                                  # (a, K, N, th, gw)
    # A = [[1, 0], [1, 1], [1, -1], [0, -1]]. xi = 0 and 3 come from a = 0 and a = 1 alone
    # (xi = 3 kept negated, so both follow one rule along W): their corners first ...
    dm = scratch('winograd_m', (4, 4, k, t.n, t.th, t.gw), g.dtype)
    np.copyto(dm[0, 0], g0[0])
    np.negative(g1[0], out=dm[0, 3])
    np.negative(g0[1], out=dm[3, 0])
    np.copyto(dm[3, 3], g1[1])
    # ... then nu = 1, 2 along W, and xi = 1, 2 along H.
    edge = dm[0::3]
    np.subtract(edge[:, 0], edge[:, 3], out=edge[:, 1])
    np.add(edge[:, 0], edge[:, 3], out=edge[:, 2])
    np.subtract(dm[0], dm[3], out=dm[1])
    np.add(dm[0], dm[3], out=dm[2])
    return dm.reshape(16, k, t.p)


def bias_grad(dm):
    """The bias gradient from ``dM``: its (1, 1) entry is each tile's sum of g."""
    return dm[5].sum(1)


def weight_grad(dm, v, wshape):
    """dL/dw = G^T (dM V^T) G, the adjoint of ``weight_transform``."""
    return _weight_from(np.matmul(dm, v.transpose(0, 2, 1)), wshape)


def _weight_from(gu, wshape):
    """dL/dw = G^T gu G from the gradient ``gu`` (16, K, C) of U."""
    k, c = wshape[:2]
    return np.ascontiguousarray((_GG[gu.dtype].T @ gu.reshape(16, k * c)).T).reshape(wshape)


def _overlap_add(t0, t1, t2, t3, even, odd, axis, tmp):
    """The adjoint of ``_bt_pass`` along ``axis``, tiles 2 apart: ``t0..t3`` are the
    gradients of its four outputs; each tile's d0..d3 gradients (B^T's columns applied to
    them) are added into the even and odd positions they were read from. ``even``/``odd``
    have the tiles' length along ``axis`` (flat rows, where a row's extra tile takes the
    spill) or one more (where the last tile's d2/d3 land). ``tmp``: room for two parts."""
    def cut(a, lo, hi):
        return a[(slice(None),) * (axis % a.ndim) + (slice(lo, hi),)]
    n = t0.shape[axis]
    # d0 = t0, d1 = t1 - t2 + t3, d2 = t1 + t2 - t0, d3 = -t3.
    d2, d1 = tmp
    np.add(t1, t2, out=d2)
    np.subtract(d2, t0, out=d2)
    np.subtract(t1, t2, out=d1)
    np.add(d1, t3, out=d1)
    # Position 2j gets d0 of tile j and d2 of tile j - 1; 2j + 1 gets d1[j] and d3[j - 1].
    np.copyto(cut(even, 0, 1), cut(t0, 0, 1))
    np.add(cut(t0, 1, n), cut(d2, 0, n - 1), out=cut(even, 1, n))
    np.copyto(cut(odd, 0, 1), cut(d1, 0, 1))
    np.subtract(cut(d1, 1, n), cut(t3, 0, n - 1), out=cut(odd, 1, n))
    if even.shape[axis] > n:
        np.copyto(cut(even, n, n + 1), cut(d2, n - 1, n))
        np.negative(cut(t3, n - 1, n), out=cut(odd, n, n + 1))


def input_grad(dm, u, tiles):
    """dL/dx: U^T dM, back through B per tile, added where tiles overlap."""
    t, c, n = tiles, tiles.c, tiles.n
    q = c * n * t.th * t.gw
    gv = scratch('winograd_v', (16, c, t.p), dm.dtype)
    gv = np.matmul(u.transpose(0, 2, 1), dm, out=gv).reshape(4, 4, q)
    # Along W on flat rows: the extra tiles are zero, so what spills over adds nothing.
    rows = scratch('winograd_r', (4, 2 * q), dm.dtype)
    tmp = scratch('winograd_tmp', (2, 4, q), dm.dtype)
    _overlap_add(*(gv[:, j].reshape(4, q) for j in range(4)), rows[:, 0::2], rows[:, 1::2],
                 -1, tmp)
    # Along H, into the even (r=0) and odd (r=1) padded rows.
    rows = rows.reshape(4, c, n, t.th, t.wp)
    gx = scratch('winograd_x', (2, c, n, t.th + 1, t.wp), dm.dtype)
    tmp = tmp.reshape(-1)[:2 * c * n * t.th * t.wp].reshape(2, c, n, t.th, t.wp)
    _overlap_add(*rows, gx[0], gx[1], 2, tmp)
    out = np.empty((n, c, t.h, t.w), dm.dtype)
    ot = out.transpose(1, 0, 2, 3)
    for r, lo, hi, first in t.row_blocks():
        ot[:, :, first:first + 2 * (hi - lo) - 1:2] = gx[r, :, :, lo:hi, t.pw:t.pw + t.w]
    return out
