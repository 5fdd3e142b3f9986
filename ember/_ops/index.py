"""Indexing: ``__getitem__``/``__setitem__``, index_select, gather, scatter, index_add/copy/fill,
masked ops, nonzero, take, take_along_dim, index_put.

``x[...]`` follows torch, not NumPy: ints, slices and None are applied first, as a chain of
views (select, slice, unsqueeze) that shares memory with ``x``; the tensor indices left over
(lists, int/bool tensors) then index the resulting view in one copying ``index`` op. So in
``x[0, :, [1, 2]]`` the int is gone before the advanced index is placed, unlike in NumPy.

Internally an advanced index is a NumPy key with one entry per dim of the indexed tensor: a
full slice (the dim is kept whole) or an int64 array of in-range, non-negative indices, all
broadcasting together -- or, for a lone bool mask, the mask itself (NumPy places it as torch
does, and faster). ``_index`` and ``_index_put`` compute on that form, and each is the
other's backward (with accumulation), so gradients of any order are ember ops.
"""
import builtins
import math
import warnings

import numpy as np

from .. import _dtype, _native
from ..autograd.grad_mode import STATE
from ..autograd.graph import _SavedOutput, name_saved_values
from ..autograd.forward_ad import FWD, tangent_of
from ._core import no_grad_of
from ._core import (Node, Tensor, make, register, track, track1, result, view_of, wrap_dim,
                    inplace, is_scalar, METHODS, broadcast_shape,
                    check_no_partial_overlap, check_written_shape, writable_alias,
                    warn_expanded_write)
from . import shape as _shape

_INDEX_KINDS = (np.int64, np.int32)


def _tname(dt):
    """torch's scalar type name of a NumPy dtype, as in its messages: 'Float', 'Long'..."""
    return _dtype.FROM_NP[np.dtype(dt)]._legacy[:-6]


def _zeros_like_shape(shape, dt):
    return make(np.zeros(shape, dt))


# -- the advanced-index core: index and index_put ----------------------------------------
def _indexed_shape(shape, key):
    """Shape of ``x[key]`` for a normalized index (torch's and NumPy's placement rule:
    adjacent indexed dims keep their place, otherwise the broadcast dims go first)."""
    shape = tuple(shape)
    dims = [i for i, a in enumerate(key) if type(a) is np.ndarray]
    first = key[dims[0]]
    if first.dtype == np.bool_:
        d = dims[0]
        return shape[:d] + (int(np.count_nonzero(first)),) + shape[d + first.ndim:]
    bshape = np.broadcast_shapes(*(key[i].shape for i in dims))
    if dims == list(range(dims[0], dims[-1] + 1)):
        return shape[:dims[0]] + bshape + shape[dims[-1] + 1:]
    return bshape + tuple(s for i, s in enumerate(shape) if i not in dims)


class IndexBackward0(Node):
    def backward(self, g):
        self.saved_tensors  # (torch saves the indices: a second backward is refused)
        shape, dt = self._meta[0]
        return _index_put(_zeros_like_shape(shape, dt), self.idx, g, True)


def _index(x, idx):
    """``x[idx]`` for a normalized advanced index (a copy; IndexBackward0)."""
    out = x._data[idx]
    n = track1(IndexBackward0, x)
    if n is not None:
        n.idx = idx
        n._saved = ()  # (stands for the saved indices; released after backward)
    return result(np.asarray(out), n)


class IndexPutBackward0(Node):
    def backward(self, g):
        self.saved_tensors  # (torch saves the indices: a second backward is refused)
        idx = self.idx
        gx = g if self.accumulate else _index_put(g, idx, make(np.zeros((), g._data.dtype)),
                                                  False)
        return gx, _index(g, idx)


def _index_put(x, idx, values, accumulate, into=None):
    """A copy of ``x`` with ``values`` (broadcast) written, or added, at ``idx`` -- or, given
    ``into`` (a writable array over ``x``'s own memory, see ``_shared_memory``), the same
    writes made there, element by element, and None."""
    target = _indexed_shape(x._data.shape, idx)
    values = _fit_values(values, target)
    vb = np.broadcast_to(values._data, target)
    out = x._data.copy() if into is None else into
    if not accumulate:
        out[idx] = vb  # (into memory shared by elements: the last write to a place stays)
    elif into is None and any(type(a) is np.ndarray and a.dtype == np.bool_ for a in idx):
        out[idx] += vb  # a mask never repeats a position
    else:
        np.add.at(out, idx, vb)  # (into shared memory: the elements' values add up there)
    if into is not None:
        return None
    n = track(IndexPutBackward0, (x, values))
    if n is not None:
        n.idx, n.accumulate = idx, accumulate
        n._saved = ()  # (stands for the saved indices; released after backward)
    return result(out, n)


def _fit_values(values, target, strip=True):
    """``values`` with the leading size-1 dims beyond ``target``'s rank dropped (as torch's
    ``x[i] = v`` does; not with ``strip=False``: its ``index_put`` keeps them); torch's error
    unless it then broadcasts to ``target``."""
    v = values._data
    lead = v.ndim - len(target)
    if strip and lead > 0 and all(s == 1 for s in v.shape[:lead]):
        values = values.reshape(v.shape[lead:])
    try:
        if np.broadcast_shapes(values._data.shape, target) == tuple(target) and \
                values._data.ndim <= len(target):
            return values
    except ValueError:
        pass
    raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be "
                       f"broadcast to indexing result of shape {list(target)}")


def _put_args(x, entries, values, strip=True, accumulate=False):
    """Checks a user's index_put in torch's order (index shapes, value shape, dtypes,
    bounds); returns the normalized index and the values (``strip``: see ``_fit_values``)."""
    shape = x._data.shape
    raw = _expand_index(shape, entries)
    fill = _fills_mask(entries, values, accumulate)
    _check_size0_dims(shape, raw)
    if values._data.ndim and not fill:  # (a single value always fits)
        values = _fit_values(values, _indexed_shape(shape, raw), strip)
    values = _put_dtype(x, entries, values, fill)
    if fill and values._data.ndim:
        values = values.reshape(())
    return _check_index(shape, raw), values


def _fills_mask(entries, values, accumulate):
    """Whether torch runs the put as masked_fill: one value (of any shape) put through a
    lone bool mask, without accumulate -- no check of the value's shape or dtype then, only
    of the value's conversion to the tensor's dtype."""
    return not accumulate and values._data.size == 1 and len(entries) == 1 and \
        entries[0][1].dtype == np.bool_


def _finish_index(shape, entries):
    """The normalized advanced index (a NumPy key) for ``entries`` -- (dim, int array) and
    (dim, bool mask) pairs found in an index of a tensor of ``shape``: checked, wrapped."""
    return _check_index(shape, _expand_index(shape, entries))


def _expand_index(shape, entries):
    """The NumPy key for ``entries`` (unchecked bounds): a slice for each dim not indexed, an
    int array for each indexed one (masks turned into their nonzero positions) -- or, for a
    lone mask, the mask itself, which NumPy places exactly as torch does, faster."""
    for d, a in entries:
        if a.dtype == np.bool_:
            for j, (ms, ts) in enumerate(zip(a.shape, shape[d:])):
                if ms != ts:
                    raise IndexError(f"The shape of the mask {list(a.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {list(shape)} "
                                     f"at index {d + j}")
    if len(entries) == 1 and entries[0][1].dtype == np.bool_:
        d, m = entries[0]
        return (builtins.slice(None),) * d + (m.copy(),)  # (a copy: the node keeps it)
    idx = [builtins.slice(None)] * len(shape)
    for d, a in entries:
        if a.dtype == np.bool_:
            for j, nz in enumerate(np.nonzero(a)):
                idx[d + j] = nz
        else:
            idx[d] = a
    arrays = [a for a in idx if type(a) is np.ndarray]
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         "with shapes " + ', '.join(str(list(a.shape)) for a in arrays)) \
            from None
    return tuple(idx)


