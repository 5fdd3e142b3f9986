"""class Tensor: a NumPy array plus autograd metadata.

Hot fields (``_data``, ``_requires_grad``, ``_gfn`` -- torch's ``_grad_fn`` --, ``_vc`` -- the
version counter, a one-element list shared by views) are slots set by ``make``; rarely used
ones (``_grad``, ``_base``, ``_output_nr``, hooks) are class-level defaults that an instance
overrides in its ``__dict__`` only when it needs to, so creating a
tensor costs four assignments. Operations are attached as methods by ``ember._ops``.
"""
import functools
import warnings
import weakref

import numpy as np

from . import _dtype
from ._device import CPU, META, check_device
from . import _meta
from ._meta import MetaArray
from .autograd.graph import AccumulateGrad
from .autograd.grad_mode import is_grad_enabled as _grad_enabled
from .autograd.grad_mode import (SPECIAL_VC_OPEN as _SPECIAL_VC_OPEN, INFERENCE_VC as _INFERENCE_VC,
                                 new_version_counter as _new_vc)
from . import overrides as _overrides
from ._layout import strided as _STRIDED, sparse_coo as _SPARSE_COO

__all__ = ['Tensor', 'make']

_new = object.__new__
_FLOATISH = 'fcV'


class Tensor:
    """A multi-dimensional array with autograd: ``ember.tensor([1., 2.], requires_grad=True)``.

    ``Tensor(data)`` builds a tensor of the default float dtype from nested sequences (as
    ``torch.Tensor`` does); ``Tensor(2, 3)`` an uninitialised one of that shape.
    """
    __slots__ = ('_data', '_requires_grad', '_gfn', '_vc', '__dict__', '__weakref__')

    _grad = None
    _base = None          # the tensor this one is a view of
    _view_fn = None       # base -> this view, replayed by in-place ops on views
    _rebased = 0          # a base: bumped when an in-place op rewrites its history
    _seen = 0             # a view: the base's _rebased its grad_fn was built against
    _chain_at = 0         # a view: the base's _rebased its _view_fn was last brought up to
    _output_nr = 0
    _grad_acc = None      # weakref to this leaf's AccumulateGrad node
    _hooks = None         # leaf gradient hooks
    _retains_grad = False
    _post_acc_hooks = None  # leaf hooks run after .grad is accumulated
    _fw = None            # forward AD: (level, tangent or Pending)
    _made_by_function = None  # a view a custom Function returned: that Function's name
    _no_grad_view = False     # a view of a grad-requiring tensor made under no_grad
    _multi_view_of = None     # one of several views one op returned (split...): (op, nr)
    _is_param = False
    _grad_dtype = False   # a leaf's grad_dtype: False = its own dtype, None = any dtype
    _bits = None  # 'conj', 'neg', 'conj+neg': torch's conjugate/negative bits (_ops/lazy_bits)
    # NumPy defers to a tensor's reflected operators (``np.float32(2) * t`` is a tensor, as
    # in torch, not an array) when the tensor's priority is above an array's.
    __array_priority__ = 1000

    def __new__(cls, *args, device=None, dtype=None):
        check_device(device, 'Tensor')
        if len(args) == 1 and not isinstance(args[0], int):
            data = args[0]
            if isinstance(data, Tensor):
                # an alias of ``data`` (a view, with its history), as torch's legacy
                # constructor makes: Sub(t) shares t's memory and gradient
                from ._ops.index import _alias
                return retype(_alias(data), cls)
            else:
                arr = to_array(data, dtype or _dtype.DEFAULT.float
                               if not isinstance(data, np.ndarray) else None)
        else:
            for a in args:
                if not isinstance(a, int) or a < 0:
                    raise TypeError(f"new(): argument 'size' must be tuple of ints, but found "
                                    f"element of type {type(a).__name__}")
            arr = np.empty(args or (0,), (dtype or _dtype.DEFAULT.float).np)  # (): empty
        self = _new(cls)
        self._data = arr
        self._requires_grad = False
        self._gfn = None
        self._vc = [0] if not _SPECIAL_VC_OPEN[0] else _new_vc()
        return self

    def __init__(self, *args, **kwargs):
        pass

    def _is_view(self):
        """True if this tensor is a view of another (``_base`` is that tensor)."""
        return self._base is not None

    # The default of the __torch_function__ protocol: run the op with subclass dispatch
    # off, then give the results this (sub)class (see ember.overrides).
    __torch_function__ = classmethod(_overrides._tensor_default)

    # -- metadata -----------------------------------------------------------------------
    @property
    def shape(self):
        """The size of each dimension, as an ``ember.Size`` (a tuple)."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """``shape``, or the size of one dimension."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_size_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        """The element type, an ``ember.dtype``."""
        return _dtype.FROM_NP[self._data.dtype]

    @property
    def device(self):
        """``device(type='cpu')``, or ``device(type='meta')`` for a tensor without data."""
        return META if type(self._data) is MetaArray else CPU

    @property
    def is_meta(self):
        """Whether this tensor is on the 'meta' device (a shape and a dtype, no data)."""
        return type(self._data) is MetaArray

    is_cuda = False
    is_quantized = False

    @property
    def layout(self):
        """How the elements are stored: ``ember.strided``, or a sparse layout (the sparse
        storage of ``ember._sparse`` stands in for the array)."""
        data = self._data
        return _STRIDED if isinstance(data, np.ndarray) else data.layout

    @property
    def is_sparse(self):
        """Whether the layout is ``sparse_coo``."""
        data = self._data
        return not isinstance(data, np.ndarray) and data.layout is _SPARSE_COO

    def dim(self):
        """Number of dimensions."""
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        """Number of dimensions."""
        return self._data.ndim

    def numel(self):
        """Number of elements."""
        return self._data.size

    nelement = numel

    def element_size(self):
        """Bytes per element."""
        return self._data.itemsize

    @property
    def itemsize(self):
        """Bytes per element."""
        return self._data.itemsize

    @property
    def nbytes(self):
        """Bytes taken by the elements."""
        return self._data.nbytes

    def stride(self, dim=None):
        """Steps (in elements, as torch counts them) between neighbours along each dim."""
        a = self._data
        if a.size == 0 and not any(a.strides):
            # (NumPy gives an empty array zero strides; torch's empty tensors have row-major
            # ones, each the product of the later sizes, a size 0 counting as 1)
            st, step = [], 1
            for n in reversed(a.shape):
                st.insert(0, step)
                step *= max(n, 1)
            st = tuple(st)
        else:
            st = tuple(s // a.itemsize for s in a.strides)
        if dim is None:
            return st
        return st[_size_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format=None):
        """True if elements are laid out row-major with no gaps (or, given a
        ``memory_format`` such as ``channels_last``, in that order)."""
        if memory_format is None:
            return self._data.flags.c_contiguous
        from ._memory_format import is_laid_out
        return is_laid_out(self._data, memory_format)

    def data_ptr(self):
        """Address of the first element."""
        return self._data.ctypes.data

    def storage_offset(self):
        """Offset of the first element from the start of its storage (the memory it shares
        with the tensors it was sliced, viewed or detached from), in elements."""
        from .storage import memory_of
        memory = memory_of(self._data)
        if memory is not None:
            return memory[1]
        base = self._base
        if base is None:
            return 0
        return (self._data.ctypes.data - base._data.ctypes.data) // self._data.itemsize

    def get_device(self):
        """-1: the tensor is on the CPU."""
        return -1

    def is_floating_point(self):
        """True for float16/bfloat16/float32/float64."""
        d = self._data.dtype
        return d.kind == 'f' or d.kind == 'V' and d.names is None  # (complex32 has fields)

    def is_complex(self):
        """True for complex dtypes (complex32's structured dtype too)."""
        d = self._data.dtype
        return d.kind == 'c' or d.kind == 'V' and d.names is not None

    def is_signed(self):
        """True unless the dtype is uint8 or bool."""
        return self._data.dtype.kind in 'ifcV'

    @property
    def _version(self):
        """How many in-place changes this tensor's memory has seen (shared with its views)."""
        if self._vc is _INFERENCE_VC:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    # -- autograd -----------------------------------------------------------------------
    @property
    def requires_grad(self):
        """Whether gradients are computed for this tensor (a view also when its base
        requires grad, as in torch, even if the view was made first)."""
        if self._requires_grad:
            return True
        base = self._base
        # (not a custom Function's output made without grad: torch's view there is not
        # differentiable)
        return base is not None and base._requires_grad and self._made_by_function is None

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad=True):
        """Sets ``requires_grad`` in place on a leaf; returns self."""
        if self._gfn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and self._data.dtype.kind not in _FLOATISH:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        """The Node that made this tensor (None for leaves)."""
        base = self._base
        if base is not None and base._rebased != self._seen:
            refresh_view(self)
        return self._gfn

    # ``_grad_fn`` as torch spells it: the history lives in the slot ``_gfn`` (what ember's
    # own code reads and writes, at slot speed); this name exists so that ``del x._grad_fn``
    # is refused as in torch. A refusing __delattr__ would tax every attribute write instead.
    @property
    def _grad_fn(self):
        return self._gfn

    @_grad_fn.setter
    def _grad_fn(self, value):
        self._gfn = value

    @_grad_fn.deleter
    def _grad_fn(self):
        raise RuntimeError("Deletion of _grad_fn not allowed. Detach tensor instead!")

    @property
    def _backward_hooks(self):
        """A leaf's gradient hooks by registration order (None if it has none)."""
        return dict(enumerate(self._hooks)) if self._hooks else None

    @_backward_hooks.setter
    def _backward_hooks(self, hooks):
        # (replaces a leaf's gradient hooks, as torch's setter does: a mapping of hooks)
        self._hooks = list(hooks.values()) if hooks else None

    @_backward_hooks.deleter
    def _backward_hooks(self):
        raise RuntimeError("Deletion of _backwards_hooks not allowed!")

    @property
    def _post_accumulate_grad_hooks(self):
        """A leaf's post-accumulate-grad hooks by registration order (None if it has none)."""
        return dict(enumerate(self._post_acc_hooks)) if self._post_acc_hooks else None

    @_post_accumulate_grad_hooks.deleter
    def _post_accumulate_grad_hooks(self):
        raise RuntimeError("Deletion of _post_accumulate_grad_hooks not allowed!")

    @property
    def is_leaf(self):
        """True for tensors not produced by a recorded op."""
        return self._gfn is None

    @property
    def grad(self):
        """The gradient accumulated by backward (leaves, or tensors that ``retain_grad``)."""
        if self._gfn is not None and not self._retains_grad:
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead.", UserWarning,
                stacklevel=3)  # (past the dispatching property that wraps this getter)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            want = self.dtype if self._grad_dtype is False else self._grad_dtype
            if want is not None and value.dtype != want:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_short_name(value.dtype)}' "
                    f"to a tensor with grad_dtype '{want.kernel_name}'. The gradient must "
                    "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
                    "the tensor's grad_dtype attribute with a specific dtype, or None to allow "
                    "any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor "
                    "and its gradient may break downstream systems that assume they match.")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the "
                    "gradient and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def grad_dtype(self):
        """The dtype a leaf's gradient is kept in (default: the leaf's own dtype; None:
        whatever dtype the gradient arrives in). Settable, on leaves only."""
        if self._gfn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self.dtype if self._grad_dtype is False else self._grad_dtype

    @grad_dtype.setter
    def grad_dtype(self, value):
        if self._gfn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtype.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got "
                               f"{type(value).__name__}")
        old = self._grad
        if value is not None and old is not None and old.dtype != value:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{value.kernel_name}' because there is already a "
                f"gradient with dtype '{_short_name(old.dtype)}'. Please clear the gradient "
                "(.grad = None) before changing grad_dtype, or ensure the new grad_dtype "
                "matches the existing gradient's dtype.")
        self._grad_dtype = value

    @property
    def retains_grad(self):
        """True if ``retain_grad()`` was called on this non-leaf."""
        return self._retains_grad

    def retain_grad(self):
        """Makes backward fill ``.grad`` of this non-leaf tensor too."""
        if self._gfn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        self._retains_grad = True
        fn = self._gfn
        if fn._retain is None:
            fn._retain = {}
            fn._hooked = True
        fn._retain[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a
        replacement gradient. Returns a handle whose ``remove()`` unregisters it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self._gfn is not None:
            return self._gfn._register_tensor_hook(self._output_nr, hook)
        from .autograd.graph import RemovableHandle
        if self._hooks is None:
            self._hooks = []
        return RemovableHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after backward has accumulated into this leaf's ``.grad``."""
        if self._gfn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        from .autograd.graph import RemovableHandle
        if self._post_acc_hooks is None:
            self._post_acc_hooks = []
        return RemovableHandle(self._post_acc_hooks, hook)

    def __dir__(self):
        # As torch lists a tensor's attributes: without the removed ``volatile`` flag, and
        # without ``__cuda_array_interface__``, which only a CUDA tensor answers.
        keys = set(dir(type(self))) | set(getattr(self, '__dict__', {}))
        keys.discard('volatile')
        keys.discard('__cuda_array_interface__')
        return sorted(keys)

    @property
    def volatile(self):
        """Always False: the old ``volatile`` flag was removed (warns, as torch does)."""
        warnings.warn("volatile was removed (Variable.volatile is always False)", stacklevel=2)
        return False

    @property
    def output_nr(self):
        """Which output of its grad_fn this tensor is."""
        return self._output_nr

    def is_inference(self):
        """Whether this tensor was made in ``inference_mode`` (or is a view of one that was)."""
        return self._vc is _INFERENCE_VC

    def _accumulator(self):
        """This leaf's AccumulateGrad node, shared by every op that uses the leaf."""
        ref = self._grad_acc
        acc = ref() if ref is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._grad_acc = weakref.ref(acc)
        return acc

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Computes the gradient of this tensor w.r.t. graph leaves (see ``autograd.backward``)."""
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A tensor sharing data (and version counter) with this one, outside the graph."""
        t = make(self._data)
        t._vc = self._vc
        if self._bits is not None:
            t._bits = self._bits
        return t  # (a subclass gets its type back through __torch_function__)

    def detach_(self):
        """Detaches this tensor from the graph in place, making it a leaf."""
        if self._base is not None:  # (any view, as in torch, not only views of graphs)
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        if self._gfn is not None:
            _graph.detached_in_place(self)
        self._gfn = None
        self._requires_grad = False
        if self._fw is not None:  # (its forward-AD tangent goes too, as in torch)
            self._fw = None
        return self

    @property
    def data(self):
        """The same data as a tensor that does not require grad (shares the version)."""
        return make(self._data)  # (a subclass gets its type back through __torch_function__)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        if '_vmap_levels' in self.__dict__ or '_vmap_levels' in value.__dict__:
            from .func._batched import refuse_data_set  # (a tensor vmap marked as batched)
            refuse_data_set(self, value)
        if self._requires_grad and value._data.dtype.kind not in _FLOATISH:
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        if value.layout is not self.layout:  # (a dense tensor cannot take sparse storage)
            raise RuntimeError("Attempted to call `variable.set_data(tensor)`, but `variable` "
                               "and `tensor` have incompatible tensor type.")
        self._data = value._data

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @staticmethod
    def _make_subclass(cls, data, require_grad=False):
        """An instance of ``cls`` over ``data``'s memory (sharing its version counter), as a
        fresh leaf with ``requires_grad=require_grad`` -- how nn.Parameter is built."""
        t = _new(cls)
        t._data = data._data
        t._vc = data._vc
        t._gfn = None
        t._requires_grad = False
        if require_grad:  # (building ``cls`` dispatches nothing to it)
            if t._data.dtype.kind not in _FLOATISH:
                raise RuntimeError("Only Tensors of floating point and complex dtype can "
                                   "require gradients")
            t._requires_grad = True
        return t

    def as_subclass(self, cls):
        """This tensor's data and autograd history viewed as an instance of ``cls``."""
        return retype(self, cls)

    # -- conversions --------------------------------------------------------------------
    def numpy(self, *, force=False):
        """The data as a NumPy array sharing memory with this tensor."""
        if not isinstance(self._data, np.ndarray):
            raise TypeError(f"can't convert {self.layout.word} layout tensor to numpy. Use "
                            "Tensor.to_dense() first.")
        if self._requires_grad and not force and _grad_enabled():  # (torch allows no_grad)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        a = self._data
        if self._bits is not None and not force:  # (its memory holds the resolved values)
            what, fix = (('conjugate', 'conj') if 'conj' in self._bits else ('negative', 'neg'))
            raise RuntimeError(f"Can't call numpy() on Tensor that has {what} bit set. Use "
                               f"tensor.resolve_{fix}().numpy() instead.")
        if a.dtype.kind == 'V':
            _no_bfloat16_numpy(a)
        if type(a) is MetaArray:
            raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() "
                            "to copy the tensor to host memory first.")
        return a

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over this tensor's memory (see ember.utils.dlpack)."""
        from .utils.dlpack import dlpack
        return dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device,
                      copy=copy)

    def __dlpack_device__(self):
        """(kDLCPU, 0): ember tensors live on the CPU."""
        return (1, 0)

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and _grad_enabled():  # (torch's __array__ calls numpy())
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        a = self._data
        if a.dtype.kind == 'V':
            _no_bfloat16_numpy(a)
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def item(self):
        """The single element as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        if type(self._data) is MetaArray:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        if self._data.dtype.kind == 'V' and self._data.dtype.names is not None:
            return _dtype.chalf_to_complex64(self._data.reshape(())).item()  # (complex32)
        return self._data.reshape(()).item()

    def tolist(self):
        """The data as (nested) Python lists of Python numbers."""
        if type(self._data) is MetaArray:
            _meta.refuse_copy_out()
        if self._data.dtype.kind == 'V' and self._data.dtype.names is not None:
            return _dtype.chalf_to_complex64(self._data).tolist()  # (complex32)
        return self._data.tolist()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __contains__(self, element):
        """``element in tensor``: whether any entry equals ``element``."""
        if isinstance(element, (Tensor, int, float, bool, complex)):
            return bool((element == self).any())
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous"
                               if self._data.size else
                               "Boolean value of Tensor with no values is ambiguous")
        return bool(self._data.reshape(()))

    def __float__(self):
        if self._requires_grad and _grad_enabled():
            _warn_scalar_of_grad_tensor()
        return float(self.item().real if self.is_complex() else self.item())

    def __int__(self):
        return int(self.item())

    def __complex__(self):
        if self._requires_grad and _grad_enabled():
            _warn_scalar_of_grad_tensor()
        return complex(self.item())

    def __index__(self):
        if self._data.dtype.kind not in 'iub' or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self._data.reshape(()))

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import tensor_repr
        return tensor_repr(self, tensor_contents=tensor_contents)

    def __format__(self, spec):
        # As torch: a 0-d plain Tensor formats as its Python number (f"{t}", f"{t:.3f}"); any
        # other tensor, subclasses included, as its str -- and refuses a format spec.
        if self._data.ndim == 0 and type(self) is Tensor:
            return self._data.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        return (_rebuild, (type(self), self._data, self._requires_grad, pickled_state(self)))

    def share_memory_(self):
        """Moves this tensor's memory (its base's, for a view) into shared memory, so that
        processes it is sent to (``ember.multiprocessing``) see the same numbers; returns
        self."""
        from .multiprocessing._sharing import share_memory_
        return share_memory_(self)

    def is_shared(self):
        """True when this tensor's memory lies in shared memory (``share_memory_``)."""
        from .multiprocessing._sharing import is_shared
        return is_shared(self)

    def __deepcopy__(self, memo):
        if self._gfn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        import copy
        t = self.as_subclass(type(self))
        t._data = self._data.copy()
        t._vc = [0]
        t.__dict__.pop('_bits', None)
        memo[id(self)] = t
        d = self.__dict__
        if d:
            for k, v in d.items():
                # (torch's copy keeps neither, and is a resolved one: no conj/neg bit)
                if k in ('_grad_acc', '_grad_dtype', '_bits'):
                    continue
                setattr(t, k, copy.deepcopy(v, memo))
        return t


