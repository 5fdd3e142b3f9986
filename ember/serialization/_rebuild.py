"""What the names in a torch checkpoint's pickle mean in ember.

A torch checkpoint's pickle refers to torch by name: storage types (``torch.FloatStorage``),
dtypes (``torch.float32``), and the functions that rebuild a tensor from a storage
(``torch._utils._rebuild_tensor_v2``). ``torch_names()`` maps each such name to the ember
object playing its part, so a checkpoint loads without torch installed. Storages arrive as
``Storage`` objects (a flat NumPy array); tensors are strided views over them, so tensors that
shared a storage in the file share memory in ember too.
"""
import codecs
import collections
import functools

import numpy as np

from .. import _dtype
from .._tensor import Tensor, Size, make
from .._device import device

__all__ = ['Storage', 'StorageType', 'torch_names', 'ember_dtype', 'storage_type_name']

# torch's legacy storage class of each dtype: a checkpoint names a storage's dtype this way.
_STORAGE_OF = {'float32': 'FloatStorage', 'float64': 'DoubleStorage', 'float16': 'HalfStorage',
               'bfloat16': 'BFloat16Storage', 'complex64': 'ComplexFloatStorage',
               'complex128': 'ComplexDoubleStorage', 'int64': 'LongStorage',
               'int32': 'IntStorage', 'int16': 'ShortStorage', 'int8': 'CharStorage',
               'uint8': 'ByteStorage', 'bool': 'BoolStorage'}
_DTYPE_OF_STORAGE = {v: k for k, v in _STORAGE_OF.items()}
# every dtype name torch may pickle (``torch.uint16``...), so a checkpoint holding one that
# ember lacks says so by name rather than as an unknown global
_TORCH_DTYPES = tuple(_STORAGE_OF) + (
    'uint16', 'uint32', 'uint64', 'complex32', 'float8_e4m3fn', 'float8_e5m2',
    'float8_e4m3fnuz', 'float8_e5m2fnuz', 'float8_e8m0fnu', 'float4_e2m1fn_x2', 'qint8',
    'quint8', 'qint32', 'quint4x2', 'quint2x4', 'bits8', 'bits16', 'bits1x8', 'bits2x4',
    'bits4x2') + tuple(f'int{k}' for k in range(1, 8)) + tuple(f'uint{k}' for k in range(1, 8))


def ember_dtype(name):
    """The ember dtype called ``name`` (a torch dtype name), or a RuntimeError naming it.
    bfloat16 is found at run time: it exists when ember has it."""
    d = getattr(__import__('ember'), name, None) if name != 'bool' else _dtype.bool_
    if not isinstance(d, _dtype.dtype) or d.name != name:
        raise RuntimeError(f"ember.load: the checkpoint holds a tensor of dtype torch.{name}, "
                           "which ember does not have")
    return d


def storage_type_name(d):
    """torch's legacy storage class name for ember dtype ``d`` ('FloatStorage'); None for
    the dtypes torch has none for (uint16, uint32, uint64)."""
    return _STORAGE_OF.get(d.name)


class StorageType:
    """A storage class named in a checkpoint (``torch.FloatStorage``): only its dtype
    matters. ``untyped`` storages (``torch.UntypedStorage``) hold bytes."""
    __slots__ = ('name', 'dtype_name')

    def __init__(self, name):
        self.name = name
        self.dtype_name = 'uint8' if name in ('UntypedStorage', 'TypedStorage') else \
            _DTYPE_OF_STORAGE.get(name, name)

    def __repr__(self):
        return f'StorageType(dtype=torch.{self.dtype_name})'