def _check_size0_dims(shape, key, bshape=None):
    """torch's IndexError for a non-empty int index into a dim of size 0 (checked before
    anything else: an index_put's value shape comes after)."""
    arrays = [a for a in key if type(a) is np.ndarray]
    if not arrays or arrays[0].dtype == np.bool_ or \
            all(shape[d] for d, a in enumerate(key) if type(a) is np.ndarray):
        return
    if bshape is None:
        bshape = np.broadcast_shapes(*(a.shape for a in arrays))
    if 0 not in bshape:
        raise IndexError("index is out of bounds for dimension with size 0")


def _check_index(shape, key):
    """Bounds-checks the int arrays of an expanded key and wraps them to non-negative int64
    copies (copies: the node keeps them, and the user's index tensor may change later)."""
    arrays = [a for a in key if type(a) is np.ndarray]
    if arrays[0].dtype == np.bool_:
        return key
    bshape = arrays[0].shape if len(arrays) == 1 else \
        np.broadcast_shapes(*(a.shape for a in arrays))
    # torch reads nothing, and so checks nothing, when the result is empty.
    empty = 0 in bshape or 0 in [s for s, a in zip(shape, key) if type(a) is not np.ndarray]
    _check_size0_dims(shape, key, bshape)
    idx = list(key)
    k = 0
    for d, a in enumerate(key):
        if type(a) is not np.ndarray:
            continue
        size = shape[d]
        a = a.astype(np.int64)
        if a.size:
            lo, hi = a.min(), a.max()
            if (lo < -size or hi >= size) and not empty:
                bad = a[(a >= size) | (a < -size)].flat[0]
                raise IndexError(f"index {bad} is out of bounds for dimension {k} with size "
                                 f"{size}")
            if empty and size:
                np.clip(a, -size, size - 1, out=a)  # keeps NumPy from complaining (in place:
                # a 0-d index stays an array)
            if lo < 0:
                a[a < 0] += size
        idx[d] = a
        k += 1
    return tuple(idx)


def _index_array(t):
    """The NumPy array of an index tensor, refusing dtypes torch refuses."""
    a = t._data
    if a.dtype == np.uint8:
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                      "torch.bool instead.", UserWarning, stacklevel=3)
        return a.astype(np.bool_)
    if a.dtype == np.bool_ or a.dtype.type in _INDEX_KINDS:
        return a
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _seq_array(seq):
    """A list index as an array: ints -> int64, bools -> bool (floats truncate, as torch)."""
    from .._tensor import to_array
    try:
        a = to_array(seq)
    except (TypeError, ValueError):
        bad = next((x for x in _flat(seq) if not (is_scalar(x) or isinstance(x, Tensor))),
                   seq)
        raise TypeError(f"new(): invalid data type '{type(bad).__name__}'") from None
    if a.dtype.kind not in 'biu':
        a = a.astype(np.int64)
    return a


def _flat(seq):
    for x in seq:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


# -- __getitem__ / __setitem__ -----------------------------------------------------------
def _as_items(index):
    """The index as a tuple of items; a list holding slices, None, ..., tensors or lists is
    read as a tuple (deprecated in torch, which warns)."""
    if type(index) is tuple:
        return index
    if isinstance(index, list) and len(index) < 32 and any(
            isinstance(i, (Tensor, list, tuple, str, builtins.slice)) or i is None or
            i is Ellipsis
            for i in index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated "
                      "and will be changed in pytorch 2.9; use x[tuple(seq)] instead of "
                      "x[seq]. In pytorch 2.9 this will be interpreted as tensor index, "
                      "x[torch.tensor(seq)], which will result either in an error or a "
                      "different result", UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


_INT = 'int'
_BOOL = 'bool'
_ARRAY = 'array'
_STR = 'str'


def _classify(item):
    """(kind, payload) of one index item: ints (also 0-d int tensors), bools (also 0-d bool
    tensors), arrays (index tensors and lists), or the item itself (slice, None, ...)."""
    t = type(item)
    if t is int:
        return _INT, item
    if t is bool:
        return _BOOL, item
    if isinstance(item, Tensor):
        a = _index_array(item)
        if a.ndim == 0:
            return (_BOOL, bool(a)) if a.dtype == np.bool_ else (_INT, int(a))
        return _ARRAY, a
    if t is builtins.slice:
        return builtins.slice, item
    if item is None or item is Ellipsis:
        return item, item
    if isinstance(item, (list, tuple, range)):
        return _ARRAY, _seq_array(list(item))
    if isinstance(item, (np.integer,)):
        return _INT, int(item)
    if isinstance(item, np.bool_):
        return _BOOL, bool(item)
    if isinstance(item, np.ndarray):
        return _ARRAY, _seq_array(item)
    if isinstance(item, str):
        return _STR, item  # (refused when reached: torch counts the dims first)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     f"Variables are valid indices (got {t.__name__})")


class AliasBackward0(Node):
    def backward(self, g):
        return g


def _alias(x):
    return view_of(x, x._data.view(), track1(AliasBackward0, x), _alias, ())


def _slice(x, dim, start, stop, step):
    """The strided view ``x[..., start:stop:step, ...]`` along ``dim`` (SliceBackward0)."""
    key = (builtins.slice(None),) * dim + (builtins.slice(start, stop, step),)
    return _shape._slice_view(x, key, _shape.SliceBackward0, _slice, (dim, start, stop, step))


def _select(x, dim, i):
    """The view ``x[..., i, ...]`` at ``dim`` (SelectBackward0); the trailing Ellipsis keeps
    a 0-d result a NumPy view rather than a scalar copy."""
    key = (builtins.slice(None),) * dim + (i, Ellipsis)
    return _shape._slice_view(x, key, _shape.SelectBackward0, _select, (dim, i))


def _apply(x, index, setting=False):
    """Applies the basic part of ``index`` to ``x`` as views; returns the view and the
    advanced entries left for it (an empty list when there are none)."""
    given = _as_items(index)
    bare = len(given) == 1 and given[0] is index  # (a lone index: a few rules differ)
    items = [_classify(i) for i in given]
    nd = x._data.ndim
    used = 0
    for kind, p in items:
        if kind is _INT or kind is builtins.slice or kind is _STR:
            used += 1
        elif kind is _ARRAY:
            used += p.ndim if p.dtype == np.bool_ else 1
    if used > nd:
        if bare and nd == 0 and items[0][0] is _INT:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python "
                             "or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a "
                             "number")
        if bare and nd == 0 and items[0][0] is builtins.slice:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    y, dim, entries = x, 0, []
    for pos, (kind, p) in enumerate(items):
        if kind is not Ellipsis:
            # (only reachable past the end through repeated ellipses: torch's error)
            wrap_dim(dim, y._data.ndim + (kind is None or kind is _BOOL))
        if kind is _STR:
            raise TypeError("new(): invalid data type 'str'")
        if kind is _INT:
            size = y._data.shape[dim]
            if not -size <= p < size:
                raise IndexError(f"index {p} is out of bounds for dimension {pos} with size "
                                 f"{size}")
            y = _select(y, dim, p + size if p < 0 else p)
        elif kind is builtins.slice:
            size = y._data.shape[dim]
            if p.step is not None and p.step.__index__() <= 0:
                if p.step.__index__() == 0:
                    raise ValueError("slice step cannot be zero")
                raise ValueError("step must be greater than zero")
            start, stop, step = p.indices(size)
            stop = builtins.max(stop, start)
            # A full slice is a no-op (torch judges by the start as written and the clamped
            # stop), but a lone one still makes a SliceBackward0 view.
            full = (p.start is None or p.start.__index__() == 0) and stop == size and step == 1
            if not (full and (setting or not bare)):
                y = _slice(y, dim, start, stop, step)
            dim += 1
        elif kind is None:
            y = _shape.unsqueeze(y, dim)
            dim += 1
        elif kind is Ellipsis:
            dim += nd - used  # (every ellipsis skips as many dims, as in torch)
        elif kind is _BOOL:
            y = _shape.unsqueeze(y, dim)
            entries.append((dim, np.zeros(1 if p else 0, np.int64)))
            dim += 1
        else:
            entries.append((dim, p))
            dim += p.ndim if p.dtype == np.bool_ else 1
    return y, entries