_WARNED_SCALAR = []  # whether float()/complex() of a requires_grad tensor has warned


def _warn_scalar_of_grad_tensor():
    """float(t) / complex(t) of a tensor that requires grad, with grad mode on: torch's
    warning, once per process unless ``set_warn_always(True)`` (``int``, ``bool`` and
    ``.item()`` stay quiet, as in torch)."""
    from ._settings import is_warn_always_enabled
    if _WARNED_SCALAR and not is_warn_always_enabled():
        return
    _WARNED_SCALAR.append(True)
    warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                  "unexpected behavior.\nConsider using tensor.detach() first.", UserWarning,
                  stacklevel=4)  # (past this helper, __float__ and the overrides wrapper)


def _no_bfloat16_numpy(a=None):
    # As torch: NumPy has no bfloat16 of its own (ember's arrays use ml_dtypes' internally),
    # so a bfloat16 tensor converts with .float() first; nor a complex32 (a structured dtype
    # here).
    kind = 'ComplexHalf' if a is not None and a.dtype.names is not None else 'BFloat16'
    raise TypeError(f"Got unsupported ScalarType {kind}")


def _short_name(d):
    """torch's C++ short dtype name used in some messages: 'float', 'double', 'long', ..."""
    return {'float32': 'float', 'float64': 'double', 'float16': 'half', 'int64': 'long',
            'int32': 'int', 'int16': 'short', 'int8': 'signed char', 'uint8': 'unsigned char',
            'complex64': 'c10::complex<float>', 'complex128': 'c10::complex<double>',
            'bfloat16': 'c10::BFloat16'}.get(d.name, d.name)


