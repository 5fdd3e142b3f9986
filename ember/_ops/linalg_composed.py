"""The linear-algebra functions torch composes from other ops: matrix powers, chains of
products, vecdot, cross, the vector/matrix norms, cond, tensorinv/tensorsolve, vander.

Composing them from ember ops (rather than writing a kernel and a backward) gives them
torch's grad_fn names and derivatives of any order for free. They join the ``ember.linalg``
namespace (``factorizations.LINALG``) through ``_linalg``.
"""
import numpy as np

from ._core import Node, register, track, result
from . import linalg as _products
from .complex import conj_if_complex as cj
from .reduce import _vector_norm
from .factorizations import LINALG, _linalg, _floating, _inv, _eye_like, svdvals
from ..overrides import overridable

# -- matrix_power / multi_dot / vecdot / cross / matmul ------------------------------------
def _matrix_power(A, n):
    _products._check_tensor(A, 'linalg.matrix_power', 'A', 1)
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {a.shape[-2]} by {a.shape[-1]} matrices")
    if n == 0:
        # torch copies the identity into a clone of A, hence CopyBackwards
        r = A.clone()
        r.copy_(_eye_like(A))
        return r
    if n < 0:
        A, n = _inv(A, 'linalg.inv'), -n
        if n == 1:
            return A
    if n == 1:
        return A.clone()
    # binary exponentiation, multiplying in torch's order
    z = r = None
    while n:
        bit, n = n % 2, n // 2
        z = A if z is None else _products.matmul(z, z)
        if bit:
            r = z if r is None else _products.matmul(r, z)
    return r


@_linalg()
def matrix_power(A, n, *, out=None):
    """``A`` to the integer power ``n`` (a negative power inverts first)."""
    return _products._out(_matrix_power(A, n), out)


register(matrix_power)


@_linalg()
def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices; the first and last may be vectors."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first, last = ts[0].dim(), ts[-1].dim()
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i, t in enumerate(ts[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i, t in enumerate(ts[1:], 1):
        if t.dtype != ts[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {ts[0].dtype.kernel_name} and tensor {i} is "
                               f"{t.dtype.kernel_name}")
    shape = ([ts[0].shape[0]] if first == 2 else []) + ([ts[-1].shape[1]] if last == 2 else [])
    if first == 1:
        ts[0] = ts[0].unsqueeze(0)
    if last == 1:
        ts[-1] = ts[-1].unsqueeze(1)
    r = ts[0]
    for t in ts[1:]:
        r = _products.mm(r, t)
    return _products._out(r.view(shape), out)


@_linalg()
def vecdot(x, y, *, dim=-1, out=None):
    """``sum(conj(x) * y, dim)``, broadcasting."""
    _floating(x, 'linalg.vecdot')
    return _products._out((cj(x) * y).sum(dim), out)


class LinalgCrossBackward0(Node):
    """Gradient of ``cross``: ``cross(b, g)`` and ``cross(g, a)``."""

    def backward(self, g):
        a, b = self.saved_tensors
        return (cross(b, g, dim=self.dim) if _products._needs(self, 0) else None,
                cross(g, a, dim=self.dim) if _products._needs(self, 1) else None)


@_linalg()
def cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along ``dim`` (the operands broadcast)."""
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.kernel_name} but found "
                           f"{other.dtype.kernel_name}")
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if a.shape[dim] != 3 or b.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[dim]} and {b.shape[dim]}")
    n = track(LinalgCrossBackward0, (input, other))
    if n is not None:
        n.save(input, other)
        n.dim = dim
    return _products._out(result(np.asarray(np.cross(a, b, axis=dim), a.dtype), n), out)


LINALG['matmul'] = overridable(_products.matmul, 'ember.linalg.matmul')


# -- norms ---------------------------------------------------------------------------------
@_linalg()
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector ``ord``-norm over ``dim`` (every element by default)."""
    return _products._out(_vector_norm(x, ord, dim, keepdim, dtype=dtype), out)


@_linalg()
def matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims ``dim``: 'fro', 'nuc', +-inf (max/min row sum),
    +-1 (column sum), +-2 (largest/smallest singular value)."""
    _products._check_tensor(A, 'linalg.matrix_norm', 'A', 1)
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    _floating(A, 'linalg.matrix_norm')
    if dtype is not None:
        A = A.to(dtype)
    nd = A._data.ndim
    d0, d1 = (d % nd for d in dim)
    if ord == 'fro':
        return _products._out(_vector_norm(A, 2, (d0, d1), keepdim), out)
    if ord in ('nuc', 2, -2):
        S = svdvals(A.movedim((d0, d1), (-2, -1)))
        r = S.sum(-1) if ord == 'nuc' else S.amax(-1) if ord == 2 else S.amin(-1)
        if keepdim:
            r = r.unsqueeze(-1).unsqueeze(-1).movedim((-2, -1), (d0, d1))
        return _products._out(r, out)
    if ord in (1, -1, float('inf'), float('-inf')):
        summed, other = (d0, d1) if ord in (1, -1) else (d1, d0)
        red = 'amax' if ord > 0 else 'amin'
        s = A.abs().sum(summed, keepdim=keepdim)
        if not keepdim and other > summed:
            other -= 1
        return _products._out(getattr(s, red)(other, keepdim=keepdim), out)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


@_linalg()
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm: a matrix norm when ``dim`` is a pair (or ``A`` is 2-D and
    ``ord`` given without ``dim``), a vector norm otherwise."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 2:
            return matrix_norm(A, 'fro' if ord is None else ord, dims, keepdim, dtype=dtype,
                               out=out)
        return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                           f"be 1D or 2D. Got {A.dim()}D.")
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