def getitem(self, index):
    """``self[index]``: basic indexing gives a view, tensor/list indices a copy."""
    if type(index) is int and self._data.ndim:  # the most common case, kept short
        size = self._data.shape[0]
        if -size <= index < size:
            return _select(self, 0, index + size if index < 0 else index)
    y, entries = _apply(self, index)
    if entries:
        return _index(y, _finish_index(y._data.shape, entries))
    if y is self:
        return _alias(self)
    return y


def _check_leaf(t):
    """torch's refusal of in-place ops on a leaf that requires grad, or on a view of one
    (and on an inference tensor outside inference mode)."""
    vc = t._vc
    if vc.__class__ is not list:
        vc.before_write()
    if not STATE.enabled:
        return
    base = t._base
    if base is not None and base._gfn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if t._gfn is None and t._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _put_dtype(x, entries, values, fill=False):
    """index_put's dtype rule: ``values`` must have ``x``'s dtype, except where the put is a
    masked_fill (``fill``, see ``_fills_mask``): its one value is converted as a Scalar."""
    if values._data.dtype == x._data.dtype:
        return values
    if fill:
        from .pointwise import scalar_as  # (pointwise builds on this module)
        scalar_as(values, x._data.dtype)  # (its refusal of a complex or too large value)
        if values.is_complex() and not x.is_complex():
            values = values.real  # (a zero imaginary part: converted without a warning)
        return values.to(x.dtype)
    raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                       f"{_tname(x._data.dtype)} for the destination and "
                       f"{_tname(values._data.dtype)} for the source.")


def _value_tensor(value, like):
    """A setitem value as a tensor: numbers take ``like``'s dtype; other types are refused."""
    if isinstance(value, Tensor):
        return value
    if is_scalar(value):
        from .pointwise import fill_scalar  # (pointwise builds on this module)
        dt = like._data.dtype
        return make(np.asarray(fill_scalar(value, dt, via_float=True)).astype(dt))
    t = type(value)
    name = t.__name__ if t.__module__ == 'builtins' else f'{t.__module__}.{t.__name__}'
    raise TypeError(f"can't assign a {name} to a torch.{like.dtype._legacy}")


class FillBackward3(Node):
    def backward(self, g):
        return no_grad_of(g)


def _filled3(t, value):
    return result(np.full(t._data.shape, value, t._data.dtype), track1(FillBackward3, t))


def setitem(self, index, value):
    """``self[index] = value``: copies into the view (basic index) or ``index_put_``."""
    if FWD.level is None:
        return _setitem(self, index, value)
    # Forward AD: the tangent is written the same way (zeros where there was none).
    ts = tangent_of(self)
    tv = tangent_of(value) if isinstance(value, Tensor) else None
    _setitem(self, index, value)
    if ts is not None or tv is not None:
        nt = ts.detach().clone() if ts is not None else make(np.zeros_like(self._data))
        _setitem(nt, index, tv if tv is not None else 0)
        self._fw = (FWD.level, nt)


def _setitem(self, index, value):
    if type(index) is bool:
        if not index:
            return
        index = None  # x[True] = v writes through an unsqueezed view
    v = _value_tensor(value, self)
    y, entries = _apply(self, index, setting=True)
    _check_leaf(y)
    tracking = STATE.enabled and (self._requires_grad or v._requires_grad)
    if entries:
        idx, v = _put_args(y, entries, v)
        if _dtype.FROM_NP[y._data.dtype] in _dtype.BAREBONES_UNSIGNED:
            # (torch writes a lone mask and one value with masked_fill, else index_put)
            kernel = 'masked_fill' if len(entries) == 1 and entries[0][1].dtype == np.bool_ \
                and not v._data.ndim else 'index_put'
            _dtype.refuse_barebones(kernel, _dtype.FROM_NP[y._data.dtype])
        if tracking:
            inplace(y, _index_put, (idx, v, False), 'index_put_')
        else:
            # (torch writes where elements share memory too, as index_put_ does)
            _writable(y, overlap=True)[idx] = v._data
            y._vc[0] += 1
        return
    shape = y._data.shape
    check_no_partial_overlap(y._data, v._data)
    vs = v._data.shape
    while len(vs) > len(shape) and vs[0] == 1:
        vs = vs[1:]
    if vs != v._data.shape:
        v = v.reshape(vs)
    if vs and vs != shape:
        v = _shape.expand(v, shape)  # (torch's error when it does not fit)
    if not tracking:
        np.copyto(_writable(y), _dtype.real_part_for(v._data, y._data.dtype), casting='unsafe')
        y._vc[0] += 1
    elif y is self and self._data.ndim and not isinstance(value, Tensor):
        inplace(self, _filled3, (value,), 'fill_')
    else:
        y.copy_(v)


def _writable(t, overlap=False):
    """The array to write ``t``'s elements through (see writable_alias), or torch's error;
    with ``overlap``, also when elements share memory (torch's deprecation warning)."""
    arr = t._data
    if not arr.flags.writeable:
        ro, arr = arr, writable_alias(arr)
        if arr is None and overlap:
            arr = writable_alias(ro, overlap=True)
            if arr is not None:
                warn_expanded_write('index_put_')
        if arr is None:
            raise RuntimeError("unsupported operation: more than one element of the "
                               "written-to tensor refers to a single memory location. Please "
                               "clone() the tensor before performing the operation.")
    return arr


METHODS['__getitem__'] = getitem
METHODS['__setitem__'] = setitem


# -- index_select / index_add / index_copy / index_fill ----------------------------------
def _vector_index(index, op):
    """index_select's index as a flat array, with torch's dtype and rank checks."""
    a = index._data
    if a.ndim > 1:  # (torch checks the rank first)
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    if a.dtype.type not in _INDEX_KINDS:
        raise RuntimeError(f"{op}(): Expected dtype int32 or int64 for index")
    return a.reshape(-1)


def _dim_key(d, idx):
    """The NumPy key for ``idx`` along dim ``d``."""
    return (builtins.slice(None),) * d + (idx,)


