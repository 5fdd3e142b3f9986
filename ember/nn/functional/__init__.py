"""nn.functional: the stateless versions of the layers. This module only gathers them: each
family lives in its own private module (``_activation``, ``_loss``, ``_conv``, ``_pooling``,
``_normalization``, ``_dropout``, ``_sparse``, ``_vision``, ``_attention``, ``_distance``...)
and every function is exported here wrapped so that it goes through ``__torch_function__``, as
the ember namespace's functions do, under the name ``ember.nn.functional.<name>``.
"""
import warnings as _warnings

from ...overrides import overridable as _overridable
from . import (_activation, _attention, _conv, _distance, _dropout, _linear, _loss,
               _normalization, _padding, _pooling, _rearrange, _sparse, _vision)

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




def _export(impl, name, doc):
    f = _overridable(impl, 'ember.nn.functional.' + name)
    f.__doc__ = doc
    # (where the user reaches it, as torch's: pickle finds a function by these two)
    f.__module__, f.__qualname__ = __name__, name
    return f


linear = _export(_linear.linear, 'linear', "``input @ weight.T + bias``.")
relu = _export(_activation.relu, 'relu',
               "max(input, 0), elementwise (in place with ``inplace=True``).")
leaky_relu = _export(_activation.leaky_relu, 'leaky_relu',
                     "``x`` where positive, ``negative_slope * x`` elsewhere.")
elu = _export(_activation.elu, 'elu', "``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.")
gelu = _export(_activation.gelu, 'gelu',
               "``x * Phi(x)`` (``approximate='tanh'``: the tanh formula).")
silu = _export(_activation.silu, 'silu', "``x * sigmoid(x)``.")
sigmoid = _export(_activation.sigmoid, 'sigmoid', "``1 / (1 + exp(-x))``.")
tanh = _export(_activation.tanh, 'tanh', "Hyperbolic tangent.")
softmax = _export(_activation.softmax, 'softmax',
                  "Softmax over ``dim`` (legacy implicit dim if None).")
log_softmax = _export(_activation.log_softmax, 'log_softmax',
                      "Log-softmax over ``dim`` (legacy implicit dim if None).")
softplus = _export(_activation.softplus, 'softplus',
                   "``log(1 + exp(beta * x)) / beta``, linear above ``threshold``.")
hardtanh = _export(_activation.hardtanh, 'hardtanh', "``x`` clamped to ``[min_val, max_val]``.")
relu6 = _export(_activation.relu6, 'relu6', "``min(max(x, 0), 6)`` (hardtanh with limits 0 and 6).")
selu = _export(_activation.selu, 'selu',
               "``scale * elu(x, alpha)`` with the self-normalising constants.")
celu = _export(_activation.celu, 'celu', "``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.")
mish = _export(_activation.mish, 'mish', "``x * tanh(softplus(x))``.")
hardswish = _export(_activation.hardswish, 'hardswish', "``x * relu6(x + 3) / 6``.")
hardsigmoid = _export(_activation.hardsigmoid, 'hardsigmoid', "``relu6(x + 3) / 6``.")
logsigmoid = _export(_activation.logsigmoid, 'logsigmoid', "``log(sigmoid(x))``, computed stably.")
softsign = _export(_activation.softsign, 'softsign', "``x / (1 + |x|)``.")
softmin = _export(_activation.softmin, 'softmin',
                  "``softmax(-x)`` over ``dim`` (legacy implicit dim "
                  "if None).")
tanhshrink = _export(_activation.tanhshrink, 'tanhshrink', "``x - tanh(x)``.")
softshrink = _export(_activation.softshrink, 'softshrink',
                     "``x`` moved ``lambd`` toward 0, 0 inside ``[-lambd, lambd]``.")
hardshrink = _export(_activation.hardshrink, 'hardshrink', "``x``, 0 inside ``[-lambd, lambd]``.")
threshold = _export(_activation.threshold, 'threshold',
                    "``value`` where ``x <= threshold``, else ``x``.")
glu = _export(_activation.glu, 'glu', "``a * sigmoid(b)`` for the two halves ``a, b`` of ``dim``.")
prelu = _export(_activation.prelu, 'prelu',
                "``x`` where positive, ``weight * x`` elsewhere (one weight per channel).")
rrelu = _export(_activation.rrelu, 'rrelu', "Leaky ReLU with random slopes in ``[lower, upper]`` "
                "(their mean when not training).")
relu_ = _export(_activation.relu_, 'relu_', "In-place ``relu``.")
elu_ = _export(_activation.elu_, 'elu_',
               "In-place ``elu`` (also takes torch's ``scale`` and ``input_scale``).")
leaky_relu_ = _export(_activation.leaky_relu_, 'leaky_relu_', "In-place ``leaky_relu``.")
hardtanh_ = _export(_activation.hardtanh_, 'hardtanh_', "In-place ``hardtanh``.")
selu_ = _export(_activation.selu_, 'selu_', "In-place ``selu``.")
celu_ = _export(_activation.celu_, 'celu_', "In-place ``celu``.")
threshold_ = _export(_activation.threshold_, 'threshold_', "In-place ``threshold``.")
rrelu_ = _export(_activation.rrelu_, 'rrelu_',
                 "In-place ``rrelu`` (with an optional ``generator``).")
