"""The linear-algebra functions torch composes from other ops: matrix powers, chains of
products, vecdot, cross, the vector/matrix norms, cond, tensorinv/tensorsolve, vander.

Composing them from ember ops (rather than writing a kernel and a backward) gives them
torch's grad_fn names and derivatives of any order for free. They join the ``ember.linalg``
namespace (``factorizations.LINALG``) through ``_linalg``.
"""
import math

import numpy as np

from ._core import register, track, result, make
from . import linalg as _products
from .complex import conj_if_complex as cj
from .reduce import _vector_norm
from .factorizations import LINALG, _linalg, _floating, _inv, _solve, _eye_like, svdvals
from ..overrides import overridable
from .arrange import LinalgCrossBackward0  # (torch.cross's node: one formula for both)

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
    if n == 3:  # (torch's shortcut: (A @ A) @ A, where its loop would give A @ (A @ A))
        return _products.matmul(_products.matmul(A, A), A)
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
                               f"tensor 0 is {ts[0].dtype.cpp_name} and tensor {i} "
                               f"{t.dtype.cpp_name}")
    for i in range(len(ts) - 1):  # (the shapes as given: a vector's as [n])
        if ts[i].shape[-1] != ts[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(ts[i].shape)} and {list(ts[i + 1].shape)} cannot be "
                               "multiplied")
    shape = ([ts[0].shape[0]] if first == 2 else []) + ([ts[-1].shape[1]] if last == 2 else [])
    if first == 1:
        ts[0] = ts[0].unsqueeze(0)
    if last == 1:
        ts[-1] = ts[-1].unsqueeze(1)
    return _products._out(_chain_product(ts).view(shape), out)