def add_rows_at(out, idx, rows):
    """``np.add.at(out, idx, rows)`` for a 1-D array ``idx`` of indices in ``[0, len(out))``
    and ``rows`` of shape ``(len(idx),) + out.shape[1:]``: repeated indices accumulate, in
    their order (so the sums are bit-identical to ``np.add.at``'s).

    ufunc.at goes one row at a time (an embedding backward took 12x torch's time). Instead,
    the occurrences are split into *levels* -- the first occurrence of every index, then the
    second, ... -- and each level, whose indices are distinct, is one vectorised addition.
    The indices are ordered by how often they occur (most first), so the ones a level
    reaches are a prefix: the rows are gathered once, level after level, and each level is
    ``acc[:n] += rows[at:at + n]`` on contiguous memory, with ``acc`` the looked-up rows of
    ``out`` (written back at the end): 4096 rows of 128 into 1000 take 0.16 ms against 1.2
    ms for ``add.at`` on a flat index (and 3.5 ms row by row). Occurrences beyond the first
    ``_LEVELS`` of an index (a padding index repeated thousands of times) go through the
    flat ``add.at`` afterwards, still in their order."""
    width = math.prod(out.shape[1:])
    if idx.size < 2 or width < 2 or not (out.flags.c_contiguous and out.dtype == rows.dtype):
        np.add.at(out, idx, rows)
        return
    idx = idx.astype(np.intp, copy=False)
    if _native.add_rows_at(out, idx, rows):
        return
    if idx.size < 32:
        _add_flat_at(out, idx, rows, width)
        return
    order = np.argsort(_small_keys(idx, len(out)), kind='stable')
    first = np.empty(idx.size, bool)          # first occurrence of its index, in sorted order
    first[0] = True
    sorted_idx = idx[order]
    np.not_equal(sorted_idx[1:], sorted_idx[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    counts = np.diff(starts, append=idx.size)
    by_count = np.argsort(_small_keys(idx.size - counts, idx.size + 1), kind='stable')
    starts, counts = starts[by_count], counts[by_count]
    levels = min(int(counts[0]), _LEVELS)
    live = np.searchsorted(-counts, -np.arange(levels))   # indices occurring > k times
    level_rows = np.take(rows.reshape(idx.size, width), order[np.concatenate(
        [starts[:n] + k for k, n in enumerate(live)])], axis=0)
    flat_out = out.reshape(len(out), width)
    uniq = sorted_idx[starts]
    acc = np.take(flat_out, uniq, axis=0)
    at = 0
    for n in live:
        acc[:n] += level_rows[at:at + n]
        at += n
    flat_out[uniq] = acc
    if levels < counts[0]:
        rank = np.arange(idx.size) - np.maximum.accumulate(np.where(first, np.arange(
            idx.size), 0))                    # occurrence number, in sorted order
        rest = np.sort(order[rank >= levels])  # back in their original order
        _add_flat_at(out, idx[rest], np.take(rows, rest, axis=0), width)


_LEVELS = 16


def _small_keys(keys, bound):
    """``keys`` (all in ``[0, bound)``) in the narrowest unsigned dtype: NumPy's stable
    argsort is a radix sort for 8- and 16-bit keys, 7x faster than its int64 timsort."""
    if bound <= 256:
        return keys.astype(np.uint8)
    if bound <= 65536:
        return keys.astype(np.uint16)
    return keys


def _add_flat_at(out, idx, rows, width):
    """``np.add.at`` with one index per element: NumPy's fast 1-D path."""
    flat = idx[:, None] * width + np.arange(width)
    np.add.at(out.reshape(-1), flat.reshape(-1), np.ascontiguousarray(rows).reshape(-1))


class IndexSelectBackward0(Node):
    def backward(self, g):
        shape, dt = self._meta[0]
        if not shape:
            return g.reshape(())
        return index_add(_zeros_like_shape(shape, dt), self.dim, self.index, g)


@register
def index_select(input, dim, index, *, out=None):
    """The entries at ``index`` (a 1-D int tensor) along ``dim``."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    a = _vector_index(index, 'index_select')
    size = x.shape[d] if x.ndim else 1
    if not x.ndim and a.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{a.size} value(s)")
    check_select_bounds(x, d, a, size)
    arr = np.take(x, a, axis=d) if x.ndim else x.copy()
    n = track1(IndexSelectBackward0, input)
    if n is not None:
        n.dim, n.index = d, index
    return _out(result(arr, n), out)


def check_select_bounds(x, d, a, size):
    """torch's refusal of an index in ``a`` (flat) outside ``size``, dim ``d``'s size of the
    array ``x``, as index_select (and embedding, which is one) words it."""
    if a.size and size == 0:
        if x.ndim == 1:  # (torch's kernel for a vector checks each index: its IndexError)
            raise IndexError("index out of range in self")
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if a.size and (a.min() < 0 or a.max() >= size):
        # torch's kernels word this differently: its dim-1 fast path and its copy of an
        # empty tensor (one with a size-0 dim elsewhere), and the rest
        if d != 1 and x.size:
            raise IndexError("index out of range in self")
        bad = a[(a < 0) | (a >= size)][0]
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")


def _out(r, out):
    if out is None:
        return r
    from .pointwise import _write_out
    return _write_out(out, r)


def _check_index_source(input, dim, index, source, op):
    """Shared checks of index_add/index_copy: returns (dim, flat index array)."""
    x, s = input._data, source._data
    d = wrap_dim(dim, x.ndim)
    a = index._data
    if a.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector, but got dim: {a.ndim} "
                         f"with type: {_tname(a.dtype)} and size: {list(a.shape)}")
    a = a.reshape(-1)
    if not s.ndim and a.size != 1:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if s.ndim and d >= s.ndim:  # (index_copy_ has refused a source of fewer dims already)
        raise RuntimeError(f"{op}(): Indexing dim {d} is out of bounds of the source tensor "
                           f"with dim {s.ndim}")
    ssize = s.shape[d] if s.ndim else 1
    if a.size != ssize:
        msg = (f"{op}(): Number of indices ({a.size}) should be equal to source.size(dim): "
               f"({ssize}), for dim: {d}" if op == 'index_add_' else
               f"{op}(): Number of indices ({a.size}) should be equal to source.size(dim) "
               f"({ssize})")
        raise (RuntimeError if op == 'index_add_' else IndexError)(msg)
    return d, a


class IndexAddBackward0(Node):
    def backward(self, g):
        gs = g.index_select(self.dim, self.index)
        if self.alpha != 1:
            gs = gs * self.alpha
        return g, gs.reshape(self._meta[1][0])


@register
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """``input`` with ``alpha * source`` slices added at ``index`` along ``dim``."""
    a = index._data
    # (torch's order: the dim, the index's rank, then its dtype)
    wrap_dim(dim, input._data.ndim)
    if a.ndim > 1:
        _check_index_source(input, dim, index, source, 'index_add_')
    if a.dtype.type not in _INDEX_KINDS:
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{_tname(a.dtype)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_add_(): self ({_tname(input._data.dtype)}) and source "
                           f"({_tname(source._data.dtype)}) must have the same scalar type")
    d, a = _check_index_source(input, dim, index, source, 'index_add_')
    x, s = input._data, source._data
    xs = x.shape if x.ndim else (1,)
    ss = s.shape if s.ndim else (1,)
    if x.ndim != s.ndim or any(p != q for k, (p, q) in enumerate(zip(xs, ss)) if k != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(x.shape)} "
                           f"source.shape = {list(s.shape)}")
    outa = x.reshape(xs).copy()
    if x.size or x.ndim <= 1:  # (torch checks nothing for an empty n-d self)
        # torch words this by kernel: its scatter_add one (n-d, alpha 1, first or last dim,
        # an int64 index) names the index; its slice loop does not
        if x.ndim > 1 and alpha == 1 and d in (0, x.ndim - 1) and a.dtype == np.int64:
            _check_bounds(a, xs[d], d, RuntimeError)
        elif a.size and (a.min() < 0 or a.max() >= xs[d]):
            raise IndexError("index out of range in self")
        src = s.reshape(ss) * alpha if alpha != 1 else s.reshape(ss)
        if d == 0 and a.ndim == 1:
            add_rows_at(outa, a, src)
        else:
            np.add.at(outa, _dim_key(d, a), src)
    n = track(IndexAddBackward0, (input, source))
    if n is not None:
        n.dim, n.index, n.alpha = d, index, alpha
    return _out(result(outa.reshape(x.shape), n), out)


def _check_bounds(a, size, d, exc, prefix=''):
    """Raises ``exc`` naming the first index of ``a`` outside ``[0, size)``."""
    if a.size and (a.min() < 0 or a.max() >= size):
        bad = a[(a < 0) | (a >= size)][0]
        raise exc(f"{prefix}index {bad} is out of bounds for dimension {d} with size {size}")


class IndexCopyBackward0(Node):
    def backward(self, g):
        return (g.index_fill(self.dim, self.index, 0),
                g.index_select(self.dim, self.index).reshape(self._meta[1][0]))


@register
def index_copy(input, dim, index, source):
    """``input`` with its slices at ``index`` along ``dim`` replaced by ``source``'s."""
    a = index._data
    # (torch's order: the dim, the index's rank, the ranks of source and self, the dtypes)
    wrap_dim(dim, input._data.ndim)
    if a.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {a.ndim})")
    sn, xn = source._data.ndim, input._data.ndim
    if sn == 0 and a.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {a.size})")
    if sn != xn and sn and xn:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({sn}), "
                         f"destination dimensionality ({xn})")
    if a.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_tname(a.dtype)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_tname(input._data.dtype)} and (source) "
                           f"{_tname(source._data.dtype)}")
    x, s = input._data, source._data
    d = wrap_dim(dim, x.ndim)
    xs = x.shape if x.ndim else (1,)
    ss = s.shape if s.ndim else (1,)
    xr = xs[:d] + xs[d + 1:]
    sr = ss[:d] + ss[d + 1:]
    if xr != sr:  # (before the number of indices, as in torch)
        k = next((k for k, (p, q) in enumerate(zip(xr, sr)) if p != q), 0)
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {xr[k] if xr else ''} at "
                           f"dimension {k} and source slice shape: {sr[k] if sr else ''} at "
                           f"dimension {k}.")
    d, a = _check_index_source(input, dim, index, source, 'index_copy_')
    outa = x.reshape(xs).copy()
    if s.size:  # (torch's kernel checks each index as it copies: nothing to copy, none)
        _check_bounds(a, xs[d], d, IndexError, 'index_copy_(): ')
        outa[_dim_key(d, a)] = s.reshape(ss)
    n = track(IndexCopyBackward0, (input, source))
    if n is not None:
        n.dim, n.index = d, index
    return result(outa.reshape(x.shape), n)


