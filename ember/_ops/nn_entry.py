"""The ``torch.<op>`` entry points of nn ops: aten's own signatures (``reduction`` as an int,
``embedding(weight, indices)``, ``batch_norm(input, weight, bias, running_mean, ...)``,
the ``native_*`` forms returning their statistics) adapted to ``ember.nn.functional``,
which holds the one implementation of each op. ``ember.nn`` is imported on first call, so
``import ember`` stays as fast as it was.
"""
import importlib
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, make
from ._core import register, track, track1, result, results, Node

_REDUCTIONS = ('none', 'mean', 'sum')  # aten's Reduction enum: 0, 1, 2
# (the torch-level losses leave the loss unreduced unless given a reduction: their Python
# binding's default is 0, not the functional forms' 'mean')


def _F():
    return importlib.import_module('ember.nn.functional')


def _reduction(r):
    if isinstance(r, str):  # (also accepted, as the functional forms take it)
        return r
    # aten reduces only for Mean (1) and Sum (2): any other integer leaves the loss
    # unreduced, as 0 does
    return _REDUCTIONS[r] if r in (1, 2) else 'none'


def _fn(name):
    """Registers ``f`` as ``ember.<name>`` only (torch has these as functions, not methods)."""
    def deco(f):
        f.__name__ = f.__qualname__ = name
        register(f, method=False)
        return f
    return deco


# -- dropout -----------------------------------------------------------------------------------
def _check_p(p):
    """aten's check of ``p`` (the functional forms raise a ValueError first)."""
    from ..nn.functional._dropout import kernel_p
    kernel_p(p)


@_fn('dropout')
def dropout(input, p, train):
    """``nn.functional.dropout(input, p, training=train)``."""
    _check_p(p)
    return _F().dropout(input, p, train)


@_fn('alpha_dropout')
def alpha_dropout(input, p, train):
    """``nn.functional.alpha_dropout(input, p, training=train)``."""
    _check_p(p)
    return _F().alpha_dropout(input, p, train)


@_fn('feature_dropout')
def feature_dropout(input, p, train):
    """Dropout of whole channels (dim 1): one draw per (sample, channel)."""
    from ..nn.functional import _dropout as L
    _check_p(p)
    return L._feature_dropout(input, p, train, False)


@_fn('dropout_')
def dropout_(input, p, train):
    """In-place ``dropout``."""
    _check_p(p)
    return _F().dropout(input, p, train, True)


@_fn('alpha_dropout_')
def alpha_dropout_(input, p, train):
    """In-place ``alpha_dropout``."""
    _check_p(p)
    return _F().alpha_dropout(input, p, train, True)


@_fn('feature_dropout_')
def feature_dropout_(input, p, train):
    """In-place ``feature_dropout``."""
    from ..nn.functional import _dropout as L
    _check_p(p)
    return L._feature_dropout(input, p, train, True)


@_fn('embedding_renorm_')
def embedding_renorm_(input, indices, max_norm, norm_type):
    """Shrinks, in place and outside the graph, the rows of ``input`` that ``indices``
    name to norm ``max_norm`` at most (what ``embedding(max_norm=)`` does first)."""
    from ..nn.functional._sparse import _renorm_rows
    why = ' (while checking arguments for embedding_renorm_)'
    if input.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self'{why}")
    if indices.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{indices.dtype.type_string} instead{why}")
    rows = np.unique(indices._data)
    n = input.shape[0]
    floating = input.dtype.is_floating_point or input.dtype.is_complex
    for r in rows:  # (torch selects each row in order, then takes its norm)
        if not -n <= r < n:
            raise IndexError(f"select(): index {r} out of range for tensor of size "
                             f"{list(input.shape)} at dimension 0")
        if not floating:
            raise RuntimeError(f"norm(): input dtype should be either floating point or "
                               f"complex. Got {input.dtype.kernel_name} instead.")
        if rows[0] >= -n and rows[-1] < n:
            break  # (every row is in range: nothing more to check)
    if rows.size:  # (no index: torch writes nothing, an expanded weight included)
        _renorm_rows(input, rows, max_norm, norm_type)
    return input