# Autograd state that belongs to this process's graph, not to the tensor's value. A pickled
# tensor comes back as a leaf without it -- no .grad, history, view base or hooks, as in torch
# (and the weak reference to the leaf's AccumulateGrad node could not be pickled anyway).
_GRAPH_STATE = frozenset({
    '_grad', '_grad_acc', '_base', '_view_fn', '_rebased', '_seen', '_output_nr', '_hooks',
    '_retains_grad', '_post_acc_hooks', '_fw', '_made_by_function', '_no_grad_view',
    '_multi_view_of', '_grad_dtype', '_made_at', '_chain_at', '_relaid',
    '_detached_from'})


def pickled_state(t):
    """The instance attributes a pickled tensor keeps (the user's own, not autograd's);
    warns, as torch does, for each backward hook that is dropped."""
    d = t.__dict__
    for hook in d.get('_hooks') or ():
        warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.")
    return {k: v for k, v in d.items() if k not in _GRAPH_STATE}


def _rebuild(cls, data, requires_grad, state):
    t = _new(cls)
    t._data = data
    t._requires_grad = requires_grad
    t._gfn = None
    t._vc = [0]
    for k, v in state.items():
        setattr(t, k, v)
    return t


def refresh_view(t):
    """Rebuilds the history of view ``t`` after an in-place op rewrote its base's history
    through another view (torch regenerates such grad_fns lazily too)."""
    from ._ops._core import rebuild_view, view_chain, PURE_VIEW, WATCHED
    if t._seen == WATCHED and t._vc[0] == t._made_at[0]:
        return  # nothing was written since it was made: its history stands
    base = t._base
    if t._gfn is None and not base._requires_grad:
        # outside autograd: only the steps from the base may need bringing up to date
        view_chain(t)
        t._seen = base._rebased
        return
    made = t._made_by_function
    if made is PURE_VIEW:  # (a pure custom Function's view is replayed like any view)
        t._made_by_function = made = None
    if made is not None:  # replaying it would bypass the Function's backward
        raise RuntimeError(
            f"Output {t._output_nr} of {t._made_by_function} is a view and its base or another "
            "view of its base has been modified inplace. This view was created inside a custom "
            "Function (or because an input was returned as-is) and the autograd logic to handle "
            "view+inplace would override the custom backward associated with the custom "
            "Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
            "this by cloning the output of the custom Function.")
    ngv = t._no_grad_view
    if ngv:
        from ._ops._core import _no_grad_view_message
        raise RuntimeError(_no_grad_view_message(
            "A view was created", ngv[1] if type(ngv) is tuple else ngv,
            "its base or another view of its base has been modified inplace"))
    fresh = rebuild_view(t, base, view_chain(t))
    old_fn, old_nr = t._gfn, t._output_nr
    t._gfn = fresh._gfn
    t._requires_grad = fresh._requires_grad
    t._output_nr = fresh._output_nr
    t._seen = base._rebased
    if t._retains_grad:  # (its tensor hooks stay behind, as in torch; retain_grad moves)
        from ._ops._core import _move_retain
        _move_retain(t, old_fn, old_nr)