mse_loss = _export(_loss._mse_loss, 'mse_loss', "Mean squared error.")
l1_loss = _export(_loss._l1_loss, 'l1_loss', "Mean absolute error.")
smooth_l1_loss = _export(_loss._smooth_l1_loss, 'smooth_l1_loss',
                         "Squared error below ``beta``, absolute error above.")
cross_entropy = _export(_loss._cross_entropy, 'cross_entropy',
                        "Cross entropy of logits against class indices or probabilities.")
nll_loss = _export(_loss._nll_loss, 'nll_loss', "Negative log likelihood of log-probabilities.")
binary_cross_entropy = _export(_loss._binary_cross_entropy, 'binary_cross_entropy',
                               "Binary cross entropy of probabilities.")
binary_cross_entropy_with_logits = _export(
    _loss._binary_cross_entropy_with_logits, 'binary_cross_entropy_with_logits',
    "Binary cross entropy of logits (with ``pos_weight`` for positives).")
kl_div = _export(_loss._kl_div, 'kl_div', "Kullback-Leibler divergence of log-probabilities.")
dropout = _export(_dropout.dropout, 'dropout',
                  "Zeroes elements with probability ``p``, scales the rest by ``1/(1-p)``.")
layer_norm = _export(_normalization.layer_norm, 'layer_norm',
                     "Normalises over the trailing ``normalized_shape`` dims.")
embedding = _export(_sparse.embedding, 'embedding', "Rows of ``weight`` picked by ``input``.")
pad = _export(_padding.pad, 'pad',
              "Pads (or crops) the last dims: constant/reflect/replicate/circular.")
one_hot = _export(_sparse.one_hot, 'one_hot', "int64 one-hot encoding of class indices.")
normalize = _export(_normalization.normalize, 'normalize',
                    "``input`` divided by its p-norm along ``dim``.")
cosine_similarity = _export(_distance.cosine_similarity, 'cosine_similarity',
                            "Cosine similarity of ``x1`` and ``x2`` along ``dim``.")
batch_norm = _export(_normalization.batch_norm, 'batch_norm',
                     "Normalises each channel over the batch (batch or running statistics).")
group_norm = _export(_normalization.group_norm, 'group_norm',
                     "Normalises each sample over groups of channels.")
conv1d = _export(_conv.conv1d, 'conv1d',
                 "1-d cross-correlation (padding int/tuple/'valid'/'same').")
conv2d = _export(_conv.conv2d, 'conv2d',
                 "2-d cross-correlation (padding int/tuple/'valid'/'same').")
conv_transpose2d = _export(_conv.conv_transpose2d, 'conv_transpose2d',
                           "Transposed 2-d convolution (the adjoint of conv2d).")
scaled_dot_product_attention = _export(
    _attention.scaled_dot_product_attention, 'scaled_dot_product_attention',
    "``softmax(q @ k^T * scale + mask) @ v`` over the last two dims.")
multi_head_attention_forward = _export(
    _attention.multi_head_attention_forward, 'multi_head_attention_forward',
    "The computation of nn.MultiheadAttention on (L, N, E) inputs.")
max_pool1d = _export(_pooling.max_pool1d, 'max_pool1d', "Max pooling over the last dim.")
max_pool2d = _export(_pooling.max_pool2d, 'max_pool2d', "Max pooling over the last two dims.")
avg_pool1d = _export(_pooling.avg_pool1d, 'avg_pool1d', "Average pooling over the last dim.")
avg_pool2d = _export(_pooling.avg_pool2d, 'avg_pool2d', "Average pooling over the last two dims.")
adaptive_avg_pool2d = _export(_pooling.adaptive_avg_pool2d, 'adaptive_avg_pool2d',
                              "Average pooling to a fixed output size.")
bilinear = _export(_linear.bilinear, 'bilinear',
                   "``x1^T A x2 + b`` for each output feature (weight (out, in1, in2)).")
interpolate = _export(_vision.interpolate, 'interpolate',
                      "Resamples the spatial dims: nearest / nearest-exact / area / linear / "
                      "bilinear / bicubic / trilinear.")

def _export_documented(module, name):
    impl = getattr(module, name)
    return _export(impl, name, impl.__doc__)


huber_loss = _export_documented(_loss, 'huber_loss')
soft_margin_loss = _export_documented(_loss, 'soft_margin_loss')
margin_ranking_loss = _export_documented(_loss, 'margin_ranking_loss')
hinge_embedding_loss = _export_documented(_loss, 'hinge_embedding_loss')
cosine_embedding_loss = _export_documented(_loss, 'cosine_embedding_loss')
poisson_nll_loss = _export_documented(_loss, 'poisson_nll_loss')
gaussian_nll_loss = _export_documented(_loss, 'gaussian_nll_loss')
pairwise_distance = _export_documented(_distance, 'pairwise_distance')
pdist = _export_documented(_distance, 'pdist')
triplet_margin_loss = _export_documented(_loss, 'triplet_margin_loss')
triplet_margin_with_distance_loss = _export_documented(_loss, 'triplet_margin_with_distance_loss')
multilabel_soft_margin_loss = _export_documented(_loss, 'multilabel_soft_margin_loss')
multi_margin_loss = _export_documented(_loss, 'multi_margin_loss')
multilabel_margin_loss = _export_documented(_loss, 'multilabel_margin_loss')
rms_norm = _export(_normalization.rms_norm, 'rms_norm',
                   "Divides by the root mean square over the trailing ``normalized_shape`` dims.")
