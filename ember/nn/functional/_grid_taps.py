"""The array form of grid sampling (bilinear and nearest): what ``grid_sample`` runs when no
graph of its gradient is wanted, with NumPy (and scipy's sparse products when installed).

The grid's source indices are computed once per call, with the formulas (and the order of
operations) of ``_vision``'s composition, which stays the reference and serves bicubic
sampling and the gradients that need a graph (``create_graph``). From them, one ``Taps``
holds each output position's taps -- the input positions it reads and their weights -- and
gives the forward value, the input's gradient and the grid's gradient.

Layouts, chosen for speed on one thread:

- nearest: a single tap, gathered per sample with ``np.take`` along the flat spatial axis of
  the (C, H*W) channel planes (no transposition of the input);
- bilinear: the input transposed once into rows of channels, (N*H*W, C), so that a tap is a
  gather of C contiguous values; the taps are the (N*P x rows) sparse matrix of weights, and
  one CSR product applies it to every channel at once (scipy); its transpose scatters the
  output's gradient back. Without scipy, a gather per tap and ``np.bincount``.

Taps outside the input weigh 0 (zeros padding); their positions are clipped to any valid
row, so no mask is needed on the values. In the bilinear case the low corner is clipped to
[-1, size - 1] along each dim, so the other corners are the low corner plus fixed offsets;
the rows buffer has a margin of zero rows on both sides for the offsets that fall outside.
"""
import itertools
import math

import numpy as np

from ..._ops import _scipy


def source_index(coord, size, padding_mode, align_corners, slope=False):
    """Grid coordinates in [-1, 1] (an array along one dim) -> fractional pixel indices along
    a dim of ``size``, folded by the border (1) or reflection (2) padding: the composition's
    ``_source_index`` on arrays. With ``slope``, also d(index)/d(coord) as autograd gives it
    through the composition (the unnormalizing scale, 0 where a clamp cuts, negated where a
    reflection flips), else None."""
    scale = (size - 1) / 2 if align_corners else size / 2
    c = coord + 1
    c *= scale
    if not align_corners:
        c -= 0.5
    if padding_mode == 0:
        return c, (np.full(c.shape, scale, c.dtype) if slope else None)
    sign = None
    if padding_mode == 2:
        c, sign = _reflect(c, *((0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)),
                           slope)
    d = None
    if slope:    # (torch's grid sampler counts the borders as outside: no gradient there)
        d = ((c > 0) & (c < size - 1)).astype(c.dtype)
        d *= scale
        if sign is not None:
            d *= sign
    np.clip(c, 0, size - 1, out=c)
    return c, d


def _reflect(c, twice_low, twice_high, slope):
    """``_vision._reflect`` on an array ``c`` (overwritten), and with ``slope`` the sign of
    its slope (+1, -1 or 0 per element)."""
    if twice_low == twice_high:
        return c * 0, (np.zeros_like(c) if slope else None)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    c -= low
    sign = np.sign(c) if slope else None        # (the abs's slope: 0 at 0, as torch's)
    a = np.abs(c, out=c).reshape(-1)            # (a fresh array: a view)
    # below one span (most coordinates: the grid is mostly inside) a is its own remainder
    # and is not flipped; the others (and a / span rounded up to 1) take fmod and the
    # parity of floor(a / span) (nan stays nan, as does inf's remainder)
    quotient = a / span
    far = np.flatnonzero(quotient >= 1)
    if far.size:
        extra = np.fmod(a[far], span)
        half = np.floor(quotient[far])
        half *= 0.5
        odd = np.floor(half) != half
        a[far] = np.where(odd, span - extra, extra)
        if slope:
            sign.reshape(-1)[far[odd]] *= -1
    a += low
    return a.reshape(c.shape), sign


