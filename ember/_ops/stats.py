"""Sorting, searching and statistics: unique/unique_consecutive, searchsorted/bucketize,
bincount/histc, mode/nanmedian, quantile/nanquantile, cov/corrcoef, cdist/dist/renorm, and
the top-level aliases of pdist/pairwise_distance/cosine_similarity.

Counting and searching results are int64 (int32 on request) and never join the graph. The
statistics whose torch gradient comes from a composition of other ops (quantile, cov,
corrcoef) are written as that composition of ember ops, so their gradients (of every order)
and the grad_fn torch shows come from the ops they are made of.
"""
import builtins
import math

import numpy as np

from .. import _dtype
from ._core import (Node, Tensor, make, register, track, track1, result, results, wrap_dim,
                    to_tensor, inplace)
from .reduce import (_named, _NODIM, _selection, _wrap1, _dtype_name, _EvenlyDistributed,
                     _SelectBackward, _mode_t, _nanmedian_t, _sort_indices, _const, _where,
                     _vector_norm, vector_norm_backward, sort, median_all, median_dim_checks)
from ..autograd.graph import _SavedOutput
from ._libstdcxx import std_sort_order, nth_element_first_of_all_nan


# -- unique ------------------------------------------------------------------------------
class _NotDifferentiable(Node):
    """An op torch records in the graph but has no derivative for: backward raises."""
    aten = ''

    def backward(self, *grads):
        raise NotImplementedError(f"the derivative for '{self.aten}' is not implemented.")


class Unique2Backward0(_NotDifferentiable):
    """grad_fn of ``unique`` without ``dim`` (not differentiable)."""
    aten = '_unique2'


class UniqueDimBackward0(_NotDifferentiable):
    """grad_fn of ``unique`` with ``dim`` (not differentiable)."""
    aten = 'unique_dim'


class UniqueConsecutiveBackward0(_NotDifferentiable):
    """grad_fn of ``unique_consecutive`` (not differentiable)."""
    aten = 'unique_consecutive'


def _unique_out(input, vals, inverse, counts, cls, return_inverse, return_counts):
    n = track1(cls, input)
    out = [result(np.ascontiguousarray(vals), n)]
    if return_inverse:
        out.append(make(np.asarray(inverse, np.int64)))
    if return_counts:
        out.append(make(np.asarray(counts, np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def _rows(x, d):
    """``x`` with dim ``d`` first, flattened to one row per index along ``d``."""
    m = np.moveaxis(x, d, 0)
    # (explicit sizes: -1 is ambiguous when the tensor is empty)
    return m, m.reshape(m.shape[0], int(np.prod(m.shape[1:], dtype=np.int64)))


def _check_empty_dims(x, d):
    """unique over a dim of an empty tensor: only the empty dim may be selected."""
    if x.size == 0:
        if x.shape[d] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                               "unique cannot be applied")
        if x.shape.count(0) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")


def _no_complex(x, kernel):
    """torch's unique kernels order elements: none for complex (refused before any check,
    so ``unique`` and ``unique_consecutive`` are ``_dtype_first``: see ``_args.refuse``)."""
    if x.dtype.kind == 'c':
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.FROM_NP[x.dtype].kernel_name}'")


def _unique_dim_order(rows):
    """The order torch's unique_dim sorts rows holding NaN in: std::sort with a comparator
    that walks the row to the first element that compares less or greater, which NaN never
    does (so the order is std::sort's accident, replayed)."""
    keys = rows.astype(np.float64).tolist()

    def less(a, b):
        for lhs, rhs in zip(keys[a], keys[b]):
            if lhs < rhs:
                return True
            if lhs > rhs:
                return False
        return False
    return std_sort_order(len(keys), less)


@register
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along ``dim``), sorted; optionally the index of each
    input element in the result (``return_inverse``) and how often each occurs."""
    if sorted.__class__ is not bool or return_inverse.__class__ is not bool or \
            return_counts.__class__ is not bool:  # (an int passes the fast path)
        from ._args import inner_check
        inner_check('unique', unique, (input, sorted, return_inverse, return_counts, dim))
    x = input._data
    _no_complex(x, 'unique' if dim is None else 'unique_dim')
    if dim is None:
        # (every NaN is distinct to torch, since NaN != NaN; bfloat16 sorted as the float32
        # values it holds exactly: NumPy's sort of it leaves NaNs where they are)
        flat = _dtype.opmath(x.reshape(-1))
        vals, inv, counts = np.unique(flat, return_inverse=True, return_counts=True,
                                      equal_nan=False)
        return _unique_out(input, vals.astype(x.dtype, copy=False), inv.reshape(x.shape),
                           counts, Unique2Backward0,
                           return_inverse, return_counts)
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, x.ndim)
    _check_empty_dims(x, d)
    m, rows = _rows(x, d)
    if rows.shape[0] == 0:
        vals, inv, counts = m, np.zeros(0, np.int64), np.zeros(0, np.int64)
    else:
        # Sort rows lexicographically (first column most significant), then keep run starts.
        if rows.dtype.kind in 'fV' and np.isnan(rows).any():
            order = np.array(_unique_dim_order(rows), np.int64)
        else:
            order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.zeros(len(rows), np.int64)
        srt = rows[order]
        new = np.ones(len(srt), bool)
        new[1:] = (srt[1:] != srt[:-1]).any(axis=1) if rows.shape[1] else False
        group = np.cumsum(new) - 1
        inv = np.empty(len(rows), np.int64)
        inv[order] = group
        counts = np.bincount(group)
        vals = m[order[new]]
    return _unique_out(input, np.moveaxis(vals, 0, d), inv, counts, UniqueDimBackward0,
                       return_inverse, return_counts)


@register
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive elements (or slices along ``dim``) to one;
    optionally the run index of each input element and the length of each run."""
    if return_inverse.__class__ is not bool or return_counts.__class__ is not bool:
        from ._args import inner_check
        inner_check('unique_consecutive', unique_consecutive,
                    (input, return_inverse, return_counts, dim))
    x = input._data
    # (torch runs dim 0 of a 1-D input as no dim)
    _no_complex(x, 'unique' if dim is None or dim == 0 and x.ndim == 1 else 'unique_dim')
    if dim is None:
        m, rows = x.reshape(-1), x.reshape(x.size, 1)
        shape = x.shape
    else:
        if x.ndim == 0:  # (torch's dim wrap takes no scalar as 1-d here)
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = wrap_dim(dim, x.ndim)
        _check_empty_dims(x, d)
        m, rows = _rows(x, d)
        shape = (rows.shape[0],)
    new = np.ones(len(rows), bool)
    if len(rows):
        new[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    inv = (np.cumsum(new) - 1).reshape(shape)
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, len(rows)))
    vals = m[new]
    if dim is not None:
        vals = np.moveaxis(vals, 0, d)
    return _unique_out(input, vals, inv, counts, UniqueConsecutiveBackward0,
                       return_inverse, return_counts)