def retype(t, cls):
    """``t``'s data, autograd history and forward-AD tangent as an instance of ``cls``
    (as_subclass, and how the __torch_function__ default gives results the subclass's
    type)."""
    r = _new(cls)
    r._data, r._requires_grad, r._gfn, r._vc = t._data, t._requires_grad, t._gfn, t._vc
    if t._output_nr:
        r._output_nr = t._output_nr
    if t._fw is not None:
        r._fw = t._fw
    if t._base is not None:
        # a view stays a view of the same base, so in-place ops through it still rewrite
        # the base's history (a subclass's s[:2].mul_(2) must reach s)
        for key in _VIEW_STATE:
            if key in t.__dict__:
                setattr(r, key, t.__dict__[key])
    return r


_VIEW_STATE = ('_base', '_view_fn', '_seen', '_made_at', '_chain_at', '_no_grad_view',
               '_made_by_function', '_multi_view_of', '_bits')


def make(data, grad_fn=None, requires_grad=False):
    """Wraps an ndarray as a Tensor (no copy): the one constructor every op uses."""
    if type(data) is np.ndarray and not data.size:
        data = torch_empty_strides(data)
    t = _new(Tensor)
    t._data = data
    t._requires_grad = requires_grad
    t._gfn = grad_fn
    t._vc = [0] if not _SPECIAL_VC_OPEN[0] else _new_vc()
    return t


