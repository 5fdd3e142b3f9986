"""``torch.storage``: the memory under tensors. A storage is the NumPy array that owns a
tensor's memory (the end of its ``.base`` chain -- the same notion checkpoints use), seen as
bytes (``UntypedStorage``) or as elements of a dtype (``TypedStorage``). Storages share that
memory with every tensor over it; ember makes them for ``Tensor.untyped_storage()``,
``storage()`` and ``storage_type()``.
"""
import warnings

import numpy as np

from . import _dtype
from ._device import device as _device

__all__ = ['UntypedStorage', 'TypedStorage']

_CPU = _device('cpu')


def _root(a):
    """The array owning ``a``'s memory (through the wrapper NumPy's ``as_strided`` puts
    between its result and the array it views)."""
    while True:
        base = a.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, 'base', None)  # (as_strided's DummyArray holds the array)
            if not isinstance(base, np.ndarray):
                return a
        a = base


def memory_of(a):
    """``(flat, offset)``: the memory ``a`` lies in as a flat array of ``a``'s dtype (its
    root array in memory order, as torch's storage) and ``a``'s first element's position in
    it; None when that root is not one dense block or does not hold whole elements of
    ``a``'s dtype (then a tensor's own memory stands for its storage)."""
    root = _root(a)
    if root.flags.c_contiguous:
        flat = root.reshape(-1)
    elif root.flags.f_contiguous:
        flat = root.T.reshape(-1)
    else:
        return None
    if flat.dtype != a.dtype:
        if flat.nbytes % a.itemsize:
            return None
        flat = flat.view(np.uint8).view(a.dtype)
    return flat, (a.ctypes.data - flat.ctypes.data) // a.itemsize


def _values(flat):
    return [v.item() if hasattr(v, 'item') else v for v in flat]


def _show(values, caption):
    return '\n'.join([f' {v}' for v in values] + [f'[{caption}]'])


class UntypedStorage:
    """Bytes of CPU memory: ``UntypedStorage(n)`` allocates ``n`` zero bytes; a tensor's
    (``Tensor.untyped_storage()``) is the memory it lives in."""

    def __init__(self, size=0, *, device=None):
        if isinstance(size, np.ndarray):  # (the memory of an array: how tensors hand it)
            self._bytes = size
        else:
            self._bytes = np.zeros(int(size), np.uint8)

    @classmethod
    def _of(cls, array):
        root = _root(array)
        if not root.flags.c_contiguous:
            root = np.ascontiguousarray(root)
        s = cls.__new__(cls)
        s._bytes = root.reshape(-1).view(np.uint8)
        return s

    device = _CPU
    is_cuda = False
    is_sparse = False

    def nbytes(self):
        """The number of bytes."""
        return self._bytes.size

    size = nbytes

    def __len__(self):
        return self._bytes.size

    def element_size(self):
        """1: an untyped storage counts bytes."""
        return 1

    def data_ptr(self):
        """The address of the first byte."""
        return self._bytes.ctypes.data

    def is_shared(self):
        """True when this memory lies in a shared-memory block (``Tensor.share_memory_``)."""
        from .multiprocessing._sharing import array_is_shared
        return array_is_shared(self._bytes)

    def __getitem__(self, i):
        return self._bytes[i].tolist()

    def __setitem__(self, i, value):
        self._bytes[i] = value

    def tolist(self):
        """The bytes as Python ints."""
        return self._bytes.tolist()

    def cpu(self):
        """This storage (it is on the CPU)."""
        return self

    def untyped(self):
        """This storage."""
        return self

    def __repr__(self):
        return _show(_values(self._bytes), f'torch.storage.UntypedStorage(device=cpu) of size '
                                           f'{self._bytes.size}')