unique._dtype_first = unique_consecutive._dtype_first = True


# -- searching ---------------------------------------------------------------------------
def _search(seq, vals, right):
    """Insertion points of ``vals`` in ``seq`` (sorted along its last dim, whose leading dims
    match ``vals``'), found by torch's bisection: at each step it goes right unless the
    middle element is >= the value (> with ``right``), so a NaN value lands past the end and
    NaNs in ``seq`` send the search right. All values bisect together, vectorised."""
    n = seq.shape[-1]
    start = np.zeros(vals.shape, np.int64)
    end = np.full(vals.shape, n, np.int64)
    while True:
        active = start < end
        if not active.any():
            return start
        mid = start + ((end - start) >> 1)
        safe = np.minimum(mid, n - 1)
        m = seq[safe] if seq.ndim == 1 else np.take_along_axis(seq, safe, -1)
        stop = (m > vals) if right else (m >= vals)
        start = np.where(active & ~stop, mid + 1, start)
        end = np.where(active & stop, mid, end)


@register(method=False)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 out=None, sorter=None):
    """For each value of ``input``, the index in ``sorted_sequence`` (sorted along its last
    dim) where it would be inserted to keep it sorted: the first such place, or the last
    with ``right=True`` / ``side='right'``."""
    if side is not None:
        if side not in ('left', 'right'):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == 'left':
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        right = side == 'right'
    seq = sorted_sequence._data
    scalar = not isinstance(input, Tensor)
    if scalar and isinstance(input, (int, np.integer)) and not isinstance(input, bool) and \
            seq.dtype.kind in 'iu':
        # (torch converts an integer to the boundaries' dtype as C does: wrapping around)
        bits = 8 * seq.dtype.itemsize
        input = int(input) % (1 << bits)
        if seq.dtype.kind == 'i' and input >= 1 << (bits - 1):
            input -= 1 << bits
    vals = np.asarray(input if scalar else input._data)
    # (torch's order: the sorter's size, dtype and range, then the value's and the
    # boundaries' dims)
    if sorter is not None:
        s = sorter._data
        if s.shape != seq.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {list(seq.shape)}and got "
                               f"sorter tensor {list(s.shape)}")
        if s.dtype != np.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype "
                               f"but got dtype {_dtype.FROM_NP[s.dtype].kernel_name}")
        if s.size and s.ndim == 0:  # (torch reads the last of no sizes)
            raise RuntimeError("ArrayRef: attempted to access back() of empty list")
        if s.size and (s.min() < 0 or s.max() >= seq.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if vals.ndim == 0 and seq.ndim != 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when "
                           f"boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({seq.ndim}) and input value's dim(0) numel(1)")
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if seq.ndim > 1 and (scalar or seq.shape[:-1] != vals.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor "
            f"{list(vals.shape)}")
    if sorter is not None:
        seq = np.take_along_axis(seq, s, -1)
    if scalar or input._data.dtype != seq.dtype:
        # (torch searches in the common dtype: it has no loop for bools, complex numbers or
        # uint16+, and runs none for no values, see bucketize)
        dt = _dtype.promote_types(sorted_sequence.dtype, input.dtype) if not scalar \
            else _dtype.result_type(sorted_sequence.dtype, input)
        if vals.size and (dt.np.kind in 'bc' or dt.np.kind == 'u' and dt.np.itemsize > 1):
            raise NotImplementedError(f'"searchsorted_out_cpu" not implemented for '
                                      f"'{dt.kernel_name}'")
    r = _search(seq, vals, right).astype(np.int32 if out_int32 else np.int64)
    t = make(r)
    if out is not None:
        from .pointwise import _write_out
        return _write_out(out, t)
    return t


