"""nn.functional: the stateless versions of layers (growing with ember.nn). Every function
goes through __torch_function__, as the ember namespace does.

Activations and losses are composed from ember ops where torch's observable grad_fn is that
of a composition (``l1_loss`` ends in ``MeanBackward0``, ``kl_div`` in ``SubBackward0``...).
Where torch shows a dedicated node (``_EluBackward0``, ``_MseLossBackward0``,
``_NllLossBackward0``...) the forward runs on arrays and a Node of that name carries a backward
written with ember ops, so double backward still comes for free.
"""
import warnings as _warnings

import numpy as _np

from .._ops import _core, linalg as _la, pointwise as _pw, reduce as _red, shape as _shape
from .._ops._core import Node as _Node, make as _make
from ..autograd.grad_mode import STATE as _STATE
from ..overrides import overridable as _overridable
from . import _layer_functional as _layers
from . import _misc_functional as _misc
from . import _norm_functional as _norm
from . import _conv_functional as _conv
from . import _attention_functional as _attn
from . import _pool_functional as _pool
from . import _interpolate_functional as _interp
from . import _shape_functional as _rearrange
from . import _activation_functional as _act
from ._activation_functional import _named, _log_sigmoid_array

__all__ = ['linear', 'relu', 'leaky_relu', 'elu', 'gelu', 'silu', 'sigmoid', 'tanh',
           'softmax', 'log_softmax', 'softplus', 'hardtanh', 'relu6', 'selu', 'celu', 'mish',
           'hardswish', 'hardsigmoid', 'logsigmoid', 'softsign', 'softmin', 'tanhshrink',
           'softshrink', 'hardshrink', 'threshold', 'glu', 'prelu', 'rrelu', 'relu_', 'elu_',
           'leaky_relu_', 'hardtanh_', 'selu_', 'celu_', 'threshold_', 'rrelu_', 'mse_loss',
           'l1_loss', 'smooth_l1_loss', 'cross_entropy', 'nll_loss', 'binary_cross_entropy',
           'binary_cross_entropy_with_logits', 'kl_div', 'dropout', 'layer_norm',
           'embedding', 'pad', 'one_hot', 'normalize', 'cosine_similarity',
           'batch_norm', 'group_norm', 'conv1d', 'conv2d', 'conv_transpose2d',
           'scaled_dot_product_attention', 'multi_head_attention_forward', 'max_pool1d',
           'max_pool2d', 'avg_pool1d', 'avg_pool2d', 'adaptive_avg_pool2d', 'bilinear',
           'interpolate']
__all__ += ['huber_loss',
            'soft_margin_loss',
            'margin_ranking_loss',
            'hinge_embedding_loss',
            'cosine_embedding_loss',
            'poisson_nll_loss',
            'gaussian_nll_loss',
            'pairwise_distance',
            'pdist',
            'triplet_margin_loss',
            'triplet_margin_with_distance_loss',
            'multilabel_soft_margin_loss',
            'multi_margin_loss',
            'multilabel_margin_loss']
__all__ += ['adaptive_max_pool1d', 'adaptive_max_pool2d', 'adaptive_max_pool1d_with_indices',
            'adaptive_max_pool2d_with_indices', 'adaptive_avg_pool1d', 'max_pool1d_with_indices',
            'max_pool2d_with_indices', 'max_unpool1d', 'max_unpool2d', 'lp_pool1d', 'lp_pool2d',
            'pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle',
            'unfold', 'fold', 'dropout1d', 'dropout2d', 'dropout3d', 'alpha_dropout',
            'conv_transpose1d']


def _linear(input, weight, bias=None):
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if (input.dim() >= 2 or (input.dim() == 1 and bias is not None)) and weight.dim() == 2:
        # As torch: one 2-D GEMM (addmm with a bias, AddmmBackward0) over all leading dims
        # at once, viewed back -- NumPy's stacked matmul would run one small GEMM per slice.
        flat = input if input.dim() == 2 else input.reshape(-1, input.shape[-1])
        out = _la.addmm(bias, flat, weight.t()) if bias is not None else flat.mm(weight.t())
        return out if input.dim() == 2 else out.view(*input.shape[:-1], weight.shape[0])
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


