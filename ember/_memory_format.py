"""Memory formats: the orders in which a tensor's elements may lie in memory.

A tensor's array may have any strides NumPy allows, so a ``channels_last`` tensor is simply
an NCHW-shaped view of an NHWC-contiguous array, and its ``stride()`` is torch's. NumPy's
ufuncs keep their input's layout (order 'K'), as torch's elementwise ops do.
"""
import numpy as np

__all__ = ['memory_format', 'contiguous_format', 'channels_last', 'channels_last_3d',
           'preserve_format']


class memory_format:
    """A layout of a tensor's elements in memory: ``torch.contiguous_format`` (row-major),
    ``torch.channels_last`` (NHWC for a 4-D NCHW tensor), ``torch.channels_last_3d``
    (NDHWC for 5-D) or ``torch.preserve_format`` (whatever the input has)."""
    __slots__ = ('_name',)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return 'torch.' + self._name

    def __reduce__(self):
        return self._name  # pickles as the module-level instance of that name


contiguous_format = memory_format('contiguous_format')
channels_last = memory_format('channels_last')
channels_last_3d = memory_format('channels_last_3d')
preserve_format = memory_format('preserve_format')

# the dims from innermost to outermost of each channels-last format, and its rank
_ORDERS = {channels_last: ((1, 3, 2, 0), 4), channels_last_3d: ((1, 4, 3, 2, 0), 5)}


def _dense_in_order(arr, order):
    """Whether ``arr`` lies densely with its dims in ``order`` (innermost first); dims of
    size 1 may have any stride, as in torch."""
    expected = arr.itemsize
    for d in order:
        size = arr.shape[d]
        if size != 1:
            if arr.strides[d] != expected:
                return False
            expected *= size
    return True


def is_laid_out(arr, fmt):
    """``Tensor.is_contiguous(memory_format=fmt)`` of an array."""
    if fmt in _ORDERS:
        order, rank = _ORDERS[fmt]
        return arr.ndim == rank and _dense_in_order(arr, order)
    return arr.flags.c_contiguous


def suggested_format(arr):
    """The format torch suggests for ``arr``'s strides (``suggest_memory_format``): a 4-d
    (5-d) array whose strides look channels-last by torch's rule -- dims in the order C, W,
    H, N (C, W, H, D, N) with non-decreasing strides, an N-stride that is not the C-stride --
    is ``channels_last`` (``channels_last_3d``); everything else is ``contiguous_format``.
    ``to(memory_format=)`` copies unless it is the format asked for; ops that keep their
    input's format (pads, shuffles, interpolate, group_norm) lay their results out so."""
    for fmt, (order, rank) in _ORDERS.items():
        if arr.ndim == rank and _strides_like(arr.shape, arr.strides, order):
            return fmt
    return contiguous_format


def _strides_like(shape, strides, order):
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low or (d == 0 and low == strides[1]):
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def is_dense(arr):
    """Whether ``arr``'s elements fill a block of memory without gaps or overlaps, in some
    order of its dims (torch's non-overlapping-and-dense)."""
    order = sorted(range(arr.ndim), key=lambda d: (arr.strides[d], arr.shape[d]))
    return _dense_in_order(arr, order)


def in_format(arr, fmt, op='contiguous'):
    """A copy of ``arr`` laid out as ``fmt`` (``preserve_format``: as ``arr``, if dense)."""
    if fmt is None or fmt is preserve_format:
        if not arr.size:  # (NumPy keeps no strides of an empty array)
            return empty_as(np.empty(arr.shape, arr.dtype), arr)
        return np.array(arr, order='K')  # (NumPy's 'K' keeps a dense layout, as torch)
    if fmt in _ORDERS:
        order, rank = _ORDERS[fmt]
        if arr.ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
        perm = tuple(reversed(order))  # outermost first: (0, 2, 3, 1) for NCHW -> NHWC
        # (a new array, never the input: NumPy calls a permuted view with size-1 dims
        # contiguous already, while torch's strides count those dims too)
        out = np.empty(arr.transpose(perm).shape, arr.dtype)
        out[...] = arr.transpose(perm)
        return out.transpose(np.argsort(perm))
    if fmt is not contiguous_format:
        raise TypeError(f"memory_format must be torch.memory_format, not "
                        f"{type(fmt).__name__}")
    return np.array(arr, order='C')


def copy_obeying(data, like):
    """``data`` copied into the layout torch gives a leaf's ``.grad``: the leaf's own strides
    when its memory is dense, else row-major."""
    if like.flags.c_contiguous or not is_dense(like):
        return np.array(data, order='C')
    out = np.empty_like(like, dtype=data.dtype)  # (order 'K': the leaf's strides)
    np.copyto(out, data)
    return out


def obeys_layout(data, like):
    """Whether ``data`` already has the layout ``copy_obeying`` would give it."""
    if like.flags.c_contiguous or not is_dense(like):
        return data.flags.c_contiguous
    return data.strides == like.strides


def empty_as(arr, like):
    """``arr`` (a new empty array of ``like``'s shape) with ``like``'s strides, as torch's
    preserve_format copies an empty tensor's strides whatever they are (it counts it
    non-overlapping and dense): ``zeros(0, 3).t().clone()`` has strides (1, 3)."""
    if not like.ndim or not any(like.strides):
        return arr
    return np.lib.stride_tricks.as_strided(
        arr, strides=[s // like.itemsize * arr.itemsize for s in like.strides])
