"""The distances of nn.functional: pairwise_distance, pdist and cosine_similarity. pdist shows
torch's dedicated ``PdistBackward0`` node (its backward on arrays, with no derivative of its
own, as torch's ``_pdist_backward``); the others are compositions of ember ops, as in torch."""
import numpy as np

from ..._ops import _args, _core, reduce as _red
from ..._ops._core import Node, make
from ..._ops.stats import _NotDifferentiable
from ...autograd.graph import name_saved_values
from ..._ops.shape import broadcast_tensors
from ..._dtype import promote_types
from ...autograd.grad_mode import no_grad
from ._activation import _named


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm of ``x1 - x2 + eps`` over the last dim (the inputs broadcast)."""
    last = max(x1.dim(), x2.dim()) - 1
    return _red._vector_norm(x1 - x2 + eps, p, last, keepdim, node=_red.NormBackward1)


@_named('PdistBackward0')
class _PdistBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]
        i, j = (t._data for t in self.rows)
        gx = np.zeros_like(x._data)
        if len(i) and x.shape[1]:
            gd = _pdist_pair_grads(x._data[i] - x._data[j], self.dist, self.p) * \
                g._data[:, None]
            np.add.at(gx, i, gd)
            np.add.at(gx, j, -gd)
        # (torch's _pdist_backward has no derivative: a graph of it ends in that error)
        return _core.result(gx, _core.track(PdistBackwardBackward0, (g, x)))


class PdistBackwardBackward0(_NotDifferentiable):
    """grad_fn of pdist's gradient (torch has no derivative for it)."""
    aten = '_pdist_backward'


def _pdist_pair_grads(d, dist, p):
    """The derivative of each pair's distance ``dist`` with respect to its difference ``d``
    (one row per pair), 0 where the distance is 0 (and, for p < 1, where a difference is),
    as torch's kernel."""
    dist = dist[:, None]
    with np.errstate(divide='ignore', invalid='ignore'):
        if p == 0:
            out = np.zeros_like(d)
        elif p == 1:
            out = np.sign(d)
        elif p == np.inf:
            out = np.sign(d) * (np.abs(d) == dist)
        elif p == 2:
            out = d / dist
        else:
            out = np.sign(d) * np.abs(d) ** (p - 1) / dist ** (p - 1)
            if p < 1:
                out = np.where(d == 0, 0, out)
    return np.where(dist == 0, 0, out).astype(d.dtype, copy=False)


def _row_norms(a, p):
    """The p-norms of the rows of ``a`` (magnitudes), as torch's pdist kernel computes them:
    in ``a``'s dtype, a row of one element too (1e30 squared overflows float32 to inf,
    where ``linalg.vector_norm`` returns one element's magnitude)."""
    if p == 0:
        return (a != 0).sum(1).astype(a.dtype)
    if p == 1:
        return a.sum(1)
    if p == 2:
        return np.sqrt((a * a).sum(1))
    if p == float('inf'):
        return a.max(1)
    return (a ** a.dtype.type(p)).sum(1) ** a.dtype.type(1 / p)


def pdist(input, p=2):
    """p-norm distances between all pairs of rows ``i < j`` of a 2-D input, as one vector."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:  # (complex32's arrays are of kind 'V' too)
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    x = input._data
    i, j = np.triu_indices(x.shape[0], 1)
    if len(i) and x.shape[1]:
        # (the kernel's dtype refusals: only where it runs, for a pair of non-empty rows)
        _args.refuse_dtypes('pdist', _args.refusals('pdist') or {}, (input,), None)
        r = _row_norms(np.abs(x[i] - x[j]), p)
    else:  # (no pairs, or rows of no elements: distance 0 for every p, as in torch)
        r = np.zeros(len(i), x.dtype)
    n = _core.track1(_PdistBackward0, input)
    out = _core.result(r, n)
    if n is not None:
        n.save(input)
        n.p, n.dist = p, r
        n.rows = (make(i.astype(np.int64)), make(j.astype(np.int64)))
    return out


pdist._refuses_dtypes = True  # (see overrides.overridable)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (they broadcast); each
    is divided by its norm (at least ``eps``) before the dot product, for stability."""
    dt = promote_types(x1.dtype, x2.dtype)
    if not dt.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{dt.kernel_name}")
    # Each operand is normalised in its own floating dtype (an integer one in the common
    # dtype), as torch does, then the product promotes. Broadcast first: a size-1 dim
    # stretched along ``dim`` must count in the norm.
    x1, x2 = broadcast_tensors(*(x if x.dtype.is_floating_point else x.to(dt)
                                 for x in (x1, x2)))
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():  # the floor is not part of the derivative, as in torch
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``; torch's p is a
# double).
name_saved_values(_PdistBackward0, ('self',), attrs={'p': lambda n: float(n.p)})