class IndexFillBackward0(Node):
    def backward(self, g):
        return g.index_fill(self.dim, self.index, 0)


class IndexFillBackward1(Node):
    def backward(self, g):
        # the value reaches each filled slice once, however often the index names it
        return (g.index_fill(self.dim, self.index, 0),
                g.index_select(self.dim, make(self.filled)).sum())


@register
def index_fill(input, dim, index, value):
    """``input`` with its slices at ``index`` along ``dim`` set to ``value``."""
    a = index._data
    is_t = isinstance(value, Tensor)
    # (torch's order: the value's rank, the index's dtype, the dim, the index's rank)
    if is_t and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    if a.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if a.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = x.shape[d] if x.ndim else 1
    a = a.reshape(-1)
    bad = (a >= size) | (a < -size)
    if bad.any() and not x.size and size:
        a = a[:0]  # (an empty input: torch writes nothing, so checks no index)
    elif bad.any():
        raise IndexError(f"index {a[bad][0]} is out of bounds for dimension {d} with size "
                         f"{size}")
    if not is_t:  # (a number out of an integer dtype's range: torch's refusal)
        from .pointwise import fill_scalar
        value = fill_scalar(value, x.dtype)
    outa = x.reshape(x.shape or (1,)).copy()
    outa[_dim_key(d, a)] = value._data if is_t else value
    outa = outa.reshape(x.shape)
    if is_t:
        n = track(IndexFillBackward1, (input, value))
        if n is not None:
            n.filled = np.unique(np.where(a < 0, a + size, a))
    else:
        n = track1(IndexFillBackward0, input)
    if n is not None:
        n.dim, n.index = d, index
    return result(outa, n)


# -- gather / scatter --------------------------------------------------------------------
def _along_key(idx, dim):
    """Full coordinate arrays addressing ``out[..., idx[...], ...]`` along ``dim``."""
    grids = np.indices(idx.shape, sparse=True)
    return tuple(idx if k == dim else g for k, g in enumerate(grids))


def _same_dtype(x, src):
    if src is not None and src._data.dtype != x._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def _check_against_src(a, ai, xd, xs, d, nd, sd):
    """scatter's checks of the index against self and src, in torch's order: the sizes
    (reading ``src.size(k)`` for each of self's dims: torch's IndexError for a src of fewer
    dims), then src's number of dims, then a size too large."""
    wrong = any(k != d and ai.shape[k] > xs[k] for k in range(nd))
    if not wrong:
        for k in range(nd):
            if ai.shape[k] > (sd.shape[wrap_dim(k, sd.ndim)] if sd.ndim else 1):
                wrong = True
                break
    if builtins.max(sd.ndim, 1) != nd or (sd.ndim == 0 and a.ndim):
        raise RuntimeError("Index tensor must have the same number of dimensions as src "
                           "tensor")
    if wrong:
        raise RuntimeError(f"Expected index {list(a.shape)} to be no larger than self "
                           f"{list(xd.shape)} apart from dimension {d} and to be no larger "
                           f"size than src {list(sd.shape)}")


def _check_along(x, dim, index, op, src=None):
    """torch's gather/scatter checks; returns the wrapped dim and the index as an int64
    array of at least one dim."""
    a = index._data
    xd = x._data
    nd = builtins.max(xd.ndim, 1)
    d = wrap_dim(dim, xd.ndim)  # (torch wraps the dim before it looks at the index)
    if a.size == 0:  # (torch checks an empty index for nothing else: no element is read)
        _same_dtype(x, src)
        return d, a.astype(np.int64).reshape(a.shape or (1,))
    if a.dtype.type not in _INDEX_KINDS:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    _same_dtype(x, src)
    xs = xd.shape if xd.ndim else (1,)
    ai = a.reshape(a.shape if a.ndim else (1,))
    if builtins.max(a.ndim, 1) != nd:
        what = 'input' if op == 'gather' else 'self'
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} "
                           "tensor")
    if src is not None:
        _check_against_src(a, ai, xd, xs, d, nd, src._data)
    else:
        for k in range(nd):
            if op == 'gather':
                if k != d and ai.shape[k] > xs[k]:
                    raise RuntimeError(f"Size does not match at dimension {k} expected index "
                                       f"{list(a.shape)} to be no larger than self "
                                       f"{list(xd.shape)} apart from dimension {d}")
            elif k != d and ai.shape[k] > xs[k]:
                raise RuntimeError(f"Expected index {list(a.shape)} to be no larger than self "
                                   f"{list(xd.shape)} apart from dimension {d}")
    if ai.size:
        _check_bounds(ai.reshape(-1), xs[d], d, RuntimeError)
    return d, ai.astype(np.int64, copy=False)


class GatherBackward0(Node):
    def backward(self, g):
        shape, dt = self._meta[0]
        if self.sparse:
            return _gather_sparse_grad(shape, self.dim, self.index, g)
        return scatter_add(_zeros_like_shape(shape, dt), self.dim, self.index, g)


def _gather_sparse_grad(shape, d, index, g):
    """``gather(..., sparse_grad=True)``'s gradient: a sparse COO tensor with an entry for
    each element picked (the position it was read from, the output gradient there)."""
    from .sparse import sparse_coo_tensor
    if not shape:  # (a 0-d input: every element picked is the whole input)
        return sparse_coo_tensor(make(np.zeros((0, g.numel()), np.int64)), g.reshape(-1),
                                 shape)
    ai = index._data.reshape(index._data.shape or (1,))
    if not ai.size:  # (an empty index, of any number of dims, picked nothing)
        return sparse_coo_tensor(make(np.zeros((len(shape), 0), np.int64)), g.reshape(-1),
                                 shape)
    where = list(np.indices(ai.shape))
    where[d] = ai
    positions = np.stack([w.reshape(-1) for w in where]).astype(np.int64)
    return sparse_coo_tensor(make(positions), g.reshape(-1), shape)


