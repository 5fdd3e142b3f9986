"""``linalg.matrix_exp`` (also ``torch.matrix_exp`` and ``Tensor.matrix_exp``).

The kernel is scaling and squaring with a diagonal Padé approximant (Higham, "The scaling
and squaring method for the matrix exponential revisited", 2005): the smallest degree among
3, 5, 7, 9 whose error bound covers the batch's largest 1-norm, else degree 13 on ``A / 2^s``
followed by ``s`` squarings, ``s`` chosen per matrix. A finite matrix that would need more
than ``_WIDE_S`` squarings (entries like 1e30 beside entries like 1, where ``A / 2^s`` loses
the small ones) takes ``_expm_wide`` instead: a symmetric permutation to block upper
triangular form (the strongly connected parts of the graph of its nonzeros), each diagonal
block balanced by powers of two, blocks of like scale exponentiated together with their
coupling scaled down by powers of two, blocks of different scales apart with the coupling
from the Sylvester equation of Parlett's block recurrence -- all similarities exact, so
``exp(diag(-1e30, 1))`` is ``diag(0, e)`` and ``exp([[1, 1e30], [0, 1]])`` is ``e`` times
the matrix (torch's scaling and squaring gives ``diag(0, 1)`` and the matrix itself). Each
group's diagonal mean ``mu`` is shifted out and ``e^mu`` applied last, and the coupling is
solved by block substitution with its right-hand side scaled by powers of two, so an
overflow leaves inf with its sign (not the NaN of inf - inf) and exact zeros stay zero. The
derivative is the Fréchet derivative, which is itself a matrix exponential: ``gA`` is the
upper-right block of ``exp([[A^H, g], [0, A^H]])`` -- computed with this op, so every order
follows. (For a matrix on the wide path that block matrix pairs equal eigenvalues across
blocks of another scale, which the recurrence cannot separate: such gradients can be NaN.)
"""
import numpy as np

from .. import _dtype

from ._core import Node, register, track1, result
from .shape import cat
from .factorizations import _linalg, _matrices

__all__ = []

# Padé numerator coefficients b_0..b_m of degree m, and the largest 1-norm for which the
# degree-m approximant is accurate to double precision (Higham 2005, table 2.3).
_PADE = {
    3: (1.495585217958292e-2, (120, 60, 12, 1)),
    5: (2.539398330063230e-1, (30240, 15120, 3360, 420, 30, 1)),
    7: (9.504178996162932e-1, (17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1)),
    9: (2.097847961257068, (17643225600, 8821612800, 2075673600, 302702400, 30270240,
                            2162160, 110880, 3960, 90, 1)),
    13: (5.371920351148152, (64764752532480000, 32382376266240000, 7771770303897600,
                             1187353796428800, 129060195264000, 10559470521600, 670442572800,
                             33522128640, 1323241920, 40840800, 960960, 16380, 182, 1)),
}


def _pade(a, m):
    """Numerator and denominator terms ``(U, V)`` of the degree-``m`` approximant: odd
    powers in ``U``, even in ``V``; ``exp(A) ~ (V - U)^{-1} (V + U)``."""
    b = _PADE[m][1]
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    a2 = a @ a
    if m < 13:
        powers = [eye, a2]
        while len(powers) <= m // 2:
            powers.append(powers[-1] @ a2)
        u = a @ sum(b[2 * k + 1] * p for k, p in enumerate(powers))
        v = sum(b[2 * k] * p for k, p in enumerate(powers))
        return u, v
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
             + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + \
        b[0] * eye
    return u, v


# Beyond this many squarings the scaled matrix has lost what is small beside its norm (a
# relative error about 2**s * eps in the small parts): such finite matrices take the exact
# structure-aware path.
_WIDE_S = 10
# Blocks whose balanced norms lie within this factor of each other (or under the degree-13
# bound times it) are exponentiated together.
_LIKE = 2.0 ** 10


def _norm1(a):
    return float(np.abs(a).sum(-2, dtype=np.float64).max(-1)) if a.size else 0.0


def _balance(a):
    """``(b, k)``: ``b = D^-1 a D`` with ``D = diag(2**k)``, the off-diagonal row and column
    1-norms of each index brought together (Parlett and Reinsch's balancing, radix 2, so the
    similarity is exact)."""
    n = a.shape[-1]
    b = a.copy()
    k = np.zeros(n, np.int64)
    if n < 2:
        return b, k
    for _ in range(64):
        done = True
        for i in range(n):
            c = float(np.abs(np.delete(b[:, i], i)).sum(dtype=np.float64))
            r = float(np.abs(np.delete(b[i, :], i)).sum(dtype=np.float64))
            if c == 0 or r == 0 or not np.isfinite(c + r):
                continue
            e = int(np.round(0.5 * np.log2(r / c)))
            if e == 0:
                continue
            f = 2.0 ** e
            if c * f + r / f < 0.95 * (c + r):
                b[:, i] = _ldexp(b[:, i], e)
                b[i, :] = _ldexp(b[i, :], -e)
                k[i] += e
                done = False
        if done:
            break
    return b, k