class Storage:
    """A loaded storage: ``array`` is its flat memory as NumPy (shared by the tensors built
    on it), ``location`` the device tag the file gave it ('cpu')."""
    __slots__ = ('array', 'location')

    def __init__(self, array, location='cpu'):
        self.array = array
        self.location = location

    @property
    def dtype(self):
        """The ember dtype of the elements."""
        return _dtype.FROM_NP[self.array.dtype]

    def size(self):
        """Number of elements."""
        return self.array.size

    def nbytes(self):
        """Number of bytes."""
        return self.array.nbytes

    def __len__(self):
        return self.array.size

    def cpu(self):
        """This storage (it is on the CPU), for ``map_location=lambda s, loc: s.cpu()``."""
        return self


def _strided(storage, offset, size, stride, dtype=None):
    """A tensor over ``storage``'s memory: ``size``/``stride`` counted in elements, starting
    ``offset`` elements in. Refuses, as torch does, a layout reaching past the storage."""
    if not isinstance(storage, Storage):
        raise RuntimeError(f"ember.load: expected a storage to rebuild a tensor from, got "
                           f"{type(storage).__name__}")
    flat = storage.array
    if dtype is not None and flat.dtype != dtype.np:
        if flat.nbytes % dtype.itemsize:
            raise RuntimeError(f"ember.load: a storage of {flat.nbytes} bytes cannot hold "
                               f"elements of {dtype}")
        flat = flat.view(dtype.np)
    ints = (offset,) + tuple(size) + tuple(stride)
    if len(size) != len(stride) or not all(type(v) is int and v >= 0 for v in ints):
        raise RuntimeError(f"ember.load: invalid tensor layout: sizes {list(size)}, strides "
                           f"{list(stride)}, storage offset {offset}")
    extent = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if 0 not in size and extent > flat.size:
        raise RuntimeError("Trying to resize storage that is not resizable")
    item = flat.itemsize
    data = np.lib.stride_tricks.as_strided(flat[offset:], tuple(size),
                                           tuple(s * item for s in stride))
    return make(data)


def _hooks_ignored(t, requires_grad, backward_hooks):
    # torch never saves hooks (it writes an empty OrderedDict): nothing to restore
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    """``torch._utils._rebuild_tensor``: the oldest form, no requires_grad."""
    return _strided(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
                       backward_hooks, metadata=None):
    """``torch._utils._rebuild_tensor_v2``: a tensor of the storage's dtype."""
    return _hooks_ignored(_strided(storage, storage_offset, size, stride), requires_grad,
                          backward_hooks)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad,
                       backward_hooks, dtype, metadata=None):
    """``torch._utils._rebuild_tensor_v3``: an untyped (byte) storage read as ``dtype``."""
    return _hooks_ignored(_strided(storage, storage_offset, size, stride, dtype),
                          requires_grad, backward_hooks)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """``torch._utils._rebuild_parameter``: an nn.Parameter over ``data``'s memory."""
    from ..nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """``torch._utils._rebuild_parameter_with_state``: a Parameter with user attributes."""
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    _set_state(p, state)
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    """``torch._tensor._rebuild_from_type_v2``: a tensor rebuilt by ``func``, given the
    (sub)class ``new_type`` and the instance attributes ``state``."""
    t = func(*args)
    if type(t) is not new_type:
        t = t.as_subclass(new_type)
    _set_state(t, state)
    return t


def _set_state(t, state):
    if isinstance(state, tuple):  # (dict state, slot state), as pickle's BUILD gives it
        dict_state, slot_state = state
        state = {**(dict_state or {}), **(slot_state or {})}
    for k, v in (state or {}).items():
        setattr(t, k, v)


def _unsupported(kind):
    def rebuild(*args):
        raise RuntimeError(f"ember.load: the checkpoint holds a {kind} tensor, which ember "
                           "does not support")
    rebuild.__name__ = f'_rebuild_{kind}_unsupported'
    return rebuild


def _get_layout(name):
    """``torch.serialization._get_layout``: strided (kept as its name) or sparse COO (the
    layout, for ``_rebuild_sparse_tensor``); ember reads no other."""
    if name == 'torch.sparse_coo':
        from .._layout import sparse_coo
        return sparse_coo
    if name != 'torch.strided':
        raise RuntimeError(f"ember.load: the checkpoint holds a tensor of layout {name}, "
                           "which ember does not support")
    return name