@register
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[index[i][j]][j]`` (for dim 0): values picked along ``dim``."""
    d, ai = _check_along(input, dim, index, 'gather')
    x = input._data
    xs = x.reshape(x.shape or (1,))
    if not ai.size:
        xs = np.empty(ai.shape, x.dtype)  # (an empty index may have any number of dims)
    if any(k != d and i != s for k, (i, s) in enumerate(zip(ai.shape, xs.shape))):
        # index may be smaller than input off ``dim``: only that leading part is read
        xs = xs[tuple(builtins.slice(None) if k == d else builtins.slice(0, i)
                      for k, i in enumerate(ai.shape))]
    arr = np.take_along_axis(xs, ai, d).reshape(index._data.shape) if ai.size else \
        np.empty(index._data.shape, x.dtype)
    n = track1(GatherBackward0, input)
    if n is not None:
        n.dim, n.index, n.sparse = d, index, sparse_grad
    return _out(result(arr, n), out)


class ScatterBackward0(Node):
    def backward(self, g):
        return g.scatter(self.dim, self.index, 0), g.gather(self.dim, self.index)


class ScatterBackward1(Node):
    def backward(self, g):
        return g.scatter(self.dim, self.index, 0)


class ScatterAddBackward0(Node):
    def backward(self, g):
        return g, g.gather(self.dim, self.index)


class _ScatterReduce(Node):
    def backward(self, g):
        raise RuntimeError("derivative for aten::scatter is not implemented")


_ScatterReduce.__name__ = _ScatterReduce.__qualname__ = 'NotImplemented'
_REDUCERS = {'add': np.add, 'multiply': np.multiply}


def _scatter(input, dim, index, src, value, reduce, op):
    """scatter / scatter_add: ``input`` with ``src`` (or ``value``) written along ``dim``."""
    d, ai = _check_along(input, dim, index, 'scatter', src)
    if reduce is not None and reduce not in _REDUCERS:
        raise RuntimeError("reduce argument must be either add or multiply.")
    x = input._data
    out = x.reshape(x.shape or (1,)).copy()
    if ai.size:  # (an empty index writes nothing, and torch checks no sizes)
        key = _along_key(ai, d)
        if src is not None:
            s = src._data.reshape(src._data.shape or (1,))
            vals = s[tuple(builtins.slice(0, k) for k in ai.shape)]
        else:  # (torch's checked conversion of the number: no wrap-around)
            from .pointwise import fill_scalar  # (pointwise builds on this module)
            vals = np.asarray(fill_scalar(value, x.dtype)).astype(x.dtype)
        if op == 'scatter_add':
            np.add.at(out, key, vals)
        elif reduce is not None:
            _REDUCERS[reduce].at(out, key, np.broadcast_to(vals, ai.shape))
        else:
            out[key] = vals
    if reduce is not None:
        n = track(_ScatterReduce, (input, src))
    elif op == 'scatter_add':
        n = track(ScatterAddBackward0, (input, src))
    elif src is not None:
        n = track(ScatterBackward0, (input, src))
    else:
        n = track1(ScatterBackward1, input)
    if n is not None:
        n.dim, n.index = d, index
    return result(out.reshape(x.shape), n)


@register
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """``input`` with ``src`` (a tensor) or ``value`` (a number) written at ``index`` along
    ``dim``; ``reduce='add'``/``'multiply'`` combines instead of overwriting."""
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    return _scatter(input, dim, index, src, value, reduce, 'scatter')


@register
def scatter_add(input, dim, index, src):
    """``input`` with ``src`` added at ``index`` along ``dim`` (duplicates accumulate)."""
    return _scatter(input, dim, index, src, None, None, 'scatter_add')


class ScatterReduceBackward0(Node):
    def backward(self, g):
        x, src, res = self.saved_tensors
        d, index, how = self.dim, self.index, self.reduce
        if how not in _SR_UFUNC:  # torch differentiates only the current names
            raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                               f"'amin' but got {how}.")
        if src._data.shape != index._data.shape:
            # torch's formulas assume src shaped like index; it fails here too
            raise RuntimeError(f"Function ScatterReduceBackward0 returned an invalid gradient "
                               f"at index 1 - got {list(index._data.shape)} but expected shape "
                               f"compatible with {list(src._data.shape)}")
        if how == 'sum':
            gx, gs = g, g.gather(d, index)
        elif how == 'mean':
            n = _scatter_count(g, d, index, src, self.include_self)
            gx = g / n
            gs = gx.gather(d, index)
        elif how == 'prod':
            gx, gs = _prod_grads(g, x, src, res, d, index, self.include_self,
                                 type(self).__name__)
        else:  # amax / amin: split evenly between the tied winners
            value = res.gather(d, index)
            x_wins = (x == res).to(g.dtype)
            s_wins = (src == value).to(g.dtype)
            share = g / x_wins.scatter_add(d, index, s_wins)
            gx = x_wins * share
            gs = s_wins * share.gather(d, index)
        if not self.include_self:
            gx = gx.scatter(d, index, 0)
        return gx, gs


def _scatter_count(g, d, index, src, include_self):
    """How many values met at each position of a mean scatter_reduce (at least 1)."""
    base = make(np.full(g._data.shape, 1 if include_self else 0, g._data.dtype))
    n = base.scatter_add(d, index, make(np.ones(src._data.shape, g._data.dtype)))
    return n.masked_fill(n == 0, 1)


def _prod_grads(g, x, src, res, d, index, include_self, node_name):
    """Gradients of a prod scatter_reduce that stay right where inputs are zero: each
    factor's gradient is the product of the others, recomputed with that zero replaced by
    one when it is the only zero of its group. (Where a group has several zeros, the
    gradient of src is 0 but its own derivative is not that of this formula: as torch,
    a double backward through it is refused.)"""
    x_nz = x.masked_fill(x == 0, 1)
    gx = g * x_nz.scatter_reduce(d, index, src, 'prod', include_self=include_self) / x_nz
    zero = src == 0
    zeros_per_pos = make(np.zeros(x._data.shape, g._data.dtype)).scatter_add(
        d, index, zero.to(g.dtype)).gather(d, index)
    single = zero & (zeros_per_pos == 1)
    alt = x.scatter_reduce(d, index, src.masked_fill(single, 1), 'prod',
                           include_self=include_self)
    gs = _where(single, (g * alt).gather(d, index),
                (g * res).gather(d, index) / src.masked_fill(zero, 1))
    if gs._requires_grad and (zero & (zeros_per_pos > 1))._data.any():
        from ..autograd.function import refuse_double_backward
        op, arg = (('index_reduce', 'source') if node_name == 'IndexReduceBackward0' else
                   ('scatter_reduce', 'src'))
        gs = refuse_double_backward(gs, f"{op}(): Double backward is unsupported for {arg} "
                                        f"when >1 zeros in {arg} are scattered to the same "
                                        "position in self")
    return gx, gs


def _where(cond, a, b):
    from .pointwise import where
    return where(cond, a, b)


_SR_UFUNC = {'sum': np.add, 'prod': np.multiply, 'mean': np.add, 'amax': np.maximum,
             'amin': np.minimum}


def _identity(how, dt):
    if how in ('sum', 'mean'):
        return 0
    if how == 'prod':
        return 1
    big = np.inf if dt.kind in 'fV' else np.iinfo(dt).max
    return -big if how == 'amax' else big


@register
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with ``src`` combined into it at ``index`` along ``dim`` by ``reduce``
    ('sum', 'prod', 'mean', 'amax', 'amin'); ``include_self=False`` leaves ``input``'s own
    values out of the positions that receive something."""
    asked, reduce = reduce, {'max': 'amax', 'min': 'amin'}.get(reduce, reduce)  # old names
    d, ai = _check_along(input, dim, index, 'scatter', src)
    if reduce not in _SR_UFUNC:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    x = input._data
    out = x.reshape(x.shape or (1,)).copy()
    key = _along_key(ai, d)
    s = src._data.reshape(src._data.shape or (1,))
    vals = s[tuple(builtins.slice(0, k) for k in ai.shape)]
    if ai.size and not include_self:
        out[key] = _identity(reduce, out.dtype)
    if ai.size:
        _SR_UFUNC[reduce].at(out, key, vals)
    if reduce == 'mean':
        n = np.full(out.shape, 1 if include_self else 0, np.int64)
        np.add.at(n, key, 1)
        n = np.maximum(n, 1)
        out = out // n if out.dtype.kind in 'iub' else (out / n).astype(out.dtype)
    n = track(ScatterReduceBackward0, (input, src))
    r = result(out.reshape(x.shape), n)
    if n is not None:
        n.dim, n.index, n.reduce, n.include_self = d, index, asked, include_self
        n.save(input, src)
        n._saved += ((_SavedOutput(r), 0),)  # the result, without a reference cycle
    return r


_INDEX_REDUCTIONS = ('prod', 'mean', 'amax', 'amin')