class NativeDropoutBackward0(Node):
    """Gradient of native_dropout: the output gradient on the kept elements, scaled as the
    output was."""

    def backward(self, g):
        return g * make(self.mask)


@_fn('native_dropout')
def native_dropout(input, p, train):
    """``(output, mask)``: dropout's output and the bool mask of the kept elements. With
    ``train`` False the output is a copy of ``input`` and the mask all True."""
    from . import random as _random
    x = input._data
    # (an empty input or an evaluation-mode call draws no mask: neither p's range nor the
    # float scaling of an integer mask is checked then, as torch)
    drawn = train is not False and x.size
    if drawn and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got "
                           f"p={float(1 - p):g}")  # (a C++ double: -2, not -2.0)
    if drawn and x.dtype.kind in 'biu':  # (torch scales its mask as a float)
        from ..nn.functional._dropout import _float_mask
        _float_mask(x.dtype)
    if train is False:
        keep, scale = np.ones(x.shape, bool), 1.0
    else:
        keep = _random._rng(None).random(x.shape) >= p if p < 1 else np.zeros(x.shape, bool)
        scale = 0.0 if p >= 1 else 1 / (1 - p)
    mask = (keep * np.asarray(scale, x.dtype)).astype(x.dtype)
    n = track1(NativeDropoutBackward0, input)
    if n is not None:
        n.mask = mask
    # (torch hands an empty input back with a mask of the input's dtype, not bool)
    return result(x * mask, n), make(keep if x.size else keep.astype(x.dtype))


# -- normalisation -------------------------------------------------------------------------------
@_fn('batch_norm')
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``nn.functional.batch_norm`` with aten's argument order, without the functional
    form's check of one value per channel."""
    from ..nn.functional._normalization import batch_norm_kernel
    return batch_norm_kernel(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)


def _channel_stats(x, dims, eps):
    mean = x.mean(dims)
    invstd = 1 / np.sqrt(x.var(dims) + eps)
    return mean.astype(x.dtype), invstd.astype(x.dtype)