def _rebuild_sparse_tensor(layout, data):
    """``torch._utils._rebuild_sparse_tensor`` for the COO layout: (indices, values, size[,
    is_coalesced]) as torch.save writes them."""
    from .._layout import sparse_coo
    from .._ops.sparse import sparse_coo_tensor
    if layout is not sparse_coo:
        raise RuntimeError(f"ember.load: the checkpoint holds a sparse tensor of layout "
                           f"{layout}, which ember does not support")
    indices, values, size = data[:3]
    return sparse_coo_tensor(indices, values, size, check_invariants=False,
                             is_coalesced=data[3] if len(data) > 3 else None)


def _torch_device(*args):
    """``torch.device`` in a checkpoint: any device loads as ember's (CPU) device object."""
    return device(*args) if args and str(args[0]).startswith('cpu') else device('cpu')


def _dtype_entries():
    out = {}
    for name in _TORCH_DTYPES:
        try:
            out[f'torch.{name}'] = ember_dtype(name)
        except RuntimeError as e:
            out[f'torch.{name}'] = _missing_dtype(str(e))
    return out


class _missing_dtype:
    """Stands for a torch dtype ember lacks (``torch.uint16``): the file may name it, but
    rebuilding a tensor with it raises, naming the dtype."""
    def __init__(self, message):
        self.message = message

    def __call__(self, *args):
        raise RuntimeError(self.message)

    @property
    def np(self):   # what _strided reads first from a dtype
        raise RuntimeError(self.message)


def _build_torch_names():
    from ..nn.parameter import Parameter
    names = {
        'collections.OrderedDict': collections.OrderedDict,
        'collections.Counter': collections.Counter,
        'torch.nn.parameter.Parameter': Parameter,
        'torch.serialization._get_layout': _get_layout,
        'torch._utils._rebuild_sparse_tensor': _rebuild_sparse_tensor,
        'torch.Size': Size,
        'torch.Tensor': Tensor,
        'torch.device': _torch_device,
        '_codecs.encode': codecs.encode,   # how protocol 2 pickles bytes
        'builtins.bytearray': bytearray,
        'builtins.set': set,
        'builtins.complex': complex,
        'torch._utils._rebuild_tensor': _rebuild_tensor,
        'torch._utils._rebuild_tensor_v2': _rebuild_tensor_v2,
        'torch._utils._rebuild_tensor_v3': _rebuild_tensor_v3,
        'torch._utils._rebuild_parameter': _rebuild_parameter,
        'torch._utils._rebuild_parameter_with_state': _rebuild_parameter_with_state,
        'torch._tensor._rebuild_from_type_v2': _rebuild_from_type_v2,
        'torch.storage.UntypedStorage': StorageType('UntypedStorage'),
        'torch.storage.TypedStorage': StorageType('TypedStorage'),
    }
    for kind in ('nested_tensor', 'qtensor', 'meta_tensor_no_storage',
                 'wrapper_subclass', 'device_tensor_from_numpy', 'device_tensor_from_cpu_tensor',
                 'xla_tensor', 'mtia_tensor', 'dtensor'):
        names[f'torch._utils._rebuild_{kind}'] = _unsupported(kind.split('_tensor')[0])
    for storage in list(_DTYPE_OF_STORAGE) + ['QInt8Storage', 'QUInt8Storage', 'QInt32Storage',
                                              'QUInt4x2Storage', 'QUInt2x4Storage']:
        names[f'torch.{storage}'] = StorageType(storage)
    names.update(_dtype_entries())
    return names


@functools.lru_cache(maxsize=None)
def torch_names():
    """full torch name ('torch._utils._rebuild_tensor_v2') -> the ember object standing for
    it; built on first use (it imports ember.nn)."""
    return _build_torch_names()
