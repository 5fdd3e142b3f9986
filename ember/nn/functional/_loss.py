"""The losses of nn.functional: the classic ones (mse, l1, smooth_l1, nll, cross_entropy, binary
cross entropy, kl_div) and the rest (huber; soft / hinge / ranking / cosine / triplet margin
losses; Poisson and Gaussian NLL; the multi-class margin losses), with the reduction helpers
they share.

Losses are composed from ember ops where torch's observable grad_fn is that of a composition
(``l1_loss`` ends in ``MeanBackward0``, ``kl_div`` in ``SubBackward0``...). Where torch shows a
dedicated node (``MseLossBackward0``, ``NllLossBackward0``, ``HuberLossBackward0``,
``MultiMarginLossBackward0``...) the forward runs on arrays and a Node of that name carries a
backward written with ember ops, so double backward still comes for free.
"""
import math
import warnings as _warnings

import numpy as np
import numpy as _np

from ..._ops import _args, _core, creation as _creation, pointwise as _pw, reduce as _red, \
    shape as _shape
from ..._ops import special as _special
from ... import _dtype
from ..._ops._core import Node, make
from ..._ops._core import Node as _Node, make as _make
from ...autograd.graph import name_saved_values, saved_int
from ...autograd.grad_mode import STATE as _STATE, no_grad
from ._activation import _named, _log_sigmoid_array
from ._distance import pairwise_distance


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


def _reduction(size_average, reduce, reduction, check=True):
    """The reduction string, from the legacy flags if given; torch's ValueError if unknown
    (with ``check``: a loss that reads it later passes False, then None, None)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if not check:
        return reduction
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


def _into_input(input, common):
    """torch's error where a loss kernel that writes into a tensor of ``input``'s dtype
    (huber, soft margin) computes in a ``common`` (NumPy) dtype that cannot be cast to it;
    returns the dtype the result takes: ``input``'s."""
    out = input._data.dtype
    if not _dtype.can_cast(_dtype.FROM_NP[common], _dtype.FROM_NP[out]):
        raise RuntimeError(f"result type {_pw.dtype_name(common)} can't be cast to the desired "
                           f"output type {_pw.dtype_name(out)}")
    return out


def _pair_loss(input, target, reduction, cls, kernel, name, into_input=False, **attrs):
    """The loss ``kernel(input - target)`` reduced, computed in the operands' common dtype
    (with ``into_input`` written into ``input``'s, as torch's huber kernel does)."""
    x, t = _broadcast(input, target)
    xa, ta = _core.binary_arrays(x, t, name)
    out = _into_input(input, xa.dtype) if into_input else xa.dtype
    if xa.dtype.kind not in 'fV':  # (the kernels take real floating types only)
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{_pw.dtype_name(xa.dtype)}'")
    # (float16/bfloat16: the elementwise loss and its sum in float32, then rounded once,
    # as torch's kernels)
    wide = _np.dtype(_np.float32) if xa.dtype.itemsize == 2 else xa.dtype
    r = _reduce_array(_np.asarray(kernel(xa.astype(wide) - ta.astype(wide)), wide), reduction)
    r = _np.asarray(r, out)
    n = _core.track(cls, (x, t))
    out = _core.result(r, n)
    if n is not None:
        n.save(x, t)
        n.reduction = reduction
        for k, v in attrs.items():
            setattr(n, k, v)
    return out