@_fn('native_batch_norm')
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``(output, save_mean, save_invstd)``: batch norm and, when training, the batch's
    per-channel mean and 1/std (empty tensors in evaluation)."""
    # (torch's order: its autograd's refusal of statistics that require grad; in evaluation
    # the pair of running statistics and the dtype; the channel count (its IndexError for a
    # 1-d input); the pair; the dtype -- all before the sizes of the parameters)
    from .backend_only import not_differentiable
    from ..nn.functional._normalization import batch_norm_channels, batch_norm_mixed_dtypes, \
        batch_norm_statistics_dims
    not_differentiable('native_batch_norm', (('running_mean', running_mean),
                                             ('running_var', running_var)))
    params = (weight, bias, running_mean, running_var)
    if input.dim() == 0:  # (torch's kernel fails on the reduced dims' count first)
        batch_norm_channels(input)
    if not training:
        _both_or_neither(running_mean, running_var)
        _batch_norm_dtype(input)
        batch_norm_mixed_dtypes(input, params)
    batch_norm_channels(input)
    if training and input._data.dtype.kind not in 'fcV' and not (
            input.is_contiguous() or input.is_contiguous(memory_format=_memory_format())):
        # (torch's kernel for a strided input takes the batch mean first: mean's refusal)
        input.mean((0,) + tuple(range(2, input.dim())))
    _both_or_neither(running_mean, running_var)
    _batch_norm_dtype(input)
    batch_norm_mixed_dtypes(input, params)
    if training and not input.numel():
        raise RuntimeError(f"input tensor must have at least one element, but got input_sizes "
                           f"= {list(input.shape)}")
    if input.numel():
        batch_norm_statistics_dims(running_mean, running_var)
    x = input._data
    dims = (0,) + tuple(range(2, x.ndim))
    stats = _channel_stats(x, dims, eps) if training and x.ndim >= 2 else \
        (np.zeros(0, x.dtype), np.zeros(0, x.dtype))
    out = batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                     False)
    return out, make(stats[0]), make(stats[1])


def _memory_format():
    from .._memory_format import channels_last
    return channels_last


def _batch_norm_dtype(input):
    if input._data.dtype.kind not in 'fV':
        from ._args import stands
        raise stands(NotImplementedError(f"\"batch_norm\" not implemented for "
                                         f"'{input.dtype.kernel_name}'"))


def _both_or_neither(running_mean, running_var):
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")


def _mixed_dtype_check(input, params):
    """torch's CPU rule for statistics of another dtype than the input (the first given one
    decides): then every one must be float32, and the input half or bfloat16."""
    given = [t for t in params if t is not None]
    if not given or given[0].dtype == input.dtype:
        return
    if any(t.dtype is not _dtype.float32 for t in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in (_dtype.float16, _dtype.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


@_fn('batch_norm_update_stats')
def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """``(mean, var)`` of each channel (dim 1) over the batch and trailing dims (the
    variance biased), moving ``running_mean``/``running_var`` (when given) towards them by
    ``momentum`` (the variance unbiased there). Not differentiable, as in torch."""
    from ..nn.functional._normalization import _update
    from .pointwise import NotImplemented_
    x = input._data
    if x.dtype.kind in 'biuc':  # (torch's kernel refuses them before it looks at shapes)
        from ._args import stands
        raise stands(NotImplementedError('"batch_norm_update_stats_cpu" not implemented for '
                                         f"'{input.dtype.kernel_name}'"))
    _mixed_dtype_check(input, (running_mean, running_var))
    if x.ndim == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    channels = x.shape[1] if x.ndim > 1 else input.size(1)
    if x.size == 0:
        raise RuntimeError(f"input tensor must have at least one element, but got input_sizes "
                           f"= {list(x.shape)}")
    from ..nn.functional._normalization import batch_norm_statistics_dims
    batch_norm_statistics_dims(running_mean, running_var)
    for t, name in ((running_mean, 'running_mean'), (running_var, 'running_var')):
        if t is not None and t.numel() < channels:
            # (torch's kernel writes past a short one -- see tests/fuzz/known.py; the
            # functional form's refusal)
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    given = [t for t in (running_mean, running_var) if t is not None]
    for t in given:  # (both statistics of one dtype: the first's)
        if t.dtype != given[0].dtype:
            raise RuntimeError(f"expected scalar type {given[0].dtype.kernel_name} but found "
                               f"{t.dtype.kernel_name}")
    dims = (0,) + tuple(range(2, x.ndim))
    mean, var = x.mean(dims), x.var(dims)
    count = x.size // channels
    # (torch updates the first ``channels`` elements of longer running statistics)
    if running_mean is not None:
        _update(running_mean[:channels], mean, momentum)
    if running_var is not None:
        _update(running_var[:channels], var * (count / (count - 1)), momentum)
    n = track(NotImplemented_, (input, running_mean, running_var))
    if n is not None:
        n.op = 'batch_norm_update_stats'
    # (mixed dtypes: the statistics come in their float32)
    out = given[0].dtype.np if given and given[0].dtype != input.dtype else x.dtype
    return tuple(results([mean.astype(out), var.astype(out)], n))


@_fn('layer_norm')
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
               cudnn_enable=True):
    """``nn.functional.layer_norm``."""
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


@_fn('native_layer_norm')
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``(output, mean, rstd)``: layer norm and each row's mean and 1/std, shaped as the
    input with the normalised dims kept as 1."""
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    x = input._data
    dims = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    x = x.astype(np.float32) if x.dtype == np.float16 or x.dtype.kind == 'V' else x
    with np.errstate(invalid='ignore', divide='ignore'):
        # (nothing to normalise: torch's mean is 0 and its rstd NaN)
        mean = x.mean(dims, keepdims=True) if x.size else \
            np.zeros([1 if d in dims else n for d, n in enumerate(x.shape)], x.dtype)
        rstd = 1 / np.sqrt(x.var(dims, keepdims=True) + eps)
    return out, make(mean.astype(input._data.dtype)), make(rstd.astype(input._data.dtype))