def _ldexp(x, e):
    """``x * 2**e`` exactly (complex too), without overflow of the factor."""
    e = np.asarray(e).astype(np.int32)
    if x.dtype.kind == 'c':
        return (np.ldexp(x.real, e) + 1j * np.ldexp(x.imag, e)).astype(x.dtype)
    return np.ldexp(x, e)


def _unbalance(f, k):
    """``D f D^-1`` for ``D = diag(2**k)``."""
    return _ldexp(f, k[:, None] - k[None, :])


def _components(a):
    """The strongly connected parts of the graph with an edge i -> j where ``a[i, j] != 0``,
    in an order that makes ``a`` permuted by them block upper triangular, parts of like
    scale next to each other where the order allows: ``(perm, sizes)``."""
    n = a.shape[-1]
    nz = a != 0
    reach = nz | np.eye(n, dtype=bool)
    for m in range(n):  # transitive closure
        reach |= reach[:, m:m + 1] & reach[m:m + 1, :]
    label = np.argmax(reach & reach.T, axis=1)  # the smallest index of each part
    parts = [np.nonzero(label == p)[0] for p in np.unique(label)]
    scale = []
    for idx in parts:
        blk = a[np.ix_(idx, idx)]
        scale.append(np.log2(max(min(_norm1(blk), _norm1(_balance(blk)[0])), 1.0)))
    # Kahn's order of the parts, each time the ready part of scale nearest the last one's
    before = [{q for q in range(len(parts)) if q != p and nz[np.ix_(parts[q], parts[p])].any()}
              for p in range(len(parts))]
    done, order = set(), []
    last = min(scale)
    while len(order) < len(parts):
        ready = [p for p in range(len(parts)) if p not in done and before[p] <= done]
        p = min(ready, key=lambda q: (abs(scale[q] - last), q))
        order.append(p)
        done.add(p)
        last = scale[p]
    perm = np.concatenate([parts[p] for p in order])
    return perm, [len(parts[p]) for p in order]


def _shift(b):
    """``(b - mu I, mu)`` for the mean ``mu`` of the diagonal's real part (0 when small):
    ``exp(b) = e^mu exp(b - mu I)``, the latter of a smaller norm."""
    mu = float(np.mean(b.real.diagonal(0, -2, -1), dtype=np.float64))
    if not np.isfinite(mu) or abs(mu) < 1:
        return b, 0.0
    idx = np.arange(b.shape[-1])
    c = b.copy()
    c[..., idx, idx] -= np.asarray(mu, b.real.dtype)
    return c, mu


def _times_exp(g, mu):
    """``e^mu g``, where ``e^mu`` may overflow or underflow while the product does not, and
    an exact zero of ``g`` stays 0."""
    if mu == 0:
        return g
    with np.errstate(all='ignore'):
        half = np.exp(np.float64(mu / 2))
        out = (g * half) * half
    return np.where(g == 0, 0, out).astype(g.dtype)


def _exp_block(a):
    """``exp`` of an irreducible block: balanced when that lowers its norm."""
    if a.shape[-1] == 1:
        return np.exp(a)
    a, mu = _shift(a)
    b, k = _balance(a)
    if _norm1(b) < _norm1(a):
        return _times_exp(_unbalance(_expm(b, wide=False), k), mu)
    return _times_exp(_expm(a, wide=False), mu)


def _product(a, b):
    """``a @ b`` with an exact zero times inf taken as 0 (a structural zero of a factor
    against an overflowed exponential)."""
    if np.isfinite(a).all() and np.isfinite(b).all():
        return a @ b
    terms = a[:, :, None] * b[None, :, :]
    terms[(a == 0)[:, :, None] | (b == 0)[None, :, :]] = 0
    return terms.sum(1)


def _together(t, sizes):
    """``exp`` of a block upper triangular ``t`` whose diagonal blocks are of like scale: each
    block balanced, the blocks scaled by decreasing powers of two until every coupling is no
    larger than the blocks, exponentiated at once and scaled back."""
    n = t.shape[-1]
    t, mu = _shift(t)
    ends = np.cumsum([0] + list(sizes))
    k = np.zeros(n, np.int64)
    for p in range(len(sizes)):
        sl = slice(ends[p], ends[p + 1])
        if sizes[p] > 1:
            blk, kb = _balance(t[sl, sl])
            if _norm1(blk) < _norm1(t[sl, sl]):
                k[sl] = kb
    b = _unbalance(t, -k)  # D^-1 t D, each block balanced
    top = max([1.0] + [_norm1(b[ends[p]:ends[p + 1], ends[p]:ends[p + 1]])
                       for p in range(len(sizes))])
    shift = np.zeros(len(sizes), np.int64)
    for q in range(1, len(sizes)):
        need = shift[q - 1]
        for p in range(q):
            c = b[ends[p]:ends[p + 1], ends[q]:ends[q + 1]]
            m = float(np.abs(c).max()) if c.size else 0.0
            if m > top:
                need = max(need, shift[p] + int(np.ceil(np.log2(m / top))))
        shift[q] = need
    k2 = np.repeat(-shift, sizes)
    b = _unbalance(b, -k2)
    return _times_exp(_unbalance(_unbalance(_expm(b, wide=False), k2), k), mu)