@register(method=False)
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """Index of the bucket of each value of ``input``: ``boundaries[i-1] < x <=
    boundaries[i]`` (with ``right=True``: ``boundaries[i-1] <= x < boundaries[i]``)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries._data.ndim})")
    # (torch searches in the common dtype of the values and the boundaries: it has no loop
    # for bools or complex numbers, and runs none for no values)
    dt = _dtype.promote_types(input.dtype, boundaries.dtype) if isinstance(input, Tensor) \
        else _dtype.result_type(boundaries.dtype, input)
    if dt.np.kind in 'bc' and (not isinstance(input, Tensor) or input._data.size):
        raise NotImplementedError(f'"searchsorted_out_cpu" not implemented for '
                                  f"'{dt.kernel_name}'")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


# -- counting ----------------------------------------------------------------------------
@register
def bincount(input, weights=None, minlength=0):
    """How often each non-negative integer occurs in the 1-d ``input`` (summing ``weights``
    instead of ones if given), over at least ``minlength`` bins. (Its kernel's dtype
    refusal comes first, as in torch: ``_dtype_first``.)"""
    x = input._data
    if x.dtype.kind not in 'iu':
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{_dtype_name(x.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return make(np.bincount(x, minlength=minlength).astype(np.int64))
    if not x.size:  # torch counts an empty input in int64, whatever the weights
        return make(np.zeros(minlength, np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # torch accumulates float weights in float and everything else in double.
    dt = np.float32 if w.dtype == np.float32 else np.float64
    return make(np.bincount(x, w.astype(np.float64), minlength=minlength).astype(dt))


bincount._dtype_first = True


@register
def histc(input, bins=100, min=0, max=0):
    """Histogram of ``input`` with ``bins`` equal-width bins over [min, max] (the data's
    range if both are 0); values outside are ignored."""
    x = input._data
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    from .pointwise import scalar_as
    min, max = (scalar_as(v, np.float64) for v in (min, max))  # (torch reads doubles)
    if x.dtype.kind == 'u' and x.dtype.itemsize > 1:  # (uint16+: the data's range or the
        # edges' linspace)
        kernel = 'aminmax_cpu' if float(min) == float(max) and x.size else 'linspace_cpu'
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype_name(x.dtype)}'")
    if x.dtype.kind not in 'fVbiu':  # (bool passes on to torch's linspace of the edges, the
        # integers to their range checks; complex: with no range given, torch first takes the
        # data's, which aminmax refuses)
        kernel = 'aminmax_cpu' if x.dtype.kind == 'c' and float(min) == float(max) else \
            'histogram_cpu'
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype_name(x.dtype)}'")
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi or lo == hi and x.dtype.kind == 'V':  # (bfloat16: where +-1 is lost too)
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if x.dtype.kind in 'iu':  # (torch converts min and max to the input's type first)
        info = np.iinfo(x.dtype)
        if not (info.min <= lo and hi <= info.max):
            name = {'i4': 'int'}.get(x.dtype.str[1:], f'{x.dtype.name}_t')
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{_dtype_name(x.dtype)}'")
    if x.dtype == np.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    flat = x.reshape(-1)
    flat = flat[(flat >= lo) & (flat <= hi)]
    top, bottom = x.dtype.type(hi), x.dtype.type(lo)
    if top == bottom and x.dtype.itemsize >= 4:
        # min +- 1 is min in the dtype: torch counts the values in the middle bin
        return make(np.bincount(np.full(flat.size, bins // 2), minlength=bins).astype(x.dtype))
    with np.errstate(all='ignore'):
        width = top - bottom
        if not np.isfinite(width):  # (torch's bin edges are then not finite: none counts)
            return make(np.zeros(bins, x.dtype))
        pos = (flat - bottom) * bins / width
    # (a position half/bfloat16 cannot hold -- inf, or 0 / 0 where the range collapsed --
    # lands in the first bin, as measured on torch 2.13)
    idx = np.where(np.isfinite(pos), pos, 0).astype(np.int64)
    idx[idx == bins] = bins - 1  # the maximum belongs to the last bin
    return make(np.bincount(idx, minlength=bins)[:bins].astype(x.dtype))


_histogram_t = _named('histogram', ('hist', 'bin_edges'))
_histogramdd_t = _named('histogramdd', ('hist', 'bin_edges'))


def _range_of(values, lo_hi, d):
    """One dimension's (min, max): the given pair, or the data's (torch's default range
    (0, 1) with no data), checked as torch checks it."""
    if lo_hi is not None:
        lo, hi = float(lo_hi[0]), float(lo_hi[1])
    elif values.size:
        lo, hi = float(values.min()), float(values.max())
    else:
        lo, hi = 0.0, 1.0
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                           f"{_g(lo)} max {_g(hi)} for dimension {d}")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_g(lo)}, {_g(hi)}] "
                           "is not finite")
    return lo, hi


def _g(v):
    """A float as torch's C++ streams print it (1 not 1.0)."""
    return f'{v:g}'


def _kernel_refuses(x, op):
    if x.dtype.kind not in 'fV':
        raise NotImplementedError(f'"{op}" not implemented for \'{_dtype_name(x.dtype)}\'')


def _check_bins_tensors(x, bins):
    """torch's checks of given bin edges (one 1-D tensor per dimension, of the input's
    dtype), in its order."""
    for d, b in enumerate(bins):
        if b._data.dtype != x.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {_dtype.FROM_NP[x.dtype].cpp_name} and bins for "
                f"dimension {d} with dtype {_dtype.FROM_NP[b._data.dtype].cpp_name}")
        if b._data.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but "
                               f"got {b._data.ndim} dimensions in the bins tensor for "
                               f"dimension {d}")
        if b._data.size < 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 "
                               f"element, but got 0 elements in the bins tensor for dimension "
                               f"{d}")


def _check_weight(x, weight):
    if weight is None:
        return
    w = weight._data
    if w.dtype != x.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({_dtype.FROM_NP[x.dtype].cpp_name}), "
            f"and weight({_dtype.FROM_NP[w.dtype].cpp_name})")
    if w.shape != x.shape[:-1]:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{list(x.shape)} and weight with shape {list(w.shape)}")


