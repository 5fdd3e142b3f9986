"""More losses and distances of ``nn.functional``: huber, soft / hinge / ranking / cosine /
triplet margin losses, Poisson and Gaussian NLL, the multi-class margin losses,
pairwise_distance and pdist.

Where torch's observable result is a composition (its last grad_fn is ``MeanBackward0``,
``ClampMinBackward0``...) these are compositions of ember ops; where torch shows a dedicated
node (``HuberLossBackward0``, ``MultiMarginLossBackward0``, ``PdistBackward0``) the forward
runs on arrays and a node of that name carries a backward written with ember ops.
"""
import math

import numpy as np

from .._ops import _core, creation as _creation, pointwise as _pw, reduce as _red
from .._ops._core import Node, make
from ..autograd.grad_mode import no_grad
from .functional import (_PairLoss, _pair_loss, _named, _reduction, _apply_reduction,
                         _warn_size, _broadcast, _not_differentiable, _log_sigmoid)


# -- pointwise losses --------------------------------------------------------------------
@_named('HuberLossBackward0')
class _HuberLossBackward0(_PairLoss):
    def deriv(self, x, t):
        return (x - t).clamp(-self.delta, self.delta)


def huber_loss(input, target, reduction='mean', delta=1.0, weight=None):
    """Squared error (halved) within ``delta``, ``delta``-scaled absolute error beyond."""
    _warn_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")

    def kernel(d):
        a = np.abs(d)
        return np.where(a <= delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    if weight is None:
        return _pair_loss(input, target, _reduction(None, None, reduction), _HuberLossBackward0,
                          kernel, 'huber', delta=delta)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = _pair_loss(input, target, 'none', _HuberLossBackward0, kernel, 'huber',
                      delta=delta) * weight
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                         "'mean', 'sum'.")
    return _apply_reduction(loss, reduction)


