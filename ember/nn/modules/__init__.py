"""The module classes of ember.nn."""
from .module import Module  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict  # noqa: F401
from .linear import Linear, Identity  # noqa: F401
from .activation import (ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax,  # noqa: F401
                         LogSoftmax, Softplus, Hardtanh)
from .loss import (MSELoss, L1Loss, SmoothL1Loss, CrossEntropyLoss, NLLLoss,  # noqa: F401
                   BCELoss, BCEWithLogitsLoss, KLDivLoss)