def _check_counts(counts):
    for d, n in enumerate(counts):
        if n <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {n} for "
                               f"dimension {d}")


def _histogramdd_arrays(x, bins, range, weight, density, one_d):
    """(hist, edges) of the points in ``x`` (2-D or more; ``histogram`` gives ``(n, 1)`` and
    a flat weight), with torch's checks in torch's order: ``histogram``'s C op checks the
    bin count first; ``histogramdd`` finds each dimension's range before it looks at the
    counts; given edges are checked before the weight, and their count after it."""
    if x.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    dims = x.shape[-1]
    pts = x.reshape(math.prod(x.shape[:-1]), dims)  # (-1 cannot be inferred with no dims)
    if isinstance(bins, Tensor) or isinstance(bins, (list, tuple)) and bins and \
            isinstance(bins[0], Tensor):
        given = [bins] if isinstance(bins, Tensor) else list(bins)
        if len(given) != dims:
            raise RuntimeError(f"torch.histogramdd: expected {dims} sequences of bin edges for "
                               f"a {dims}-dimensional histogram but got {len(given)}")
        _check_bins_tensors(x, given)
        _check_weight(x, weight)
        _check_counts([b._data.size - 1 for b in given])
        _kernel_refuses(x, 'histogram_cpu')
        edges = [b._data for b in given]
    else:
        counts = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
        if one_d:
            _check_counts(counts)
        if range is not None and len(range) != 2 * dims:
            raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range "
                               f"should have {2 * dims} elements, but got {len(range)}")
        if range is None and x.size and x.dtype not in (np.float32, np.float64):
            # (torch finds the data's range with a kernel that takes only these two)
            raise NotImplementedError(f'"histogramdd" not implemented for '
                                      f"'{_dtype_name(x.dtype)}'")
        spans = [_range_of(pts[:, k], None if range is None else range[2 * k:2 * k + 2], k)
                 for k in builtins.range(dims)]
        if len(counts) != dims:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                               "dimension of the input.")
        for n in counts:  # (torch's linspace of n + 1 edges per dimension)
            if n + 1 < 0:
                raise RuntimeError("number of steps must be non-negative")
            if n >= 1 and x.dtype == np.bool_:
                raise NotImplementedError('"linspace_cpu" not implemented for \'Bool\'')
        for d, n in enumerate(counts):
            if n + 1 == 0:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 "
                                   f"element, but got 0 elements in the bins tensor for "
                                   f"dimension {d}")
        _check_weight(x, weight)
        _check_counts(counts)
        _kernel_refuses(x, 'histogram_cpu')
        # (edges from torch's linspace in the input's dtype -- its rounding decides the bin
        # of a value on an inner edge; a single value gets a bin of width 1 around it)
        from .creation import _spaced
        edges = [_spaced(lo - (lo == hi) * 0.5, hi + (lo == hi) * 0.5, n + 1, x.dtype
                         ).astype(x.dtype) for (lo, hi), n in zip(spans, counts)]
    w = None if weight is None else weight._data.reshape(-1).astype(np.float64)
    hist = _bin_counts(pts.astype(np.float64), [e.astype(np.float64) for e in edges], w,
                       density)
    return hist.astype(x.dtype), edges


def _bin_counts(pts, edges, w, density):
    """torch's histogram kernel on float64 arrays: the (weighted) count of the points
    (rows of ``pts``) in each cell of the grid of ``edges``, a point outside any dim's
    first..last edge (or NaN) left out; with ``density`` divided by the total and by each
    dim's bin widths. No edges (a 0-d histogram) count nothing."""
    shape = tuple(len(e) - 1 for e in edges)
    hist = np.zeros(shape)
    if edges:
        idx = [_bin_index(e, pts[:, k]) for k, e in enumerate(edges)]
        keep = np.logical_and.reduce([i >= 0 for i in idx])
        cells = np.ravel_multi_index([i[keep] for i in idx], shape)
        hist = np.bincount(cells, None if w is None else w[keep],
                           minlength=hist.size).astype(np.float64).reshape(shape)
    if density:
        with np.errstate(all='ignore'):
            hist = hist / hist.sum()
            for k, e in enumerate(edges):
                hist = hist / np.diff(e).reshape([-1 if j == k else 1 for j in range(len(edges))])
    return np.asarray(hist)  # (an array even when 0-d: NumPy's division gives a scalar)


def _bin_index(edges, v):
    """The bin of each of the values ``v`` among ``edges`` as torch's kernel finds it --
    the binary search of std::upper_bound, less one, the last edge counted in the last bin
    -- and -1 for a value outside ``edges[0]..edges[-1]`` or NaN. torch does not check that
    the edges increase: out of order, the search's own steps decide, so they are replayed."""
    n = len(edges)
    if (np.diff(edges) >= 0).all():
        pos = np.searchsorted(edges, v, 'right')
    else:
        pos, length = np.zeros(v.shape, np.int64), np.full(v.shape, n, np.int64)
        while (length > 0).any():
            half = length >> 1
            mid = pos + half
            below = v < edges[np.minimum(mid, n - 1)]  # (the value sorts before the middle)
            step = (length > 0) & ~below
            pos = np.where(step, mid + 1, pos)
            length = np.where(length > 0, np.where(below, half, length - half - 1), 0)
    pos = np.minimum(pos - 1, n - 2)
    return np.where((v >= edges[0]) & (v <= edges[-1]), pos, -1)


