"""The module classes of ember.nn."""
from .module import Module  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict  # noqa: F401
from .linear import Linear, Identity  # noqa: F401
