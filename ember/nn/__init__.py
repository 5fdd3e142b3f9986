"""ember.nn: Parameter, Module and the layers built on them (growing; see the issues)."""
from .parameter import Buffer, Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403  (the layer classes; the list is modules.__all__)
from . import functional, init, parallel, utils  # noqa: F401
from .parallel import DataParallel  # noqa: F401,E402  (torch.nn.DataParallel, as torch has it)