@register(method=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """``(hist, bin_edges)`` of all of ``input``'s values: ``bins`` equal bins over
    ``range`` (the data's range by default) or the given edges; the last bin includes its
    right edge, values outside are left out; ``weight`` weighs each value, ``density``
    normalises to a density."""
    x = input._data
    from .pointwise import NotImplemented_
    flat = None if weight is None else weight.reshape(-1)
    hist, edges = _histogramdd_arrays(x.reshape(-1, 1), bins, range, flat, density, True)
    # not differentiable, but torch still attaches a grad_fn that refuses backward
    n = track(NotImplemented_, (input, weight))
    if n is not None:
        n.op = 'histogram'
    return _histogram_t(*results([hist, edges[0]], n))


@register(method=False)
def histogramdd(input, bins, range=None, weight=None, density=False):
    """``(hist, bin_edges)`` of the points in ``input``'s last dim: per dim ``bins`` equal
    bins (an int, or one per dim) or given edges (a list of 1-D tensors); ``range`` is the
    flat list (min0, max0, min1, max1, ...)."""
    if input._data.ndim == 0 and not isinstance(bins, (list, tuple)):
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    from .pointwise import NotImplemented_
    hist, edges = _histogramdd_arrays(input._data, bins, range, weight, density, False)
    # (as histogram: every output carries a grad_fn that refuses backward)
    n = track(NotImplemented_, (input, weight))
    if n is not None:
        n.op = 'histogramdd'
    hist, *edges = results([hist, *edges], n)
    return _histogramdd_t(hist, tuple(edges))


# (both apply torch's checks, dtype refusals included, in torch's order themselves)
for _f in (histogram, histogramdd):
    _f._dtype_first = _f._refuses_dtypes = True


# -- mode / nanmedian --------------------------------------------------------------------
class ModeBackward0(_SelectBackward):
    """Gradient of ``mode``."""


class NanmedianBackward0(_EvenlyDistributed):
    """Gradient of ``nanmedian(x)``."""


class NanmedianBackward1(_SelectBackward):
    """Gradient of ``nanmedian(x, dim)``."""


def _mode_index(row):
    """Index (in ``row``) torch's mode reports: the first of the most frequent values in the
    order torch's std::sort leaves them, at the last place of its run there. Up to 16
    elements without NaN that sort is stable: the smallest value, at its last occurrence."""
    nan = row.dtype.kind in 'fV' and np.isnan(row).any()
    if len(row) <= 16 and not nan:
        order = _sort_indices(row, 0, False)
        s = row[order]
        new = np.ones(len(s), bool)
        new[1:] = s[1:] != s[:-1]
        starts = np.flatnonzero(new)
        counts = np.diff(np.append(starts, len(s)))
        best = int(np.argmax(counts))  # first maximum: the smallest value
        return order[starts[best] + counts[best] - 1]
    keys = (row.astype(np.float64) if row.dtype.kind in 'fV' else row).tolist()
    order = std_sort_order(len(keys), lambda a, b: keys[a] < keys[b])
    best, best_count, run = order[0], 0, 0
    for i, k in enumerate(order):
        run += 1
        if i == len(order) - 1 or keys[k] != keys[order[i + 1]]:  # (NaN ends a run)
            if run > best_count:
                best, best_count = k, run
            run = 0
    return best


@register
def mode(input, dim=-1, keepdim=False):
    """Named tuple (values, indices): the most frequent value along ``dim`` (the smallest
    of several), at its last occurrence."""
    x = input._data
    d = _wrap1(dim, x.ndim)
    if x.ndim == 0:
        return _selection(input, None, d, keepdim, ModeBackward0, _mode_t)
    if x.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    m = np.moveaxis(x, d, -1)
    rows = m.reshape(-1, m.shape[-1])
    idx = np.array([_mode_index(r) for r in rows], np.int64).reshape(m.shape[:-1] + (1,))
    return _selection(input, np.moveaxis(idx, -1, d), d, keepdim, ModeBackward0, _mode_t)


def _nanmedian_index(m):
    """Index along the last dim of the lower median of the non-NaN values, dim kept: the
    stable sort's (which is torch's choice among ties). An all-NaN slice reports the index
    torch's nth_element leaves first."""
    rows = m.reshape(-1, m.shape[-1])
    n = rows.shape[1]
    nan = np.isnan(rows) if rows.dtype.kind in 'fV' else np.zeros(rows.shape, bool)
    valid = n - nan.sum(1)
    order = _sort_indices(rows, 1, False)  # NaNs sort last
    idx = order[np.arange(len(rows)), np.maximum(valid - 1, 0) // 2]
    if (valid == 0).any():
        idx[valid == 0] = nth_element_first_of_all_nan(n)
    return idx.reshape(m.shape[:-1] + (1,))


@register
def nanmedian(input, dim=_NODIM, keepdim=False, *, out=None):
    """``median`` ignoring NaN: the lower median of the non-NaN values (NaN only where all
    are NaN); with ``dim`` a named tuple (values, indices)."""
    from .reduce import _out, _out_pair
    x = input._data
    if dim is _NODIM:
        flat = x.reshape(-1)
        if x.dtype.kind in 'fV':
            flat = flat[~np.isnan(flat)]
        return _out(median_all(input, flat, False, NanmedianBackward0, 'nanmedian'), out)
    d = _wrap1(dim, x.ndim)
    idx = None
    median_dim_checks(x, d)
    if x.ndim:
        idx = np.moveaxis(_nanmedian_index(np.moveaxis(x, d, -1)), -1, d)
    return _out_pair(_selection(input, idx, d, keepdim, NanmedianBackward1, _nanmedian_t), out)


# -- quantile ----------------------------------------------------------------------------
class SqueezeBackward4(Node):
    """Gradient of the final squeeze torch's quantile ends with."""

    def backward(self, g):
        return g.reshape(self._meta[0][0])


def _squeeze4(t, shape):
    n = track1(SqueezeBackward4, t)
    return result(t._data.reshape(shape), n)


_INTERPOLATIONS = ('linear', 'lower', 'higher', 'midpoint', 'nearest')


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, op, out=None):
    # (torch's order: a number q's range, the interpolation's name, the input, q and out
    # checks, the dim, then a tensor q's values)
    x = input._data
    if not isinstance(q, Tensor) and not 0 <= q <= 1:  # (NaN too)
        raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {_g(float(q))}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if x.size == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if isinstance(q, Tensor) and q._data.ndim > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor) and q._data.dtype != x.dtype:
        raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
    if out is not None and out._data.dtype != x.dtype:
        raise RuntimeError(f"{op}() out tensor must be same dtype as the input tensor")
    d = None if dim is None else _wrap1(dim, x.ndim)
    qs = q if isinstance(q, Tensor) else make(np.asarray(q, x.dtype))
    qa = qs._data
    if not ((qa >= 0) & (qa <= 1)).all():
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    if d is None:
        s = sort(input.reshape(-1)).values
        kept = (1,) * x.ndim
        batch = ()
    else:
        s = sort(input.movedim(d, -1) if x.ndim else input.reshape(1)).values
        batch = s.shape[:-1]
        kept = x.shape[:d] + (1,) + x.shape[d + 1:] if x.ndim else ()
    n = s.shape[-1]
    # A tensor q stays in the graph: with linear interpolation the weight between the two
    # neighbours moves with q, so q gets a gradient (as in torch).
    qv = qs.reshape(-1)  # ranks have shape batch + (nq,)
    nan = np.isnan(s._data)
    if ignore_nan:
        valid = make((~nan).sum(-1, keepdims=True).astype(x.dtype))
        ranks = qv * (valid - 1)
        ranks = _where(_const(ranks._data < 0), 0.0, ranks)
    else:
        ranks = qv * float(n - 1)
        ranks = _where(_const(nan[..., -1:]), float(n - 1), ranks.expand(batch + (qv.shape[0],)))
    if interpolation in ('lower', 'higher', 'nearest'):
        fn = {'lower': np.floor, 'higher': np.ceil, 'nearest': np.round}[interpolation]
        r = s.gather(-1, make(fn(ranks._data).astype(np.int64)))
    else:
        below = np.floor(ranks._data).astype(np.int64)
        above = np.ceil(ranks._data).astype(np.int64)
        lo, hi = s.gather(-1, make(below)), s.gather(-1, make(above))
        if interpolation == 'linear':
            w = ranks - _const(below.astype(x.dtype))
        else:
            w = _const(np.where(above == below, 0, 0.5).astype(x.dtype))
        r = lo.lerp(hi, w)
    r = r.movedim(-1, 0)  # q first, as torch lays out a tensor q
    shape = (kept if keepdim else batch)
    return _squeeze4(r, ((qv.shape[0],) if qa.ndim else ()) + tuple(shape))