@_fn('group_norm')
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``nn.functional.group_norm``."""
    from ..nn.functional._normalization import group_norm_kernel
    if input.dim() == 0:  # (torch's composite reads the batch size, dim 0, first)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return group_norm_kernel(input, num_groups, weight, bias, eps)


def _dtype_first(fn):
    fn._dtype_first = True  # (the body refuses the kernel's dtypes in torch's order: _args)
    return fn


@_fn('native_group_norm')
@_dtype_first
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``(output, mean, rstd)``: group norm of ``input`` seen as (N, C, HxW) and each
    (sample, group)'s mean and 1/std, shaped (N, group)."""
    from ..nn.functional._normalization import group_norm_kernel, group_norm_checks
    x = input._data
    # (torch's order: the groups and parameters against the count C given, the layout the
    # kernel reads, then the element count)
    group_norm_checks(input, C, group, weight, bias)
    for n in (N, group):  # (the (N, group) statistics are allocated before the kernel runs)
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"[{N}, {group}]")
    if not (input.is_contiguous() or input.is_contiguous(memory_format=_memory_format())):
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got "
                           "false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")
    if x.dtype.kind not in 'fV':  # (the kernel's dispatch, before its count check)
        raise NotImplementedError('"GroupNormKernelImpl" not implemented for '
                                  f"'{input.dtype.kernel_name}'")
    if x.size != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    if x.ndim < 2:  # (the kernel reads the sizes given, not the input's dims)
        out = group_norm_kernel(input.reshape(N, C, HxW), group, weight, bias,
                                eps).reshape(x.shape)
    else:
        out = group_norm_kernel(input, group, weight, bias, eps)
    xg = x.reshape(N, group, -1) if x.size else x.reshape(N, group, 0)
    xg = xg.astype(np.float32) if x.dtype == np.float16 or x.dtype.kind == 'V' else xg
    with np.errstate(invalid='ignore', divide='ignore'):
        # (an empty group: torch's mean is 0 and its rstd NaN)
        mean = xg.mean(2) if xg.shape[2] else np.zeros(xg.shape[:2], xg.dtype)
        rstd = 1 / np.sqrt(xg.var(2) + eps)
    # (as torch's, the statistics are outputs of the graph that carry no gradient back)
    stats = [result(a.astype(x.dtype), track1(_StatsOfNorm, input)) for a in (mean, rstd)]
    return (out, *stats)


class _StatsOfNorm(Node):
    """The node of a native norm's mean and 1/std: they require grad when the input does,
    as torch's, but no gradient flows back through them (torch's formula ignores them)."""

    def backward(self, g):
        return None


@_fn('instance_norm')
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """``nn.functional.instance_norm`` with aten's argument order, without the functional
    form's check of one spatial element."""
    from ..nn.functional._normalization import instance_norm_kernel
    return instance_norm_kernel(input, weight, bias, running_mean, running_var,
                                use_input_stats, momentum, eps)