@register
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with the slices of ``source`` combined into it by ``reduce`` ('prod',
    'mean', 'amax', 'amin') at the positions ``index`` (1-D) gives along ``dim``. It is
    ``scatter_reduce`` with the index spread over each slice, and differentiates as that
    (torch names the node IndexReduceBackward0)."""
    warnings.warn("index_reduce() is in beta and the API may change at any time.",
                  UserWarning, stacklevel=2)
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d = wrap_dim(dim, input._data.ndim)
    if index._data.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index._data.dtype.kind not in 'iu' or index._data.dtype.itemsize < 4:
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.kernel_name}) and source "
                           f"({source.dtype.kernel_name}) must have the same scalar type")
    n = index._data.reshape(-1).shape[0]
    if source._data.ndim and source._data.shape[d] != n:
        raise RuntimeError(f"index_reduce_(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({source._data.shape[d]}), for dim: {d}")
    shape = [1] * source._data.ndim
    if shape:
        shape[d] = n
    spread = make(np.broadcast_to(index._data.astype(np.int64).reshape(shape),
                                  source._data.shape).copy())
    r = scatter_reduce(input, d, spread, source, reduce, include_self=include_self)
    if r._gfn is not None:
        from .view_copy import _rename
        _rename(r._gfn, 'IndexReduceBackward0')
    return r


@register(function=False)
def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place ``index_reduce``."""
    return inplace(self, lambda t, s: index_reduce(t, dim, index, s, reduce,
                                                   include_self=include_self),
                   (source,), 'index_reduce_')


@register
def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero(input)`` as exactly ``size`` rows: cut short, or padded with
    ``fill_value``."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    x = input._data
    found = np.argwhere(x).astype(np.int64)[:size] if x.ndim else \
        np.zeros((builtins.min(size, int(x != 0)), 0), np.int64)
    out = np.full((size, x.ndim), fill_value, np.int64)
    out[:found.shape[0]] = found
    return make(out)


# -- masked ops --------------------------------------------------------------------------
def _mask_name(dt):
    """The C++ type name torch's masked_fill message gives for a mask dtype."""
    return _dtype.FROM_NP[np.dtype(dt)].cpp_name


class MaskedFillBackward0(Node):
    def backward(self, g):
        return g.masked_fill(self.mask, 0)


class MaskedFillBackward1(Node):
    def backward(self, g):
        return g.masked_fill(self.mask, 0), g.masked_fill(~self.mask, 0).sum()


def _masked_fill_checks(mask, value):
    """masked_fill_'s own checks, in torch's order, made before it broadcasts: a tensor
    ``value`` is 0-d, the mask is bool (their errors stand: see ``_args.stands``)."""
    from ._args import stands
    if isinstance(value, Tensor) and value._data.ndim:
        raise stands(RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, "
                                  f"but got tensor with {value._data.ndim} dimension(s)."))
    if mask._data.dtype != np.bool_:
        raise stands(RuntimeError(f"masked_fill_ only supports boolean masks, but got mask "
                                  f"with dtype {_mask_name(mask._data.dtype)}"))


@register
def masked_fill(input, mask, value):
    """``input`` (broadcast with ``mask``) with ``value`` where ``mask`` is True."""
    m, x = mask._data, input._data
    shape = broadcast_shape(m.shape, x.shape)  # (torch broadcasts first, the mask as tensor a)
    _masked_fill_checks(mask, value)
    is_t = isinstance(value, Tensor)
    from .pointwise import fill_scalar  # (pointwise builds on this module)
    # (a number, or the tensor's one value, converted as torch converts a Scalar: refused
    # when out of an integer dtype's range or complex for a real one)
    v = np.asarray(fill_scalar(value.item() if is_t else value, x.dtype)).astype(x.dtype)
    arr = np.where(m, v, x)
    if arr.shape != shape:
        arr = np.broadcast_to(arr, shape).copy()
    if is_t:
        n = track(MaskedFillBackward1, (input, value))
    else:
        n = track1(MaskedFillBackward0, input)
    if n is not None:
        n.mask = mask
    return result(arr, n)


class MaskedSelectBackward0(Node):
    def backward(self, g):
        shape, dt = self._meta[0]
        mask = self.mask
        full = broadcast_shape(shape, mask._data.shape)
        if mask._data.shape != full:
            mask = make(np.broadcast_to(mask._data, full))
        return masked_scatter(_zeros_like_shape(full, dt), mask, g)


@register
def masked_select(input, mask, *, out=None):
    """The 1-D tensor of ``input``'s elements where ``mask`` is True (broadcast together)."""
    m = mask._data
    if m.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    x = input._data
    shape = broadcast_shape(m.shape, x.shape)
    arr = np.broadcast_to(x, shape)[np.broadcast_to(m, shape)]
    n = track1(MaskedSelectBackward0, input)
    if n is not None:
        n.mask = mask
    return _out(result(arr, n), out)


class MaskedScatterBackward0(Node):
    def backward(self, g):
        mask = self.mask
        sshape = self._meta[1][0]
        full = g._data.shape
        if mask._data.shape != full:
            mask = make(np.broadcast_to(mask._data, full))
        sel = g.masked_select(mask)
        extra = int(np.prod(sshape)) - sel._data.size
        if extra > 0:
            sel = _shape.embed(sel, (sel._data.size + extra,),
                               (builtins.slice(0, sel._data.size),))
        return g.masked_fill(mask, 0), sel.reshape(sshape)


@register
def masked_scatter(input, mask, source):
    """``input`` (broadcast with ``mask``) with the elements of ``source``, in order, written
    where ``mask`` is True."""
    m = mask._data
    x, s = input._data, source._data
    # (torch's order: mask and input broadcast, then the in-place op's checks on the copy)
    shape = broadcast_shape(m.shape, x.shape) if m.shape != x.shape else x.shape
    _masked_scatter_dtypes(input, mask, source)
    mb = np.broadcast_to(m, shape)
    count = int(mb.sum())
    if count > s.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    arr = np.broadcast_to(x, shape).copy()
    arr[mb] = s.reshape(-1)[:count]
    n = track(MaskedScatterBackward0, (input, source))
    if n is not None:
        n.mask = mask
    return result(arr, n)


# -- nonzero, take, take_along_dim, index_put -------------------------------------------
@register
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the nonzero elements: an (n, ndim) int64 tensor, or with ``as_tuple`` one
    1-D tensor per dim (a 0-d input counts as 1-d there)."""
    x = input._data
    if as_tuple:
        return tuple(make(a.astype(np.int64)) for a in np.nonzero(x.reshape(x.shape or (1,))))
    return _out(make(np.argwhere(x).astype(np.int64).reshape(-1, x.ndim) if x.ndim else
                     np.zeros((int(x != 0), 0), np.int64)), out)


@register
def argwhere(input):
    """``nonzero(input)``: the (n, ndim) indices of the nonzero elements."""
    return nonzero(input)


class TakeBackward0(Node):
    def backward(self, g):
        shape, dt = self._meta[0]
        flat = _zeros_like_shape((int(np.prod(shape)),), dt)
        return _index_put(flat, (self.flat,), g.reshape(-1), True).reshape(shape)


@register
def take(input, index):
    """Elements of the flattened ``input`` at ``index`` (negative counts from the end)."""
    a = index._data
    if a.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{_tname(a.dtype)}")
    x = input._data
    flat = _flat_index(a, x.size, 'take')
    arr = x.reshape(-1)[flat].reshape(a.shape)
    n = track1(TakeBackward0, input)
    if n is not None:
        n.flat = flat
    return result(arr, n)


class PutBackward0(Node):
    def backward(self, g):
        flat = (self.flat,)
        gx = g if self.accumulate else _index_put(
            g.reshape(-1), flat, make(np.zeros((), g._data.dtype)), False).reshape(g.shape)
        return gx, _index(g.reshape(-1), flat).reshape(self._meta[1][0])


@register
def put(input, index, source, accumulate=False):
    """``input`` with the flattened positions ``index`` set to (or, with ``accumulate``,
    increased by) the elements of ``source``."""
    from ._args import stands  # (these come before put_'s check of an expanded self)
    a = index._data
    if a.dtype != np.int64:
        raise stands(RuntimeError(f"put_(): Expected a long tensor for index, but got "
                                  f"{_tname(a.dtype)}"))
    x, s = input._data, source._data
    if s.dtype != x.dtype:
        raise stands(RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{_tname(x.dtype)} and source.dtype = {_tname(s.dtype)}"))
    if s.size != a.size:
        raise stands(IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {s.size}, index.numel() = {a.size}"))
    flat = _flat_index(a, x.size, 'put_')
    out = x.copy().reshape(-1)
    if accumulate:
        np.add.at(out, flat, s.reshape(-1))
    else:
        out[flat] = s.reshape(-1)
    n = track(PutBackward0, (input, source))
    if n is not None:
        n.flat, n.accumulate = flat, accumulate
    return result(out.reshape(x.shape), n)


def _flat_index(a, n_el, op):
    """``a`` flattened, bounds-checked against ``n_el`` elements and wrapped non-negative."""
    if n_el == 0 and a.size:
        raise IndexError("take(): tried to take from an empty tensor" if op == 'take' else
                         "put_(): Tried to put elements into an empty tensor")
    flat = a.reshape(-1)
    bad = (flat >= n_el) | (flat < -n_el)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {flat[bad][0]} on a tensor of "
                         f"{n_el} elements.")
    return np.where(flat < 0, flat + n_el, flat)


@register
def take_along_dim(input, indices, dim=None):
    """``gather`` along ``dim`` after broadcasting ``input`` and ``indices`` against each
    other (except along ``dim``); with ``dim=None``, on the flattened input."""
    a = indices._data
    if dim is None:  # (views, as torch; gather checks the index dtype: int32 passes)
        return gather(input.view(-1), 0, indices.view(-1))
    x = input._data
    if x.ndim != a.ndim:  # (torch: the dims, then the dtype)
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {x.ndim} dimensions for input, and "
                           f"{a.ndim} dimensions for indices")
    if a.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_tname(a.dtype)}")
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0 == a.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    xs = list(x.shape)
    xs[d] = a.shape[d]
    full = list(broadcast_shape(xs, a.shape))
    if tuple(full) != a.shape:
        indices = _shape.expand(indices, tuple(full))
    full[d] = x.shape[d]
    if tuple(full) != x.shape:
        input = _shape.expand(input, tuple(full))
    return gather(input, d, indices)


@register
def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written (or, with ``accumulate``, added) at the advanced
    index ``indices`` (a tuple of int/bool tensors, one per leading dim)."""
    return _index_put(input, *_index_put_args(input, indices, values, accumulate), accumulate)