def _chain_product(ts):
    """The product of the matrices ``ts`` in torch's order: the cheaper of the two for
    three (the left pair first on a tie), else the order of least multiplications (the
    classic dynamic programme, the first best split winning)."""
    mm = _products.mm
    if len(ts) == 2:
        return mm(ts[0], ts[1])
    if len(ts) == 3:
        a, b, c, d = ts[0].shape[0], ts[1].shape[0], ts[2].shape[0], ts[2].shape[1]
        if a * c * (b + d) > b * d * (a + c):
            return mm(ts[0], mm(ts[1], ts[2]))
        return mm(mm(ts[0], ts[1]), ts[2])
    n = len(ts)
    p = [t.shape[0] for t in ts] + [ts[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k

    def product(i, j):
        if i == j:
            return ts[i]
        k = split[i][j]
        return mm(product(i, k), product(k + 1, j))
    return product(0, n - 1)


multi_dot._refuses_dtypes = True  # (its mm refuses dtypes where torch's kernel runs)


@_linalg()
def vecdot(x, y, *, dim=-1, out=None):
    """``sum(conj(x) * y, dim)``, broadcasting."""
    _floating(x, 'linalg.vecdot')
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {x.dtype.kernel_name} and y of type "
                           f"{y.dtype.kernel_name} instead")
    if x.dim() == 1 and y.dim() == 1:  # (torch's vdot: it does not broadcast)
        return _products._out(_products._dot(x, y, 'vdot', _products.VdotBackward0), out)
    return _products._out((cj(x) * y).sum(dim), out)


@_linalg()
def cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along ``dim`` (the operands broadcast)."""
    from .arrange import cross_checks
    cross_checks(input, other, dim)
    a, b = input._data, other._data
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


def _largest(s, dim, keepdim=False):
    """The largest of the (non-negative) values ``s`` along ``dim``: 0 where there are none
    (torch's matrix norms, where ``amax`` would refuse: a constant, as in torch)."""
    if s.shape[dim] == 0:
        return s.detach().sum(dim, keepdim=keepdim)
    return s.amax(dim, keepdim=keepdim)


@_linalg()
def matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims ``dim``: 'fro', 'nuc', +-inf (max/min row sum),
    +-1 (column sum), +-2 (largest/smallest singular value)."""
    _products._check_tensor(A, 'linalg.matrix_norm', 'A', 1)
    # (torch's order: the order, A's dims and dtype, dim, then dtype=)
    if ord not in ('fro', 'nuc') and (isinstance(ord, str) or abs(ord) not in (1, 2, math.inf)):
        shown = ord if isinstance(ord, str) else f'{float(ord):g}'  # (C++'s double)
        raise RuntimeError(f"linalg.matrix_norm: Order {shown} not supported.")
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    _floating(A, 'linalg.matrix_norm')
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + ' '.join(str(d) for d in dim))
    if dtype is not None:
        from .reduce import check_norm_dtype
        check_norm_dtype(A, dtype, 'linalg.matrix_norm')
        A = A.to(dtype)
    nd = A._data.ndim
    d0, d1 = (d % nd for d in dim)
    if ord == 'fro':
        return _products._out(_vector_norm(A, 2, (d0, d1), keepdim), out)
    if ord in ('nuc', 2, -2):
        if A.dtype.name in ('float16', 'bfloat16', 'complex32'):  # (no svd of those)
            raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got "
                               f"{A.dtype.kernel_name}")
        S = svdvals(A.movedim((d0, d1), (-2, -1)))
        r = S.sum(-1) if ord == 'nuc' else _largest(S, -1) if ord == 2 else S.amin(-1)
        if keepdim:
            r = r.unsqueeze(-1).unsqueeze(-1).movedim((-2, -1), (d0, d1))
        return _products._out(r, out)
    if ord in (1, -1, float('inf'), float('-inf')):
        summed, other = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = A.abs().sum(summed, keepdim=keepdim)
        if not keepdim and other > summed:
            other -= 1
        r = _largest(s, other, keepdim) if ord > 0 else s.amin(other, keepdim=keepdim)
        return _products._out(r, out)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


@_linalg()
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm: a matrix norm when ``dim`` is a pair (or ``A`` is 2-D and
    ``ord`` given without ``dim``), a vector norm otherwise."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got {list(dims)}")
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


@register(method=False)
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """The nuclear norm (sum of singular values) over the two dims ``dim`` (the last two
    by default); ``nuclear_norm(input, keepdim)`` is accepted as torch's overload."""
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return matrix_norm(input, 'nuc', (-2, -1) if dim is None else dim, keepdim, out=out)


@register(method=False)
def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """The Frobenius norm (the 2-norm of the entries) over at most two dims."""
    from .reduce import NormBackward1
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           "instead.")
    if input._data.dtype.kind not in 'fcV':
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {input.dtype.kernel_name} instead.")
    return _products._out(_vector_norm(input, 2, dims, keepdim, node=NormBackward1), out)


@register(method=False)
def chain_matmul(*matrices, out=None):
    """The product of a chain of 2-D matrices (``linalg.multi_dot`` of them)."""
    from ._args import tensor_varargs
    tensor_varargs(matrices)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return _products._out(matrices[0].clone(), out)
    return multi_dot(matrices, out=out)


_INF = float('inf')


@_linalg()
def cond(A, p=None, *, out=None):
    """Condition number of ``A`` in the matrix norm ``p``: ``s_max / s_min`` for ``None``
    and 2 (``s_min / s_max`` for -2; any shape), else ``norm(A) * norm(A^{-1})`` for square
    ``A`` ('fro', 'nuc', +-1, +-inf), infinite where ``A`` is singular."""
    _products._check_tensor(A, 'linalg.cond', 'A', 1)
    if A._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if A._data.size == 0 and (p in (None, 2, -2) or A._data.shape[-1] == A._data.shape[-2]):
        return _products._out(make(np.zeros(A._data.shape[:-2], A._data.real.dtype)), out)
    if p is None or p in (2, -2):
        S = svdvals(A)
        big, small = S[..., :1], S[..., -1:]
        r = small / big if p == -2 else big / small
        return _products._out(r.squeeze(-1), out)
    if p not in ('fro', 'nuc', 1, -1, _INF, -_INF):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    m, n = A._data.shape[-2:]
    if m != n:
        name = p if isinstance(p, str) else int(p) if abs(p) == 1 else p
        raise RuntimeError(f"linalg.cond(ord={name}): A must be batches of square matrices, "
                           f"but they are {m} by {n} matrices")
    if p == 'nuc':  # both norms from one SVD: the inverse's singular values are 1/S
        S = svdvals(A)
        return _products._out(S.sum(-1) * S.reciprocal().sum(-1), out)
    from .lu import inv_ex
    Ai, info = inv_ex(A)
    Ai = Ai.masked_fill(info.gt(0).unsqueeze(-1).unsqueeze(-1), _INF)
    r = matrix_norm(A, p) * matrix_norm(Ai, p)
    return _products._out(r.nan_to_num(_INF, _INF), out)


@_linalg()
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal (a view) of each matrix of ``A``, over its last two dims by default."""
    return A.diagonal(offset, dim1, dim2)


@_linalg()
def vander(x, *, N=None):
    """The Vandermonde matrix ``[1, x, x^2, ..., x^(N-1)]`` along a new last dim (``N``
    defaults to ``x``'s last dim)."""
    if x.dtype.name in ('bool', 'float16', 'bfloat16', 'complex32'):
        # (the low-precision floats: torch's cumprod-free check, before the dims)
        raise RuntimeError("linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {x.dtype.kernel_name}")
    if N is None:
        N = x._data.shape[-1] if x._data.ndim else 1
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x._data.dtype.kind == 'u' and x._data.dtype.itemsize > 1:
        # (torch's powers of an integer x are int64's: uint16-uint64 are converted)
        x = x.long()
    from .shape import cat
    if not x._data.ndim:  # (torch takes a 0-d x as one point: a [1, N] matrix)
        x = x.reshape(1)
    powers = x.unsqueeze(-1).expand(*x.shape, N - 1).cumprod(-1)
    return cat([x.new_ones(tuple(x.shape) + (1,)), powers], -1)


def _prod(shape):
    return int(np.prod(shape, dtype=np.int64))


@_linalg()
def tensorinv(A, ind=2, *, out=None):
    """The inverse of ``A`` for ``tensordot`` over ``ind`` dims: ``A`` is taken as a
    ``prod(shape[:ind]) x prod(shape[ind:])`` matrix; the result has shape
    ``shape[ind:] + shape[:ind]``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A.dim():  # (torch slices the shape at ind first: its ArrayRef error)
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {A.dim()}")
    shape = tuple(A.shape)
    rows, cols = _prod(shape[:ind]), _prod(shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    _floating(A, 'linalg.inv')  # (the inverse's check, after the shapes)
    return _products._out(_inv(A.reshape(rows, cols), 'inv').reshape(shape[ind:] + shape[:ind]),
                          out)


@_linalg()
def tensorsolve(A, B, dims=None, *, out=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B``; ``dims`` of ``A`` are moved to the end
    first."""
    if dims is not None:  # (as torch: a movedim, with its checks; a 0-d A has dim 0/-1)
        nd = A.dim()
        A = A.movedim(list(dims), list(range(nd - len(dims), nd)))
    shape = tuple(A.shape)
    k = B.dim()
    if k > len(shape):  # (torch fails here too, in its own shape arithmetic, in C++'s words)
        raise RuntimeError("cannot create std::vector larger than max_size()")
    rows, cols = B.numel(), _prod(shape[k:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    X = _solve(A.reshape(rows, cols), B.reshape(rows), 'linalg.solve')
    return _products._out(X.view(shape[k:]), out)