def _weighted(errors, weight, input, reduction):
    """torch's weighted form of a pair loss: ``weight`` (input's shape) times the pointwise
    ``errors()``, reduced; the weight's size is checked first and the reduction last."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    w = errors() * weight
    if reduction == 'none':
        return w
    if reduction == 'sum':
        return w.sum()
    if reduction == 'mean':
        return w.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


# (torch's order in mse / l1 / smooth_l1: the shapes broadcast, then the weight or the
# reduction is read, then the kernel runs)
def _mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction, False)
    x, t = _broadcast(input, target)
    if weight is not None:
        return _weighted(lambda: (x - t).pow(2), weight, input, reduction)
    reduction = _reduction(None, None, reduction)
    return _pair_loss(input, target, reduction, _MseLossBackward0, lambda d: d * d, 'mse')


# (the kernels' dtype refusals are _pair_loss's, in the operands' common dtype: the weighted
# form runs no kernel -- see overrides.overridable)
_mse_loss._refuses_dtypes = True


def _l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction, False)
    x, t = _broadcast(input, target)
    if weight is not None:
        return _weighted(lambda: (x - t).abs(), weight, input, reduction)
    reduction = _reduction(None, None, reduction)
    return _apply_reduction((x - t).abs(), reduction)


def _smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction, False)
    x, t = _broadcast(input, target)
    reduction = _reduction(None, None, reduction)
    if beta == 0.0:
        return _apply_reduction((x - t).abs(), reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")

    def kernel(d):
        a = _np.abs(d)
        return _np.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)
    return _pair_loss(input, target, reduction, _SmoothL1LossBackward0, kernel,
                      'smooth_l1', beta=beta)


# (beta 0 runs torch's l1 kernel, which takes complex tensors: the smooth l1 kernel's
# refusals are _pair_loss's)
_smooth_l1_loss._refuses_dtypes = True


# -- nll / cross entropy -----------------------------------------------------------------
@_named('NllLossBackward0')
class _NllLossBackward0(_Node):
    """Gradient of nll_loss: the output gradient placed at each target class, times
    ``-weight[target] / total_weight`` (a constant computed in the forward)."""

    def backward(self, g):
        if self.expand_dim is not None:  # 'none': one gradient per target
            g = g.unsqueeze(self.expand_dim)
        coef = self.coef
        if callable(coef):  # (a reduced loss: the scalar gradient goes into the scatter)
            if not _STATE.enabled and g._data.ndim == 0:
                return _make(coef(g._data))
            coef = coef(None)
        return g * _make(coef)


@_named('NllLoss2DBackward0')
class _NllLoss2DBackward0(_NllLossBackward0):
    pass


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``; NllLoss2D
# inherits them).
name_saved_values(_NllLossBackward0, ('weight',),
                  attrs={'ignore_index': 'ignore_index', 'reduction': 'reduction'})


def _nll_check_target(target):
    if target._data.dtype not in (_np.int64, _np.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{_pw.dtype_name(target._data.dtype)}")


def _check_class_weight(weight, C, prefix=''):
    """torch's refusal of a class weight that is not one value per class (a 1-d tensor of
    ``C`` elements)."""
    if weight is not None and (weight.dim() != 1 or weight.numel() != C):
        raise RuntimeError(f"{prefix}weight tensor should be defined either for all {C} classes "
                           f"or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")


def _nll_core(input, target, weight, reduction, ignore_index, cls):
    """nll_loss on an input of shape (C,), (N, C) or (N, C, d1, ...) with a matching target."""
    # (autograd refuses a weight that requires grad before the kernel checks anything)
    _not_differentiable(weight, 'nll_loss_forward' if cls is _NllLossBackward0
                        else 'nll_loss2d_forward', 'weight')
    _nll_check_target(target)
    x = input._data
    t = target._data.astype(_np.int64)
    nd = x.ndim
    C = x.shape[0] if nd == 1 else x.shape[1]
    _check_class_weight(weight, C)
    # (the kernel's dtype dispatch, then its read of the weight as the input's type)
    if x.dtype.kind not in 'fV':
        kernel = 'nll_loss_out_frame' if cls is _NllLossBackward0 else \
            'nll_loss2d_forward_out_frame'
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_pw.dtype_name(x.dtype)}'")
    if weight is not None and weight._data.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {_pw.dtype_name(x.dtype)} but found "
                           f"{_pw.dtype_name(weight._data.dtype)}")
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
        n.coef = _nll_coefficients(xx, x.shape, safe, wt, scale, reduction != 'none')
        # 'none': one gradient per target, spread along the class dim
        n.expand_dim = 1 if reduction == 'none' and nd > 1 else None
        # (what torch saves too: the weight, freed with the graph, and the settings)
        if weight is not None:
            n._saved = ((weight, weight._vc[0]),)
        else:  # (torch's undefined weight reads None, before and after backward)
            n.weight = None
        n.ignore_index = saved_int(ignore_index)
        n.reduction = ('none', 'mean', 'sum').index(reduction)
    return out


def _nll_coefficients(xx, shape, safe, wt, scale, lazy):
    """nll_loss's derivative: ``-weight[target] / total_weight`` at each target class, 0
    elsewhere, as an array of the input's ``shape``. For a reduced loss (``lazy``), a
    function of the scalar output gradient (None: 1) building it in backward, so the
    gradient is scattered once rather than multiplied over the whole input."""
    def build(g=None):
        coef = _np.zeros_like(xx)
        value = -wt if scale is None else -wt / scale
        if g is not None:
            value = value * g
        if xx.ndim == 2:
            coef[_np.arange(xx.shape[0]), safe] = value
        else:
            _np.put_along_axis(coef, safe[:, None], _np.asarray(value)[:, None], axis=1)
        return coef.reshape(shape)
    return build if lazy else build()


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    nd = input.dim()
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    batch = target.shape[0] if target.dim() else 0  # (torch counts a 0-d target as none)
    if nd != 1 and input.shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({batch}).")
    if nd <= 2:
        _not_differentiable(weight, 'nll_loss_forward', 'weight')
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        _nll_check_target(target)  # (torch's kernel checks the dtype before the size)
        if nd == 2 and not target.dim():  # (an empty batch passed: its kernel reads dim 0)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if nd == 1 and target.dim() == 1 and target.numel() != 1:
            raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.numel()}")
        return _nll_core(input, target, weight, reduction, ignore_index, _NllLossBackward0)
    if nd == 4:  # (nll_loss2d's own checks, after autograd's)
        _not_differentiable(weight, 'nll_loss2d_forward', 'weight')
        if target.dim() != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {target.dim()}")
        _nll_check_target(target)
        if weight is not None and weight.numel() != input.shape[1]:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if tuple(target.shape) != (input.shape[0],) + tuple(input.shape[2:]):
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                               f"{list(target.shape)}")
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


def _check_smoothing(label_smoothing):
    """torch's bound on a positive label_smoothing (a negative one is never checked)."""
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")