def _index_put_args(input, indices, values, accumulate):
    """index_put's checks, in torch's order: the normalized index and the values."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 2) must be tuple of "
                        f"Tensors, not {type(indices).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 3) must be Tensor, not "
                        f"{type(values).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                            f"{type(t).__name__}")
    nd = input._data.ndim
    if not indices:  # (torch checks the value, then fails inside its kernel)
        if values._data.ndim:
            _fit_values(values, input._data.shape, strip=False)
        _put_dtype(input, [], values)
        raise RuntimeError("index_put(): an empty tuple of indices indexes nothing (torch's "
                           "kernel fails on it)")
    if len(indices) > nd:  # (torch counts the index tensors first, before their dtypes)
        raise IndexError(f"too many indices for tensor of dimension {nd} (got "
                         f"{len(indices)})")
    entries, dim = [], 0
    shape = input._data.shape
    for t in indices:
        a = _index_array(t)
        if a.dtype == np.bool_:  # (a mask's dims read against the input's, one by one)
            for j in range(a.ndim):
                if dim + j >= nd:
                    raise IndexError(f"Dimension out of range (expected to be in range of "
                                     f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {dim + j})")
                if a.shape[j] != shape[dim + j]:
                    raise IndexError(f"The shape of the mask {list(a.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor "
                                     f"{list(shape)} at index {dim + j}")
        entries.append((dim, a))
        dim += a.ndim if a.dtype == np.bool_ else 1
    if dim > nd:  # (masks expanded: torch's kernel reads the size of dim ``nd``)
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {nd})")
    return _put_args(input, entries, values, strip=False, accumulate=accumulate)


def _shared_memory(t, args):
    """A writable array over ``t``'s memory when elements of ``t`` share it (an expanded
    tensor) and no gradient is recorded, else None. torch lets index_put_ write there
    (deprecated, with a warning): its kernel writes the indexed elements one by one, so the
    last write to a place stays, and accumulated values add up."""
    arr = t._data
    if arr.flags.writeable or (STATE.enabled and arr.dtype.kind in 'fcV' and (
            t._requires_grad or any(isinstance(a, Tensor) and a._requires_grad
                                    for a in args))):
        return None
    if writable_alias(arr) is not None:  # (no two elements share memory: the usual path)
        return None
    mem = writable_alias(arr, overlap=True)
    if mem is not None:
        warn_expanded_write('index_put_')
    return mem



def index_put_(self, indices, values, accumulate=False):
    """In-place ``index_put``."""
    _check_leaf(self)
    mem = _shared_memory(self, (values,))
    if mem is None:
        return inplace(self, index_put, (indices, values, accumulate), 'index_put_')
    _index_put(self, *_index_put_args(self, indices, values, accumulate), accumulate, mem)
    self._vc[0] += 1
    return self


register(index_put_, function=False)


# -- in-place variants -------------------------------------------------------------------
def _inplace_variant(name, fn, doc):
    def f(self, *args, **kwargs):
        _check_leaf(self)
        return inplace(self, lambda t, *a: fn(t, *a, **kwargs), args, name)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    register(f, function=False)
    return f


for _n, _f in (('scatter_', scatter), ('scatter_add_', scatter_add), ('index_add_', index_add),
               ('index_copy_', index_copy), ('index_fill_', index_fill),
               ('scatter_reduce_', scatter_reduce), ('put_', put)):
    _inplace_variant(_n, _f, f"In-place ``{_f.__name__}``.")


def masked_fill_(self, mask, value):
    """In-place ``masked_fill``; ``mask`` must broadcast to ``self``'s shape."""
    _masked_fill_checks(mask, value)
    check_written_shape(self._data.shape, mask._data.shape)  # (self is tensor a here)
    _check_leaf(self)
    return inplace(self, masked_fill, (mask, value), 'masked_fill_')


register(masked_fill_, function=False)


def masked_scatter_(self, mask, source):
    """In-place ``masked_scatter``; ``mask`` must broadcast to ``self``'s shape."""
    _check_leaf(self)
    # (torch's order: source's dtype, the mask expanded to self (its errors), the mask's)
    _masked_scatter_dtypes(self, None, source)
    if mask._data.shape != self._data.shape:
        _shape.expand(mask, self._data.shape)
    _masked_scatter_dtypes(self, mask, None)
    return inplace(self, masked_scatter, (mask, source), 'masked_scatter_')


def _masked_scatter_dtypes(input, mask, source):
    """masked_scatter's dtype checks: source's against input's, then the mask's (each where
    given)."""
    if source is not None and source._data.dtype != input._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{_tname(input._data.dtype)} and {_tname(source._data.dtype)}")
    if mask is not None and mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_tname(mask._data.dtype)}")


register(masked_scatter_, function=False)


def _saved_indices(node):
    """torch's ``indices`` of an IndexBackward0: one entry per indexed dim up to the last
    tensor index, None where a slice takes the whole dim (freed with the graph)."""
    saved = node.saved_tensors  # (raises once backward has freed them)
    if saved:  # made saved entries by _raw_saved_indices: read back through their hooks
        return tuple(saved)
    out = [make(np.asarray(i)) if isinstance(i, np.ndarray) else None for i in node.idx]
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def _raw_saved_indices(node):
    """torch's SavedTensor handles on the ``indices`` (None entries included: registering
    hooks on one is refused). The node keeps the indices as saved entries from then on,
    so hooks registered through a handle are what reading them back goes through."""
    from ..autograd.graph import SavedTensor
    if not node.saved_tensors:
        node._saved = tuple((None, 0) if t is None else (t, t._vc[0])
                            for t in _saved_indices(node))
    return tuple(SavedTensor._of(node, i) for i in range(len(node._saved)))


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``).
name_saved_values(IndexBackward0, inputs=('self',), sizes=('self_sym_sizes',),
                  attrs={'indices': _saved_indices})
IndexBackward0._raw_saved_indices = property(
    _raw_saved_indices, doc="torch's SavedTensor handles on the saved indices.")