@_fn('rms_norm')
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``nn.functional.rms_norm``."""
    return _F().rms_norm(input, normalized_shape, weight, eps)


@_fn('norm_except_dim')
def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm over every dim but ``dim`` (kept, the others as size 1): what
    weight normalisation divides by. ``dim=-1`` is the norm of everything. Computed as torch
    does (rows of a 2-D view, transposes around), so the graph has torch's nodes."""
    if dim == -1:
        return _norm_of(v, pow)
    shape = [1] * v.dim()
    if dim == 0 or dim == v.dim() - 1:  # (else the transpose judges ``dim``)
        shape[dim] = v.size(dim)
    if dim == 0:
        return _norm_of(v.contiguous().view(v.shape[0], -1), pow, 1).view(shape)
    if dim == v.dim() - 1:
        return _norm_of(v.contiguous().view(-1, v.shape[-1]), pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _norm_of(v, pow, *dim):
    """``v.norm(pow, *dim)`` with the dtype check of the C++ ``at::norm`` torch's
    norm_except_dim calls (in its words, not those of ``Tensor.norm``'s vector_norm)."""
    if not (v.is_floating_point() or v.is_complex()):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {v.dtype.kernel_name} instead.")
    return v.norm(pow, *dim)


@_fn('_weight_norm')
def _weight_norm(v, g, dim=0):
    """``v * (g / norm_except_dim(v, 2, dim))``: weight normalisation's weight from its
    direction ``v`` and magnitude ``g`` (parametrizations.weight_norm's forward)."""
    return importlib.import_module('ember.nn.functional._normalization').weight_norm_kernel(
        v, g, dim)


# -- embedding and losses -----------------------------------------------------------------------
@_fn('embedding')
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``nn.functional.embedding(indices, weight, ...)``; aten's ``padding_idx=-1`` means
    none."""
    from ..nn.functional._sparse import embedding_kernel
    return embedding_kernel(indices, weight, None if padding_idx == -1 else padding_idx,
                            scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


@_fn('binary_cross_entropy_with_logits')
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``nn.functional.binary_cross_entropy_with_logits``, reduction as aten's int, without
    its Python-level check that ``target`` and ``input`` have one shape: ``input``
    broadcasts to ``target``'s."""
    from ..nn.functional._loss import bce_with_logits_checks
    shape = bce_with_logits_checks(input, target, weight, pos_weight)
    if tuple(input.shape) != shape:
        input = input.expand(shape)
    return _F().binary_cross_entropy_with_logits(input, target, weight,
                                                 reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


# (its checks -- the input's dtype before the shapes -- come in torch's order: ``_args``)
binary_cross_entropy_with_logits._dtype_first = True


@_fn('cosine_embedding_loss')
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``nn.functional.cosine_embedding_loss``, reduction as aten's int."""
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction(reduction))


@_fn('hinge_embedding_loss')
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``nn.functional.hinge_embedding_loss``, reduction as aten's int."""
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


@_fn('kl_div')
def kl_div(input, target, reduction=0, *, log_target=False):
    """``nn.functional.kl_div``, reduction as aten's int (1: the mean over all elements)."""
    with warnings.catch_warnings():  # (the functional form's warning about 'mean' is its own)
        warnings.simplefilter('ignore', UserWarning)
        return _F().kl_div(input, target, reduction=_reduction(reduction),
                           log_target=log_target)


@_fn('margin_ranking_loss')
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``nn.functional.margin_ranking_loss``, reduction as aten's int (operands of different
    dimension counts broadcast, as in aten)."""
    from ..nn.functional._loss import margin_ranking
    return margin_ranking(input1, input2, target, margin, _reduction(reduction))


@_fn('poisson_nll_loss')
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``nn.functional.poisson_nll_loss``, every argument given, reduction as an int."""
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction(reduction))


@_fn('triplet_margin_loss')
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    """``nn.functional.triplet_margin_loss``, reduction as aten's int; unlike the functional
    form, aten accepts a margin <= 0."""
    from ..nn.functional import _loss as L
    L._check_triplet_dims(anchor, positive, negative)
    return L._triplet(anchor, positive, negative,
                      lambda a, b: _F().pairwise_distance(a, b, p, eps), margin, swap,
                      _reduction(reduction))


# -- activations ---------------------------------------------------------------------------------
@_fn('celu')
def celu(input, alpha=1.0):
    """``nn.functional.celu``."""
    return _F().celu(input, alpha)


@_fn('selu')
def selu(input):
    """``nn.functional.selu``."""
    return _F().selu(input)


@_fn('rrelu')
def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """``nn.functional.rrelu``."""
    return _F().rrelu(input, lower, upper, training)


@_fn('threshold')
def threshold(input, threshold, value):
    """``nn.functional.threshold``."""
    return _F().threshold(input, threshold, value)


@_fn('celu_')
def celu_(input, alpha=1.0):
    """In-place ``celu``."""
    return _F().celu(input, alpha, True)


@_fn('selu_')
def selu_(input):
    """In-place ``selu``."""
    return _F().selu(input, True)


