"""ember.save / ember.load in torch's checkpoint format, both ways, without torch.

``save`` writes torch's zip format (what ``torch.save`` writes since 1.6), so
``torch.load(path, weights_only=True)`` reads ember's checkpoints; tensors sharing memory in
ember (a tensor and its views) share one storage in the file. ``load`` reads that format,
torch's pre-1.6 one, and the pickle ember wrote before (it starts with a magic line).

As in torch 2.6+, ``load`` defaults to ``weights_only=True``: only tensors, containers,
numbers and strings are rebuilt; any other class must be allowed first with
``add_safe_globals`` / ``safe_globals`` -- or the file trusted with ``weights_only=False``.
A hostile file gets an exception (``pickle.UnpicklingError`` or ``RuntimeError``, as torch
raises) before it can run code or claim memory its declared sizes do not back.

The parts: ``_zip`` (torch's zip format), ``_legacy`` (older formats), ``_allowlist`` (the
weights-only unpickler), ``_pickler`` (writing ember objects under torch's names),
``_rebuild`` (what torch's names mean in ember).
"""
import io
import os
import pickle

from ._allowlist import (add_safe_globals, get_safe_globals, clear_safe_globals, safe_globals,
                         RestrictedUnpickler, weights_only_message)
from . import _legacy, _zip
from ._rebuild import Storage, torch_names

__all__ = ['save', 'load', 'add_safe_globals', 'get_safe_globals', 'clear_safe_globals',
           'safe_globals', 'default_restore_location', 'get_unsafe_globals_in_checkpoint']

DEFAULT_PROTOCOL = 2


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Writes ``obj`` (tensors, state_dicts, optimizer states, nested containers, numbers,
    strings...) to the path or binary file ``f`` in torch's checkpoint format.

    ``_use_new_zipfile_serialization=False`` writes torch's pre-1.6 format instead. Objects
    are pickled by ember's own pickler (it writes torch's names), so ``pickle_module`` is
    accepted for torch's signature but not used.
    """
    if isinstance(f, (str, os.PathLike)):
        archive = os.path.splitext(os.path.basename(os.fspath(f)))[0] or 'archive'
        with open(f, 'wb') as fh:
            return _save(obj, fh, archive, pickle_protocol, _use_new_zipfile_serialization)
    return _save(obj, f, 'archive', pickle_protocol, _use_new_zipfile_serialization)


def _save(obj, f, archive, protocol, zip_format):
    if not zip_format:
        return _legacy.write(obj, f, protocol)
    seekable = getattr(f, 'seekable', lambda: False)()
    target = f if seekable else io.BytesIO()
    _zip.write(obj, target, archive, protocol)
    if not seekable:
        f.write(target.getbuffer())


def default_restore_location(storage, location):
    """Where a storage saved on ``location`` goes with no ``map_location``: the CPU, for a
    CPU storage; any other device raises (ember runs on the CPU only)."""
    if not str(location).startswith('cpu'):
        kind = str(location).split(':')[0]
        raise RuntimeError(
            f"Attempting to deserialize object on a {kind.upper() if kind == 'cuda' else kind} "
            "device but ember runs on the CPU only. Please use ember.load with "
            "map_location='cpu' (or ember.device('cpu')) to map your storages to the CPU.")
    return storage


def _restorer(map_location):
    """``restore(storage, location)`` for ``map_location`` given as torch accepts it: None,
    a device or its name, a dict from saved to wanted location, or a callable."""
    from .._device import check_device, device
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, (str, bytes, device)):
        check_device(map_location.decode() if isinstance(map_location, bytes) else map_location,
                     'load')
        return lambda storage, location: storage
    if isinstance(map_location, dict):
        def restore(storage, location):
            return default_restore_location(storage, map_location.get(location, location))
        return restore
    if callable(map_location):
        def restore(storage, location):
            result = map_location(storage, location)
            if result is None:
                result = default_restore_location(storage, location)
            if not isinstance(result, Storage):
                raise TypeError(f"map_location should return a storage, not "
                                f"{type(result).__name__}")
            return result
        return restore
    raise ValueError(f"map_location should be a string, a device, a dict or a callable, not "
                     f"{type(map_location).__name__}")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Reads a checkpoint from the path or binary file ``f``: torch's zip or legacy format,
    or ember's older pickle.

    ``weights_only`` (default True, False when a ``pickle_module`` is given) rebuilds only
    allowlisted objects; ``map_location`` may only lead to the CPU; ``mmap=True`` (a path
    only, zip format only) maps the storages from the file copy-on-write instead of reading
    them: tensors are built over the mapped memory.
    """
    if weights_only is None:
        weights_only = pickle_module is None and \
            os.getenv('TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD', '0').lower() not in ('1', 'y', 'yes',
                                                                              'true')
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    pickle_load_args.setdefault('encoding', 'utf-8')
    restore = _restorer(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, 'rb') as fh:
            return _load(fh, os.fspath(f), restore, pickle_module, weights_only, mmap,
                         pickle_load_args)
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if not getattr(f, 'seekable', lambda: False)():
        f = io.BytesIO(f.read())
    return _load(f, None, restore, pickle_module, weights_only, False, pickle_load_args)


