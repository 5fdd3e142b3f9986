"""The module classes of ember.nn, one file per family (as torch.nn.modules)."""
from .module import Module
from . import utils  # noqa: F401  (nn.modules.utils: checkpoint helpers)
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Linear, Bilinear, Identity, LazyLinear
from .flatten import Flatten, Unflatten
from .activation import (ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax,
                         LogSoftmax, Softplus, Hardtanh, ReLU6, SELU, CELU, Mish, Hardswish,
                         Hardsigmoid, LogSigmoid, Softsign, Softmin, Tanhshrink, Softshrink,
                         Hardshrink, Threshold, GLU, PReLU, RReLU, Softmax2d)
from .loss import (MSELoss, L1Loss, SmoothL1Loss, CrossEntropyLoss, NLLLoss, BCELoss,
                   BCEWithLogitsLoss, KLDivLoss)
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout
from .sparse import Embedding
from .normalization import LayerNorm, GroupNorm
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import (Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, LazyConv1d, LazyConv2d,
                   LazyConvTranspose1d, LazyConvTranspose2d)
from .lazy import LazyModuleMixin
from .pooling import (MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool2d,
                      AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveAvgPool1d, MaxUnpool1d,
                      MaxUnpool2d, LPPool1d, LPPool2d)
from .transformer import (MultiheadAttention, TransformerEncoderLayer, TransformerEncoder,
                          TransformerDecoderLayer, TransformerDecoder, Transformer)
from .rnn import RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell
from .upsampling import Upsample
from .loss import (HuberLoss, SoftMarginLoss, MarginRankingLoss, HingeEmbeddingLoss,
                   CosineEmbeddingLoss, PoissonNLLLoss, GaussianNLLLoss, TripletMarginLoss,
                   TripletMarginWithDistanceLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                   MultiLabelMarginLoss)
from .distance import PairwiseDistance, CosineSimilarity
from .normalization import RMSNorm, LocalResponseNorm, CrossMapLRN2d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .padding import (ZeroPad1d, ZeroPad2d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReplicationPad1d, ReplicationPad2d,
                      CircularPad1d, CircularPad2d)
from .pixelshuffle import PixelShuffle, PixelUnshuffle, ChannelShuffle
from .conv import Conv3d, ConvTranspose3d, LazyConv3d, LazyConvTranspose3d
from .pooling import (MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d, MaxUnpool3d,
                      LPPool3d, FractionalMaxPool2d, FractionalMaxPool3d)
from .dropout import FeatureAlphaDropout
from .sparse import EmbeddingBag
from .loss import CTCLoss
from .fold import Unfold, Fold
from .container import Container
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .loss import NLLLoss2d
from .rnn import RNNBase, RNNCellBase
from .upsampling import UpsamplingNearest2d, UpsamplingBilinear2d
from .padding import ZeroPad3d, ReflectionPad3d, ReplicationPad3d, CircularPad3d
from .batchnorm import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, SyncBatchNorm
from .instancenorm import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d

__all__ = [
    'Module', 'LazyModuleMixin', 'LazyLinear', 'LazyConv1d', 'LazyConv2d', 'LazyConvTranspose1d',
    'LazyConvTranspose2d', 'Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict',
    'Linear', 'Bilinear', 'Identity', 'Flatten', 'Unflatten', 'Upsample',
    'ReLU', 'LeakyReLU', 'ELU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'Softmax', 'LogSoftmax',
    'Softplus', 'Hardtanh', 'ReLU6', 'SELU', 'CELU', 'Mish', 'Hardswish', 'Hardsigmoid',
    'LogSigmoid', 'Softsign', 'Softmin', 'Tanhshrink', 'Softshrink', 'Hardshrink', 'Threshold',
    'GLU', 'PReLU', 'RReLU', 'Softmax2d',
    'MSELoss', 'L1Loss', 'SmoothL1Loss', 'CrossEntropyLoss', 'NLLLoss', 'BCELoss',
    'BCEWithLogitsLoss', 'KLDivLoss',
    'Dropout', 'Embedding', 'LayerNorm', 'GroupNorm', 'BatchNorm1d', 'BatchNorm2d',
    'BatchNorm3d', 'Conv1d', 'Conv2d', 'ConvTranspose2d', 'MaxPool1d', 'MaxPool2d',
    'AvgPool1d', 'AvgPool2d', 'AdaptiveAvgPool2d', 'MultiheadAttention',
    'TransformerEncoderLayer', 'RNN', 'LSTM', 'GRU', 'RNNCell', 'LSTMCell', 'GRUCell',
    'HuberLoss', 'SoftMarginLoss', 'MarginRankingLoss', 'HingeEmbeddingLoss',
    'CosineEmbeddingLoss', 'PoissonNLLLoss', 'GaussianNLLLoss', 'TripletMarginLoss',
    'TripletMarginWithDistanceLoss', 'MultiLabelSoftMarginLoss', 'MultiMarginLoss',
    'MultiLabelMarginLoss', 'PairwiseDistance', 'CosineSimilarity',
    'TransformerEncoder', 'TransformerDecoderLayer', 'TransformerDecoder', 'Transformer',
    'RMSNorm', 'LocalResponseNorm', 'CrossMapLRN2d', 'InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d',
    'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d', 'AdaptiveAvgPool1d', 'MaxUnpool1d', 'MaxUnpool2d',
    'LPPool1d', 'LPPool2d',
    'ZeroPad1d', 'ZeroPad2d', 'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d',
    'ReflectionPad1d', 'ReflectionPad2d', 'ReplicationPad1d', 'ReplicationPad2d',
    'CircularPad1d', 'CircularPad2d',
    'PixelShuffle', 'PixelUnshuffle', 'ChannelShuffle',
    'Unfold', 'Fold', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout', 'ConvTranspose1d',
    'Conv3d', 'ConvTranspose3d', 'LazyConv3d', 'LazyConvTranspose3d', 'MaxPool3d', 'AvgPool3d',
    'AdaptiveAvgPool3d', 'AdaptiveMaxPool3d', 'MaxUnpool3d', 'LPPool3d', 'FractionalMaxPool2d',
    'FractionalMaxPool3d', 'FeatureAlphaDropout', 'EmbeddingBag', 'CTCLoss',
    'Container', 'NLLLoss2d', 'RNNBase', 'RNNCellBase', 'UpsamplingNearest2d',
    'UpsamplingBilinear2d', 'ZeroPad3d', 'ReflectionPad3d', 'ReplicationPad3d', 'CircularPad3d',
    'LazyBatchNorm1d', 'LazyBatchNorm2d', 'LazyBatchNorm3d', 'LazyInstanceNorm1d',
    'LazyInstanceNorm2d', 'LazyInstanceNorm3d', 'SyncBatchNorm', 'AdaptiveLogSoftmaxWithLoss',
]