def torch_empty_strides(data):
    """``data`` (an empty array) with torch's strides for a new empty tensor when NumPy gave
    it none (all 0): the row-major ones, a size 0 counting as 1. NumPy keeps strides set
    explicitly through its views (a transpose swaps them), so views of the tensor then
    report torch's strides too (``zeros(0, 2).t().stride()`` is (1, 2))."""
    if data.ndim and not any(data.strides):
        st, step = [], data.itemsize
        for n in reversed(data.shape):
            st.append(step)
            step *= max(n, 1)
        data = np.lib.stride_tricks.as_strided(data, strides=st[::-1])
    return data


# The autograd modules are imported by this one, so they receive `make` instead of importing
# it inside functions on the hot path (an import statement costs ~0.6 us per call).
from .autograd import graph as _graph, engine as _engine  # noqa: E402
_graph.make = _engine.make = make
_overrides._Tensor = Tensor
_overrides._retype = retype
_overrides._PLAIN_OR_TENSOR = _overrides._PLAIN | {Tensor}
_engine.refresh_view = refresh_view


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as ``torch.Size([2, 3])``."""
    __slots__ = ()

    def __repr__(self):
        # (each size as the int it stands for: a NumPy int, kept as given, prints as one)
        return f"torch.Size([{', '.join(str(int(s)) for s in self)}])"

    def numel(self):
        """Product of the sizes."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, other))


