"""Tensor's device and layout questions, Python-callable element maps, and reshaping of a
tensor's own memory (resize_, set_).

ember tensors are dense, strided and on the CPU: the predicates answer as torch answers for
such a tensor (``is_cpu`` True; ``is_xpu``, ``is_nested``, ``is_sparse_csr``... False), the
sparse-layout questions torch also answers for dense tensors (``dense_dim``, ``sparse_dim``,
``to_dense``) get torch's dense answers, and moving to a device this build lacks raises
torch's error for a build without it.
"""
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, make
from ..autograd.engine import sum_to
from ._core import register, check_inplace
from ..autograd.grad_mode import STATE, INFERENCE_VC

# -- predicates -----------------------------------------------------------------------------
PROPERTIES = {}


def _constant(name, value, doc):
    def get(self):
        return value
    get.__name__ = name
    get.__doc__ = doc
    PROPERTIES[name] = get


_constant('is_cpu', True, "True: every ember tensor lives in CPU memory.")
for _backend in ('ipu', 'maia', 'mps', 'mtia', 'vulkan', 'xla', 'xpu'):
    _constant(f'is_{_backend}', False, f"False: ember has no {_backend} device.")
_constant('is_mkldnn', False, "False: ember has no MKL-DNN (oneDNN) tensor layout.")
_constant('is_nested', False, "False: ember has no nested (jagged) tensors.")


def _is_sparse_csr(self):
    """Whether the layout is ``sparse_csr``."""
    return type(self._data) is not np.ndarray and self._data.layout.name == 'sparse_csr'


PROPERTIES['is_sparse_csr'] = _is_sparse_csr
_constant('name', None, "None: ember has no named tensors (torch's default name).")


def _volatile(self):
    """Always False (torch removed ``volatile``; reading it warns as torch does)."""
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


def _cuda_array_interface(self):
    """Only CUDA tensors have one: raises AttributeError as torch does (so ``hasattr`` is
    False), naming the legacy tensor type."""
    raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: "
                         f"{self.type()} If CUDA data is required use tensor.cuda() to copy "
                         "tensor to device memory.")


PROPERTIES.update(volatile=_volatile,
                  __cuda_array_interface__=_cuda_array_interface)


@register
def is_distributed(input):
    """False: ember tensors are never distributed (sharded) tensors."""
    return False


@register
def is_inference(input):
    """Whether ``input`` was made in ``inference_mode`` (or is a view of a tensor that was)."""
    return input._vc is INFERENCE_VC


@register
def is_signed(input):
    """True unless the dtype is unsigned or bool."""
    return input._data.dtype.kind not in 'ub'


register(Tensor.get_device, name='get_device', method=False)
register(Tensor.detach, name='detach', method=False)


@register(function=False)
def is_pinned(self, device=None):
    """False: ember has no accelerator to pin host memory for."""
    return False


@register(function=False)
def pin_memory(self, device=None):
    """Refused as in a torch build without an accelerator."""
    raise RuntimeError("Cannot access accelerator device when none is available.")


@register(function=False)
def ipu(self, device=None, non_blocking=False, memory_format=None):
    """Refused: this build has no IPU support (torch's message)."""
    raise RuntimeError("PyTorch is not linked with support for ipu devices")


@register(function=False)
def xpu(self, device=None, non_blocking=False, memory_format=None):
    """Refused: this build has no XPU support (torch's message)."""
    raise AssertionError("Torch not compiled with XPU enabled")


@register(function=False)
def mtia(self, device=None, non_blocking=False, memory_format=None):
    """Refused: this build has no MTIA support."""
    raise AssertionError("Torch not compiled with MTIA enabled")


@register(function=False)
def is_set_to(self, tensor):
    """True if both tensors view the same memory with the same sizes and strides."""
    a, b = self._data, tensor._data
    return (a.ctypes.data == b.ctypes.data and a.shape == b.shape and a.strides == b.strides
            and a.dtype == b.dtype)


@register(function=False)
def const_data_ptr(self):
    """The address of the first element (as ``data_ptr``; ember has no read-only tensors)."""
    return self.data_ptr()


