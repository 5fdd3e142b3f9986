"""The 'meta' device: tensors with a shape and a dtype but no data.

A meta tensor is an ordinary ember Tensor whose array is a ``MetaArray``: a zero-filled
NumPy array (``np.zeros``, whose pages the OS maps lazily, so an untouched one costs no
memory) that drops every write. Building a large model under ``with torch.device('meta')``
therefore allocates nothing for its parameters, and their in-place initialisation is a
no-op, as in torch; ``Module.to_empty`` or ``load_state_dict(..., assign=True)`` then give
the parameters real memory. Ops on meta arrays give meta arrays (NumPy carries the subclass
through ufuncs and most functions), so shapes and dtypes propagate; values never leave:
``item()``, ``tolist()``, ``numpy()`` and copies to the CPU refuse, as in torch.
"""
import numpy as np

__all__ = ['MetaArray', 'empty', 'is_meta_array', 'refuse_copy_out']


class MetaArray(np.ndarray):
    """The array behind a meta tensor: shape, dtype and strides only; writes are dropped."""

    def __setitem__(self, key, value):
        pass  # a meta tensor has no data to write

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if out is not None and any(type(o) is MetaArray for o in out):
            return out[0] if len(out) == 1 else out  # an in-place op on meta: nothing to do
        inputs = tuple(i.view(np.ndarray) if type(i) is MetaArray else i for i in inputs)
        if out is not None:
            kwargs['out'] = out
        r = getattr(ufunc, method)(*inputs, **kwargs)
        if isinstance(r, tuple):
            return tuple(_wrap(x) for x in r)
        return _wrap(r)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.copyto and type(args[0]) is MetaArray:
            return None  # copying into a meta tensor: nothing to do
        r = super().__array_function__(func, types, args, kwargs)
        return _wrap(r) if isinstance(r, np.ndarray) and r.ndim else r


def _wrap(r):
    return r.view(MetaArray) if type(r) is np.ndarray else r


def empty(shape, dtype):
    """A meta array of ``shape`` and ``dtype`` (no memory is touched)."""
    return np.zeros(shape, dtype).view(MetaArray)


def is_meta_array(arr):
    """Whether ``arr`` is the array of a meta tensor."""
    return type(arr) is MetaArray


def refuse_copy_out():
    """torch's error for copying a meta tensor's values anywhere."""
    raise NotImplementedError("Cannot copy out of meta tensor; no data!")