def _wrap_dim(dim, ndim, op='op'):
    """Wraps a negative dim into [0, ndim); IndexError naming the op when out of range."""
    n = ndim if ndim else 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


wrap_dim = _wrap_dim


def _size_dim(dim, ndim):
    """``dim`` of ``size(dim)`` / ``stride(dim)`` wrapped: a 0-d tensor has none (torch does
    not treat it as 1-d here)."""
    if not ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, ndim)


def to_array(data, dtype=None):
    """Converts nested Python sequences / numbers / arrays / tensors into an ndarray of
    ``dtype`` (an ember dtype), inferring torch's dtype when ``dtype`` is None."""
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray) or _overrides.is_torch_tensor_type(type(data)):
        # (a real torch tensor is data, as torch.tensor takes a NumPy array: its values, as
        # NumPy sees them, without its autograd history)
        arr = data if isinstance(data, np.ndarray) else data.detach().numpy()
        if dtype is None:
            _dtype.from_numpy_dtype(arr.dtype)
    else:
        inferred = None
        if isinstance(data, (list, tuple)) and data:
            odd = []
            inferred, has_tensors = _sequence_dtype(data, odd)
            if odd:  # (NumPy would make None a NaN, a string a number...)
                _refuse_data(data, dtype)
            if has_tensors:
                data = _tensors_to_lists(data)
        elif _is_np_scalar_type(type(data)):
            inferred = _dtype.from_numpy_dtype(data.dtype)
        elif type(data) not in _PY_NUMBERS:
            _refuse_data(data, dtype)
        if dtype is not None and dtype.name == 'uint64' and inferred is None:
            return _uint64_data(data)
        try:
            # Built straight in the inferred dtype: NumPy's own promotion differs from torch's
            # (np.int32 with a Python int stays int32 in NumPy, becomes int64 in torch).
            arr = np.asarray(data, inferred.np if inferred is not None and dtype is None
                             else None)
        except (ValueError, TypeError, OverflowError) as e:
            _refuse_data(data, dtype)  # (torch's error for a ragged nesting)
            raise ValueError(f"could not build a tensor from {type(data).__name__}: {e}") \
                from None
        if arr.dtype.kind in 'uO' and inferred is None and (
                dtype is None or dtype.np.kind in 'iu'):
            _int64_overflow(data)  # (a Python int beyond int64: torch unpacks int64)
        if dtype is None:
            dtype = inferred or _python_dtype(arr, data)
        elif arr.dtype.kind == 'c' and not dtype.is_complex:
            # (torch converts each number to the dtype's Python type, which a complex refuses
            # -- but a Python complex makes a bool and a NumPy complex a float)
            numpy = inferred is not None
            if dtype.np.kind in 'iu' or dtype.np.kind == 'b' and numpy:
                kind = 'numpy.' + arr.dtype.name if numpy else 'complex'
                raise TypeError(f"'{kind}' object cannot be interpreted as an integer")
            if dtype.np.kind != 'b' and not numpy:
                raise TypeError("must be real number, not complex")
        elif dtype.np.kind in 'iu' and arr.dtype.kind in 'fiu' and arr.size:
            _python_numbers_fit(arr, dtype.np, data if inferred is None else None)
    if dtype is not None and arr.dtype != dtype.np:
        arr = _dtype.cast(_dtype.real_part_for(arr, dtype.np), dtype.np)
    return arr


