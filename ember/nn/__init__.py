"""ember.nn: Parameter, Module and the layers built on them (growing; see the issues)."""
from .parameter import Parameter  # noqa: F401
from .modules import Module, Sequential, ModuleList, ModuleDict, Linear, Identity  # noqa: F401
from .modules import ParameterList, ParameterDict, Flatten, Unflatten  # noqa: F401
from .modules import Dropout, LayerNorm, Embedding  # noqa: F401
from .modules import (ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax,  # noqa: F401
                      LogSoftmax, Softplus, Hardtanh, MSELoss, L1Loss, SmoothL1Loss,
                      CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss)
from . import functional, init, utils  # noqa: F401