@register(function=False)
def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (by decreasing stride, ties in order)."""
    if not isinstance(ambiguity_check, (bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")
    stride = self.stride()
    return tuple(sorted(range(len(stride)), key=lambda d: -stride[d]))


@register(function=False)
def module_load(self, other, assign=False):
    """How ``nn.Module.load_state_dict`` (with tensor swapping) turns a state-dict value into
    the new parameter: ``other`` detached if ``assign``, else ``self`` with ``other`` copied
    in, detached."""
    return other.detach() if assign else self.copy_(other).detach()


@register(function=False)
def untyped_storage(self):
    """The memory ``self`` lives in, as bytes (an ``ember.storage.UntypedStorage``)."""
    from ..storage import UntypedStorage
    return UntypedStorage._of(self._data)


@register(function=False)
def storage(self):
    """The memory ``self`` lives in, as elements of its dtype (a ``TypedStorage``; torch
    deprecates it and warns)."""
    from ..storage import typed
    return typed(self._data, self.dtype)


@register(function=False)
def storage_type(self):
    """torch's legacy storage class of ``self``'s dtype (``FloatStorage`` for float32)."""
    from ..storage import legacy_class
    return legacy_class(self.dtype)


# -- element maps with Python callables -----------------------------------------------------
def _elementwise_map(self, name, fn, others):
    if self._requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    from .linalg import _expandable
    for o in others:
        _expandable(o._data.shape, self._data.shape)
    arrays = [np.broadcast_to(o._data, self._data.shape) for o in others]
    flat = self._data.reshape(-1) if self._data.flags.c_contiguous else None
    kind = self._data.dtype.type
    values = [kind(fn(*(a.item() for a in items)))
              for items in zip(np.nditer(self._data, flags=['refs_ok']),
                               *(np.nditer(a, flags=['refs_ok']) for a in arrays))] \
        if self._data.size else []
    out = np.array(values, dtype=self._data.dtype).reshape(self._data.shape)
    if flat is not None:
        flat[...] = out.reshape(-1)
    else:
        self._data[...] = out
    return self  # (torch leaves the version counter alone here)


@register(function=False)
def apply_(self, callable):
    """Replaces each element ``x`` with ``callable(x)`` (a Python function; slow, and refused
    on tensors that require grad, as in torch)."""
    return _elementwise_map(self, 'apply_', callable, ())


@register(function=False)
def map_(self, tensor, callable):
    """Replaces each element ``x`` with ``callable(x, y)``, ``y`` from ``tensor`` broadcast."""
    return _elementwise_map(self, 'map_', callable, (tensor,))


@register(function=False)
def map2_(self, x, y, callable):
    """Replaces each element ``s`` with ``callable(s, a, b)``, ``a`` and ``b`` from ``x`` and
    ``y`` broadcast to ``self``."""
    return _elementwise_map(self, 'map2_', callable, (x, y))


@register(function=False)
def sum_to_size(self, *size):
    """Sums ``self`` down to ``size``, which it must be expandable from (the reverse of
    ``expand``)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = self._data.shape
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if not size:  # (also for a 0-d self: torch's sum, int64 for integers)
        return self.sum()
    if tuple(size) == shape:
        return self
    return sum_to(self, tuple(size))


# -- reshaping a tensor's own memory -------------------------------------------------------
def _sizes(args):
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


@register(function=False)
def resize_(self, *sizes, memory_format=None):
    """Gives ``self`` the shape ``sizes`` (contiguous): the elements it had, in memory order,
    come first; new memory past them is uninitialised (zero here). Refused on tensors that
    require grad, as in torch."""
    vc = self._vc
    if vc.__class__ is not list:
        vc.before_write()
    if self._requires_grad and STATE.enabled:
        raise RuntimeError("cannot resize variables that require grad")
    sizes = _sizes(sizes)
    # (past the first element torch's parser unpacks a bool as 0 or 1)
    sizes = tuple(int(s) if i and isinstance(s, bool) else s for i, s in enumerate(sizes))
    for s in sizes:
        if not isinstance(s, int) or isinstance(s, bool) or s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(sizes)}")
    n = int(np.prod(sizes, dtype=np.int64))
    old = self._data
    if old.shape == tuple(sizes):
        return self  # nothing changes, and the version stays (as torch's)
    from ..storage import memory_of  # (ember.storage loads on first use)
    memory = memory_of(old)
    if memory is None:  # (no one block of memory behind it: its elements stand for it)
        memory = np.ascontiguousarray(old).reshape(-1), 0
    flat, offset = memory
    if offset + n > flat.size:
        # torch grows the storage to the new extent (from the same offset), keeping what
        # it held; new memory is uninitialised (zero here)
        grown = np.zeros(offset + n, old.dtype)
        grown[:flat.size] = flat
        flat = grown
    # otherwise the same storage, read contiguously from the same offset
    self._data = flat[offset:offset + n].reshape(sizes)
    self._vc[0] += 1
    return self