def _leaves(data):
    if isinstance(data, (list, tuple)):
        for x in data:
            yield from _leaves(x)
    else:
        yield data


def _int64_overflow(data):
    """torch's ValueError for Python ints beyond int64's range in data stored as an integer
    dtype other than uint64 (NumPy made them uint64 or objects)."""
    if all(type(v) in (int, bool) for v in _leaves(data)):
        raise ValueError("Overflow when unpacking long long")


def _uint64_data(data):
    """Python numbers stored as uint64, as torch's constructor does: each must be a Python
    int (or bool) in uint64's range -- no float, no negative (OverflowError, where other
    unsigned dtypes wrap) -- and is stored exactly (NumPy's inference would go through
    float64 for a mix of ints beyond int64 and others)."""
    for v in _leaves(data):
        if type(v) not in (int, bool):
            raise TypeError("an integer is required")
        if v < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if v >= 1 << 64:
            raise OverflowError("int too big to convert")
    try:
        return np.array(data, np.uint64)
    except ValueError:
        _refuse_data(data, None)  # (a ragged nesting)
        raise


def _python_numbers_fit(arr, np_dtype, data=None):
    """torch's overflow error for Python numbers ``arr`` written into an integer dtype: a
    float (NaN and inf too) must lie within its range; an int too, except that an unsigned
    type takes negatives down to -max (they wrap, -1 -> 255)."""
    info = np.iinfo(np_dtype)
    low = -int(info.max) if arr.dtype.kind in 'iu' and info.min == 0 else info.min
    with np.errstate(invalid='ignore'):
        fits = (arr >= low) & (arr <= info.max)
    if not fits.all():
        if data is not None and arr.dtype.kind == 'f' and np.abs(arr).max() >= 2.0 ** 63:
            _int64_overflow(data)  # (ints beyond int64 that NumPy made floats)
        raise RuntimeError(f"value cannot be converted to type {np.dtype(np_dtype).name} "
                           "without overflow")


def _python_dtype(arr, data):
    """torch's dtype for data made only of Python numbers, from NumPy's inference ``arr``."""
    kind = arr.dtype.kind
    if kind in 'fV':
        return _dtype.DEFAULT.float
    if kind == 'c':
        return _dtype.default_complex()
    if kind in 'iu':
        return _dtype.int64
    if kind == 'b':
        return _dtype.bool_
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


_PY_NUMBERS = frozenset((bool, int, float, complex))
_NP_SCALARS = (np.number, np.bool_)