@_fn('rrelu_')
def rrelu_(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """In-place ``rrelu``."""
    return _F().rrelu(input, lower, upper, training, True)


@_fn('threshold_')
def threshold_(input, threshold, value):
    """In-place ``threshold``."""
    return _F().threshold(input, threshold, value, True)


@register
def hardshrink(self, lambd=0.5):
    """``nn.functional.hardshrink`` of ``self``."""
    return _F().hardshrink(self, lambd)


@register
def prelu(self, weight):
    """``nn.functional.prelu`` of ``self``."""
    return _F().prelu(self, weight)


# -- pooling, convolution, padding --------------------------------------------------------------
@_fn('avg_pool1d')
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """``nn.functional.avg_pool1d`` (an empty ``stride`` means the kernel size)."""
    return _F().avg_pool1d(input, kernel_size, stride, padding, ceil_mode,
                           count_include_pad)


@_fn('adaptive_avg_pool1d')
def adaptive_avg_pool1d(input, output_size):
    """``nn.functional.adaptive_avg_pool1d``."""
    return _F().adaptive_avg_pool1d(input, output_size)


# (its refusals are nn.functional's: none for a size of 1, which torch takes as a mean)
adaptive_avg_pool1d._refuses_dtypes = True


@_fn('pixel_shuffle')
def pixel_shuffle(input, upscale_factor):
    """``nn.functional.pixel_shuffle``."""
    return _F().pixel_shuffle(input, upscale_factor)


@_fn('pixel_unshuffle')
def pixel_unshuffle(input, downscale_factor):
    """``nn.functional.pixel_unshuffle``."""
    return _F().pixel_unshuffle(input, downscale_factor)


@_fn('channel_shuffle')
def channel_shuffle(input, groups):
    """``nn.functional.channel_shuffle``."""
    return _F().channel_shuffle(input, groups)


@_fn('bilinear')
def bilinear(input1, input2, weight, bias=None):
    """``nn.functional.bilinear``."""
    return _F().bilinear(input1, input2, weight, bias)


@_fn('max_pool1d')
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``nn.functional.max_pool1d`` (an empty ``stride`` means the kernel size)."""
    return _F().max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


@_fn('max_pool1d_with_indices')
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """``(output, indices)`` of ``max_pool1d``."""
    return _F().max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode,
                           return_indices=True)


@_fn('max_pool2d')
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``nn.functional.max_pool2d`` (an empty ``stride`` means the kernel size)."""
    return _F().max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


@_fn('adaptive_max_pool1d')
def adaptive_max_pool1d(input, output_size):
    """``(output, indices)`` of ``nn.functional.adaptive_max_pool1d``."""
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


@_fn('convolution')
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """The convolution (or, with ``transposed``, its transpose) of as many spatial dims as
    ``weight`` has beyond two, through ``nn.functional.conv<n>d``."""
    nd = weight.dim() - 2
    if nd < 1:  # (torch's first check, before any on the input or the other arguments)
        raise RuntimeError('weight should have at least three dimensions')
    F = _F()
    if transposed:
        return getattr(F, f'conv_transpose{nd}d')(input, weight, bias, stride, padding,
                                                  output_padding, groups, dilation)
    return getattr(F, f'conv{nd}d')(input, weight, bias, stride, padding, dilation, groups)


@_fn('conv1d')
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``nn.functional.conv1d`` (torch has it in its namespace too)."""
    return _F().conv1d(input, weight, bias, stride, padding, dilation, groups)


@_fn('conv2d')
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``nn.functional.conv2d`` (torch has it in its namespace too)."""
    return _F().conv2d(input, weight, bias, stride, padding, dilation, groups)


@_fn('conv_transpose1d')
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``nn.functional.conv_transpose1d`` (torch has it in its namespace too)."""
    return _F().conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
                                 dilation)


@_fn('conv_transpose2d')
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``nn.functional.conv_transpose2d`` (torch has it in its namespace too)."""
    return _F().conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                                 dilation)


@_fn('constant_pad_nd')
def constant_pad_nd(input, pad, value=0):
    """``nn.functional.pad`` with a constant (any number: torch's is a Scalar)."""
    from ..nn.functional._padding import padded
    return padded(input, list(pad), 'constant', value, direct=True)


