"""Backend flags: module attributes that only accept bools, with torch's error message."""
import contextlib
import sys
import types


class FlagModule(types.ModuleType):
    """A module whose attributes named in ``_FLAGS`` (name -> torch's setter name) accept only
    bools, as torch's flag modules do."""

    def __setattr__(self, name, value):
        setter = self.__dict__.get('_FLAGS', {}).get(name)
        if setter is not None and not isinstance(value, bool):
            raise RuntimeError(f'{setter} expects a bool, but got {type(value).__name__}')
        super().__setattr__(name, value)


def install(module_name, flags):
    """Makes ``module_name`` a FlagModule with ``flags``: {name: (setter name, default)}."""
    module = sys.modules[module_name]
    module._FLAGS = {name: setter for name, (setter, _) in flags.items()}
    for name, (_, default) in flags.items():
        setattr(module, name, default)
    module.__class__ = FlagModule


@contextlib.contextmanager
def flags_context(module, **values):
    """Sets some of ``module``'s flags for the body of a ``with``, then restores them."""
    old = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in old.items():
            module.__dict__[name] = value