def _load(f, path, restore, pickle_module, weights_only, mmap, pickle_load_args):
    def unpickler(file, persistent_load):
        if weights_only:
            return RestrictedUnpickler(file, torch_names(), persistent_load=persistent_load,
                                       encoding=pickle_load_args['encoding'])
        return _trusting_unpickler(pickle_module or pickle, file, persistent_load,
                                   pickle_load_args)

    try:
        start = f.tell()
        if f.read(len(_legacy.EMBER_MAGIC)) == _legacy.EMBER_MAGIC:
            return _legacy.read_ember_v1(f, RestrictedUnpickler, weights_only, pickle_module,
                                         **pickle_load_args)
        f.seek(start)
        if _zip.is_zip(f):
            return _load_zip(_zip.Reader(f, path), unpickler, restore, mmap)
        if mmap:
            raise RuntimeError("mmap can only be used with files saved with "
                               "`torch.save(_use_new_zipfile_serialization=True), please "
                               "torch.save your checkpoint with this option in order to use "
                               "mmap.")
        return _legacy.read(f, lambda file, load: unpickler(file, _legacy_restorer(load,
                                                                                    restore)))
    except pickle.UnpicklingError as e:
        if not weights_only:
            raise
        raise pickle.UnpicklingError(weights_only_message(str(e))) from None


def get_unsafe_globals_in_checkpoint(f):
    """The globals in the zip checkpoint ``f`` (path or binary file) that a weights-only
    load would refuse, as 'module.name' strings -- found without unpickling anything."""
    import pickletools
    import _compat_pickle
    from ._allowlist import _user_object
    if isinstance(f, (str, os.PathLike)):
        with open(f, 'rb') as fh:
            return get_unsafe_globals_in_checkpoint(fh)
    if not _zip.is_zip(f):
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    with _zip.Reader(f).pickle_file() as data:
        found = set()
        for op, arg, _ in pickletools.genops(data):
            if op.name == 'GLOBAL':
                module, name = arg.split(' ', 1)
                module, name = _compat_pickle.NAME_MAPPING.get(
                    (module, name), (_compat_pickle.IMPORT_MAPPING.get(module, module), name))
                found.add(f'{module}.{name}')
    return sorted(n for n in found if n not in torch_names() and _user_object(n) is None)


def _load_zip(reader, unpickler, restore, mmap):
    storages = {}

    def persistent_load(pid):
        if type(pid) is not tuple or len(pid) != 5:
            raise pickle.UnpicklingError(f"ember.load: unknown persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        key, location = _text(key), _text(location)
        _check_storage_ref(storage_type, key, location)
        if key not in storages:
            storage = reader.storage(getattr(storage_type, 'dtype_name', None), key, numel,
                                     mmap)
            storage.location = location
            storages[key] = restore(storage, location)
        return storages[key]

    with reader.pickle_file() as data:
        return unpickler(data, persistent_load).load()


def _check_storage_ref(storage_type, key, location):
    from ._rebuild import StorageType
    if type(storage_type) is not StorageType or type(key) is not str or \
            type(location) is not str:
        raise RuntimeError(f"ember.load: invalid storage reference ({storage_type!r}, "
                           f"{key!r}, {location!r}). The file might be corrupted.")


def _legacy_restorer(load, restore):
    if load is None:
        return None

    def persistent_load(pid):
        if type(pid) is tuple and len(pid) == 6:
            _check_storage_ref(pid[1], _text(pid[2]), _text(pid[3]))
        storage = load(pid)
        return restore(storage, _text(pid[3]))
    return persistent_load


def _text(s):
    return s.decode('ascii') if isinstance(s, bytes) else s


def _trusting_unpickler(pickle_module, file, persistent_load, pickle_load_args):
    """The ``weights_only=False`` unpickler: any global loads, torch's names as ember's."""
    names = torch_names()

    class Unpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            full = f'{module}.{name}'
            if full in names:
                return names[full]
            if module == 'torch' or module.startswith('torch.'):
                return _ember_counterpart(module, name)
            return super().find_class(module, name)

    u = Unpickler(file, **pickle_load_args)
    if persistent_load is not None:
        u.persistent_load = persistent_load
    return u


def _ember_counterpart(module, name):
    """ember's object for a torch global (``torch.nn.modules.linear.Linear`` ->
    ``ember.nn.Linear``): the same path under ember, else the name in the nearest ember
    package above it."""
    import importlib
    parts = ('ember' + module[len('torch'):]).split('.')
    while parts:
        try:
            found = importlib.import_module('.'.join(parts))
        except ImportError:
            parts.pop()
            continue
        if hasattr(found, name):
            return getattr(found, name)
        parts.pop()
    raise AttributeError(f"ember.load: the checkpoint names {module}.{name}, which ember does "
                         "not have")