@register
def quantile(input, q, dim=None, keepdim=False, *, interpolation='linear', out=None):
    """The ``q``-th quantiles (``q`` a number or 1-d tensor in [0, 1]) of all elements or
    along ``dim``, interpolating between neighbours as ``interpolation`` says; NaN where a
    slice holds NaN. With a tensor ``q`` its values index the first output dim."""
    from .reduce import _out
    return _out(_quantile(input, q, dim, keepdim, interpolation, False, 'quantile', out), out)


@register
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation='linear', out=None):
    """``quantile`` ignoring NaN (NaN only where a slice is all NaN)."""
    from .reduce import _out
    return _out(_quantile(input, q, dim, keepdim, interpolation, True, 'quantile', out), out)


# -- covariance ---------------------------------------------------------------------------
def _check_weights(w, name, kinds, kind_name, nobs):
    """torch's checks of cov's ``fweights``/``aweights``."""
    a = w._data
    if a.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {a.ndim} dimensions")
    if a.dtype.kind not in kinds or a.dtype.names is not None:  # (complex32: 'V' too)
        raise RuntimeError(f"cov(): expected {name} to have {kind_name} dtype but got "
                           f"{name} with {_dtype_name(a.dtype)} dtype")
    if a.size != nobs:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {a.size} != {nobs}")
    if nobs and a.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")


@register
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of ``input`` (observations in the
    columns), with optional integer frequency and float observation weights."""
    from . import linalg
    x = input
    if x._data.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {x._data.ndim} dimensions")
    if x._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if x._data.ndim < 2:
        x = x.reshape(1, -1)
    nobs = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, 'fweights', 'iu', 'integral', nobs)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, 'aweights', 'fV', 'floating point', nobs)  # (V: bfloat16)
        w = aweights if w is None else w * aweights
    # torch's corner case: one observation under one kind of weights is its own weighted
    # mean, so its deviation is exactly 0 (and with aweights and correction 1, no degrees
    # of freedom are left)
    alone = nobs == 1 and (fweights is None) != (aweights is None)
    if x._data.dtype.kind not in 'fcV':
        # (the dtype torch's arithmetic promotes an integer input to: the aweights' one,
        # else the default; float32 where the corner case replaces the deviation)
        x = x.to(_dtype.float32 if alone else aweights.dtype if aweights is not None
                 else _dtype.get_default_dtype())
    if w is None:
        avg = x.mean(1)
        norm = float(nobs - correction)
    else:
        wsum = w.sum()
        if not wsum._data:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / wsum
        if correction == 0:
            norm = wsum
        elif aweights is None:
            norm = wsum - correction
        elif alone and correction == 1:
            norm = 0.0
        else:
            norm = wsum - correction * (w * aweights).sum() / wsum
    nv = float(norm._data) if isinstance(norm, Tensor) else norm
    if nv <= 0:
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = 0.0 if not isinstance(norm, Tensor) else norm * 0
    xm = x * 0 if alone else x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = linalg.mm(xm, xw.t().conj())
    return (c / norm).squeeze()


@register
def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of ``input``."""
    if input._data.ndim > 2:  # (torch checks the dims itself, in its own name, then cov)
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input._data.ndim} dimensions")
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    sd = c.diagonal().real.sqrt() if c._data.dtype.kind == 'c' else c.diagonal().sqrt()
    c = c / sd.unsqueeze(1)
    c = c / sd.unsqueeze(0)
    if c._data.dtype.kind == 'c':
        return c
    return c.clamp(-1, 1)


