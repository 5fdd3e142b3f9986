"""ScriptModule: the base class scripted models subclass, an ordinary ember Module here."""
from ..nn import Module

__all__ = ['ScriptModule']


class ScriptModule(Module):
    """Base class for ``class Net(ember.jit.ScriptModule)`` with ``@ember.jit.script_method``
    methods: behaves as ``ember.nn.Module`` (the methods run as Python)."""

    def save(self, f, _extra_files=None):
        """Not possible: see ``ember.jit.save``."""
        from . import save
        save(self, f)