@_named('SoftMarginLossBackward0')
class _SoftMarginLossBackward0(Node):
    def backward(self, g):
        x, y = self.saved_tensors
        d = -y * (-y * x).sigmoid()
        if self.reduction == 'mean':
            d = d / self.numel
        return g * d, None


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """``log(1 + exp(-target * input))``: two-class logistic loss with ±1 targets."""
    reduction = _reduction(size_average, reduce, reduction)
    _not_differentiable(target, 'soft_margin_loss', 'target')
    x, y = _broadcast(input, target)
    xa, ya = _core.binary_arrays(x, y, 'soft_margin_loss')
    if xa.dtype.kind not in 'fcV':
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{_pw.dtype_name(input._data.dtype)}")
    with np.errstate(all='ignore'):
        loss = np.asarray(np.log1p(np.exp(-ya * xa)), xa.dtype)
    r = loss if reduction == 'none' else np.asarray(
        loss.sum() if reduction == 'sum' else (loss.mean() if loss.size else np.nan), xa.dtype)
    n = _core.track(_SoftMarginLossBackward0, (x, y))
    out = _core.result(r, n)
    if n is not None:
        n.save(x, y)
        n.reduction, n.numel = reduction, loss.size
    return out


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction='mean'):
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` (±1) says which input
    should rank higher."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    return _apply_reduction((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction='mean'):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = _creation.zeros_like(input)
    margin_clamp = (margin - input).clamp_min(0)
    out = (_pw.where(target != 1, margin_clamp, zeros)
           + _pw.where(target != -1, input, zeros))
    return _apply_reduction(out, reduction)


_COS_EPS = 1e-12  # keeps the squared magnitudes off zero, as torch's kernel does


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction='mean'):
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where -1."""
    reduction = _reduction(size_average, reduce, reduction)
    td = target.dim()
    if td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    dim = td
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + _COS_EPS
    mag2 = (input2 * input2).sum(dim) + _COS_EPS
    cos = prod / (mag1 * mag2).sqrt()
    zeros = _creation.zeros_like(cos)
    out = (_pw.where(target == 1, 1 - cos, zeros)
           + _pw.where(target == -1, (cos - margin).clamp_min(0), zeros))
    return _apply_reduction(out, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction='mean'):
    """Negative log likelihood of ``target`` under a Poisson of rate ``exp(input)`` (or
    ``input`` with ``log_input=False``); ``full`` adds Stirling's term for targets > 1."""
    reduction = _reduction(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean'):
    """Negative log likelihood of ``target`` under a Gaussian of mean ``input`` and variance
    ``var`` (a float, or a tensor of input's shape, one dim short, or with one dim of 1)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _creation.ones_like(input)
    elif (var < 0).any():
        raise ValueError("var has negative entry/entries")
    vs, xs = tuple(var.shape), tuple(input.shape)
    if vs != xs:
        if xs[:-1] == vs:
            var = var.unsqueeze(-1)
        elif not (len(xs) == len(vs) and sum(b for a, b in zip(xs, vs) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():  # the floor is not part of the derivative, as in torch
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


# -- distances and triplet losses --------------------------------------------------------
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm of ``x1 - x2 + eps`` over the last dim (the inputs broadcast)."""
    last = max(x1.dim(), x2.dim()) - 1
    return _red._vector_norm(x1 - x2 + eps, p, last, keepdim, node=_red.NormBackward1)


@_named('PdistBackward0')
class _PdistBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]
        i, j = self.rows
        d = x.index_select(0, i) - x.index_select(0, j)
        gd = _red.vector_norm_backward(d, g.unsqueeze(1).expand_as(d), self.p, (1,))
        return _creation.zeros_like(x).index_add(0, i, gd).index_add(0, j, -gd)


def pdist(input, p=2):
    """p-norm distances between all pairs of rows ``i < j`` of a 2-D input, as one vector."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if input._data.dtype.kind not in 'fV':
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    x = input._data
    i, j = np.triu_indices(x.shape[0], 1)
    r = _red._vector_norm(make(x[i] - x[j]), p, 1)._data
    n = _core.track1(_PdistBackward0, input)
    out = _core.result(r, n)
    if n is not None:
        n.save(input)
        n.p, n.rows = p, (make(i.astype(np.int64)), make(j.astype(np.int64)))
    return out


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not a == p == n:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {p}D, "
                           f"and negative {n}D inputs")


def _check_margin(margin):
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")


def _triplet(anchor, positive, negative, dist, margin, swap, reduction):
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _pw.minimum(d_neg, dist(positive, negative))
    return _apply_reduction((margin + d_pos - d_neg).clamp_min(0), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction='mean'):
    """``max(0, margin + d(a, p) - d(a, n))`` with the p-norm pairwise distance ``d``;
    ``swap`` uses ``d(p, n)`` when smaller."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_margin(margin)
    _check_triplet_dims(anchor, positive, negative)
    return _triplet(anchor, positive, negative,
                    lambda a, b: pairwise_distance(a, b, p, eps), margin, swap, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction='mean'):
    """The triplet margin loss with any ``distance_function`` (pairwise_distance if None)."""
    if reduction not in ('mean', 'sum', 'none'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_margin(margin)
    _check_triplet_dims(anchor, positive, negative)
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance,
                    margin, swap, reduction)


# -- multi-class margin losses -----------------------------------------------------------
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction='mean'):
    """Per-class logistic loss averaged over the classes (the last dim), then reduced."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * _log_sigmoid(input) + (1 - target) * _log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    if class_dim < 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    loss = loss.sum(class_dim) / input.size(class_dim)
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(reduction + " is not valid")
    return _apply_reduction(loss, reduction)


def _margin_frames(input):
    """(nframe, dim, rows as a 2-D array) of a multi-class margin loss input."""
    x = input._data
    nd = x.ndim
    if not (nd == 0 or (nd in (1, 2) and x.shape[-1] != 0)):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(x.shape)}")
    nframe = x.shape[0] if nd == 2 else 1
    dim = x.shape[-1] if nd else 1
    return nframe, dim, x.reshape(nframe, dim)


def _long_target(target):
    if target._data.dtype != np.int64:
        raise RuntimeError("expected scalar type Long but found "
                           f"{_pw.dtype_name(target._data.dtype)}")


def _reduce_rows(per_row, reduction, keep_rows, dtype):
    if reduction == 'none':
        r = per_row if keep_rows else per_row.reshape(())
    elif reduction == 'sum':
        r = per_row.sum()
    else:
        r = per_row.mean() if per_row.size else np.nan
    return np.asarray(r, dtype)


class _MarginCoefBackward(Node):
    """Gradient ``g * coef``: the loss is piecewise linear in the input, so its derivative
    is a constant table worked out in the forward."""

    def backward(self, g):
        if self.per_row:  # 'none': one gradient per row
            g = g.reshape(-1, 1)
        return (g * make(self.coef)).reshape(self.shape)


@_named('MultiMarginLossBackward0')
class _MultiMarginLossBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0].reshape(self.rows)
        t = self.target
        h = (self.margin - x.gather(1, t) + x) * make(self.active)
        coef = h * 2 if self.p == 2 else make(self.active)
        coef = coef * make(self.scale)
        if self.per_row:
            g = g.reshape(-1, 1)
        gx = g * (coef - _creation.zeros_like(coef).scatter(1, t, coef.sum(1, keepdim=True)))
        return gx.reshape(self.shape)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction='mean'):
    """Multi-class hinge loss: ``sum_j max(0, margin - x[y] + x[j])^p / C`` over the classes
    ``j != y`` (times ``weight[y]``)."""
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nframe, dim, x = _margin_frames(input)
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to "
                           "the number of input samples (batch size). Expected target size "
                           f"[{nframe}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                           f"{list(weight.shape)}")
    _long_target(target)
    t = target._data.reshape(nframe)
    if np.any((t < 0) | (t >= dim)):
        raise RuntimeError("target out of range")
    rows = np.arange(nframe)
    h = margin - x[rows, t][:, None] + x
    active = (h > 0)
    active[rows, t] = False
    scale = np.full((nframe, 1), 1.0 / dim, x.dtype)
    if weight is not None:
        scale = scale * weight._data[t][:, None]
    per_row = (np.where(active, h, 0) ** p * scale).sum(1)
    if reduction == 'mean' and nframe:
        scale = scale / nframe
    r = _reduce_rows(per_row, reduction, target.dim() > 0, x.dtype)
    n = _core.track1(_MultiMarginLossBackward0, input)
    out = _core.result(r, n)
    if n is not None:
        n.save(input)
        n.target, n.active, n.scale = make(t[:, None].astype(np.int64)), active, scale
        n.p, n.margin, n.rows, n.shape = p, margin, (nframe, dim), tuple(input.shape)
        n.per_row = reduction == 'none'
    return out


@_named('MultilabelMarginLossBackward0')
class _MultilabelMarginLossBackward0(_MarginCoefBackward):
    pass


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """Multi-label hinge loss: each row's target lists class indices (up to the first -1);
    ``sum max(0, 1 - (x[j] - x[i])) / C`` over listed ``j`` and unlisted ``i``."""
    reduction = _reduction(size_average, reduce, reduction)
    nframe, dim, x = _margin_frames(input)
    ok = (target.dim() <= 1 and target.numel() == dim) if input.dim() <= 1 else (
        target.dim() == 2 and tuple(target.shape) == (nframe, dim))
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    _long_target(target)
    t = target._data.reshape(nframe, dim)
    if np.any((t < -1) | (t >= dim)):
        raise RuntimeError("argument #2 'target' is out of range")
    # a row's targets are the indices before its first -1
    listed = np.cumsum(t == -1, axis=1) == 0
    # a class listed twice counts twice, as in torch
    times = np.zeros((nframe, dim), x.dtype)
    rr, cc = np.nonzero(listed)
    np.add.at(times, (rr, t[rr, cc]), 1)
    is_target = times > 0
    # h[n, j, i] = 1 - x[j] + x[i] for target j and non-target i
    h = 1 - x[:, :, None] + x[:, None, :]
    pair = np.where(~is_target[:, None, :] & (h > 0), times[:, :, None], 0)
    per_row = (pair * h).sum((1, 2)) / dim
    r = _reduce_rows(per_row, reduction, input.dim() == 2, x.dtype)
    n = _core.track1(_MultilabelMarginLossBackward0, input)
    out = _core.result(r, n)
    if n is not None:
        coef = (pair.sum(1) - pair.sum(2)).astype(x.dtype) / dim
        if reduction == 'mean' and nframe:
            coef /= nframe
        n.coef, n.shape, n.per_row = coef, tuple(input.shape), reduction == 'none'
    return out