# -- recurrent layers ----------------------------------------------------------------------------
class _Layers:
    """What ``RNNBase._run`` reads from a module, made from aten's flat parameter list
    (per layer and direction: w_ih, w_hh, then b_ih, b_hh if ``has_biases``, then w_hr if
    the LSTM projects)."""

    def __init__(self, mode, params, has_biases, num_layers, dropout, train, bidirectional):
        self.mode, self.num_layers, self.dropout = mode, num_layers, dropout
        self.training, self.bidirectional, self.bias = train, bidirectional, has_biases
        per = len(params) // (num_layers * (2 if bidirectional else 1))
        self.proj_size = per - (4 if has_biases else 2)
        it = iter(params)
        for layer in range(num_layers):
            for suffix in ('', '_reverse')[:2 if bidirectional else 1]:
                names = ['weight_ih', 'weight_hh'] + (['bias_ih', 'bias_hh'] if has_biases
                                                      else [])
                names += ['weight_hr'] if self.proj_size else []
                for k in names:
                    setattr(self, f'{k}_l{layer}{suffix}', next(it))


def _check_rnn_params(mode, hx, params, has_biases, num_layers, bidirectional):
    """torch's checks of the flat parameter list (and an LSTM's two states), in its order."""
    if mode == 'LSTM' and len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    # projections (h smaller than c): each layer adds its weight_hr
    projects = mode == 'LSTM' and hx[0].shape[-1:] != hx[1].shape[-1:]
    per = (4 if has_biases else 2) + projects
    if len(params) % per:
        if mode == 'LSTM' and not projects:
            raise RuntimeError(f"MatrixRef: ArrayRef size {len(params)} not divisible by "
                               f"stride {per}")
        raise RuntimeError("got an incorrect number of RNN parameters")
    # (a GRU or RNN then splits its state per layer, reading its dim 0 -- an IndexError
    # when it is 0-d -- and pairs params and states per direction; torch's CPU LSTM takes
    # another path, which counts the layers only)
    hiddens = hx.size(0) if mode != 'LSTM' else 2 * num_layers if bidirectional else num_layers
    if bidirectional and (len(params) // per % 2 or hiddens % 2):
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    if num_layers < 1 or num_layers != hiddens // (2 if bidirectional else 1):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if len(params) // per != num_layers * (2 if bidirectional else 1):
        raise RuntimeError("Expected more weights in stacked_rnn")


def _sequence(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
              batch_first, batch_sizes=None):
    """The layers over ``input`` (time-major, or batch-first), or over packed data
    ``input`` with ``batch_sizes`` (torch's second overload of each op)."""
    from ..nn.modules.rnn import RNNBase
    if mode == 'LSTM':
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        # (torch compares the states' last sizes first, to spot projections: the second
        # state's read first)
        hx[1].size(2)
        hx[0].size(2)
    if batch_first:  # (torch transposes before it looks at the parameters)
        input = input.transpose(0, 1)
    _check_rnn_params(mode, hx, params, has_biases, num_layers, bidirectional)
    if batch_sizes is not None and batch_sizes.dtype is not _dtype.int64:
        # (the packed layers read the sizes as int64 only when they run)
        raise RuntimeError(f"expected scalar type Long but found {batch_sizes.dtype.kernel_name}")
    if input.dim() <= 1:
        # (torch's layer projects the whole input first, then splits the projection into
        # steps -- packed layers by narrowing it -- which a 0-d one refuses)
        if _F().linear(input, params[0]).dim() == 0:
            if batch_sizes is not None:
                raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    layers = _Layers(mode, params, has_biases, num_layers, dropout, train, bidirectional)
    states = list(hx) if mode == 'LSTM' else [hx]
    steps = [int(b) for b in batch_sizes._data.reshape(-1)] if batch_sizes is not None \
        else [input.shape[1]] * input.shape[0]
    out, h_n = RNNBase._run(layers, input, states, steps)
    if batch_first:
        out = out.transpose(0, 1)
    return (out,) + (tuple(h_n) if mode == 'LSTM' else (h_n,))


def _recurrent(mode, args):
    """An aten recurrent op's call, either form: ``(input, hx, params, has_biases,
    num_layers, dropout, train, bidirectional, batch_first)`` or the packed ``(data,
    batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)`` --
    told apart, as torch's parser does, by a tensor where the first form has ``hx`` (an
    LSTM's is a list) or ``params``."""
    packed = isinstance(args[1] if mode == 'LSTM' else args[2], Tensor)
    if packed:
        data, batch_sizes, *rest = args
        return _sequence(mode, data, *rest, False, batch_sizes=batch_sizes)
    return _sequence(mode, *args)


@_fn('lstm')
def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first):
    """``(output, h_n, c_n)`` of an LSTM over ``input`` from ``hx = (h_0, c_0)``, weights
    in aten's flat order."""
    return _recurrent('LSTM', (input, hx, params, has_biases, num_layers, dropout, train,
                            bidirectional, batch_first))