class TypedStorage:
    """A storage seen as elements of one dtype (torch deprecates it in favour of
    ``UntypedStorage``, and so warns on ``Tensor.storage()``)."""

    is_cuda = False
    is_sparse = False
    device = _CPU

    def __init__(self, untyped, dtype):
        self._untyped_storage = untyped
        self.dtype = dtype

    @property
    def _elements(self):
        b = self._untyped_storage._bytes
        n = b.size // self.dtype.itemsize
        return b[:n * self.dtype.itemsize].view(self.dtype.np)

    def size(self):
        """The number of elements."""
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    def nbytes(self):
        """The number of bytes."""
        return self._untyped_storage.nbytes()

    def element_size(self):
        """Bytes per element."""
        return self.dtype.itemsize

    def data_ptr(self):
        """The address of the first element."""
        return self._untyped_storage.data_ptr()

    def untyped(self):
        """The same memory as bytes."""
        return self._untyped_storage

    def is_shared(self):
        """Whether the memory is shared (see ``UntypedStorage.is_shared``)."""
        return self._untyped_storage.is_shared()

    def __getitem__(self, i):
        return self._elements[i].item()

    def __setitem__(self, i, value):
        self._elements[i] = value

    def tolist(self):
        """The elements as Python numbers."""
        return self._elements.tolist()

    def cpu(self):
        """This storage (it is on the CPU)."""
        return self

    def __repr__(self):
        return _show(_values(self._elements), f'torch.storage.TypedStorage(dtype={self.dtype}, '
                                              f'device=cpu) of size {self.size()}')


_LEGACY = {}


class _LegacyStorageMeta(type):
    """The type of torch's legacy storage classes (``FloatStorage``...): a typed storage of
    the class's dtype counts as an instance, and calling the class makes one (``FloatStorage(3)``
    uninitialised -- zeros here --, ``FloatStorage([1, 2])`` holding the values), as in torch."""

    def __instancecheck__(cls, instance):
        if type(instance) is TypedStorage:
            return instance.dtype == cls.dtype
        return type.__instancecheck__(cls, instance)

    def __call__(cls, *args, device=None):
        if len(args) > 1:
            raise TypeError(f"new() takes at most 1 argument ({len(args)} given)")
        data = args[0] if args else 0
        if isinstance(data, bool) or not isinstance(data, (int, list, tuple)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if isinstance(data, int):
            if data < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {data}: "
                                   f"[{data}]")
            array = np.zeros(data, cls.dtype.np)
        else:
            array = np.array(data, cls.dtype.np).reshape(-1)
        return typed(array, cls.dtype)


def legacy_class(dtype):
    """torch's legacy storage class for ``dtype`` (``FloatStorage`` for float32), a
    ``TypedStorage`` of that dtype; what ``Tensor.storage_type()`` returns (None where torch
    has no such class: uint16, uint32, uint64)."""
    if dtype not in _LEGACY:
        from .serialization._rebuild import storage_type_name
        name = storage_type_name(dtype)
        if name is None:
            return None
        cls = _LegacyStorageMeta(name, (TypedStorage,), {
            '__doc__': f"torch.{name}: a typed storage of {dtype}.", 'dtype': dtype,
            '__module__': 'torch'})
        _LEGACY[dtype] = cls
    return _LEGACY[dtype]


_WARNED = []  # whether TypedStorage's deprecation was announced (once per process, as torch)


def typed(array, dtype):
    """The ``TypedStorage`` of ``array``'s memory, warning as torch's ``Tensor.storage()``."""
    if _WARNED:
        return TypedStorage(UntypedStorage._of(array), dtype)
    _WARNED.append(True)
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                  "UntypedStorage will be the only storage class. This should only matter to "
                  "you if you are using storages directly.  To access UntypedStorage directly, "
                  "use tensor.untyped_storage() instead of tensor.storage()", UserWarning,
                  stacklevel=3)
    return TypedStorage(UntypedStorage._of(array), dtype)


def __getattr__(name):
    # the legacy classes by name (``ember.storage.FloatStorage``), made on first use
    for d in _dtype.ALL:
        cls = legacy_class(d)
        if cls is not None and cls.__name__ == name:
            return cls
    raise AttributeError(f"module 'ember.storage' has no attribute '{name}'")
