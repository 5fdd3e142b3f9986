"""``linalg.matrix_exp`` (also ``torch.matrix_exp`` and ``Tensor.matrix_exp``).

The kernel is scaling and squaring with a diagonal Padé approximant (Higham, "The scaling
and squaring method for the matrix exponential revisited", 2005): the smallest degree among
3, 5, 7, 9 whose error bound covers the batch's largest 1-norm, else degree 13 on ``A / 2^s``
followed by ``s`` squarings, ``s`` chosen per matrix. The derivative is the Fréchet
derivative, which is itself a matrix exponential: ``gA`` is the upper-right block of
``exp([[A^H, g], [0, A^H]])`` -- computed with this op, so every order follows.
"""
import numpy as np

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


def _expm(a):
    """``exp`` of a (batch of) square arrays."""
    if a.size == 0:
        return a.copy()
    norm = np.abs(a).sum(-2).max(-1)
    finite = np.isfinite(norm)
    top = norm[finite].max() if finite.any() else 0.0
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
    work = a.astype(np.float32) if dt.kind == 'V' or dt == np.float16 else a
    n = track1(LinalgMatrixExpBackward0, A)
    if n is not None:
        n.save(A)
    return result(np.ascontiguousarray(_expm(work), dtype=dt), n)


@_linalg()
def matrix_exp(A):
    """The matrix exponential ``sum_k A^k / k!`` of a square matrix (or a batch)."""
    return _matrix_exp(A)


register(matrix_exp)
