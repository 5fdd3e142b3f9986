"""The module classes of ember.nn."""
from .module import Module  # noqa: F401
from .container import (Sequential, ModuleList, ModuleDict, ParameterList,  # noqa: F401
                        ParameterDict)
from .flatten import Flatten, Unflatten  # noqa: F401
from .linear import Linear, Identity  # noqa: F401
from .dropout import Dropout  # noqa: F401
from .normalization import LayerNorm  # noqa: F401
from .sparse import Embedding  # noqa: F401
from .activation import (ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax,  # noqa: F401
                         LogSoftmax, Softplus, Hardtanh)
from .loss import (MSELoss, L1Loss, SmoothL1Loss, CrossEntropyLoss, NLLLoss,  # noqa: F401
                   BCELoss, BCEWithLogitsLoss, KLDivLoss)