@register(function=False)
def resize_as_(self, the_template, *, memory_format=None):
    """``resize_`` to the shape of ``the_template``."""
    return resize_(self, the_template._data.shape)


def _resize_out_of_place(self, sizes, op):
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=3)
    n = int(np.prod(sizes, dtype=np.int64))
    if n != self._data.size:
        shown = 'x'.join(map(str, self._data.shape))
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in "
                           f"total), but the given tensor has a size of {shown} "
                           f"({self._data.size} elements). autograd's resize can only change "
                           "the shape of a given tensor, while preserving the number of "
                           "elements. ")
    if not sizes:  # (torch's resize views as ``view(*sizes)``: with no size, its TypeError)
        from . import _args
        _args.check('Tensor.view', (self,), None)
    return self.view(sizes) if self._data.flags.c_contiguous else self.reshape(sizes)


@register(function=False)
def resize(self, *sizes):
    """Deprecated out-of-place resize: a tensor of the same elements in shape ``sizes``."""
    return _resize_out_of_place(self, _sizes(sizes), 'resize')


@register(function=False)
def resize_as(self, tensor):
    """Deprecated out-of-place ``resize_as_``."""
    return _resize_out_of_place(self, tensor._data.shape, 'resize_as')


_C_TYPE_NAMES = {'Long': 'long int', 'Short': 'short int', 'Byte': 'unsigned char',
                 'Char': 'signed char'}


def _c_type(t):
    name = _dtype.FROM_NP[t._data.dtype].kernel_name
    return _C_TYPE_NAMES.get(name, name.lower())


@register(function=False)
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Makes ``self`` share ``source``'s memory: ``set_()`` empties it, ``set_(tensor)``
    views all of ``tensor`` (same elements, shape and strides), ``set_(tensor, offset, size,
    stride)`` views ``tensor``'s memory with that geometry."""
    check_inplace(self, 'set_')
    if source is None:
        self._data = np.empty((0,), self._data.dtype)
    elif isinstance(source, Tensor):
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(f"Could not set tensor of type {_c_type(source)} to a tensor of "
                               f"type {_c_type(self)}")
        if size is None:
            self._data = source._data
        else:
            from .arrange import as_strided
            st = stride if stride is not None else \
                tuple(int(np.prod(size[k + 1:], dtype=np.int64)) for k in range(len(size)))
            self._data = as_strided(source.detach(), size, st, storage_offset)._data
    else:
        raise TypeError(f"set_(): argument 'source' must be Tensor, not "
                        f"{type(source).__name__}")
    self._vc[0] += 1
    # As torch: a leaf set to other memory gets a new gradient accumulator, so the graphs
    # built before no longer reach it (a GradientEdge to the old one still does).
    self._grad_acc = None
    return self


# -- dunders torch defines ------------------------------------------------------------------
def _long(self):
    if self._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return int(self.item())


def _reversed(self):
    """The tensor flipped along dim 0 (a 0-d tensor is its own reverse)."""
    return self if self._data.ndim == 0 else self.flip(0)


def _array_wrap(self, array, context=None, return_scalar=False):
    """NumPy's hook for results of ufuncs on tensors: a tensor of the result (bool as uint8,
    as torch does)."""
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)
    return make(np.asarray(array))


def _setstate(self, state):
    """Restores a tensor pickled by torch's legacy protocols: a 4-tuple of ``set_``
    arguments (old tensors), a 5-tuple starting with the data (old Variables), or
    ``(requires_grad, _, backward_hooks)``. Only leaves can be restored into."""
    if self._gfn is not None:
        raise RuntimeError("__setstate__ can be only called on leaf Tensors")
    if len(state) == 4:
        set_(self, *state)
        return
    if len(state) == 5:
        self.data = state[0]
        state = (state[3], state[4], state[2])
    self.requires_grad = state[0]  # (hooks are never restored: torch drops them too)


DUNDERS = {'__long__': _long, '__nonzero__': Tensor.__bool__, '__reversed__': _reversed,
           '__array_wrap__': _array_wrap, '__setstate__': _setstate}
for _name, _fn in DUNDERS.items():
    setattr(Tensor, _name, _fn)
