"""ember.nn: Parameter, Module and the layers built on them (growing; see the issues)."""
from .parameter import Parameter  # noqa: F401
from .modules import Module, Sequential, ModuleList, ModuleDict, Linear, Identity  # noqa: F401
from . import functional, init  # noqa: F401