# -- helpers -----------------------------------------------------------------------------
def _not_differentiable(t, fn, arg):
    """torch's refusal of a ``requires_grad`` argument it has no derivative for."""
    if t is not None and t._requires_grad and _STATE.enabled:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument "
                           f"'{arg}'. This input cannot have requires_grad True.")


# -- losses ------------------------------------------------------------------------------
def _legacy_reduction(size_average, reduce):
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    ret = 'mean' if size_average and reduce else ('sum' if reduce else 'none')
    _warnings.warn(f"size_average and reduce args will be deprecated, please use "
                   f"reduction='{ret}' instead.", stacklevel=4)
    return ret


def _reduction(size_average, reduce, reduction):
    """The reduction string, from the legacy flags if given; torch's ValueError if unknown."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction == 'elementwise_mean':
        _warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                       "reduction='mean' instead.", stacklevel=4)
        return 'mean'
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _apply_reduction(t, reduction):
    if reduction == 'mean':
        return t.mean()
    if reduction == 'sum':
        return t.sum()
    return t


def _reduce_array(a, reduction):
    if reduction == 'mean':
        return _np.asarray(_np.mean(a) if a.size else _np.nan, a.dtype)
    if reduction == 'sum':
        return _np.asarray(_np.sum(a), a.dtype)
    return a


def _warn_size(input, target):
    if target.shape != input.shape:
        _warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                       f"size ({input.size()}). This will likely lead to incorrect results due "
                       "to broadcasting. Please ensure they have the same size.", stacklevel=4)


def _broadcast(input, target):
    if input.shape == target.shape:
        return input, target
    return tuple(_shape.broadcast_tensors(input, target))


class _PairLoss(_Node):
    """Base of the (input, target) loss nodes: ``backward`` scales the pointwise derivative
    ``self.deriv(x, t)`` by the output gradient (and 1/numel for 'mean')."""

    def backward(self, g):
        x, t = self.saved_tensors
        d = self.deriv(x, t)
        if self.reduction == 'mean':
            d = d / x.numel()
        gi = g * d
        return gi, -gi


@_named('MseLossBackward0')
class _MseLossBackward0(_PairLoss):
    @staticmethod
    def deriv(x, t):
        return (x - t) * 2


@_named('SmoothL1LossBackward0')
class _SmoothL1LossBackward0(_PairLoss):
    def deriv(self, x, t):
        d = x - t
        inside = _make(_np.abs(d._data) < self.beta)
        return _pw.where(inside, d / self.beta, d.sign())


def _pair_loss(input, target, reduction, cls, kernel, name, **attrs):
    x, t = _broadcast(input, target)
    xa, ta = _core.binary_arrays(x, t, name)
    if xa.dtype.kind not in 'fcV':
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{_pw.dtype_name(xa.dtype)}'")
    r = _reduce_array(_np.asarray(kernel(xa - ta), xa.dtype), reduction)
    n = _core.track(cls, (x, t))
    out = _core.result(r, n)
    if n is not None:
        n.save(x, t)
        n.reduction = reduction
        for k, v in attrs.items():
            setattr(n, k, v)
    return out


def _weighted(errors, weight, input, reduction):
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    w = errors * weight
    if reduction == 'none':
        return w
    if reduction == 'sum':
        return w.sum()
    return w.sum() / weight.sum()


def _mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        x, t = _broadcast(input, target)
        return _weighted((x - t).pow(2), weight, input, reduction)
    return _pair_loss(input, target, reduction, _MseLossBackward0, lambda d: d * d, 'mse')


def _l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    x, t = _broadcast(input, target)
    if weight is not None:
        return _weighted((x - t).abs(), weight, input, reduction)
    return _apply_reduction((x - t).abs(), reduction)


def _smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        x, t = _broadcast(input, target)
        return _apply_reduction((x - t).abs(), reduction)

    def kernel(d):
        a = _np.abs(d)
        return _np.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)
    return _pair_loss(input, target, reduction, _SmoothL1LossBackward0, kernel,
                      'smooth_l1', beta=beta)


# -- nll / cross entropy -----------------------------------------------------------------
@_named('NllLossBackward0')
class _NllLossBackward0(_Node):
    """Gradient of nll_loss: the output gradient placed at each target class, times
    ``-weight[target] / total_weight`` (a constant computed in the forward)."""

    def backward(self, g):
        if self.expand_dim is not None:  # 'none': one gradient per target
            g = g.unsqueeze(self.expand_dim)
        return g * _make(self.coef)


@_named('NllLoss2DBackward0')
class _NllLoss2DBackward0(_NllLossBackward0):
    pass


def _nll_check_target(target):
    if target._data.dtype not in (_np.int64, _np.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{_pw.dtype_name(target._data.dtype)}")


def _nll_core(input, target, weight, reduction, ignore_index, cls):
    """nll_loss on an input of shape (C,), (N, C) or (N, C, d1, ...) with a matching target."""
    _nll_check_target(target)
    _not_differentiable(weight, 'nll_loss_forward' if cls is _NllLossBackward0
                        else 'nll_loss2d_forward', 'weight')
    x = input._data
    t = target._data.astype(_np.int64)
    nd = x.ndim
    C = x.shape[0] if nd == 1 else x.shape[1]
    if weight is not None and weight.numel() != C:
        raise RuntimeError(f"weight tensor should be defined either for all {C} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    if nd == 1:
        xx = x.reshape(1, C)
        tt = t.reshape(1)
    else:
        xx, tt = x, t
    ignored = tt == ignore_index
    bad = ~ignored & ((tt < 0) | (tt >= C))
    if bad.any():
        raise IndexError(f"Target {tt[bad].flat[0]} is out of bounds.")
    safe = _np.where(ignored, 0, tt) if ignored.any() else tt
    w = None if weight is None else weight._data.astype(x.dtype, copy=False)
    if w is None:
        wt = (~ignored).astype(x.dtype)
    else:
        wt = _np.where(ignored, 0, w[safe]).astype(x.dtype, copy=False)
    if xx.ndim == 2:
        rows = _np.arange(xx.shape[0])
        picked = xx[rows, safe]
    else:
        picked = _np.take_along_axis(xx, safe[:, None], axis=1)[:, 0]
    losses = -picked * wt
    scale = None
    if reduction == 'none':
        r = losses.reshape(t.shape if nd > 1 else ())  # (C,) input: a 0-d loss
    elif reduction == 'sum':
        r = losses.sum()
    else:
        total = wt.sum()
        r = losses.sum() / total
        scale = total if total != 0 else None  # all ignored: a zero gradient, not nan
    n = _core.track1(cls, input)
    out = _core.result(_np.asarray(r, x.dtype), n)
    if n is not None:
        coef = _np.zeros_like(xx)
        if xx.ndim == 2:
            coef[rows, safe] = -wt
        else:
            _np.put_along_axis(coef, safe[:, None], -wt[:, None], axis=1)
        if scale is not None:
            coef /= scale
        n.coef = coef.reshape(x.shape)
        # 'none': one gradient per target, spread along the class dim
        n.expand_dim = 1 if reduction == 'none' and nd > 1 else None
    return out


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    nd = input.dim()
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if nd <= 2:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd == 1 and target.numel() != 1 and target.dim() == 1:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)}, target: "
                               f"{list(target.shape)})")
        return _nll_core(input, target, weight, reduction, ignore_index, _NllLossBackward0)
    out_size = [input.shape[0]] + list(input.shape[2:])
    if list(target.shape[1:]) != list(input.shape[2:]):
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")
    out = _nll_core(input, target, weight, reduction, ignore_index, _NllLoss2DBackward0)
    if reduction == 'none' and nd != 4:
        out = out.view(out_size)
    return out


def _nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
              reduction='mean'):
    reduction = _reduction(size_average, reduce, reduction)
    return _nll_loss_nd(input, target, weight, reduction, ignore_index)


@_named('DivBackward1')
class _DivBackward1(_Node):
    def backward(self, g):
        return g / self.other


def _div_scalar(t, s):
    """``t / s`` for a Python number ``s``, recorded as torch's Tensor-by-Scalar division."""
    n = _core.track1(_DivBackward1, t)
    out = _core.result(_np.asarray(t._data / s, t._data.dtype), n)
    if n is not None:
        n.other = s
    return out


