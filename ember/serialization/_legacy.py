"""The older formats: torch's pre-1.6 one (``_use_new_zipfile_serialization=False``) and the
pickle ember wrote before it wrote torch's.

torch's legacy file is five pickles and the raw storages, one after the other: a magic
number, the protocol version (1001), a dict of system facts (byte order), the object (each
storage a persistent id ``('storage', <class>, <key>, <location>, <count>, <view or None>)``),
the list of storage keys; then for each key its element count (int64, little-endian) and its
bytes. ember's own older file is a magic line and a protocol-4 pickle of NumPy arrays.
"""
import io
import pickle
import struct
import sys

import numpy as np

from ._pickler import TorchPickler, StorageRef, TorchName
from ._rebuild import Storage, ember_dtype

__all__ = ['write', 'read', 'read_ember_v1', 'EMBER_MAGIC']

MAGIC_NUMBER = 0x1950a86a20f9469cfc6c
PROTOCOL_VERSION = 1001
EMBER_MAGIC = b'EMBER-PICKLE-1\n'


class _Pickler(TorchPickler):
    def persistent_id(self, obj):
        if type(obj) is StorageRef:
            return ('storage', TorchName(f'torch.{obj.type_name}'), obj.key, 'cpu', obj.numel,
                    None)
        return None


def write(obj, f, pickle_protocol=2):
    """Writes ``obj`` to the binary file ``f`` in torch's legacy format."""
    sys_info = {'protocol_version': PROTOCOL_VERSION, 'little_endian': sys.byteorder == 'little',
                'type_sizes': {'short': 2, 'int': 4, 'long': 4}}
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle.dump(header, f, protocol=pickle_protocol)
    pickler = _Pickler(f, pickle_protocol)
    pickler.dump(obj)
    keys = sorted(ref.key for ref in pickler.storages)
    pickle.dump(keys, f, protocol=pickle_protocol)
    by_key = {ref.key: ref for ref in pickler.storages}
    for key in keys:
        ref = by_key[key]
        f.write(struct.pack('<q', ref.numel))
        f.write(memoryview(ref.data.view(np.uint8)))


class _Storages:
    """The storages a legacy file declares: allocated when the pickle names them (their
    tensors are built over them), filled from the file afterwards. Each must fit in what is
    left of the file, so a declared size cannot claim memory the file cannot fill."""

    def __init__(self, f):
        self.f = f
        here = f.tell()
        self.budget = f.seek(0, 2) - here
        f.seek(here)
        self.by_key = {}

    def __call__(self, pid):
        if type(pid) is not tuple or len(pid) != 6:
            raise pickle.UnpicklingError(f"ember.load: unknown persistent id {pid!r}")
        _, storage_type, key, location, numel, view = pid
        key = key.decode('ascii') if isinstance(key, bytes) else key
        base = self.by_key.get(key)
        if base is None:
            d = ember_dtype(getattr(storage_type, 'dtype_name', 'uint8'))
            if type(numel) is not int or not 0 <= numel * d.itemsize <= self.budget:
                raise RuntimeError(f"ember.load: storage {key} declares {numel} elements, "
                                   "more than the file holds. The file might be corrupted.")
            self.budget -= numel * d.itemsize
            base = self.by_key[key] = Storage(np.empty(numel, d.np), location)
        if view is None:
            return base
        if type(view) is not tuple or len(view) != 3 or \
                not all(type(v) is int and v >= 0 for v in view[1:]):
            raise RuntimeError(f"ember.load: invalid storage view {view!r}. The file might be "
                               "corrupted.")
        view_key, offset, size = view
        return Storage(base.array[offset:offset + size], location)

    def fill(self, keys):
        for key in keys:
            if key not in self.by_key:
                raise RuntimeError(f"ember.load: the file lists storage {key!r} that no "
                                   "tensor uses. The file might be corrupted.")
            flat = self.by_key[key].array
            numel = struct.unpack('<q', _read_exactly(self.f, 8))[0]
            if numel != flat.size:
                raise RuntimeError(f"storage has wrong byte size: expected {flat.size} got "
                                   f"{numel}")
            view = memoryview(flat.view(np.uint8))   # (bytes: bfloat16 has no buffer code)
            got = self.f.readinto(view)
            if got != len(view):
                raise RuntimeError(f"unexpected EOF, expected {len(view) - got} more bytes. "
                                   "The file might be corrupted.")