class Taps:
    """The taps of a grid over an input of spatial size ``sp``: positions and weights per
    output position, for ``mode`` 0 (bilinear) or 1 (nearest). ``slopes``: also keep what
    the grid's gradient needs."""

    def __init__(self, grid, sp, mode, padding_mode, align_corners, slopes=False):
        n, nd = grid.shape[0], grid.shape[-1]
        self.n, self.sp, self.nd, self.mode = n, tuple(int(s) for s in sp), nd, mode
        self.grid_shape, self.dtype = grid.shape, grid.dtype
        self.out_sp = tuple(grid.shape[1:-1])
        self.volume = math.prod(self.sp)
        coords = grid.reshape(n, -1, nd)
        self.matrix = self.kept = None      # (what ``sample`` leaves for the gradients)
        if len(set(self.sp)) == 1:     # (one size: every dim's indices in one pass)
            c, d = source_index(coords, self.sp[0], padding_mode, align_corners, slopes)
            idx = [c[..., nd - 1 - ax] for ax in range(nd)]
            self.slopes = [d[..., nd - 1 - ax] for ax in range(nd)] if slopes else None
        else:          # grid[..., 0] is along the last spatial dim (W)
            pairs = [source_index(coords[..., nd - 1 - ax], self.sp[ax], padding_mode,
                                  align_corners, slopes) for ax in range(nd)]
            idx = [c for c, _ in pairs]
            self.slopes = [d for _, d in pairs] if slopes else None
        # (garbage integers from nan or huge coordinates: the masks below say they are out)
        with np.errstate(invalid='ignore'):
            if mode == 1:
                self._nearest(idx)
            else:
                self._bilinear(idx)

    def _nearest(self, idx):
        """One tap: the rounded (half to even, as torch's nearbyint) index."""
        flat = ok = None
        for c, size in zip(idx, self.sp):
            i = np.rint(c, out=c).astype(np.intp)
            inside = i.view(np.uintp) < size          # (negative ones wrap to huge)
            if flat is None:
                flat, ok = i, inside
            else:              # (wrong where not ok: read clipped, then masked)
                flat *= size
                flat += i
                ok &= inside
        all_in = ok.all()
        if not all_in:
            # (positions outside read pixel 0, then masked: every index is then in range,
            # which lets ``sample`` gather with np.take's fast 'wrap' mode -- it loops on
            # out-of-range values -- instead of 'clip', 1.5x slower)
            flat[~ok] = 0
        self.flat, self.ok = flat, ok
        self.mask = None if all_in else ok.astype(self.dtype)
        self.pad, self.offsets = 0, (0,)

    def _bilinear(self, idx):
        """2**nd taps: per dim, the low corner's weight (low + 1) - i and the high's i - low,
        each 0 outside the input."""
        n, sp = self.n, self.sp
        # the margin: the offsets of the corners past a low corner clipped to -1
        strides = [self.volume // math.prod(sp[:ax + 1]) for ax in range(self.nd)]
        self.corners = list(itertools.product((0, 1), repeat=self.nd))
        self.offsets = [sum(b * st for b, st in zip(corner, strides)) for corner in self.corners]
        self.pad = pad = self.offsets[-1]
        rows = n * self.volume + 2 * pad
        index, unsigned = (np.int32, np.uint32) if rows < 2 ** 31 else (np.int64, np.uint64)
        flat, self.factors, self.inside = 0, [], []
        for c, size in zip(idx, sp):
            low = np.floor(c)
            f1 = c - low
            f0 = low + 1
            f0 -= c
            i = low.astype(index)
            in0 = i.view(unsigned) < size        # (negative ones wrap to huge)
            in1 = (i + 1).view(unsigned) < size
            f0 *= in0
            f1 *= in1
            self.factors.append((f0, f1))
            self.inside.append((in0, in1))
            np.clip(i, -1, size - 1, out=i)
            flat = flat * size + i
        flat += (np.arange(n, dtype=index) * index(self.volume) + index(pad)).reshape(n, 1)
        k = len(self.offsets)
        self.flat = np.empty(flat.shape + (k,), index)
        self.weights = np.empty(flat.shape + (k,), self.dtype)
        for t, corner in enumerate(self.corners):
            np.add(flat, index(self.offsets[t]), out=self.flat[..., t])
            w = self.weights[..., t]
            np.multiply(self.factors[0][corner[0]], self.factors[1][corner[1]], out=w)
            for ax in range(2, self.nd):
                w *= self.factors[ax][corner[ax]]

    @property
    def ready_for_grid(self):
        """Whether ``grid_grad`` can run (bilinear taps need the slopes kept)."""
        return self.mode == 1 or self.slopes is not None

    # -- the products ---------------------------------------------------------------------

    def _matrix(self, weights=None):
        """The (N*P x rows) CSR matrix of the weights (``weights`` instead of the taps' own),
        or None without scipy (or for dtypes scipy does not take)."""
        sparse = _scipy.sparse() if self.dtype in (np.float32, np.float64) else None
        if sparse is None:
            return None
        if self.mode == 1:
            flat = np.clip(self.flat, 0, self.volume - 1).astype(np.int32)
            flat += (np.arange(self.n, dtype=np.int32) * np.int32(self.volume)).reshape(-1, 1)
            weights = (np.ones(flat.shape, self.dtype) if self.mask is None else self.mask)
            flat, weights = flat[..., None], weights[..., None]
        else:
            flat, weights = self.flat, self.weights if weights is None else weights
        rows, k = flat.shape[0] * flat.shape[1], flat.shape[2]
        width = self.n * self.volume + 2 * self.pad
        return sparse.csr_matrix((weights.ravel(), flat.ravel(),
                                  np.arange(0, k * rows + 1, k, dtype=flat.dtype)),
                                 shape=(rows, width))

    def rows(self, x):
        """The input (N, C, *sp) as rows of channels (N*V + 2 pad, C), zero margins."""
        n, c, pad, v = x.shape[0], x.shape[1], self.pad, self.volume
        out = np.empty((n * v + 2 * pad, c), x.dtype)
        out[:pad] = 0
        out[pad + n * v:] = 0
        np.copyto(out[pad:pad + n * v].reshape(n, v, c),
                  x.reshape(n, c, v).transpose(0, 2, 1))
        return out

    def _global(self, weights=None):
        """(flat, weights) as (N, P, taps) positions in the (N*V) input and their weights
        (``weights`` instead of the taps' own), every position valid (for the fallbacks
        without scipy)."""
        if self.mode == 1:
            flat = np.clip(self.flat, 0, self.volume - 1)
            flat += (np.arange(self.n) * self.volume).reshape(-1, 1)
            weights = np.ones(flat.shape, self.dtype) if self.mask is None else self.mask
            return flat[..., None], weights[..., None]
        return (np.clip(self.flat - self.pad, 0, self.n * self.volume - 1),
                self.weights if weights is None else weights)

    def sample(self, x, keep_rows=False):
        """The forward value (N, C, *out) of the input ``x`` (N, C, *sp); ``keep_rows``: keep
        its rows for the grid's gradient."""
        n, c, p = x.shape[0], x.shape[1], math.prod(self.out_sp)
        if self.mode == 1:
            planes = x.reshape(n, c, self.volume)
            out = np.empty((n, c, p), x.dtype)
            for b in range(n):       # (every index is in range: see _nearest)
                np.take(planes[b], self.flat[b], axis=1, out=out[b], mode='wrap')
                if self.mask is not None:        # (zeros padding: while out[b] is hot)
                    out[b] *= self.mask[b]
            return out.reshape((n, c) + self.out_sp)
        matrix = self.matrix = self._matrix()
        if matrix is None:
            out = _taps_times(*self._global(), x.reshape(n, c, self.volume))
        else:
            rows = self.rows(x)
            if keep_rows:
                self.kept = rows
            out = matrix @ rows
            del rows      # (freed before the copy below: big temporaries raise page faults)
            out = np.ascontiguousarray(out.reshape(n, p, c).transpose(0, 2, 1))
        return out.reshape((n, c) + self.out_sp)

    def gradients(self, g, x, want_input, want_grid):
        """The gradients of the input (N, C, *sp) and of the grid (N, *out, nd) (None where
        not wanted) for the output's gradient ``g`` (N, C, *out) and the input ``x``."""
        n, c = g.shape[0], g.shape[1]
        g = g.reshape(n, c, -1)
        matrix = weights = None
        if want_input:
            if self.mode == 0 and np.isnan(self.weights).any():
                # a nan or infinite coordinate reads nothing (its value is nan): no
                # gradient flows from it to the input, as torch's
                weights = np.where(np.isnan(self.weights), 0, self.weights)
            matrix = (self._matrix(weights) if self.matrix is None or weights is not None
                      else self.matrix)
        by_rows = matrix is not None or (want_grid and self.mode == 0)
        g_rows = _transposed(g) if by_rows else None      # (shared by both gradients)
        grid_grad = self._grid_grad(g_rows, x) if want_grid else None
        self.kept = None       # (a second backward transposes the input again)
        if not want_input:
            return None, grid_grad
        v = self.volume
        if matrix is None:
            out = _taps_times_t(*self._global(weights), g, v)
        else:
            rows = matrix.T @ g_rows
            del g_rows         # (freed before the copy below: big temporaries raise faults)
            out = np.ascontiguousarray(
                rows[self.pad:self.pad + n * v].reshape(n, v, c).transpose(0, 2, 1))
        return out.reshape(x.shape), grid_grad

    def _grid_grad(self, g_rows, x):
        """Along each dim, the corners' values times their weights' derivatives, against the
        gradient's rows ``g_rows``; times the source index's slope."""
        if self.mode == 1:     # nearest: piecewise constant in the grid
            return np.zeros(self.grid_shape, self.dtype)
        n, c = x.shape[0], x.shape[1]
        rows = self.rows(x) if self.kept is None else self.kept
        ones = np.ones(c, rows.dtype)
        dots = []       # per corner: its values against the gradient, over the channels
        for t in range(len(self.corners)):
            values = np.take(rows, self.flat[..., t].astype(np.intp).ravel(), axis=0,
                             mode='clip')
            values *= g_rows
            dots.append((values @ ones).reshape(n, -1))
        out = np.empty((n, self.flat.shape[1], self.nd), self.dtype)
        for ax in range(self.nd):
            acc = None
            for dot, corner in zip(dots, self.corners):
                # d weight / d index along ax: -1 (low corner) or +1 (high) inside the
                # input, times the other dims' factors
                d = self.inside[ax][corner[ax]] * dot
                for other in range(self.nd):
                    if other != ax:
                        d *= self.factors[other][corner[other]]
                if acc is None:
                    acc = d if corner[ax] else np.negative(d, out=d)
                elif corner[ax]:
                    acc += d
                else:
                    acc -= d
            np.multiply(acc, self.slopes[ax], out=out[..., self.nd - 1 - ax])
        return out.reshape(self.grid_shape)


def _transposed(a):
    """(N, C, P) -> its rows (N*P, C), contiguous."""
    n, c, p = a.shape
    return np.ascontiguousarray(a.transpose(0, 2, 1)).reshape(n * p, c)


def _taps_times(flat, weights, x):
    """``sum_k weights[..., k] * x.flat[flat[..., k]]`` per sample and channel, without
    scipy: ``x`` (N, C, V), ``flat`` (positions in the (N, V) volumes) and ``weights``
    (N, P, taps) -> (N, C, P); a gather per tap."""
    n, c, v = x.shape
    xs = x.transpose(1, 0, 2).reshape(c, n * v)
    acc = None
    for k in range(flat.shape[2]):
        t = np.take(xs, flat[..., k], axis=1) * weights[..., k]       # (C, N, P)
        acc = t if acc is None else acc + t
    return np.ascontiguousarray(acc.transpose(1, 0, 2))


def _taps_times_t(flat, weights, g, v):
    """The adjoint of ``_taps_times``: ``g`` (N, C, P) summed into (N, C, ``v``)."""
    n, c, p = g.shape
    idx = flat.ravel()
    gw = (g.transpose(1, 0, 2)[..., None] * weights[None]).reshape(c, -1)
    out = np.stack([np.bincount(idx, gw[ch], n * v) for ch in range(c)])  # index shared
    return np.ascontiguousarray(out.reshape(c, n, v).transpose(1, 0, 2), g.dtype)
