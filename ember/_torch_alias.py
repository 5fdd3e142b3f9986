"""ember as ``torch`` for a whole process: after ``install_as_torch()``, ``import torch``,
``import torch.nn as nn``, ``from torch.utils.data import DataLoader`` and every other
``torch.X`` import give ember's modules -- the very same objects (``torch.nn is ember.nn``),
so ``isinstance(x, torch.Tensor)`` holds for ember tensors and libraries that look up
``sys.modules['torch']`` (einops) find ember.

It is a module alias (``sys.modules['torch'] = ember``, and ``torch.X`` for every ``ember.X``
already loaded) plus an import hook at the front of ``sys.meta_path`` that answers any other
``torch.X.Y`` with ``ember.X.Y``. Nothing else in ember uses it: it is the switch behind
``python -m ember run`` (``ember/__main__.py``) and nothing more.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys

__all__ = ['install_as_torch', 'uninstall_as_torch', 'TORCH_VERSION']

TORCH_VERSION = '2.13.0'  # the torch release whose API ember follows (and is tested against)


class _EmberAsTorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The import hook: finds ``torch.X.Y`` as ``ember.X.Y`` and "loads" it by handing back
    ember's module object, unchanged."""

    def find_spec(self, fullname, path=None, target=None):
        """A spec for ``torch`` and ``torch.*`` names; None (not ours) for any other."""
        if fullname != 'torch' and not fullname.startswith('torch.'):
            return None
        ember_name = 'ember' + fullname[len('torch'):]
        try:
            module = importlib.import_module(ember_name)
        except ModuleNotFoundError as e:
            if e.name is None or not (ember_name == e.name or ember_name.startswith(e.name + '.')):
                raise  # a dependency of that ember module is missing: its own message
            # Ours to answer: letting the next finder look would load real torch's file of
            # that name into ember's package.
            raise ModuleNotFoundError(f"No module named '{fullname}' (ember is installed as "
                                      f"torch, and has no module '{ember_name}')",
                                      name=fullname) from None
        # (not aliased here: a name found in sys.modules right after find_spec would be
        # loaded again from its module's own spec -- a second ember.X)
        return importlib.machinery.ModuleSpec(fullname, self, loader_state=module.__spec__,
                                              is_package=hasattr(module, '__path__'))

    def create_module(self, spec):
        """ember's module itself, never a copy."""
        return sys.modules['ember' + spec.name[len('torch'):]]

    def exec_module(self, module):
        """Nothing to run (ember's module is loaded); undoes the one attribute the import
        system overwrote, ``__spec__``, so ember's module keeps describing itself, and
        aliases the ember modules its import loaded."""
        module.__spec__ = module.__spec__.loader_state
        _alias_loaded_modules()


_FINDER = _EmberAsTorch()
_STATE = {'ember_version': None}  # ember's own __version__ while installed


def _alias_loaded_modules():
    """``sys.modules['torch.X'] = ember.X`` for every ember module loaded so far (which also
    keeps the import system from re-binding package attributes to submodules: it does that
    only for modules it has to load)."""
    for name, module in list(sys.modules.items()):
        if name == 'ember' or name.startswith('ember.'):
            sys.modules.setdefault('torch' + name[len('ember'):], module)


def install_as_torch():
    """Makes ``import torch`` (and every ``torch.X`` import) give ember, for this process.

    Refused with RuntimeError if the real torch is already imported: modules holding it
    would mix two libraries. While installed, ``torch.__version__`` (that is,
    ``ember.__version__``) reads ``'2.13.0+ember.<ember's version>'``: the torch release
    whose API ember follows, so that libraries checking ``torch.__version__`` take their
    code paths for current torch, with ember named in the local part.

    Returns a handle that is also a context manager: ``with ember.install_as_torch():``
    uninstalls at the end (modules imported meanwhile keep what they imported).

    >>> import ember
    >>> with ember.install_as_torch():
    ...     import torch.nn.functional as F
    ...     F is ember.nn.functional
    True
    """
    import ember
    current = sys.modules.get('torch')
    if current is ember:
        return _Installation(installed=False)
    if current is not None or any(name.startswith('torch.') for name in sys.modules):
        where = getattr(current, '__file__', None) or 'torch.* modules are loaded'
        raise RuntimeError("ember.install_as_torch(): the real torch is already imported in "
                           f"this process ({where}), so `import torch` cannot give ember. "
                           "Install ember as torch before anything imports torch, or run the "
                           "program with `python -m ember run script.py`")
    sys.modules['torch'] = ember
    _alias_loaded_modules()
    sys.meta_path.insert(0, _FINDER)
    _STATE['ember_version'] = ember.__version__
    ember.__version__ = f'{TORCH_VERSION}+ember.{ember.__version__}'
    return _Installation(installed=True)


def uninstall_as_torch():
    """Undoes ``install_as_torch``: ``import torch`` finds the real torch (if installed)
    again. Modules that imported ``torch`` meanwhile keep ember."""
    import ember
    if sys.modules.get('torch') is not ember:
        return
    for name in [n for n in sys.modules if n == 'torch' or n.startswith('torch.')]:
        if sys.modules[name] is sys.modules.get('ember' + name[len('torch'):]):
            del sys.modules[name]
    while _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    ember.__version__ = _STATE['ember_version']


class _Installation:
    """What ``install_as_torch`` returns: as a context manager, it uninstalls on exit (if
    this call is the one that installed)."""

    def __init__(self, installed):
        self.installed = installed

    def __enter__(self):
        return sys.modules['torch']

    def __exit__(self, *exc):
        if self.installed:
            uninstall_as_torch()
        return False