# -- distances ---------------------------------------------------------------------------
class CdistBackward0(Node):
    """Gradient of ``cdist``."""

    def backward(self, g):
        x1, x2, dist = self.saved_tensors
        p = self.p
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., P, R, M)
        gd = g.unsqueeze(-1)
        if p == 0:
            d = diff * 0
        elif p == 1:
            d = gd * diff.sgn()
        elif p == float('inf'):
            a = diff._data.__abs__()
            mask = (a == np.expand_dims(dist._data, -1))
            count = np.maximum(mask.sum(-1, keepdims=True), 1)
            d = gd * diff.sgn() * _const((mask / count).astype(a.dtype))
        else:
            dd = dist.unsqueeze(-1)
            zero = _const(dd._data == 0)
            if p == 2:
                d = diff * _where(zero, 0.0, gd / dd)
            else:
                d = diff.sgn() * diff.abs().pow(p - 1) * _where(zero, 0.0, gd / dd.pow(p - 1))
        return d.sum(-2), -d.sum(-3)


@register(method=False)
def cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'):
    """p-norm distances between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M): a (..., P, R) tensor. ``compute_mode`` is accepted; distances are always
    computed directly."""
    if compute_mode not in ('use_mm_for_euclid_dist_if_necessary', 'use_mm_for_euclid_dist',
                            'donot_use_mm_for_euclid_dist'):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    from ._args import check_argument
    check_argument('cdist', 'double p', p, 2)
    a, b = x1._data, x2._data
    if a.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {a.ndim}D")
    if b.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {b.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{a.shape[-1]} X2: {b.shape[-1]}")
    for name, t in (('X1', a), ('X2', b)):
        if t.dtype.kind not in 'fV':
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_dtype_name(t.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    dt = np.result_type(a.dtype, b.dtype)
    diff = np.abs(np.expand_dims(a, -2).astype(dt) - np.expand_dims(b, -3).astype(dt))
    if p == 0:
        r = (diff != 0).sum(-1)
    elif p == 1:
        r = diff.sum(-1)
    elif p == 2:
        r = np.sqrt((diff * diff).sum(-1))
    elif p == float('inf'):
        r = diff.max(-1) if diff.shape[-1] else diff.sum(-1)
    else:
        r = (diff ** p).sum(-1) ** (1.0 / p)
    r = np.asarray(r, dt)
    n = track(CdistBackward0, (x1, x2))
    out = result(r, n)
    if n is not None:
        # the output comes back with this node as its grad_fn, so double backward sees
        # its dependence on the inputs
        n._saved = ((x1, x1._vc[0]), (x2, x2._vc[0]), (_SavedOutput(out), out._vc[0]))
        n.p = p
    return out


class DistBackward0(Node):
    """Gradient of ``dist``."""

    def backward(self, g):
        a, b = self.saved_tensors
        diff = a - b
        gd = vector_norm_backward(diff, g.expand(diff.shape), self.p,
                                  tuple(range(diff._data.ndim)))
        return gd, -gd


@register
def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast)."""
    other = to_tensor(other, 'dist')
    from ..autograd.grad_mode import no_grad
    with no_grad():
        diff = input - other  # (torch checks the promoted dtype, not each operand's)
        if diff._data.dtype.kind not in 'fcV':
            raise RuntimeError("norm(): input dtype should be either floating point or "
                               f"complex. Got {_dtype_name(diff._data.dtype)} instead.")
        if isinstance(p, (complex, np.complexfloating)):
            raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order "
                               "of norm.")
        r = _vector_norm(diff, p)._data
    n = track(DistBackward0, (input, other))
    if n is not None:
        n.save(input, other)
        n.p = p
    return result(r, n)


class RenormBackward0(Node):
    """Gradient of ``renorm``: ``x * f(norm)`` with ``f`` the scale applied to each slice."""

    def backward(self, g):
        x, = self.saved_tensors
        dims, p, maxnorm = self.dims, self.p, self.maxnorm
        norm = _vector_norm(x, p, dims, True)
        active = _const(norm._data > maxnorm)
        scale = _where(active, maxnorm / (norm + 1e-7), 1.0)
        # (the real inner product Re(sum(conj(x) g)): the scale depends on x through its
        # real norm, so only that part of g moves it)
        s = (g * x.conj() if x.is_complex() else g * x).sum(dims, keepdim=True)
        if s.is_complex():
            s = s.real
        coef = _where(active, -maxnorm * s / (norm + 1e-7).pow(2), 0.0)
        return g * scale + vector_norm_backward(x, coef.expand(x.shape), p, dims)


@register
def renorm(input, p, dim, maxnorm):
    """``input`` with each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down
    to norm ``maxnorm``."""
    # (torch's order: each number real and in range, the rank, the dim, then the norm's dtype)
    x = input._data
    if isinstance(p, (complex, np.complexfloating)):
        raise RuntimeError("renorm: p must be real-valued")
    if not p > 0:  # (NaN too)
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, (complex, np.complexfloating)):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if not maxnorm >= 0:  # (NaN too)
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {_g(float(maxnorm))}")
    if x.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {x.ndim} "
                           "dimensions")
    d = wrap_dim(dim, x.ndim)
    dims = tuple(i for i in range(x.ndim) if i != d)
    from ..autograd.grad_mode import no_grad
    with no_grad():
        norm = _vector_norm(input, p, dims, True)._data
    scale = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(norm.dtype)
    n = track1(RenormBackward0, input)
    if n is not None:
        n.save(input)
        n.dims, n.p, n.maxnorm = dims, p, maxnorm
    return result((x * scale).astype(x.dtype), n)


@register(function=False)
def renorm_(self, p, dim, maxnorm):
    """In-place ``renorm``."""
    return inplace(self, renorm, (p, dim, maxnorm), 'renorm_')


# -- aliases of ember.nn.functional ------------------------------------------------------
# ember.nn is imported on first call, not with ember, so `import ember` stays light.
@register(method=False)
def pdist(input, p=2):
    """``nn.functional.pdist``: p-norm distances between all pairs of rows."""
    from ..nn.functional._distance import pdist as impl
    return impl(input, p)


pdist._refuses_dtypes = True  # (its body refuses dtypes only where torch's kernel runs)


@register(method=False)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``nn.functional.pairwise_distance``: p-norm of ``x1 - x2 + eps`` along the last dim."""
    from ..nn.functional._distance import pairwise_distance as impl
    return impl(x1, x2, p, eps, keepdim)


@register(method=False)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``nn.functional.cosine_similarity``: cosine of the angle between ``x1`` and ``x2``
    along ``dim``."""
    from ..nn.functional._distance import cosine_similarity as impl
    return impl(x1, x2, dim, eps)


@register(method=False)
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``nn.functional.grid_sample`` with torch's enums for the modes (interpolation 0
    bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    from ..nn.functional._vision import grid_sampler as impl
    return impl(input, grid, interpolation_mode, padding_mode, align_corners)


@register(method=False)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` of a 4-D input."""
    from ..nn.functional._vision import grid_sampler_2d as impl
    return impl(input, grid, interpolation_mode, padding_mode, align_corners)


@register(method=False)
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` of a 5-D input."""
    from ..nn.functional._vision import grid_sampler_3d as impl
    return impl(input, grid, interpolation_mode, padding_mode, align_corners)


@register(method=False)
def affine_grid_generator(theta, size, align_corners):
    """``nn.functional.affine_grid`` without its argument checks."""
    from ..nn.functional._vision import affine_grid_generator as impl
    return impl(theta, size, align_corners)


affine_grid_generator._dtype_first = True  # (its linspace refuses bool first: see _args)


@register(method=False)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """``nn.functional.ctc_loss`` with torch's reduction enum (0 none, 1 mean, 2 sum; none
    unless given, as torch.ctc_loss)."""
    from ..nn.functional._loss import ctc_loss_forward as impl
    return impl(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                zero_infinity)


ctc_loss._dtype_first = True  # (see nn.functional's ctc_loss)


@register(method=False)
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``nn.functional.embedding_bag``'s op: ``(output, offset2bag, bag_size, max_indices)``
    (mode 0 sum, 1 mean, 2 max)."""
    from ..nn.functional._sparse import embedding_bag_forward as impl
    return impl(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                include_last_offset, padding_idx)


@register(method=False)
def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``nn.functional.max_pool3d`` (the values only)."""
    from ..nn.functional._pooling import max_pool3d as impl
    return impl(input, kernel_size, stride, padding, dilation, ceil_mode)


@register(method=False)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``nn.functional.conv3d``."""
    from ..nn.functional._conv import conv3d as impl
    return impl(input, weight, bias, stride, padding, dilation, groups)


@register(method=False)
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``nn.functional.conv_transpose3d``."""
    from ..nn.functional._conv import conv_transpose3d as impl
    return impl(input, weight, bias, stride, padding, output_padding, groups, dilation)


@register(method=False)
def conv_tbc(input, weight, bias, pad=0):
    """``nn.functional.conv_tbc``: a 1-d convolution of a (time, batch, channel) input."""
    from ..nn.functional._conv import conv_tbc as impl
    return impl(input, weight, bias, pad)


@register(method=False)
def feature_alpha_dropout(input, p, train):
    """``nn.functional.feature_alpha_dropout``."""
    from ..nn.functional._dropout import feature_alpha_dropout as impl
    from .nn_entry import _check_p
    _check_p(p)  # (torch's RuntimeError at this level, as the other aten dropouts)
    return impl(input, p, train)


@register(method=False)
def feature_alpha_dropout_(input, p, train):
    """In-place ``feature_alpha_dropout``."""
    from ..nn.functional._dropout import feature_alpha_dropout as impl
    from .nn_entry import _check_p
    _check_p(p)
    return impl(input, p, train, inplace=True)


@register(method=False)
def native_channel_shuffle(input, groups):
    """``nn.functional.native_channel_shuffle``: channel_shuffle without a derivative."""
    from ..nn.functional._rearrange import native_channel_shuffle as impl
    return impl(input, groups)
