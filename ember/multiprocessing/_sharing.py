"""Tensors in shared memory, and how they cross process boundaries.

``share_memory_(t)`` moves the memory of ``t``'s root tensor (the tensor its views look
into) into a ``multiprocessing.shared_memory`` block and points the root and ``t`` at it.
Pickled by multiprocessing (``ForkingPickler``), a tensor travels as the block's name plus
its shape, strides, offset and dtype; the receiver maps the same block. Blocks are freed
when the last process holding one lets go of it (the creator unlinks the name at exit).

Views of the root other than ``t`` that existed before the move keep the old memory (torch
moves them all: its views share one storage object, ember's share NumPy buffers).
"""
import multiprocessing.reduction
import weakref
from multiprocessing import shared_memory

import numpy as np

__all__ = ['share_memory_', 'is_shared', 'array_is_shared', 'init_reductions']

# id(shared ndarray base) -> SharedMemory, kept alive while an array over it lives.
_BLOCKS = {}


def _block_of(array):
    base = array
    while base is not None:
        block = _BLOCKS.get(id(base))
        if block is not None:
            return block, base
        base = base.base if isinstance(base, np.ndarray) else None
    return None, None


def array_is_shared(array):
    """True when the NumPy ``array``'s memory lies in a shared-memory block."""
    return _block_of(array)[0] is not None


def is_shared(t):
    """True when ``t``'s memory lies in a shared-memory block."""
    return array_is_shared(t._data)


def _shared_array(block, shape, dtype):
    root = np.ndarray(shape, dtype, buffer=block.buf)
    _BLOCKS[id(root)] = block
    weakref.finalize(root, _release, id(root), block)
    return root


def _release(key, block):
    _BLOCKS.pop(key, None)
    try:
        block.close()
    except BufferError:
        pass            # another array still maps it; the OS frees it with the process


def share_memory_(t):
    """Moves ``t``'s memory (its root's, for a view) to shared memory; returns ``t``."""
    if is_shared(t):
        return t
    root = t._base if t._base is not None else t
    data = root._data
    block = shared_memory.SharedMemory(create=True, size=max(data.nbytes, 1))
    shared = _shared_array(block, data.shape, data.dtype)
    shared[...] = data
    root._data = shared
    if root is not t:
        from .._ops._core import replay_view, view_chain
        t._data = replay_view(root, view_chain(t))._data
    return t


def _offset_in(array, base):
    return (array.__array_interface__['data'][0] - base.__array_interface__['data'][0])


def _rebuild_shared(cls, name, nbytes_dtype, root_shape, shape, strides, offset,
                    requires_grad):
    from .._tensor import _rebuild
    dtype = np.dtype(nbytes_dtype)
    block = shared_memory.SharedMemory(name=name)
    _unregister_from_tracker(block)
    root = _shared_array(block, root_shape, dtype)
    array = np.ndarray(shape, dtype, buffer=root, offset=offset, strides=strides)
    return _rebuild(cls, array, requires_grad, {})


def _unregister_from_tracker(block):
    """Only the creator's resource tracker may unlink a block: an attaching process that
    ended first would otherwise unlink it under everyone else (Python < 3.13)."""
    try:
        from multiprocessing import resource_tracker
        resource_tracker.unregister(block._name, 'shared_memory')
    except Exception:
        pass


def _reduce_tensor(t):
    if t.requires_grad and t.grad_fn is not None:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., "
            "putting it on the queue).")
    share_memory_(t)
    block, root = _block_of(t._data)
    array = t._data
    return (_rebuild_shared, (type(t), block.name, array.dtype.str, root.shape, array.shape,
                              array.strides, _offset_in(array, root), t.requires_grad))


def init_reductions():
    """Registers how ember tensors (and Parameters) pickle between processes."""
    import ember
    from ..nn.parameter import Parameter
    for cls in (ember.Tensor, Parameter):
        multiprocessing.reduction.ForkingPickler.register(cls, _reduce_tensor)
