"""Reused work buffers for large intermediates that never leave a kernel (im2col matrices,
padded copies).

Why: a fresh multi-megabyte NumPy array is fresh memory from the OS, and its first touch
costs a page fault per 4 KiB; on a virtual machine that took longer than the arithmetic of a
convolution. A buffer kept per thread and name is faulted in once. Buffers above
``LIMIT`` bytes are not kept (memory stays bounded), so big inputs just allocate.
"""
import math
import threading

import numpy as np

LIMIT = 64 << 20
_buffers = threading.local()


def scratch(name, shape, dtype):
    """An uninitialised array of ``shape``/``dtype`` carved from the buffer called ``name``.
    Valid until the next ``scratch(name, ...)`` call in this thread: use it only for values
    that do not outlive the caller."""
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    if nbytes > LIMIT:
        return np.empty(shape, dtype)
    buf = getattr(_buffers, name, None)
    if buf is None or buf.nbytes < nbytes:
        buf = np.empty(nbytes, np.uint8)
        setattr(_buffers, name, buf)
    return buf[:nbytes].view(dtype).reshape(shape)


def zeroed_scratch(name, shape, dtype, layout=()):
    """``scratch`` that comes back all zeros outside the part the caller writes, for work
    arrays with a zero border (padding, unused tiles) whose inside is overwritten on every
    call. Zero-filled only when the shape, dtype or ``layout`` (whatever decides which part
    the caller writes) changes; every user of ``name`` must write only that part."""
    arr = scratch(name, shape, dtype)
    key = (tuple(shape), np.dtype(dtype), tuple(layout), arr.__array_interface__['data'][0])
    if getattr(_buffers, name + '/zeroed', None) != key:
        arr.fill(0)
        setattr(_buffers, name + '/zeroed', key)
    return arr
