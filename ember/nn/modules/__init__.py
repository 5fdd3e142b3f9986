"""The module classes of ember.nn, one file per family (as torch.nn.modules)."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Linear, Bilinear, Identity
from .flatten import Flatten, Unflatten
from .activation import (ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax,
                         LogSoftmax, Softplus, Hardtanh, ReLU6, SELU, CELU, Mish, Hardswish,
                         Hardsigmoid, LogSigmoid, Softsign, Softmin, Tanhshrink, Softshrink,
                         Hardshrink, Threshold, GLU, PReLU, RReLU, Softmax2d)
from .loss import (MSELoss, L1Loss, SmoothL1Loss, CrossEntropyLoss, NLLLoss, BCELoss,
                   BCEWithLogitsLoss, KLDivLoss)
from .dropout import Dropout
from .sparse import Embedding
from .normalization import LayerNorm, GroupNorm
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .pooling import MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool2d
from .transformer import MultiheadAttention, TransformerEncoderLayer
from .rnn import RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell
from .upsampling import Upsample

__all__ = [
    'Module', 'Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict',
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
]