instance_norm = _export(_normalization.instance_norm, 'instance_norm',
                        "Normalises each channel of each sample over its spatial dims.")
local_response_norm = _export(_normalization.local_response_norm, 'local_response_norm',
                              "Divides by the mean of squares over neighbouring channels.")
__all__ += ['rms_norm', 'instance_norm', 'local_response_norm']
adaptive_max_pool1d = _export(_pooling.adaptive_max_pool1d, 'adaptive_max_pool1d',
                              "Max pooling of the last dim to a fixed output size.")
adaptive_max_pool2d = _export(_pooling.adaptive_max_pool2d, 'adaptive_max_pool2d',
                              "Max pooling of the last two dims to a fixed output size.")
adaptive_max_pool1d_with_indices = _export(
    _pooling.adaptive_max_pool1d_with_indices, 'adaptive_max_pool1d_with_indices',
    "Adaptive 1-d max pooling returning (output, indices).")
adaptive_max_pool2d_with_indices = _export(
    _pooling.adaptive_max_pool2d_with_indices, 'adaptive_max_pool2d_with_indices',
    "Adaptive 2-d max pooling returning (output, indices).")
adaptive_avg_pool1d = _export(_pooling.adaptive_avg_pool1d, 'adaptive_avg_pool1d',
                              "Average pooling of the last dim to a fixed output size.")
max_pool1d_with_indices = _export(_pooling.max_pool1d_with_indices, 'max_pool1d_with_indices',
                                  "1-d max pooling returning (output, indices).")
max_pool2d_with_indices = _export(_pooling.max_pool2d_with_indices, 'max_pool2d_with_indices',
                                  "2-d max pooling returning (output, indices).")
max_unpool1d = _export(_pooling.max_unpool1d, 'max_unpool1d',
                       "Partial inverse of max_pool1d: values back at their indices.")
max_unpool2d = _export(_pooling.max_unpool2d, 'max_unpool2d',
                       "Partial inverse of max_pool2d: values back at their indices.")
lp_pool1d = _export(_pooling.lp_pool1d, 'lp_pool1d',
                    "Power-average (p-norm) pooling over the last dim.")
lp_pool2d = _export(_pooling.lp_pool2d, 'lp_pool2d',
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
dropout1d = _export(_dropout.dropout1d, 'dropout1d',
                    "Zeroes whole channels of (N, C, L) inputs, scales the rest by 1/(1-p).")
dropout2d = _export(_dropout.dropout2d, 'dropout2d',
                    "Zeroes whole channels of (N, C, H, W) inputs, scales the rest by 1/(1-p).")
dropout3d = _export(_dropout.dropout3d, 'dropout3d',
                    "Zeroes whole channels of (N, C, D, H, W) inputs, scales the rest by 1/(1-p).")
alpha_dropout = _export(_dropout.alpha_dropout, 'alpha_dropout',
                        "Dropout keeping SELU activations' mean and variance.")
conv_transpose1d = _export(_conv.conv_transpose1d, 'conv_transpose1d',
                           "Transposed 1-d convolution (the adjoint of conv1d).")

# -- issue 14: the rest of torch.nn.functional (documented where they are defined) ----------
_POOLING = ('max_pool3d', 'max_pool3d_with_indices', 'avg_pool3d', 'adaptive_avg_pool3d',
            'adaptive_max_pool3d', 'adaptive_max_pool3d_with_indices', 'max_unpool3d',
            'lp_pool3d', 'fractional_max_pool2d', 'fractional_max_pool2d_with_indices',
            'fractional_max_pool3d', 'fractional_max_pool3d_with_indices')


def _export_from(module, names):
    """Exports ``names`` of ``module`` (each documented there) into this namespace."""
    for name in names:
        globals()[name] = _export_documented(module, name)
    __all__.extend(names)


_export_from(_pooling, _POOLING)
_export_from(_conv, ('conv3d', 'conv_transpose3d', 'conv_tbc'))
_export_from(_vision, ('grid_sample', 'affine_grid'))
_export_from(_sparse, ('embedding_bag',))
_export_from(_loss, ('ctc_loss',))
_export_from(_loss, ('linear_cross_entropy',))
_export_from(_activation, ('gumbel_softmax',))
_export_from(_dropout, ('feature_alpha_dropout',))
_export_from(_rearrange, ('native_channel_shuffle',))


def upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    """Deprecated: ``interpolate`` with the same arguments."""
    _warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                   "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode='nearest')``."""
    _warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                   "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode='nearest')


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode='bilinear', align_corners=True)``."""
    _warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                   "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)