def _scale(t, sizes):
    """Each diagonal block's norm, balanced."""
    ends = np.cumsum([0] + list(sizes))
    out = []
    for p in range(len(sizes)):
        blk = t[ends[p]:ends[p + 1], ends[p]:ends[p + 1]]
        out.append(min(_norm1(blk), _norm1(_balance(blk)[0])))
    return out


def _triangular(t, sizes):
    """``exp`` of a block upper triangular ``t`` (diagonal blocks irreducible)."""
    if len(sizes) == 1:
        return _exp_block(t)
    sc = _scale(t, sizes)
    floor = _PADE[13][0]
    together = None
    if max(sc) <= _LIKE * max(min(sc), floor):
        together = _together(t, sizes)
        if np.isfinite(together).all():
            return together
        # (an overflow: exponentiated apart, the blocks keep their exact zeros and signs)
    # split where the two parts' ranges of scale are narrowest
    best, h = None, 1
    for j in range(1, len(sizes)):
        lo, hi = sc[:j], sc[j:]
        w = max(np.log2(max(lo) / max(min(lo), floor)), np.log2(max(hi) / max(min(hi), floor)))
        if best is None or w < best:
            best, h = w, j
    m = sum(sizes[:h])
    t11, t12, t22 = t[:m, :m], t[:m, m:], t[m:, m:]
    f11, f22 = _triangular(t11, sizes[:h]), _triangular(t22, sizes[h:])
    f = np.zeros_like(t)
    f[:m, :m], f[m:, m:] = f11, f22
    if not t12.any():
        return f
    # Parlett's block recurrence: t11 X - X t22 = f11 t12 - t12 f22
    # (X is linear in t12: t12 scaled by a power of two to about 1 keeps the right-hand
    # side's products from overflowing where X does not)
    big = float(np.abs(t12).max())
    e = int(np.ceil(np.log2(big))) if big > 1 else 0
    t12 = _ldexp(t12, -e)
    with np.errstate(all='ignore'):
        rhs = _product(f11, t12) - _product(t12, f22)
        # (and the right-hand side to about 1, so that X is rounded once, at the end: a
        # tiny X does not underflow on the way)
        fin = np.abs(rhs)[np.isfinite(rhs)]
        top = float(fin.max()) if fin.size else 0.0
        r = -int(np.round(np.log2(top))) if top > 0 else 0
        rhs = _ldexp(rhs, r)
        try:
            x, close = _sylvester(t11, sizes[:h], t22, sizes[h:], rhs)
        except np.linalg.LinAlgError:  # (equal eigenvalues on both sides)
            return _together(t, sizes) if together is None else together
        if close:
            # (the recurrence divides by differences of the two parts' eigenvalues, some
            # close for their size: the exponential together, unless it overflowed or
            # failed, where the recurrence's cancellation is the smaller error)
            together = _together(t, sizes) if together is None else together
            if np.isfinite(together).all():
                return together
    f[:m, m:] = _ldexp(x, e - r)
    mu = float(t.real.diagonal().max())
    if mu > 700 and np.isnan(f[:m, m:]).any():
        # both parts overflowed (inf - inf): the coupling again from the matrix shifted by
        # its largest real diagonal entry, which exponentiates to at most about 1, times e^mu
        idx = np.arange(t.shape[-1])
        c = t.copy()
        c[idx, idx] -= np.asarray(mu, t.real.dtype)
        again = _times_exp(_triangular(c, sizes)[:m, m:], mu)
        f[:m, m:] = np.where(np.isnan(f[:m, m:]), again, f[:m, m:])
    return f


