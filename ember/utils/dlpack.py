"""DLPack: ember tensors and other libraries' arrays (NumPy, torch, JAX, CuPy on the CPU)
share memory, no copy.

``ember.from_dlpack(x)`` wraps any object with ``__dlpack__`` (or a DLPack capsule from an
older ``to_dlpack``) as an ember tensor over the same memory, strides kept;
``np.from_dlpack(t)`` / ``torch.from_dlpack(t)`` do the reverse through
``Tensor.__dlpack__``. NumPy does the DLPack work on ember's side.

Both sides then write one memory, but each keeps its own version counter: a write through
the other library does not bump the ember tensor's ``_version`` (nor an ember in-place op
torch's), so autograd cannot see it -- as between two torch tensors shared through DLPack.
Do not modify through one library what the other saved for backward.
"""

from .._compat import dlpack_capsule, from_dlpack as _array_from_dlpack

__all__ = ['from_dlpack', 'to_dlpack']

_CPU = 1   # DLPack's kDLCPU


def dlpack(t, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a DLPack capsule over ``t``'s memory (as torch, refused for a
    tensor that requires grad: detach it first)."""
    if t._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if dl_device is not None and tuple(dl_device)[0] != _CPU:
        raise BufferError(f"ember tensors live on the CPU; cannot export to DLPack device "
                          f"{tuple(dl_device)}")
    return dlpack_capsule(t._data, stream, max_version, copy)


def dlpack_device(t):
    """``Tensor.__dlpack_device__``: (kDLCPU, 0)."""
    return (_CPU, 0)


class _Capsule:
    """A bare DLPack capsule, given the protocol so NumPy can import it."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (_CPU, 0)


def from_dlpack(ext_tensor):
    """An ember tensor sharing memory with ``ext_tensor``: an object with ``__dlpack__`` (a
    NumPy array, a torch tensor...) or a DLPack capsule (``to_dlpack``'s)."""
    from .._ops.creation import from_numpy
    from .. import Tensor
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if not hasattr(ext_tensor, '__dlpack__'):
        if type(ext_tensor).__name__ != 'PyCapsule':
            raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack "
                            f"capsule, got {type(ext_tensor).__name__}")
        ext_tensor = _Capsule(ext_tensor)
    return from_numpy(_array_from_dlpack(ext_tensor))


def to_dlpack(tensor):
    """A DLPack capsule over ``tensor``'s memory (for libraries taking a capsule; new code
    passes the tensor itself to their ``from_dlpack``)."""
    return dlpack(tensor)