def _is_np_scalar_type(kind):
    """NumPy's number types and ml_dtypes' bfloat16 (a ``np.generic`` but not a number)."""
    return issubclass(kind, _NP_SCALARS) or (issubclass(kind, np.generic) and
                                              kind.__name__ == 'bfloat16')


def _refuse_data(data, dtype):
    """Raises torch's error for ``data`` that makes no tensor (of ``dtype``, or inferred when
    None), in the order torch's constructor checks: the sizes along the first elements (a
    string there has "too many dimensions"), the dtype of every leaf (inference), then each
    element as it is stored (a ragged row, a leaf that is no number). Returns where all is
    well (an object NumPy can convert, such as one with ``__array__``)."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    sizes, x = [], data
    while isinstance(x, (list, tuple, str)):
        if isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
        sizes.append(len(x))
        if not x:
            break
        x = x[0]
    # (each element stored as the dtype's Python type: int() or float() refuses the rest)
    integral = not _infer_leaves(data) if dtype is None else dtype.np.kind in 'iub'
    real = dtype is None or not dtype.is_complex
    def store(v, dim):
        if dim < len(sizes):
            if not isinstance(v, (list, tuple)):
                raise TypeError("not a sequence")
            if len(v) != sizes[dim]:
                raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                                 f"(got {len(v)})")
            for e in v:
                store(e, dim + 1)
        elif not _is_value(v) or type(v) is complex and real and not (
                dtype is not None and dtype.np.kind == 'b'):  # (a complex makes a bool)
            raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer"
                            if integral else f"must be real number, not {type(v).__name__}")
    store(data, 0)


def _infer_leaves(data):
    """torch's dtype inference over nested ``data``: a string is an invalid data type, any
    other leaf that is no number (None, an object) has no dtype to infer. Returns whether a
    leaf is a float or complex (the inferred dtype is none of the integral ones)."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, (list, tuple)):
        floating = False
        for x in data:
            floating |= _infer_leaves(x)
        return floating
    if not _is_value(data):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    kind = data._data.dtype.kind if isinstance(data, Tensor) else \
        getattr(data, 'dtype', np.dtype(type(data))).kind
    return kind in 'fcV'


def _is_value(x):
    """A leaf torch's constructor takes: a number (Python's or NumPy's), an array, a tensor
    (not an object with ``__array__``, which torch does not read)."""
    return type(x) in _PY_NUMBERS or _is_np_scalar_type(type(x)) or \
        isinstance(x, (Tensor, np.ndarray))


def _sequence_dtype(seq, odd):
    """torch's dtype for a nested sequence, and whether it holds tensors. Every leaf counts
    with its own dtype -- a NumPy scalar or array or a tensor with its dtype, a Python number
    with the one ``tensor(number)`` gets -- and all are promoted together. None when all
    leaves are Python numbers: NumPy's inference then agrees with torch's."""
    numbers, typed = set(), set()
    has_tensors = _collect_leaf_types(seq, numbers, typed, odd)
    if not typed:
        return None, has_tensors
    # (a Python type's default dtype is that of its zero value: scalar_dtype(0.0), ...)
    return (functools.reduce(_dtype.promote_types,
                             typed | {_dtype.scalar_dtype(t()) for t in numbers}),
            has_tensors)


def _collect_leaf_types(seq, numbers, typed, odd):
    """Walks nested ``seq``: Python number types into ``numbers``, the dtypes of the other
    leaves into ``typed``, leaves that are no numbers (None, strings) into ``odd``; returns
    whether a tensor was among them."""
    # Scalars are judged by type, once per type, so a long row costs no Python loop.
    nested = False
    for kind in set(map(type, seq)):
        if kind in _PY_NUMBERS:
            numbers.add(kind)
        elif _is_np_scalar_type(kind):
            typed.add(_dtype.from_numpy_dtype(np.dtype(kind)))
        else:
            nested = True
    has_tensors = False
    for x in seq if nested else ():
        if isinstance(x, (list, tuple)):
            has_tensors |= _collect_leaf_types(x, numbers, typed, odd)
        elif isinstance(x, Tensor):
            typed.add(_dtype.FROM_NP[x._data.dtype])
            has_tensors = True
        elif isinstance(x, np.ndarray):
            if x.ndim == 0:
                raise TypeError("len() of unsized object: a 0-d numpy.ndarray inside a "
                                "sequence (as torch, ember refuses it; use .item())")
            typed.add(_dtype.from_numpy_dtype(x.dtype))
        elif not _is_np_scalar_type(type(x)) and type(x) not in _PY_NUMBERS:
            odd.append(x)
    return has_tensors


def _tensors_to_lists(seq):
    out = []
    for x in seq:
        if isinstance(x, Tensor):
            out.append(x._data)
        elif isinstance(x, (list, tuple)):
            out.append(_tensors_to_lists(x))
        else:
            out.append(x)
    return out
