"""Pickling ember objects under torch's names, so torch can read what ember writes.

``TorchPickler`` writes a tensor as torch does: a call of ``torch._utils._rebuild_tensor_v2``
on a persistent storage reference, offset, size and stride; a Parameter through
``torch._utils._rebuild_parameter``; dtypes, devices and sizes as ``torch.float32``,
``torch.device``, ``torch.Size``. Tensors whose memory lies in one NumPy buffer (a base and
its views, a loaded storage's tensors) refer to one storage, so torch sees them share it.
The format writers (zip, legacy) decide how a storage reference and its bytes are written.

It extends pickle's pure-Python pickler, the one whose dispatch table can emit a ``GLOBAL``
for a name that is not importable here (torch is not needed to write its format).
"""
import collections
import pickle

import numpy as np

from .._tensor import Tensor, Size, pickled_state
from .._dtype import dtype as _dtype_cls
from .._device import device as _device_cls
from ..storage import _root
from ._rebuild import storage_type_name

__all__ = ['TorchPickler', 'StorageRef']


class TorchName:
    """A global written by name (``torch._utils _rebuild_tensor_v2``) without importing it."""
    __slots__ = ('module', 'name')
    _interned = {}

    def __new__(cls, full):
        # one object per name, so the pickle's memo writes each name once
        self = cls._interned.get(full)
        if self is None:
            self = object.__new__(cls)
            self.module, _, self.name = full.rpartition('.')
            cls._interned[full] = self
        return self

    def __call__(self, *args):  # pickle checks that a reduce function is callable
        raise TypeError(f"{self.module}.{self.name} is only a name to write")


class StorageRef:
    """One storage to write: its key in the file, storage class, element count and bytes."""
    __slots__ = ('key', 'type_name', 'numel', 'data', 'dtype')

    def __init__(self, key, dtype, flat):
        self.key = key
        self.dtype = dtype
        self.type_name = storage_type_name(dtype)
        self.numel = flat.size
        if self.type_name is None:  # (no legacy class: bytes, which _rebuild_tensor_v3 types)
            self.type_name, self.numel = 'storage.UntypedStorage', flat.nbytes
        self.data = flat  # contiguous, 1-D, of the storage's dtype


class _Reduced:
    """An object that pickles as the given ``(callable, args)`` reduction."""

    def __init__(self, reduction):
        self.reduction = reduction


class TorchPickler(pickle._Pickler):
    """Pickles ``obj`` writing ember objects as torch's; ``storages`` collects the storages
    (in key order) for the format writer; ``persistent_id`` of a ``StorageRef`` is left to
    the format (zip and legacy differ)."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol=2):
        super().__init__(file, protocol)
        self.storages = []
        self._by_root = {}    # id(root array) -> (root, StorageRef)

    def _save_name(self, obj):
        self.write(pickle.GLOBAL + obj.module.encode() + b'\n' + obj.name.encode() + b'\n')
        self.memoize(obj)

    dispatch[TorchName] = _save_name

    def save(self, obj, save_persistent_id=True):
        if type(obj) is _dtype_cls:   # torch pickles a dtype as its global, torch.float32
            obj = TorchName(f'torch.{obj.name}')
        super().save(obj, save_persistent_id)

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, _device_cls):
            return (TorchName('torch.device'), (str(obj),))
        if type(obj) is Size:
            return (TorchName('torch.Size'), (tuple(obj),))
        if type(obj) is _Reduced:
            return obj.reduction
        return NotImplemented

    def _reduce_tensor(self, t):
        from ..nn.parameter import Parameter
        from .._layout import sparse_coo
        state = pickled_state(t)
        if t.layout is sparse_coo and type(t) is Tensor and not state:
            # torch's form: its layout (by name, through _get_layout) and the COO parts
            layout = (TorchName('torch.serialization._get_layout'), ('torch.sparse_coo',))
            return (TorchName('torch._utils._rebuild_sparse_tensor'),
                    (_Reduced(layout), (t._indices(), t._values(), t.size(),
                                        t.is_coalesced())))
        if type(t) is Parameter:
            plain = Tensor._make_subclass(Tensor, t)
            if state:
                return (TorchName('torch._utils._rebuild_parameter_with_state'),
                        (plain, t._requires_grad, collections.OrderedDict(), state))
            return (TorchName('torch._utils._rebuild_parameter'),
                    (plain, t._requires_grad, collections.OrderedDict()))
        args = self._tensor_args(t)
        rebuild = TorchName('torch._utils._rebuild_tensor_v2')
        if storage_type_name(t.dtype) is None:  # (torch's form for dtypes without one)
            args, rebuild = args + (t.dtype,), TorchName('torch._utils._rebuild_tensor_v3')
        if type(t) is Tensor and not state:
            return (rebuild, args)
        cls = TorchName('torch.Tensor') if type(t) is Tensor else type(t)
        return (TorchName('torch._tensor._rebuild_from_type_v2'), (rebuild, cls, args, state))

    def _tensor_args(self, t):
        a = t._data
        ref, offset, a = self._storage(a, t.dtype)
        stride = tuple(s // a.itemsize for s in a.strides)
        return (ref, offset, tuple(a.shape), stride, t._requires_grad,
                collections.OrderedDict())

    def _storage(self, a, dtype):
        """The storage holding ``a``, ``a``'s offset in it (elements) and the array written
        (``a``, or a copy with a storage of its own where torch cannot express ``a``'s
        layout over its root's memory: negative strides, misaligned views)."""
        root = _root(a)
        item = a.itemsize
        offset, rem = divmod(a.ctypes.data - root.ctypes.data, item)
        shareable = (a.size and root.flags.c_contiguous and not rem and offset >= 0
                     and root.nbytes % item == 0 and all(s >= 0 and s % item == 0
                                                         for s in a.strides))
        if not shareable:
            a = a.copy(order='C')   # (ascontiguousarray would make a 0-d array 1-d)
            return self._new_storage(a.reshape(-1), dtype, None), 0, a
        known = self._by_root.get(id(root))
        if known is not None:
            if known[1].dtype is not dtype:
                raise RuntimeError("Cannot save multiple tensors or storages that view the "
                                   "same data as different types")
            return known[1], offset, a
        flat = root.reshape(-1).view(np.uint8).view(a.dtype)
        return self._new_storage(flat, dtype, root), offset, a

    def _new_storage(self, flat, dtype, root):
        ref = StorageRef(str(len(self.storages)), dtype, flat)
        self.storages.append(ref)
        # the root stays referenced here, so its id is not reused while pickling
        self._by_root[id(root) if root is not None else id(ref)] = (root, ref)
        return ref