def _sylvester(t11, s1, t22, s2, c):
    """``X`` with ``t11 X - X t22 = c`` for block upper triangular ``t11`` and ``t22``
    (diagonal blocks of sizes ``s1``, ``s2``), by substitution over the blocks, each pair's
    small equation solved through its Kronecker form (so an infinite entry of ``c`` reaches
    only the entries that depend on it); and whether any two eigenvalues of a pair are close
    for their size. LinAlgError where two are equal."""
    e1, e2 = np.cumsum([0] + list(s1)), np.cumsum([0] + list(s2))
    x = np.zeros(c.shape, np.result_type(t11, t22, c))
    close = False
    for a in range(len(s1) - 1, -1, -1):
        ra = slice(e1[a], e1[a + 1])
        taa = t11[ra, ra]
        la = np.linalg.eigvals(taa)
        for b in range(len(s2)):
            cb = slice(e2[b], e2[b + 1])
            tbb = t22[cb, cb]
            lb = np.linalg.eigvals(tbb)
            gap = np.abs(la[:, None] - lb[None, :])
            if not (gap > 0).all():
                raise np.linalg.LinAlgError
            size = np.maximum(np.maximum(np.abs(la)[:, None], np.abs(lb)[None, :]), 1.0)
            close = close or not (gap > 1e-6 * size).all()
            r = c[ra, cb].copy()
            if e1[a + 1] < t11.shape[0]:
                r = r - _product(t11[ra, e1[a + 1]:], x[e1[a + 1]:, cb])
            if e2[b]:
                r = r + _product(x[ra, :e2[b]], t22[:e2[b], cb])
            na, nb = s1[a], s2[b]
            if na == 1 and nb == 1:
                x[ra, cb] = r / (taa - tbb)
                continue
            kron = np.kron(np.eye(nb, dtype=x.dtype), taa) - np.kron(tbb.T, np.eye(na, dtype=x.dtype))
            x[ra, cb] = np.linalg.solve(kron, r.reshape(-1, order='F')).reshape(na, nb, order='F')
    return x, close


def _expm_wide(a):
    """``exp`` of one finite square matrix whose entries span too many scales for scaling
    and squaring (see the module's docstring)."""
    perm, sizes = _components(a)
    t = a[perm][:, perm]
    with np.errstate(all='ignore'):
        f = _triangular(t, sizes)
    out = np.empty_like(f)
    out[np.ix_(perm, perm)] = f
    return out


def _expm(a, wide=True):
    """``exp`` of a (batch of) square arrays."""
    if a.size == 0:
        return a.copy()
    norm = np.abs(a).sum(-2).max(-1)
    finite = np.isfinite(norm)
    top = norm[finite].max() if finite.any() else 0.0
    wide_at = _PADE[13][0] * 2.0 ** _WIDE_S
    if wide and top > wide_at and a.shape[-1] > 1:
        hard = finite & (norm > wide_at)
        flat = a.reshape(-1, *a.shape[-2:])
        hard = hard.reshape(-1)
        out = np.empty_like(flat)
        if not hard.all():
            out[~hard] = _expm(flat[~hard], wide=False)
        for i in np.nonzero(hard)[0]:
            out[i] = _expm_wide(flat[i])
        return out.reshape(a.shape)
    s = np.zeros(norm.shape, np.int64)
    for m in (3, 5, 7, 9):
        if top <= _PADE[m][0]:
            break
    else:
        m = 13
        over = finite & (norm > _PADE[13][0])
        s[over] = np.ceil(np.log2(norm[over] / _PADE[13][0])).astype(np.int64)
        a = a / (2.0 ** s)[..., None, None].astype(a.real.dtype)
    u, v = _pade(a, m)
    with np.errstate(all='ignore'):
        try:
            r = np.linalg.solve(v - u, v + u)
        except np.linalg.LinAlgError:  # only reachable with inf/nan input
            r = np.full(a.shape, np.nan, a.dtype)
    for k in range(int(s.max()) if s.size else 0):
        more = s > k
        r[more] = r[more] @ r[more]
    return r


class LinalgMatrixExpBackward0(Node):
    """Gradient of ``matrix_exp``: the Fréchet derivative at ``A^H`` in the direction
    ``g``, read off the exponential of a block matrix."""

    def backward(self, g):
        A = self.saved_tensors[0]
        n = A.shape[-1]
        Ah = A.mH
        top = cat([Ah, g], -1)
        bottom = cat([Ah.new_zeros(Ah.shape), Ah], -1)
        return _matrix_exp(cat([top, bottom], -2))[..., :n, n:]


def _matrix_exp(A):
    _matrices(A, 'linalg.matrix_exp')
    a = A._data
    dt = a.dtype
    # (the half-precision types compute in single precision and round once: bfloat16 and
    # complex32 through opmath, float16 in float32; complex32 rounds back through cast)
    work = a.astype(np.float32) if dt == np.float16 else _dtype.opmath(a)
    n = track1(LinalgMatrixExpBackward0, A)
    if n is not None:
        n.save(A)
    return result(np.ascontiguousarray(_dtype.cast(np.asarray(_expm(work)), dt)), n)


@_linalg()
def matrix_exp(A):
    """The matrix exponential ``sum_k A^k / k!`` of a square matrix (or a batch)."""
    return _matrix_exp(A)


register(matrix_exp)