def _read_exactly(f, n):
    data = f.read(n)
    if len(data) != n:
        raise RuntimeError(f"unexpected EOF, expected {n - len(data)} more bytes. The file "
                           "might be corrupted.")
    return data


def read(f, unpickler):
    """Reads torch's legacy format from the binary file ``f``; ``unpickler(file,
    persistent_load)`` makes the unpickler (restricted or not)."""
    if unpickler(f, None).load() != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = unpickler(f, None).load()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    sys_info = unpickler(f, None).load()
    if isinstance(sys_info, dict) and sys_info.get('little_endian') is False:
        raise RuntimeError("ember.load: big-endian legacy checkpoints are not supported")
    storages = _Storages(f)
    result = unpickler(f, storages).load()
    keys = unpickler(f, None).load()
    if not isinstance(keys, list):
        raise RuntimeError("ember.load: the storage key list is missing. The file might be "
                           "corrupted.")
    storages.fill(keys)
    return result


# -- ember's own older format ------------------------------------------------------------
def _ember_v1_names():
    """The globals ember's older pickles name, each allowed in a weights-only load."""
    from .. import _tensor, _dtype, _device
    from ..nn import parameter
    import collections
    names = {'collections.OrderedDict': collections.OrderedDict,
             'collections.Counter': collections.Counter,
             'builtins.set': set, 'builtins.frozenset': frozenset, 'builtins.slice': slice,
             'builtins.complex': complex, 'builtins.range': range,
             'ember._tensor._rebuild': _tensor._rebuild, 'ember._tensor.Tensor': _tensor.Tensor,
             'ember._tensor.Size': _tensor.Size,
             'ember._dtype._dtype_by_name': _dtype._dtype_by_name,
             'ember._device.device': _device.device,
             'ember.nn.parameter._rebuild_parameter': parameter._rebuild_parameter,
             'ember.nn.parameter.Parameter': parameter.Parameter,
             'numpy.ndarray': np.ndarray, 'numpy.dtype': _plain_dtype}
    for module in ('numpy.core.multiarray', 'numpy._core.multiarray'):
        names[f'{module}._reconstruct'] = _reconstruct
        names[f'{module}.scalar'] = _scalar
    return names


def _plain_dtype(*args):
    """``numpy.dtype`` for a weights-only load: no object dtypes (their arrays unpickle
    arbitrary objects)."""
    d = np.dtype(*args)
    if d.hasobject:
        raise pickle.UnpicklingError(f"ember.load: NumPy arrays of dtype {d} are not allowed "
                                     "with weights_only=True")
    return d


def _reconstruct(cls, shape, typecode):
    if cls is not np.ndarray:
        raise pickle.UnpicklingError(f"ember.load: cannot rebuild an array of class {cls}")
    return np.ndarray.__new__(cls, shape, _plain_dtype(typecode))


def _scalar(d, data=None):
    """numpy's ``multiarray.scalar`` (how a NumPy scalar pickles), for plain dtypes."""
    try:
        from numpy._core.multiarray import scalar
    except ImportError:   # NumPy 1
        from numpy.core.multiarray import scalar
    return scalar(_plain_dtype(d), data) if data is not None else scalar(_plain_dtype(d))


def read_ember_v1(f, unpickler_cls, weights_only, pickle_module, **pickle_load_args):
    """Reads what ember's ``save`` wrote before it wrote torch's format (after the magic
    line)."""
    if not weights_only:
        return (pickle_module or pickle).load(f, **pickle_load_args)
    from ._allowlist import DATA_OPCODES
    build = tuple({type(np.dtype(t)) for t in np.typecodes['All'] if t not in 'SUVOMm'}) + \
        (np.ndarray,)
    return unpickler_cls(io.BytesIO(f.read()), _ember_v1_names(), opcodes=DATA_OPCODES,
                         build_types=build).load()
