"""Reused work buffers for large intermediates that never leave a kernel (im2col matrices,
padded copies).

Why: a fresh multi-megabyte NumPy array is fresh memory from the OS, and its first touch
costs a page fault per 4 KiB; on a virtual machine that took longer than the arithmetic of a
convolution. A buffer kept per thread and name is faulted in once. Buffers above
``LIMIT`` bytes are not kept (memory stays bounded), so big inputs just allocate.
"""
import threading

import numpy as np

LIMIT = 64 << 20
_buffers = threading.local()


def scratch(name, shape, dtype):
    """An uninitialised array of ``shape``/``dtype`` carved from the buffer called ``name``.
    Valid until the next ``scratch(name, ...)`` call in this thread: use it only for values
    that do not outlive the caller."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    if nbytes > LIMIT:
        return np.empty(shape, dtype)
    buf = getattr(_buffers, name, None)
    if buf is None or buf.nbytes < nbytes:
        buf = np.empty(nbytes, np.uint8)
        setattr(_buffers, name, buf)
    return buf[:nbytes].view(dtype).reshape(shape)