def _cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                   reduce=None, reduction='mean', label_smoothing=0.0):
    reduction = _reduction(size_average, reduce, reduction)
    nd = input.dim()
    class_dim = 0 if nd == 1 else 1
    if tuple(input.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:  # (complex32's arrays are of kind 'V' too)
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {_pw.dtype_name(target._data.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if nd == 0:  # (torch reads the class count before it checks label_smoothing)
            raise IndexError(_NO_DIMS)
        C = input.shape[class_dim]
        _check_class_weight(weight, C, 'cross_entropy: ')
        if label_smoothing > 0.0:  # (a negative one is ignored, as in torch)
            _check_smoothing(label_smoothing)
            # (no classes: the target is empty, and torch's ls / 0 is inf)
            target = target * (1 - label_smoothing) + (label_smoothing / C if C else math.inf)
        logp = _red.log_softmax(input, class_dim)
        prod = logp * target
        if weight is not None:
            prod = prod * _class_view(weight, nd, class_dim)
        if reduction == 'none':
            return -prod.sum(class_dim)
        if reduction == 'sum':
            return -prod.sum()
        return _div_scalar(-prod.sum(), input.numel() // C if input.numel() else float('nan'))
    if label_smoothing > 0.0:  # (a 0-d input: log_softmax's dim error, after this check)
        _check_smoothing(label_smoothing)
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


# (torch's loss takes log_softmax of the input before nll_loss looks at the target: an integer
# input's kernel refusal comes before the target's checks)
_cross_entropy._dtype_first = True


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
        weight = weight.expand(_shape.broadcast_shapes(target.size(), weight.size()))
    x = input._data
    t = target._data
    if t.dtype != x.dtype:
        raise RuntimeError(f"Found dtype {_pw.dtype_name(t.dtype)} but expected "
                           f"{_pw.dtype_name(x.dtype)}")
    _not_differentiable(weight, 'binary_cross_entropy', 'weight')
    # (torch's kernel: its dtypes, each element's range, then the weights on the loss in
    # place -- a weight broadcast beyond the input's shape cannot be written there)
    if x.dtype.kind not in 'fV':
        raise _args.stands(NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{_pw.dtype_name(x.dtype)}'"))
    with _np.errstate(invalid='ignore'):
        bad_x, bad_t = ~((x >= 0) & (x <= 1)), ~((t >= 0) & (t <= 1))  # (NaN too)
    if bad_x.any() or bad_t.any():
        # (torch's kernel checks the input, then the target, element by element)
        first = _np.argmax((bad_x | bad_t).reshape(-1))
        which = 'input' if bad_x.reshape(-1)[first] else 'target'
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")
    if weight is not None and weight._data.shape != x.shape:
        raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast "
                           f"shape {list(weight._data.shape)}")
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


def bce_with_logits_checks(input, target, weight, pos_weight):
    """torch's kernel of ``binary_cross_entropy_with_logits``, in its order: no gradient for
    ``weight``/``pos_weight``, no ``log_sigmoid`` of an integer or complex input, then the
    shapes of its steps (``log_sigmoid(input) *= (pos_weight - 1) * target + 1``,
    ``loss = (1 - target) *= input``, ``loss -= ...``, ``loss *= weight``: in-place, so each
    keeps its left side's shape). Returns the loss's shape (``target``'s)."""
    from ..._dtype import FROM_NP
    _not_differentiable(weight, 'binary_cross_entropy_with_logits', 'weight')
    _not_differentiable(pos_weight, 'binary_cross_entropy_with_logits', 'pos_weight')
    if input._data.dtype.kind in 'biuc':
        raise NotImplementedError('"log_sigmoid_cpu" not implemented for '
                                  f"'{FROM_NP[input._data.dtype].kernel_name}'")

    def in_place(out, other, into, *operands):
        """An in-place step into a tensor like ``into``, of shape ``out``: ``other``'s shape
        broadcasts to ``out``, then the operands' common dtype can be written into ``into``'s
        (a complex weight into a float target cannot)."""
        both = _core.check_broadcast(out, other)
        if both != out:
            raise RuntimeError(f"output with shape {list(out)} doesn't match the broadcast "
                               f"shape {list(both)}")
        common = into.dtype
        for o in operands:
            common = _dtype.promote_types(common, o.dtype)
        _into_input(into, common.np)
    shape, t = tuple(input.shape), tuple(target.shape)
    if pos_weight is not None:  # (log_sigmoid(input) *= (pos_weight - 1) * target + 1)
        in_place(shape, _core.check_broadcast(tuple(pos_weight.shape), t), input,
                 pos_weight, target)
    if target._data.dtype.kind == 'b':  # (``1 - target``)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    in_place(t, shape, target, input)  # (``(1 - target) *= input``: an integer target fails)
    if weight is not None:
        in_place(t, tuple(weight.shape), target, weight)
    return t


def _binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                      reduce=None, reduction='mean', pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    bce_with_logits_checks(input, target, weight, pos_weight)
    x, t = _core.binary_arrays(input, target, 'binary_cross_entropy_with_logits')
    with _np.errstate(all='ignore'):
        # (torch's log_sigmoid runs in the input's own dtype, before the target promotes it)
        ls = _log_sigmoid_array(input._data if input._data.shape == x.shape else x)
        if pos_weight is not None:
            ls = ls * ((pos_weight._data - 1) * t + 1)
        loss = (1 - t) * x - ls
        if weight is not None:
            loss = loss * weight._data
    # (torch builds the loss in place on ``1 - target``: it has the target's dtype)
    loss = _np.asarray(loss, target._data.dtype if target._data.dtype.kind in 'fVc' else x.dtype)
    r = _reduce_array(loss, reduction)
    n = _core.track(_BinaryCrossEntropyWithLogitsBackward0, (input, target, weight, pos_weight))
    out = _core.result(r, n)
    if n is not None:
        n._saved = tuple((a, a._vc[0]) if a is not None else (None, 0)
                         for a in (input, target, weight, pos_weight))
        n.reduction = reduction
        n.numel = loss.size
    return out


_binary_cross_entropy_with_logits._dtype_first = True  # (its checks in torch's order)


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
    if input.dtype.is_complex or target.dtype.is_complex:  # (torch's order; complex32 too)
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if input._data.dtype.kind in 'biu' or target._data.dtype.kind in 'biu':
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = target.exp() * (target - input)
    else:
        # (torch's form: xlogy's zero gradient stays 0 where the target's log is NaN)
        out = _special.xlogy(target, target) - target * input
    if batchmean:
        reduced = out.sum()
        return reduced / input.shape[0] if input.dim() != 0 else reduced
    return _apply_reduction(out, reduction)


# -- pointwise losses --------------------------------------------------------------------
@_named('HuberLossBackward0')
class _HuberLossBackward0(_PairLoss):
    def deriv(self, x, t):
        return (x - t).clamp(-self.delta, self.delta)


def huber_loss(input, target, reduction='mean', delta=1.0, weight=None):
    """Squared error (halved) within ``delta``, ``delta``-scaled absolute error beyond."""
    _warn_size(input, target)
    # (torch broadcasts, reads the reduction -- or, with a weight, compares its size -- and
    # then runs its op: delta, then the dtypes its kernel takes)
    _core.check_broadcast(tuple(input.shape), tuple(target.shape))
    if weight is None:
        reduction = _reduction(None, None, reduction)
    elif tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if not delta > 0:  # (NaN too, as torch's test)
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    # (the kernel's errors stand: the weighted form's reduction is read only after it ran)
    from ..._ops._args import stands
    common = _dtype.promote_types(input.dtype, target.dtype)
    try:
        _into_input(input, common.np)
    except RuntimeError as e:
        raise stands(e) from None
    if common.np.kind in 'biuc':
        raise stands(NotImplementedError(f'"huber_cpu" not implemented for '
                                         f"'{common.kernel_name}'"))

    def kernel(d):
        a = np.abs(d)
        return np.where(a <= delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    if weight is None:
        return _pair_loss(input, target, reduction, _HuberLossBackward0, kernel, 'huber',
                          True, delta=delta)
    loss = _pair_loss(input, target, 'none', _HuberLossBackward0, kernel, 'huber', True,
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
    if input._data.dtype == np.bool_:  # (torch's kernel negates the input first)
        raise RuntimeError(_pw._NEG_BOOL)
    x, y = _broadcast(input, target)
    if x.shape != input.shape:  # (torch's kernel writes into an output of input's shape)
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast "
                           f"shape {list(x.shape)}")
    xa, ya = _core.binary_arrays(x, y, 'soft_margin_loss')
    if xa.dtype.kind not in 'fcV':
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{_pw.dtype_name(input._data.dtype)}")
    out = _into_input(input, xa.dtype)  # (torch's kernel writes into input's dtype)
    with np.errstate(all='ignore'):
        loss = np.asarray(np.log1p(np.exp(-ya * xa)), out)
    # (torch reduces half and bfloat16 in float32, rounding once)
    acc = loss.astype(np.float32) if loss.dtype.kind in 'fV' and loss.dtype.itemsize < 4 \
        else loss
    r = loss if reduction == 'none' else np.asarray(
        acc.sum() if reduction == 'sum' else (acc.mean() if acc.size else np.nan), out)
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
    return margin_ranking(input1, input2, target, margin, reduction)


def margin_ranking(input1, input2, target, margin, reduction):
    """aten's margin_ranking_loss (``torch.margin_ranking_loss``): the loss without the
    functional form's check that the operands have one dimension count (they broadcast)."""
    if isinstance(margin, int) and not isinstance(margin, bool):
        margin = float(margin)  # (torch's margin is a double: integer inputs give a float loss)
    diff = input1 - input2  # (torch's order: the difference first, then -target)
    return _apply_reduction((-target * diff + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction='mean'):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = _creation.zeros_like(input)
    # (torch's kernel fills a tensor like input with margin and subtracts: in input's dtype,
    # so integer losses stay integers -- and their mean is refused -- and bools are refused)
    margin_clamp = (_creation.full_like(input, margin) - input).clamp_min(0)
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
    reduction = _reduction(size_average, reduce, reduction, False)
    if reduction not in ('none', 'mean', 'sum'):  # (not 'elementwise_mean' here)
        if not isinstance(reduction, str):
            # (torch's message is ``reduction + " is not ..."``: that sum's TypeError)
            raise TypeError(f"unsupported operand type(s) for +: '{type(reduction).__name__}'"
                            " and 'str'")
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        # (torch's kernel takes eps as a double: input + eps is a float, uint16+ too)
        loss = input - target * (input + (float(eps) if type(eps) is int else eps)).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        # (in place, as torch: the loss keeps its dtype, float16 with an integer target)
        loss = loss.add_(stirling.masked_fill(target <= 1, 0))
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean'):
    """Negative log likelihood of ``target`` under a Gaussian of mean ``input`` and variance
    ``var`` (a float, or a tensor of input's shape, one dim short, or with one dim of 1)."""
    import ember  # (the public ops, with their parsers: torch's function calls them)
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ember.ones_like(input)
    elif ember.any(var < 0):  # (``torch.any(True < 0)``: any's TypeError)
        raise ValueError("var has negative entry/entries")
    vs, xs = tuple(var.size()), tuple(input.size())
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


# (torch's Python function runs ``var < 0`` first: that comparison's dtype refusal stands)
gaussian_nll_loss._dtype_first = True


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
    # (torch's is made of logsigmoid: its kernel's dtype refusals)
    _args.refuse_dtypes('log_sigmoid', _args.refusals('log_sigmoid') or {}, (input,), None)
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


# (torch's logsigmoid runs, and refuses the dtype, before the class dim is read)
multilabel_soft_margin_loss._dtype_first = True


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


def _floating_kernel(input, kernel):
    """torch's refusal where a loss's kernel has loops for float and double only."""
    x = input._data
    if x.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_pw.dtype_name(x.dtype)}\'')


def _long_target(target):
    if target._data.dtype != np.int64:
        raise RuntimeError("expected scalar type Long but found "
                           f"{_pw.dtype_name(target._data.dtype)}")


def _reduce_rows(per_row, reduction, keep_rows, dtype):
    if reduction == 'none':
        r = per_row if keep_rows else per_row.reshape(())
    elif reduction == 'sum':
        r = per_row.sum()
    else:  # (torch's mean of no rows is whatever its buffer held: NaN, or 0 in an integer)
        r = per_row.mean() if per_row.size else np.nan if np.dtype(dtype).kind in 'fc' else 0
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
    if input._data.size:  # (the kernel's checks: an empty input runs none)
        _floating_kernel(input, 'multi_margin_loss_cpu_kernel')
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
    t = target._data.reshape(nframe, dim)
    if t.dtype.kind in 'fc':  # (the range is checked first, on the values as they are)
        bad = np.any((t.real < -1) | (t.real >= dim))
    else:
        t = t.astype(np.int64, copy=False)  # (empty: any dtype)
        bad = np.any((t < -1) | (t >= dim))
    if bad:
        raise RuntimeError("argument #2 'target' is out of range")
    if input._data.size:  # (the kernel's checks: an empty input runs none)
        _floating_kernel(input, 'multilabel_margin_loss_forward_out_frame')
        _long_target(target)
    t = t.astype(np.int64, copy=False)
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


# -- connectionist temporal classification ---------------------------------------------------------
_CTC_CHECK = " (while checking arguments for ctc_loss_allocate_outputs)"


class _CtcLossBackwardBackward(Node):
    """torch has no derivative of the CTC gradient: asking for one is its error."""

    def backward(self, g):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


@_named('CtcLossBackward0')
class _CtcLossBackward0(Node):
    """torch's CTC gradient with respect to ``log_probs``: ``exp(lp) - exp(log(sum over the
    label's positions of alpha * beta) + nll - lp)`` -- the gradient through a log_softmax
    folded in, as torch's kernel does (it equals the true gradient once it has gone back
    through the log_softmax that made ``log_probs``)."""

    def backward(self, g):
        arr = self.grad * g._data[None, :, None]
        n = _core.track(_CtcLossBackwardBackward, (self.saved_tensors[0], g))
        return _core.result(arr.astype(self.grad.dtype, copy=False), n)


def _lengths(v, name, batch):
    from ..._tensor import Tensor
    if isinstance(v, Tensor):
        if v._data.dtype.kind not in 'iu':
            raise RuntimeError(f"{name}s must be integral")
        a = v._data.reshape(-1).astype(np.int64)
    else:
        a = np.asarray(v, np.int64).reshape(-1)
    if a.size != batch:
        raise RuntimeError(f"{name}s must be of size batch_size")
    return a


def _logaddexp(*arrays):
    out = arrays[0]
    for a in arrays[1:]:
        out = np.logaddexp(out, a)
    return out


def _ctc_arrays(lp, targets, il, tl, blank):
    """(nll per sample, torch's gradient factor) of log_probs ``lp`` (T, N, C)."""
    T, N, C = lp.shape
    S = 2 * int(tl.max(initial=0)) + 1
    ext = np.full((N, S), blank, np.int64)             # blank, l1, blank, l2, ..., blank
    for n in range(N):
        ext[n, 1:2 * tl[n]:2] = targets[n][:tl[n]]
    valid = np.arange(S)[None, :] < 2 * tl[:, None] + 1
    skip = np.zeros((N, S), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    neg = np.array(-np.inf, lp.dtype)
    emit = np.take_along_axis(lp, np.broadcast_to(ext[None], (T, N, S)), 2)   # (T, N, S)
    alpha = np.full((T, N, S), neg)
    alpha[0, :, 0] = emit[0, :, 0]
    if S > 1:
        alpha[0, :, 1] = np.where(tl > 0, emit[0, :, 1], neg)
    for t in range(1, T):
        a = alpha[t - 1]
        a1 = np.concatenate([np.full((N, 1), neg), a[:, :-1]], 1)
        a2 = np.concatenate([np.full((N, 2), neg), a[:, :-2]], 1)[:, :S]   # (S may be 1)
        alpha[t] = np.where(valid, _logaddexp(a, a1, np.where(skip, a2, neg)) + emit[t], neg)
    rows = np.arange(N)
    last = np.maximum(il - 1, 0)
    end = alpha[last, rows, 2 * tl]
    end1 = np.where(tl > 0, alpha[last, rows, np.maximum(2 * tl - 1, 0)], neg)
    nll = -np.logaddexp(end, end1)
    nll = np.where(il == 0, np.where(tl == 0, 0, np.inf), nll)    # nothing to align
    beta = np.full((T, N, S), neg)
    for t in range(T - 1, -1, -1):
        if t + 1 < T:
            b = beta[t + 1]
            b1 = np.concatenate([b[:, 1:], np.full((N, 1), neg)], 1)
            b2 = np.concatenate([np.where(skip, b, neg)[:, 2:], np.full((N, 2), neg)],
                                1)[:, :S]
            beta[t] = np.where(valid, _logaddexp(b, b1, b2) + emit[t], neg)
        start = t == il - 1                  # each sample's recursion starts at its end
        init = np.full((N, S), neg)
        init[rows, 2 * tl] = emit[t, rows, 2 * tl]
        init[rows, np.maximum(2 * tl - 1, 0)] = np.where(
            tl > 0, emit[t, rows, np.maximum(2 * tl - 1, 0)], init[rows, 0])
        beta[t] = np.where(start[:, None], init, np.where((t < il - 1)[:, None], beta[t], neg))
    ab = alpha + beta
    top = ab.max(-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    sums = np.zeros((T, N, C), lp.dtype)
    tt, nn = np.meshgrid(np.arange(T), rows, indexing='ij')
    for s in range(S):
        np.add.at(sums, (tt, nn, np.broadcast_to(ext[:, s], (T, N))), np.exp(ab[..., s] - top[..., 0]))
    with np.errstate(divide='ignore'):
        lcab = np.log(sums) + top
    grad = np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)
    grad[np.arange(T)[:, None] >= il[None, :]] = 0
    return nll, grad


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean',
             zero_infinity=False):
    """The connectionist temporal classification loss: minus the log-probability of each
    target sequence summed over its alignments with the input (``log_probs`` (T, N, C) or
    (T, C) log-softmax outputs; ``targets`` padded (N, S) or concatenated); 'mean' divides
    each sample's loss by its target length before averaging."""
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return ctc_loss_forward(log_probs, targets, input_lengths, target_lengths, blank,
                            {'none': 0, 'mean': 1, 'sum': 2}[reduction], zero_infinity)


ctc_loss._dtype_first = True  # (its kernel's dtype is checked before the dims, as torch)


def ctc_loss_forward(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
                     zero_infinity=False):
    """torch.ctc_loss: ``ctc_loss`` with the reduction as torch's enum (0 none, 1 mean,
    2 sum)."""
    # (torch's order: the lengths' dtypes, the batch dim it reads, the kernel's dtype, dims)
    for name, t in (('input_lengths', input_lengths), ('target_lengths', target_lengths)):
        if hasattr(t, '_data') and t._data.dtype.kind not in 'iu':
            raise RuntimeError(f"{name} must be integral")
    if log_probs.dim() == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                         "got 1)")
    if log_probs._data.dtype.kind not in 'f':
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{log_probs.dtype.kernel_name}'")
    batched = log_probs.dim() == 3
    if log_probs.dim() not in (2, 3):      # (torch counts the batch dim it would add)
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim() + 1}-"
                           f"dimensional tensor for argument #1 'log_probs'" + _CTC_CHECK)
    lp = log_probs._data if batched else log_probs._data[:, None]
    if lp.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    T, N, C = lp.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    il = _lengths(input_lengths, 'input_length', N)
    tl = _lengths(target_lengths, 'target_length', N)
    tg = targets._data.astype(np.int64)
    if not batched and tg.ndim == 1:
        tg = tg[None]
    for name, lengths in (('input_lengths', il), ('target_lengths', tl)):
        if lengths.size and lengths.min() < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value "
                               f"{int(lengths.min())}" + _CTC_CHECK)
    if il.size and il.max() > T:
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value "
                           f"{int(il.max())}" + _CTC_CHECK)
    if tg.ndim == 1:                        # concatenated targets
        if tg.shape[0] != tl.sum():
            raise RuntimeError(f"Expected tensor to have size {int(tl.sum())} at dimension 0, "
                               f"but got size {tg.shape[0]} for argument #2 'targets'"
                               + _CTC_CHECK)
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]])
        rows = [tg[s:s + k] for s, k in zip(starts, tl)]
    else:
        if tg.shape[0] != N:
            raise RuntimeError(f"Expected tensor to have size {N} at dimension 0, but got size "
                               f"{tg.shape[0]} for argument #2 'targets'" + _CTC_CHECK)
        if tl.size and tg.shape[1] < tl.max():
            raise RuntimeError(f"Expected tensor to have size at least {int(tl.max())} at "
                               f"dimension 1, but got size {tg.shape[1]} for argument #2 "
                               "'targets'" + _CTC_CHECK)
        rows = list(tg)
    nll, grad = _ctc_arrays(lp, rows, il, tl, blank)
    inf = np.isinf(nll)
    if zero_infinity:
        grad[:, inf] = 0
    lp_t = log_probs if batched else log_probs.unsqueeze(1)
    node = _core.track1(_CtcLossBackward0, lp_t)
    loss = _core.result(nll.astype(lp.dtype), node)
    if node is not None:
        node.grad = grad
        node.save(lp_t)
    if zero_infinity:                   # torch's where(loss == inf, 0, loss)
        loss = _pw.where(_make(inf), _make(np.zeros((), lp.dtype)), loss)
    if not batched:
        loss = loss.squeeze(0)
    if reduction == 1:
        return (loss / _make(np.maximum(tl, 1).astype(lp.dtype).reshape(loss.shape))).mean()
    return loss.sum() if reduction == 2 else loss


# -- linear_cross_entropy --------------------------------------------------------------------------
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction='mean', ignore_index=None, label_smoothing=0.0,
                         options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``, the logits
    shaped (N, C, d1, ...) after ``linear_weight``'s (C, d1, ..., in_features). ``options``
    (torch's chunking, which only saves memory) is accepted and ignored: ember always takes
    the reference path."""
    from ._linear import linear
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes,) + out_features:
        raise RuntimeError(f"expected linear_bias shape {(classes,) + out_features}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = batches + (classes,) + out_features
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    if out_features:
        linear_weight = linear_weight.reshape(math.prod(out_features, start=classes),
                                              in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return _cross_entropy(logits, target, weight=weight, reduction=reduction,
                          ignore_index=-100 if ignore_index is None else ignore_index,
                          label_smoothing=label_smoothing)
