"""ember.save / ember.load: objects holding tensors (state_dicts, optimizer states, ...) to
a file and back.

The format is ember's own for now: a magic line, then a pickle. Tensors pickle as their
NumPy data plus type, ``requires_grad`` and instance ``__dict__``, so Tensor subclasses come
back as themselves (torch loses them). As in torch 2.6+, ``load`` defaults to
``weights_only=True``: only tensors, NumPy arrays, containers and numbers are rebuilt, and any
other class must be allowed first with ``add_safe_globals`` -- or the file trusted with
``weights_only=False``.
"""
import io
import os
import pickle

__all__ = ['save', 'load', 'add_safe_globals', 'get_safe_globals']

MAGIC = b'EMBER-PICKLE-1\n'
_SAFE = set()


def _default_safe():
    import numpy as np
    from . import _tensor, _dtype, _device
    names = {
        ('collections', 'OrderedDict'), ('collections', 'Counter'),  # MultiStepLR's state
        ('builtins', 'set'), ('builtins', 'frozenset'),
        ('builtins', 'slice'), ('builtins', 'complex'), ('builtins', 'range'),
        ('ember._tensor', '_rebuild'), ('ember._tensor', 'Tensor'),
        ('ember._tensor', 'Size'), ('ember._dtype', '_dtype_by_name'),
        ('ember._device', 'device'), ('ember.nn.parameter', '_rebuild_parameter'),
        ('ember.nn.parameter', 'Parameter'),
        ('numpy', 'ndarray'), ('numpy', 'dtype'),
        ('ml_dtypes', 'bfloat16'),  # (the element type of bfloat16 tensors' arrays)
    }
    for module in ('numpy.core.multiarray', 'numpy._core.multiarray'):
        names.add((module, '_reconstruct'))
        names.add((module, 'scalar'))
    dtype_classes = {(type(np.dtype(t)).__module__, type(np.dtype(t)).__name__)
                     for t in (np.float16, np.float32, np.float64, np.complex64, np.complex128,
                               np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_)}
    del _tensor, _dtype, _device
    return names | dtype_classes


def add_safe_globals(safe_globals):
    """Allows these classes/functions in ``load(..., weights_only=True)`` (e.g. your Tensor
    subclass)."""
    for g in safe_globals:
        _SAFE.add((g.__module__, g.__qualname__))


def get_safe_globals():
    """The classes/functions added with ``add_safe_globals``."""
    return sorted(_SAFE)


class _WeightsUnpickler(pickle.Unpickler):
    """Rebuilds only allowlisted globals."""

    def find_class(self, module, name):
        if (module, name) in _WEIGHTS_ONLY_ALLOWED or (module, name) in _SAFE:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"Weights only load failed: Unsupported global: GLOBAL {module}.{name} was not an "
            "allowed global by default. If you trust this file, call "
            f"ember.serialization.add_safe_globals([{name}]) before loading, or load it with "
            "weights_only=False (only for files you trust: unpickling can run any code).")


_WEIGHTS_ONLY_ALLOWED = set()


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Writes ``obj`` (tensors, dicts of tensors, optimizer states, ...) to the path or
    binary file ``f``."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, 'wb') as fh:
            return save(obj, fh, pickle_module, pickle_protocol)
    f.write(MAGIC)
    # Protocol 4 at least: protocol 2 routes bytes through _codecs.encode, which the
    # weights-only unpickler would have to allow.
    pickle_module.dump(obj, f, protocol=max(pickle_protocol, 4))


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Reads what ``save`` wrote from the path or binary file ``f``. ``map_location`` may
    only name the CPU (the one device). ``weights_only`` defaults to True (see the module
    docstring)."""
    from ._device import check_device
    if map_location is not None and not callable(map_location) and \
            not isinstance(map_location, dict):
        check_device(map_location, 'load')
    if isinstance(f, (str, os.PathLike)):
        with open(f, 'rb') as fh:
            return load(fh, map_location, pickle_module, weights_only=weights_only)
    head = f.read(len(MAGIC))
    if head != MAGIC:
        raise RuntimeError("ember.load: not a file written by ember.save (bad header "
                           f"{head[:16]!r}); torch's zip format is not supported yet")
    if weights_only is None:
        weights_only = True
    if not _WEIGHTS_ONLY_ALLOWED:
        _WEIGHTS_ONLY_ALLOWED.update(_default_safe())
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
        return _WeightsUnpickler(io.BytesIO(f.read()), **pickle_load_args).load()
    return (pickle_module or pickle).load(f, **pickle_load_args)