@_fn('gru')
def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """``(output, h_n)`` of a GRU over ``input`` from ``hx``."""
    return _recurrent('GRU', (input, hx, params, has_biases, num_layers, dropout, train,
                           bidirectional, batch_first))


@_fn('rnn_tanh')
def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    """``(output, h_n)`` of an Elman RNN with tanh."""
    return _recurrent('RNN_TANH', (input, hx, params, has_biases, num_layers, dropout, train,
                                bidirectional, batch_first))


@_fn('rnn_relu')
def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    """``(output, h_n)`` of an Elman RNN with relu."""
    return _recurrent('RNN_RELU', (input, hx, params, has_biases, num_layers, dropout, train,
                                bidirectional, batch_first))


_GATES = {'LSTM': 4, 'GRU': 3}


def _check_cell(mode, input, hx, w_ih, w_hh):
    """torch's checks of one cell step, in its order for the cell (sizes read as torch reads
    them: its IndexError for too few dims): both weights' gate rows against the hidden size
    (``w_hh``'s columns), the input size (``w_ih``'s columns), each hidden state's batch and
    size."""
    gates = _GATES.get(mode, 1)

    def weights():
        hidden = w_hh.size(1)
        for name, w in (('weight_ih', w_ih), ('weight_hh', w_hh)):
            if w.size(0) != gates * hidden:
                raise RuntimeError(f"{name} first dim must be {gates} * hidden_size = "
                                   f"{gates * hidden}, but got {w.size(0)}")

    def inputs():
        if input.size(1) != w_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {w_ih.size(1)}")

    def hiddens():
        hidden = w_hh.size(1)
        for label, h in enumerate(hx if mode == 'LSTM' else (hx,)):
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match "
                                   f"hidden{label} batch size {h.size(0)}")
            if h.size(1) != hidden:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                                   f"{h.size(1)}, expected {hidden}")

    if mode == 'LSTM':
        w_hh.size(1)  # (torch's lstm_cell reads the hidden size before any check)
    order = {'LSTM': (inputs, weights, hiddens), 'GRU': (inputs, hiddens, weights)}
    for check in order.get(mode, (weights, inputs, hiddens)):
        check()


def _cell(mode, input, hx, w_ih, w_hh, b_ih, b_hh):
    from ..nn.modules import rnn
    if mode == 'LSTM' and len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell(mode, input, hx, w_ih, w_hh)
    x_proj = _F().linear(input, w_ih, b_ih)
    return rnn._STEPS[mode](x_proj, tuple(hx) if mode == 'LSTM' else hx, w_hh, b_hh)


@_fn('lstm_cell')
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: ``(h', c')`` from ``hx = (h, c)``."""
    return _cell('LSTM', input, hx, w_ih, w_hh, b_ih, b_hh)


@_fn('gru_cell')
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: ``h'``."""
    return _cell('GRU', input, hx, w_ih, w_hh, b_ih, b_hh)


@_fn('rnn_tanh_cell')
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with tanh: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return _cell('RNN_TANH', input, hx, w_ih, w_hh, b_ih, b_hh)


@_fn('rnn_relu_cell')
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with relu."""
    return _cell('RNN_RELU', input, hx, w_ih, w_hh, b_ih, b_hh)