def _class_view(weight, nd, class_dim):
    shape = [1] * nd
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


_NO_DIMS = "Dimension specified as 1 but tensor has no dimensions"


def _cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                   reduce=None, reduction='mean', label_smoothing=0.0):
    reduction = _reduction(size_average, reduce, reduction)
    nd = input.dim()
    class_dim = 0 if nd == 1 else 1
    if tuple(input.shape) == tuple(target.shape):
        if target._data.dtype.kind not in 'fV':
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {_pw.dtype_name(target._data.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if not 0.0 <= label_smoothing <= 1.0:
            raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        if nd == 0:
            raise IndexError(_NO_DIMS)
        C = input.shape[class_dim]
        if label_smoothing > 0.0:
            target = target * (1 - label_smoothing) + label_smoothing / C
        logp = _red.log_softmax(input, class_dim)
        prod = logp * target
        if weight is not None:
            prod = prod * _class_view(weight, nd, class_dim)
        if reduction == 'none':
            return -prod.sum(class_dim)
        if reduction == 'sum':
            return -prod.sum()
        return _div_scalar(-prod.sum(), input.numel() // C if input.numel() else float('nan'))
    if nd == 0:
        raise IndexError(_NO_DIMS)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        logp = _red.log_softmax(input, class_dim)
        nll = _nll_loss_nd(logp, target, weight, reduction, ignore_index)
        C = input.shape[class_dim]
        ignore_mask = _make(target._data == ignore_index)
        if weight is not None:
            smooth = -(logp * _class_view(weight, nd, class_dim)).sum(class_dim)
        else:
            smooth = -logp.sum(class_dim)
        smooth = smooth.masked_fill(ignore_mask, 0.0)
        if reduction == 'mean':
            flat = target._data.reshape(-1).astype(_np.int64)
            keep = flat != ignore_index
            if weight is not None:
                denom = weight[_make(flat[keep])].sum()
            else:
                denom = _make(_np.asarray(keep.sum()))
            ret = smooth.sum() / denom
        elif reduction == 'sum':
            ret = smooth.sum()
        else:
            ret = smooth
        return nll * (1 - label_smoothing) + ret * (label_smoothing / C)
    logp = _red.log_softmax(input, class_dim)
    return _nll_loss_nd(logp, target, weight, reduction, ignore_index)


# -- binary cross entropy ----------------------------------------------------------------
@_named('BinaryCrossEntropyBackward0')
class _BinaryCrossEntropyBackward0(_Node):
    def backward(self, g):
        x, t, w = self.saved_tensors
        gi = g * (x - t) / (x * (1 - x)).clamp(min=1e-12)
        gt = g * ((-x).log1p() - x.log())
        if w is not None:
            gi = gi * w
            gt = gt * w
        if self.reduction == 'mean':
            gi = gi / x.numel()
            gt = gt / x.numel()
        return gi, gt, None


def _binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                          reduction='mean'):
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the "
                         f"input size ({input.size()}) is deprecated. Please ensure they have "
                         "the same size.")
    if weight is not None:
        weight = weight.expand(_core.check_broadcast(target.shape, weight.shape))
    x = input._data
    t = target._data
    if t.dtype != x.dtype:
        raise RuntimeError(f"Found dtype {_pw.dtype_name(t.dtype)} but expected "
                           f"{_pw.dtype_name(x.dtype)}")
    _not_differentiable(weight, 'binary_cross_entropy', 'weight')
    if _np.any((x < 0) | (x > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    with _np.errstate(all='ignore'):
        lx = _np.maximum(_np.log(x), -100)
        l1x = _np.maximum(_np.log1p(-x), -100)
        loss = -(t * lx + (1 - t) * l1x)
    if weight is not None:
        loss = loss * weight._data
    r = _reduce_array(_np.asarray(loss, x.dtype), reduction)
    n = _core.track(_BinaryCrossEntropyBackward0, (input, target, weight))
    out = _core.result(r, n)
    if n is not None:
        n.save(input, target, *([weight] if weight is not None else []))
        if weight is None:
            n._saved = n._saved + ((None, 0),)
        n.reduction = reduction
    return out


def _log_sigmoid(x):
    return x.clamp(max=0) - (-(x.abs())).exp().log1p()


@_named('BinaryCrossEntropyWithLogitsBackward0')
class _BinaryCrossEntropyWithLogitsBackward0(_Node):
    def backward(self, g):
        x, t, w, p = self.saved_tensors
        if p is not None:
            pt = p * t
            gi = x.sigmoid() * (pt + 1 - t) - pt
            gt = _log_sigmoid(-x) - _log_sigmoid(x) * p
        else:
            gi = x.sigmoid() - t
            gt = -x
        gi = g * gi
        gt = g * gt
        if w is not None:
            gi = gi * w
            gt = gt * w
        if self.reduction == 'mean':
            gi = gi / self.numel
            gt = gt / self.numel
        return gi, gt, None, None


def _binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                      reduce=None, reduction='mean', pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    _not_differentiable(weight, 'binary_cross_entropy_with_logits', 'weight')
    _not_differentiable(pos_weight, 'binary_cross_entropy_with_logits', 'pos_weight')
    x, t = _core.binary_arrays(input, target, 'binary_cross_entropy_with_logits')
    with _np.errstate(all='ignore'):
        ls = _log_sigmoid_array(x)
        if pos_weight is not None:
            ls = ls * ((pos_weight._data - 1) * t + 1)
        loss = (1 - t) * x - ls
        if weight is not None:
            loss = loss * weight._data
    loss = _np.asarray(loss, x.dtype)
    r = _reduce_array(loss, reduction)
    n = _core.track(_BinaryCrossEntropyWithLogitsBackward0, (input, target, weight, pos_weight))
    out = _core.result(r, n)
    if n is not None:
        n._saved = tuple((a, a._vc[0]) if a is not None else (None, 0)
                         for a in (input, target, weight, pos_weight))
        n.reduction = reduction
        n.numel = loss.size
    return out


def _kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == 'mean':
        _warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                       "support size.'batchmean' divides only by the batch size, and aligns with "
                       "the KL div math definition.'mean' will be changed to behave the same as "
                       "'batchmean' in the next major release.", stacklevel=3)
    batchmean = reduction == 'batchmean'
    if not batchmean:
        reduction = _reduction(None, None, reduction)
    if input._data.dtype.kind in 'biu' or target._data.dtype.kind in 'biu':
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = target.exp() * (target - input)
    else:
        zero = _make(target._data == 0)
        safe = _pw.where(zero, 1.0,
                         target)
        out = target * safe.log() - target * input
    if batchmean:
        reduced = out.sum()
        return reduced / input.shape[0] if input.dim() != 0 else reduced
    return _apply_reduction(out, reduction)


def _export(impl, name, doc):
    f = _overridable(impl, 'ember.nn.functional.' + name)
    f.__doc__ = doc
    return f


linear = _export(_linear, 'linear', "``input @ weight.T + bias``.")
relu = _export(_act.relu, 'relu', "max(input, 0), elementwise (in place with ``inplace=True``).")
leaky_relu = _export(_act.leaky_relu, 'leaky_relu',
                     "``x`` where positive, ``negative_slope * x`` elsewhere.")
elu = _export(_act.elu, 'elu', "``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.")
gelu = _export(_act.gelu, 'gelu', "``x * Phi(x)`` (``approximate='tanh'``: the tanh formula).")
silu = _export(_act.silu, 'silu', "``x * sigmoid(x)``.")
sigmoid = _export(_act.sigmoid, 'sigmoid', "``1 / (1 + exp(-x))``.")
tanh = _export(_act.tanh, 'tanh', "Hyperbolic tangent.")
softmax = _export(_act.softmax, 'softmax', "Softmax over ``dim`` (legacy implicit dim if None).")
log_softmax = _export(_act.log_softmax, 'log_softmax',
                      "Log-softmax over ``dim`` (legacy implicit dim if None).")
softplus = _export(_act.softplus, 'softplus',
                   "``log(1 + exp(beta * x)) / beta``, linear above ``threshold``.")
hardtanh = _export(_act.hardtanh, 'hardtanh', "``x`` clamped to ``[min_val, max_val]``.")
relu6 = _export(_act.relu6, 'relu6', "``min(max(x, 0), 6)`` (hardtanh with limits 0 and 6).")
selu = _export(_act.selu, 'selu', "``scale * elu(x, alpha)`` with the self-normalising constants.")
celu = _export(_act.celu, 'celu', "``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.")
mish = _export(_act.mish, 'mish', "``x * tanh(softplus(x))``.")
hardswish = _export(_act.hardswish, 'hardswish', "``x * relu6(x + 3) / 6``.")
hardsigmoid = _export(_act.hardsigmoid, 'hardsigmoid', "``relu6(x + 3) / 6``.")
logsigmoid = _export(_act.logsigmoid, 'logsigmoid', "``log(sigmoid(x))``, computed stably.")
softsign = _export(_act.softsign, 'softsign', "``x / (1 + |x|)``.")
softmin = _export(_act.softmin, 'softmin', "``softmax(-x)`` over ``dim`` (legacy implicit dim "
                  "if None).")
tanhshrink = _export(_act.tanhshrink, 'tanhshrink', "``x - tanh(x)``.")
softshrink = _export(_act.softshrink, 'softshrink',
                     "``x`` moved ``lambd`` toward 0, 0 inside ``[-lambd, lambd]``.")
hardshrink = _export(_act.hardshrink, 'hardshrink', "``x``, 0 inside ``[-lambd, lambd]``.")
threshold = _export(_act.threshold, 'threshold', "``value`` where ``x <= threshold``, else ``x``.")
glu = _export(_act.glu, 'glu', "``a * sigmoid(b)`` for the two halves ``a, b`` of ``dim``.")
prelu = _export(_act.prelu, 'prelu',
                "``x`` where positive, ``weight * x`` elsewhere (one weight per channel).")
rrelu = _export(_act.rrelu, 'rrelu', "Leaky ReLU with random slopes in ``[lower, upper]`` "
                "(their mean when not training).")
relu_ = _export(_act.relu_, 'relu_', "In-place ``relu``.")
elu_ = _export(_act.elu_, 'elu_',
               "In-place ``elu`` (also takes torch's ``scale`` and ``input_scale``).")
leaky_relu_ = _export(_act.leaky_relu_, 'leaky_relu_', "In-place ``leaky_relu``.")
hardtanh_ = _export(_act.hardtanh_, 'hardtanh_', "In-place ``hardtanh``.")
selu_ = _export(_act.selu_, 'selu_', "In-place ``selu``.")
celu_ = _export(_act.celu_, 'celu_', "In-place ``celu``.")
threshold_ = _export(_act.threshold_, 'threshold_', "In-place ``threshold``.")
rrelu_ = _export(_act.rrelu_, 'rrelu_', "In-place ``rrelu`` (with an optional ``generator``).")
mse_loss = _export(_mse_loss, 'mse_loss', "Mean squared error.")
l1_loss = _export(_l1_loss, 'l1_loss', "Mean absolute error.")
smooth_l1_loss = _export(_smooth_l1_loss, 'smooth_l1_loss',
                         "Squared error below ``beta``, absolute error above.")
cross_entropy = _export(_cross_entropy, 'cross_entropy',
                        "Cross entropy of logits against class indices or probabilities.")
nll_loss = _export(_nll_loss, 'nll_loss', "Negative log likelihood of log-probabilities.")
binary_cross_entropy = _export(_binary_cross_entropy, 'binary_cross_entropy',
                               "Binary cross entropy of probabilities.")
binary_cross_entropy_with_logits = _export(
    _binary_cross_entropy_with_logits, 'binary_cross_entropy_with_logits',
    "Binary cross entropy of logits (with ``pos_weight`` for positives).")
kl_div = _export(_kl_div, 'kl_div', "Kullback-Leibler divergence of log-probabilities.")
dropout = _export(_layers.dropout, 'dropout',
                  "Zeroes elements with probability ``p``, scales the rest by ``1/(1-p)``.")
layer_norm = _export(_layers.layer_norm, 'layer_norm',
                     "Normalises over the trailing ``normalized_shape`` dims.")
embedding = _export(_layers.embedding, 'embedding', "Rows of ``weight`` picked by ``input``.")
pad = _export(_misc.pad, 'pad', "Pads (or crops) the last dims: constant/reflect/replicate/circular.")
one_hot = _export(_misc.one_hot, 'one_hot', "int64 one-hot encoding of class indices.")
normalize = _export(_misc.normalize, 'normalize', "``input`` divided by its p-norm along ``dim``.")
cosine_similarity = _export(_misc.cosine_similarity, 'cosine_similarity',
                            "Cosine similarity of ``x1`` and ``x2`` along ``dim``.")
batch_norm = _export(_norm.batch_norm, 'batch_norm',
                     "Normalises each channel over the batch (batch or running statistics).")
group_norm = _export(_norm.group_norm, 'group_norm',
                     "Normalises each sample over groups of channels.")
conv1d = _export(_conv.conv1d, 'conv1d', "1-d cross-correlation (padding int/tuple/'valid'/'same').")
conv2d = _export(_conv.conv2d, 'conv2d', "2-d cross-correlation (padding int/tuple/'valid'/'same').")
conv_transpose2d = _export(_conv.conv_transpose2d, 'conv_transpose2d',
                           "Transposed 2-d convolution (the adjoint of conv2d).")
scaled_dot_product_attention = _export(
    _attn.scaled_dot_product_attention, 'scaled_dot_product_attention',
    "``softmax(q @ k^T * scale + mask) @ v`` over the last two dims.")
multi_head_attention_forward = _export(
    _attn.multi_head_attention_forward, 'multi_head_attention_forward',
    "The computation of nn.MultiheadAttention on (L, N, E) inputs.")
max_pool1d = _export(_pool.max_pool1d, 'max_pool1d', "Max pooling over the last dim.")
max_pool2d = _export(_pool.max_pool2d, 'max_pool2d', "Max pooling over the last two dims.")
avg_pool1d = _export(_pool.avg_pool1d, 'avg_pool1d', "Average pooling over the last dim.")
avg_pool2d = _export(_pool.avg_pool2d, 'avg_pool2d', "Average pooling over the last two dims.")
adaptive_avg_pool2d = _export(_pool.adaptive_avg_pool2d, 'adaptive_avg_pool2d',
                              "Average pooling to a fixed output size.")
bilinear = _export(_interp.bilinear, 'bilinear',
                   "``x1^T A x2 + b`` for each output feature (weight (out, in1, in2)).")
interpolate = _export(_interp.interpolate, 'interpolate',
                      "Resamples the spatial dims: nearest / linear / bilinear / trilinear.")

from . import _loss_functional as _losses  # noqa: E402 (it builds on the helpers above)


def _export_loss(name):
    impl = getattr(_losses, name)
    return _export(impl, name, impl.__doc__)


huber_loss = _export_loss('huber_loss')
soft_margin_loss = _export_loss('soft_margin_loss')
margin_ranking_loss = _export_loss('margin_ranking_loss')
hinge_embedding_loss = _export_loss('hinge_embedding_loss')
cosine_embedding_loss = _export_loss('cosine_embedding_loss')
poisson_nll_loss = _export_loss('poisson_nll_loss')
gaussian_nll_loss = _export_loss('gaussian_nll_loss')
pairwise_distance = _export_loss('pairwise_distance')
pdist = _export_loss('pdist')
triplet_margin_loss = _export_loss('triplet_margin_loss')
triplet_margin_with_distance_loss = _export_loss('triplet_margin_with_distance_loss')
multilabel_soft_margin_loss = _export_loss('multilabel_soft_margin_loss')
multi_margin_loss = _export_loss('multi_margin_loss')
multilabel_margin_loss = _export_loss('multilabel_margin_loss')
rms_norm = _export(_norm.rms_norm, 'rms_norm',
                   "Divides by the root mean square over the trailing ``normalized_shape`` dims.")
instance_norm = _export(_norm.instance_norm, 'instance_norm',
                        "Normalises each channel of each sample over its spatial dims.")
local_response_norm = _export(_norm.local_response_norm, 'local_response_norm',
                              "Divides by the mean of squares over neighbouring channels.")
__all__ += ['rms_norm', 'instance_norm', 'local_response_norm']
adaptive_max_pool1d = _export(_pool.adaptive_max_pool1d, 'adaptive_max_pool1d',
                              "Max pooling of the last dim to a fixed output size.")
adaptive_max_pool2d = _export(_pool.adaptive_max_pool2d, 'adaptive_max_pool2d',
                              "Max pooling of the last two dims to a fixed output size.")
adaptive_max_pool1d_with_indices = _export(
    _pool.adaptive_max_pool1d_with_indices, 'adaptive_max_pool1d_with_indices',
    "Adaptive 1-d max pooling returning (output, indices).")
adaptive_max_pool2d_with_indices = _export(
    _pool.adaptive_max_pool2d_with_indices, 'adaptive_max_pool2d_with_indices',
    "Adaptive 2-d max pooling returning (output, indices).")
adaptive_avg_pool1d = _export(_pool.adaptive_avg_pool1d, 'adaptive_avg_pool1d',
                              "Average pooling of the last dim to a fixed output size.")
max_pool1d_with_indices = _export(_pool.max_pool1d_with_indices, 'max_pool1d_with_indices',
                                  "1-d max pooling returning (output, indices).")
max_pool2d_with_indices = _export(_pool.max_pool2d_with_indices, 'max_pool2d_with_indices',
                                  "2-d max pooling returning (output, indices).")
max_unpool1d = _export(_pool.max_unpool1d, 'max_unpool1d',
                       "Partial inverse of max_pool1d: values back at their indices.")
max_unpool2d = _export(_pool.max_unpool2d, 'max_unpool2d',
                       "Partial inverse of max_pool2d: values back at their indices.")
lp_pool1d = _export(_pool.lp_pool1d, 'lp_pool1d',
                    "Power-average (p-norm) pooling over the last dim.")
lp_pool2d = _export(_pool.lp_pool2d, 'lp_pool2d',
                    "Power-average (p-norm) pooling over the last two dims.")
pixel_shuffle = _export(_rearrange.pixel_shuffle, 'pixel_shuffle',
                        "(*, C*r*r, H, W) -> (*, C, H*r, W*r): channels into pixel blocks.")
pixel_unshuffle = _export(_rearrange.pixel_unshuffle, 'pixel_unshuffle',
                          "(*, C, H*r, W*r) -> (*, C*r*r, H, W): pixel blocks into channels.")
channel_shuffle = _export(_rearrange.channel_shuffle, 'channel_shuffle',
                          "Interleaves ``groups`` groups of channels.")
unfold = _export(_rearrange.unfold, 'unfold',
                 "Sliding blocks of the last two dims as columns: (N, C*kh*kw, L).")
fold = _export(_rearrange.fold, 'fold',
               "Columns (N, C*kh*kw, L) summed back into their blocks (unfold's adjoint).")
dropout1d = _export(_layers.dropout1d, 'dropout1d',
                    "Zeroes whole channels of (N, C, L) inputs, scales the rest by 1/(1-p).")
dropout2d = _export(_layers.dropout2d, 'dropout2d',
                    "Zeroes whole channels of (N, C, H, W) inputs, scales the rest by 1/(1-p).")
dropout3d = _export(_layers.dropout3d, 'dropout3d',
                    "Zeroes whole channels of (N, C, D, H, W) inputs, scales the rest by 1/(1-p).")
alpha_dropout = _export(_layers.alpha_dropout, 'alpha_dropout',
                        "Dropout keeping SELU activations' mean and variance.")
conv_transpose1d = _export(_conv.conv_transpose1d, 'conv_transpose1d',
                           "Transposed 1-d convolution (the adjoint of conv1d).")
