"""Arrangement ops: grids and products (meshgrid, kron, tensordot, cartesian_prod), repeats,
rotations and differences, splits and stacks by axis name, index generators, and the scans
and scatters that keep indices (cummax, cummin, logcumsumexp, select/slice_scatter,
as_strided).

Most are compositions of existing ops, so their grad_fn is whatever torch's composition ends
in (torch composes them the same way); the few with a grad_fn of their own (Rot90Backward0,
TraceBackward0, ...) have a Node here whose backward is written in ember ops.
"""
import builtins
import itertools
import warnings

import numpy as np

from .. import _dtype
from . import _cpp_print
from ._core import (Node, Tensor, make, register, track, track1, result, results, view_of,
                    refuse_complex_grad,
                    wrap_dim, binary_arrays, dtype_of)
from .shape import (cat, stack, narrow, select, select_position, slice_key, tensor_split,
                    diag_embed_like, UnsafeViewBackward0, _diag_index, _distinct_dims)
from .reduce import _named, _numel
from .linalg import _check_tensor
from ..autograd.graph import _SavedOutput, name_saved_values

_cummax_t = _named('cummax', ('values', 'indices'))
_cummin_t = _named('cummin', ('values', 'indices'))


def _tensors(ts):
    """Varargs or one list/tuple of tensors, as torch's TensorList arguments take."""
    return tuple(ts[0]) if len(ts) == 1 and isinstance(ts[0], (list, tuple)) else ts


def _unsafe_view(t, shape):
    """A reshape that torch records as ``_unsafe_view`` (a fresh result, not a view)."""
    return result(t._data.reshape(shape), track1(UnsafeViewBackward0, t))


# -- grids and products ------------------------------------------------------------------
@register(method=False)
def meshgrid(*tensors, indexing=None):
    """Coordinate grids (expanded views) from 0-D/1-D tensors; ``indexing`` 'ij' (matrix) or
    'xy' (Cartesian: the first two dims swapped)."""
    from ._args import tensor_varargs
    tensors = tensor_varargs(_tensors(tensors))
    if indexing is not None and not isinstance(indexing, str):  # (torch's parser: first)
        raise TypeError(f"meshgrid(): argument 'indexing' must be str, not "
                        f"{type(indexing).__name__}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = 'ij'
    if indexing not in ('ij', 'xy'):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f'received: {indexing}')
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {_cpp_print.cpp_str(t)}")
    ts = list(tensors)
    swap = indexing == 'xy' and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t._data.size for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@register
def kron(input, other):
    """Kronecker product: every element of ``input`` times the whole of ``other``."""
    nd = builtins.max(input._data.ndim, other._data.ndim)
    a_shape = (1,) * (nd - input._data.ndim) + input._data.shape
    b_shape = (1,) * (nd - other._data.ndim) + other._data.shape
    a = input.reshape([s for d in a_shape for s in (d, 1)])
    b = other.reshape([s for d in b_shape for s in (1, d)])
    return _unsafe_view(a * b, tuple(x * y for x, y in zip(a_shape, b_shape)))


@register(method=False)
def tensordot(a, b, dims=2, out=None):
    """Sums products over the last ``dims`` dims of ``a`` and the first of ``b`` (or over the
    given pair of dim lists)."""
    if not isinstance(dims, (tuple, list, Tensor, int)):  # (torch's Python code: first)
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        for t in (a, b):  # (torch's tensordot is Python: here it asks each ``t.dim()``)
            if not isinstance(t, Tensor):
                raise AttributeError(f"'{type(t).__name__}' object has no attribute 'dim'")
        if dims > builtins.min(a._data.ndim, b._data.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        da = list(range(a._data.ndim - dims, a._data.ndim))
        db = list(range(dims))
    else:
        da, db = dims  # (torch unpacks them first: Python's ValueError for another length)
        _check_tensor(a, 'tensordot', 'input', 1)
        _check_tensor(b, 'tensordot', 'other', 2)
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [wrap_dim(d, a._data.ndim) for d in da]
    db = [wrap_dim(d, b._data.ndim) for d in db]
    for x, y in zip(da, db):
        sa, sb = a._data.shape[x], b._data.shape[y]
        if sa != sb:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sa} "
                               f"in dim {x} and second has size {sb} in dim {y}")
    fa = [d for d in range(a._data.ndim) if d not in da]
    fb = [d for d in range(b._data.ndim) if d not in db]
    k = int(np.prod([a._data.shape[d] for d in da]))
    out_shape = [a._data.shape[d] for d in fa] + [b._data.shape[d] for d in fb]
    pa, pb = a.permute(fa + da), b.permute(db + fb)
    if _numel(pa.shape[:len(fa)]) == 1 and _numel(pb.shape[len(db):]) == 1:
        from .linalg import sum_of_products
        r = sum_of_products(pa, pb, [a._data.shape[d] for d in da]).reshape(out_shape)
    else:
        m = pa.reshape(-1, k) if a._data.size else pa.reshape(_numel(pa.shape[:len(fa)]), k)
        n = pb.reshape(k, -1) if b._data.size else pb.reshape(k, _numel(pb.shape[len(db):]))
        r = m.mm(n).reshape(out_shape)
    if out is not None:
        from .pointwise import _write_out
        return _write_out(out, r)
    return r


@register(method=False)
def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, one per row."""
    from ._args import tensor_varargs
    tensors = tensor_varargs(tensors)
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing='ij')
    return stack([g.flatten() for g in grids], 1)


@register(method=False)
def combinations(input, r=2, with_replacement=False):
    """Length-``r`` combinations of a 1-D tensor's elements (as ``itertools.combinations``,
    or ``combinations_with_replacement``), one per row."""
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return make(np.empty((0,), input._data.dtype))
    pick = (itertools.combinations_with_replacement if with_replacement
            else itertools.combinations)
    idx = np.array(list(pick(range(input._data.shape[0]), r)), np.int64).reshape(-1, r)
    return stack([input[make(idx[:, j].copy())] for j in range(r)], 1)


# -- repeats, rotations, differences -------------------------------------------------------
@register
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats each element ``repeats`` times (an int, or a tensor of per-element counts)
    along ``dim`` (the flattened tensor if None). With only a 1-D count tensor: the indices
    ``0..n-1`` each repeated by its count."""
    if repeats is None:
        counts = input
        _index_counts(counts)  # (torch dispatches on the dtype first)
        if counts._data.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts._data.size and counts._data.min() < 0:
            raise RuntimeError("repeats can not be negative")
        out = np.repeat(np.arange(counts._data.size, dtype=counts._data.dtype), counts._data)
        # (torch's kernel checks output_size only where there are counts to repeat)
        if output_size is not None and counts._data.size and output_size != out.size:
            raise RuntimeError("allocated size does not match required size")
        return make(out)
    if isinstance(repeats, Tensor) and repeats._data.ndim > 1:  # (before torch reads the dim)
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if dim is None:
        input = input.flatten()
        d = 0
    else:
        d = wrap_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor):
        rep = repeats._data
        if not input._data.ndim:  # (torch takes the size of a dim the 0-d input lacks)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        size = input._data.shape[d]
        if rep.size == 1:
            _index_counts(repeats)
            rep = np.full(size, rep.reshape(-1)[0], np.int64)
        elif rep.size != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {rep.size} and input.size({d}) = {size}")
        _index_counts(repeats)
        if rep.size and rep.min() < 0:
            raise RuntimeError("repeats can not be negative")
        idx = np.repeat(np.arange(size, dtype=np.int64), rep)
        if output_size is not None and rep.size and output_size != idx.size:
            raise RuntimeError("allocated size does not match required size")
        return input.index_select(d, make(idx)) if input._data.ndim else \
            input.reshape(1).index_select(0, make(idx))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    if input._data.ndim == 0:
        if dim is not None:  # (torch unsqueezes the 0-d input at dim + 1)
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                             "got 1)")
        input = input.reshape(1)
    shape = list(input._data.shape)
    wide = shape[:d + 1] + [repeats] + shape[d + 1:]
    shape[d] *= repeats
    if output_size is not None and output_size != shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {shape[d]} but "
                           f"got {output_size}")
    return input.unsqueeze(d + 1).expand(wide).contiguous().view(shape)


# (the body raises its kernel's dtype refusal in torch's order itself: see _args)
repeat_interleave._dtype_first = True


def _index_counts(counts):
    """torch's kernel of ``repeat_interleave`` counts in int32 or int64 only."""
    if counts._data.dtype not in (np.int32, np.int64):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{_dtype.FROM_NP[counts._data.dtype].kernel_name}'")


class Rot90Backward0(Node):
    def backward(self, g):
        return rot90(g, -self.k, self.dims)


@register
def rot90(input, k=1, dims=(0, 1)):
    """Rotates by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards
    the second)."""
    dims = list(dims)
    nd = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    if dims[0] == dims[1] or builtins.abs(dims[0] - dims[1]) == nd:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    d = (wrap_dim(dims[0], nd), wrap_dim(dims[1], nd))
    out = np.rot90(input._data, k, d).copy()
    n = track1(Rot90Backward0, input)
    if n is not None:
        n.k, n.dims = k, d
    return result(out, n)


@register
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (xor for bools), after joining
    ``prepend`` and ``append`` to it."""
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    parts = [t for t in (prepend, input, append) if t is not None]
    if len(parts) > 1:  # (torch reads dim to join them; without them only when n > 0)
        wrap_dim(dim, input._data.ndim)
    if any(t._data.ndim != input._data.ndim for t in parts):
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if len(parts) > 1:  # (n == 0 too: torch checks them before it looks at n)
        d = wrap_dim(dim, input._data.ndim)
        for t in (prepend, append):
            for i, (a, b) in enumerate(zip(input._data.shape, () if t is None else t.shape)):
                if i != d and a != b:
                    raise RuntimeError(
                        "diff expects the shape of tensor to prepend or append to match that "
                        "of input except along the differencing dimension; input.size("
                        f"{i}) = {a}, but got tensor.size({i}) = {b}")
    if n == 0:  # the input itself (a copy), without prepend, append or dim, as in torch
        from .creation import empty_like
        return empty_like(input).copy_(input)
    d = wrap_dim(dim, input._data.ndim)
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        size = x._data.shape[d]
        if size == 0:
            break
        hi, lo = narrow(x, d, 1, size - 1), narrow(x, d, 0, size - 1)
        x = hi.logical_xor(lo) if x._data.dtype == np.bool_ else hi - lo
    return x


# -- diagonals and vector products --------------------------------------------------------
class TraceBackward0(Node):
    def backward(self, g):
        shape = self._meta[0][0]
        k = builtins.min(shape)
        return diag_embed_like(g.expand(k), shape, 0, 0, 1)


@register
def trace(input):
    """Sum of the main diagonal of a matrix (integers sum in int64; bool is refused, by
    torch's dtype dispatch, before the rank)."""
    x = input._data
    if x.dtype == np.bool_ or x.dtype.names is not None or \
            input.dtype in _dtype.BAREBONES_UNSIGNED:  # (the kernel's dtypes: before the rank)
        raise NotImplementedError(f"\"trace\" not implemented for '{input.dtype.kernel_name}'")
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim "
                           f"{input._data.ndim}")
    dt = np.int64 if x.dtype.kind in 'biu' else x.dtype
    out = np.asarray(np.trace(x, dtype=dt), dt)
    return result(out, track1(TraceBackward0, input))


trace._dtype_first = True  # (see _args: the body refuses bool in torch's order)


class LinalgCrossBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        d = self.dim
        # g . (a x b) = a . (b x g) = b . (g x a); the engine sums broadcast dims away.
        return cross(b.conj(), g, dim=d), cross(g, a.conj(), dim=d)


def cross_checks(input, other, dim):
    """torch's checks of a cross product (``cross`` and ``linalg.cross``), in its order: the
    ranks, the dim and its length, then the dtypes. Returns the wrapped dim."""
    a, b = input._data, other._data
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[d]} and {b.shape[d]}")
    if a.dtype == np.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {dtype_of(input).kernel_name} but found "
                           f"{dtype_of(other).kernel_name}")
    return d


@register
def cross(input, other, dim=None):
    """Cross product of 3-vectors along ``dim`` (inputs broadcast). Without ``dim``, the
    first dim of size 3 (deprecated, as in torch)."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release.", UserWarning, stacklevel=2)
        # (input's own first dim of size 3, not the broadcast shape's)
        dim = next((i for i, s in enumerate(input._data.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    d = cross_checks(input, other, dim)
    a, b = input._data, other._data
    nd = a.ndim
    from ._core import check_broadcast
    check_broadcast(a.shape, b.shape)
    out = np.cross(a, b, axis=d).astype(a.dtype, copy=False)
    n = track(LinalgCrossBackward0, (input, other))
    if n is not None:
        n.dim = d - nd  # negative: valid for the broadcast gradient too
        n.save(input, other)
    return result(out, n)


@register
def diagflat(input, offset=0):
    """A square matrix with the flattened ``input`` on diagonal ``offset``."""
    flat = input.flatten()
    k = flat._data.shape[0] + builtins.abs(offset)
    return diag_embed_like(flat, (k, k), offset, 0, 1)


# -- splits and stacks by axis name --------------------------------------------------------
def _axis_split(name, input, sections, dim, min_dims):
    nd = input._data.ndim
    if nd < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} "
                           f"dimension, but got a tensor with {nd} dimensions!")
    if isinstance(sections, int):
        size = input._data.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {sections}!")
    return tensor_split(input, sections, dim)


@register
def hsplit(input, indices_or_sections):
    """Splits along dim 1 (dim 0 for a 1-D tensor) into equal parts or at indices."""
    return _axis_split('hsplit', input, indices_or_sections,
                       0 if input._data.ndim == 1 else 1, 1)


@register
def vsplit(input, indices_or_sections):
    """Splits along dim 0 into equal parts or at indices (needs at least 2 dims)."""
    return _axis_split('vsplit', input, indices_or_sections, 0, 2)


@register
def dsplit(input, indices_or_sections):
    """Splits along dim 2 into equal parts or at indices (needs at least 3 dims)."""
    return _axis_split('dsplit', input, indices_or_sections, 2, 3)


def _atleast_3d(t):
    nd = t._data.ndim
    if nd == 0:
        return t.reshape(1, 1, 1)
    if nd == 1:
        return t.reshape(1, -1, 1)
    if nd == 2:
        return t.unsqueeze(-1)
    return t


@register(method=False)
def dstack(tensors):
    """Concatenates along dim 2 (tensors raised to at least 3 dims first)."""
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([_atleast_3d(t) for t in tensors], 2)


@register(method=False)
def column_stack(tensors):
    """Stacks 0-D/1-D tensors as columns and concatenates the rest along dim 1."""
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    ts = [t.reshape(t._data.size, 1) if t._data.ndim <= 1 else t for t in tensors]
    return cat(ts, 1)


# -- index generators ---------------------------------------------------------------------
def _tri_indices(name, np_fn, row, col, offset, dtype):
    dt = _dtype.int64 if dtype is None else dtype
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dt.np not in (np.int32, np.int64):  # (torch's kernel: int32 and int64 only)
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.kernel_name}'")
    i, j = np_fn(row, offset, col)
    return make(np.stack([i, j]).astype(dt.np).reshape(2, -1))


@register(method=False)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) coordinates of the lower triangle (below diagonal ``offset``) of a
    ``row`` x ``col`` matrix, row by row."""
    return _tri_indices('tril_indices', np.tril_indices, row, col, offset, dtype)


@register(method=False)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) coordinates of the upper triangle (from diagonal ``offset``) of a
    ``row`` x ``col`` matrix, row by row."""
    return _tri_indices('triu_indices', np.triu_indices, row, col, offset, dtype)


@register(method=False)
def unravel_index(indices, shape):
    """Flat indices into a tensor of ``shape`` as a tuple of coordinate tensors (int64)."""
    if not isinstance(indices, Tensor):  # (torch fails the same way on a plain int)
        raise AttributeError(f"'{builtins.type(indices).__name__}' object has no attribute "
                             "'is_complex'")
    t = indices
    if t._data.dtype.kind not in 'iu':
        raise TypeError(f"expected 'indices' to be integer dtype, but got {dtype_of(t)}")
    import collections.abc

    def kind(v):  # (how torch's message prints a type: its own classes as torch's)
        return "<class 'torch.Tensor'>" if isinstance(v, Tensor) else str(builtins.type(v))
    if not isinstance(shape, (int, collections.abc.Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {kind(shape)}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for s in shape:
        if not isinstance(s, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {kind(s)}")
    for s in shape:
        if s < 0:
            raise ValueError("'shape' cannot have negative values, but got "
                             f"{tuple(shape)}")
    if 0 in shape and t._data.size:  # (torch divides by each size: its error says so)
        raise RuntimeError("ZeroDivisionError")
    x = t._data.astype(np.int64)
    coords = []
    for s in reversed(shape):
        coords.append(x % s if s else x)
        x = x // s if s else x
    # (arithmetic on a 0-d array gives NumPy scalars: asarray keeps them arrays)
    return tuple(make(np.asarray(c, np.int64)) for c in reversed(coords))


@register(method=False)
def vander(x, N=None, increasing=False):
    """Columns of powers of a 1-D ``x`` (decreasing by default), ``N`` of them."""
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is None:
        N = x._data.shape[0]
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    # As torch computes it (ones, then in-place cumulative products), so the graph and its
    # grad_fn names are torch's.
    dt = _dtype.promote_types(dtype_of(x), _dtype.int64)
    # (ones through ``cast``: NumPy's ones of complex32's structured dtype set both parts)
    out = make(_dtype.cast(np.ones((x._data.shape[0], builtins.max(N, 1)), np.float32),
                           dt.np)[:, :N].copy())
    if N > 1:
        out[:, 1:] = x[:, None]
        out[:, 1:] = out[:, 1:].cumprod(1)
    return out if increasing else out.flip(1)


@register(method=False)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Trapezoidal rule along ``dim``: sample points ``x`` or a constant spacing ``dx``."""
    d = wrap_dim(dim, y._data.ndim)
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments")
    if y._data.ndim == 0:  # (torch asks for the size at the dim as given, or with sample
        # points at the wrapped dim)
        raise IndexError(f"Dimension specified as {dim if x is None else d} but tensor has "
                         "no dimensions")
    if y._data.shape[d] == 0:
        shape = y._data.shape[:d] + y._data.shape[d + 1:]
        return make(np.zeros(shape, y._data.dtype))
    if y._data.dtype == np.bool_ or (x is not None and x._data.dtype == np.bool_):
        which = '`y`' if x is None else '`x` or `y`'
        raise RuntimeError(f"trapezoid: received a bool input for {which}, but bool is not "
                           "supported")
    _real_dx(dx, 'trapezoid')
    n = y._data.shape[d]
    if x is None:
        spacing = 1 if dx is None else dx
        return _by_scalar(y.sum(d) - (select(y, d, 0) + select(y, d, -1)) * 0.5, spacing,
                          MulBackward1, np.multiply)
    if x._data.ndim == 1:
        if x._data.shape[0] != n:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        view = [1] * y._data.ndim
        view[d] = n
        x = x.view(view)
    elif x._data.ndim < y._data.ndim:
        x = x.view((1,) * (y._data.ndim - x._data.ndim) + x._data.shape)
    spacing = _spacing(x, d)
    return _by_scalar(((narrow(y, d, 1, n - 1) + narrow(y, d, 0, n - 1)) * spacing).sum(d), 2.,
                      DivBackward1, np.true_divide)


def _real_dx(dx, op):
    """torch's refusal of a complex spacing (even one with no imaginary part)."""
    if isinstance(dx, (complex, np.complexfloating)):
        raise RuntimeError(f"{op}: Currently, we only support dx as a real number.")


def _spacing(x, d):
    """The differences of the sample points ``x`` along ``d``, by ``x``'s own length there:
    they broadcast against ``y``'s pairs like any operand (a length-1 ``x`` gives none)."""
    k = x._data.shape[d]
    return narrow(x, d, 1, k - 1) - narrow(x, d, 0, k - 1) if k else x


@register(method=False)
def trapz(y, x=None, *, dx=None, dim=-1):
    """``trapezoid`` (torch's older name)."""
    return trapezoid(y, x, dx=dx, dim=dim)


@register(method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along ``dim`` (one element fewer than ``y``): sample
    points ``x`` or a constant spacing ``dx`` (1 by default)."""
    if x is None and y._data.dtype == np.bool_:  # (the spacing form: before the dim)
        raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is "
                           "not supported")
    d = wrap_dim(dim, y._data.ndim)
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments")
    if y._data.dtype == np.bool_ or (x is not None and x._data.dtype == np.bool_):
        raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but "
                           "bool is not supported")
    _real_dx(dx, 'cumulative_trapezoid')
    if y._data.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    n = y._data.shape[d]
    pairs = narrow(y, d, 1, n - 1) + narrow(y, d, 0, n - 1) if n else y
    if x is None:
        return (pairs * ((1 if dx is None else dx) / 2.)).cumsum(d)
    if x._data.ndim == 1:
        if x._data.shape[0] != n:
            raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each "
                               "sample point")
        view = [1] * y._data.ndim
        view[d] = n
        x = x.view(view)
    elif x._data.ndim < y._data.ndim:
        x = x.view((1,) * (y._data.ndim - x._data.ndim) + x._data.shape)
    # (x's spacings along ``dim`` of y's, whatever their count: torch slices x there too)
    spacing = _spacing(x, d)
    return _by_scalar((pairs * spacing).cumsum(d), 2., DivBackward1, np.true_divide)


def _gradient_along(f, d, h, edge_order):
    """numpy-style central differences of ``f`` along ``d``: ``h`` a number (uniform
    spacing) or a 1-D tensor of coordinates; one-sided differences of ``edge_order`` at the
    ends. The pieces are concatenated, as torch builds it."""
    n = f.shape[d]

    def part(start, length):
        return narrow(f, d, start, length)
    if not isinstance(h, Tensor):
        inner = (part(2, n - 2) - part(0, n - 2)) / (2. * h)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / h
            last = (part(n - 1, 1) - part(n - 2, 1)) / h
        else:
            first = (part(0, 1) * -1.5 + part(1, 1) * 2. - part(2, 1) * 0.5) / h
            last = (part(n - 3, 1) * 0.5 - part(n - 2, 1) * 2. + part(n - 1, 1) * 1.5) / h
        return cat([first, inner, last], d)
    shape = [1] * f.dim()
    shape[d] = n - 2
    dx = h[1:] - h[:-1]
    hl, hr = dx[:-1].reshape(shape), dx[1:].reshape(shape)
    inner = (part(2, n - 2) * (hl * hl) - part(0, n - 2) * (hr * hr) +
             part(1, n - 2) * (hr * hr - hl * hl)) / (hl * hr * (hl + hr))
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / dx[0]
        last = (part(n - 1, 1) - part(n - 2, 1)) / dx[-1]
    else:
        a, b = dx[0], dx[1]
        first = (part(0, 1) * (-(2. * a + b) / (a * (a + b))) + part(1, 1) * ((a + b) / (a * b))
                 + part(2, 1) * (-a / (b * (a + b))))
        a, b = dx[-2], dx[-1]
        last = (part(n - 3, 1) * (b / (a * (a + b))) + part(n - 2, 1) * (-(a + b) / (a * b))
                + part(n - 1, 1) * ((2. * b + a) / (b * (a + b))))
    return cat([first, inner, last], d)


@register(method=False)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates the derivative of the samples ``input`` along each of ``dim`` (all dims by
    default): second-order central differences inside, one-sided differences of
    ``edge_order`` (1 or 2) at the ends. ``spacing``: one number for every dim, one per dim,
    or one 1-D tensor of sample coordinates per dim. Returns one tensor per dim."""
    nd = input._data.ndim
    if input._data.dtype == np.uint8:  # (before any other check, as torch)
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing is None:  # (torch's default, given explicitly)
        spacing = 1
    # (torch's order: spacing against the number of dims, edge_order, then the dims)
    dims = list(range(nd)) if dim is None else \
        list(dim) if isinstance(dim, (list, tuple)) else [dim]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a "
                                   f"scalar, or a list of length equal to 'self.dim() = {nd}', "
                                   f"since dim argument was not given, but got a list of "
                                   f"length {len(spacing)}")
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                               f"it's spacing and dim arguments to have the same length, but "
                               f"got a spacing argument of length {len(spacing)} and a dim "
                               f"argument of length {len(dims)}.")
        hs = list(spacing)
    else:
        hs = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _distinct_dims(dims, nd)
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    if dims:  # (torch's refusals are its subtractions': no dim, none runs)
        from . import _args
        _args.refuse_dtypes('gradient', _args.refusals('gradient') or {}, (input,), None)
    f = input if input._data.dtype.kind in 'fcV' else input.to(_dtype.get_default_dtype())
    return tuple(_gradient_along(f, d, h, edge_order) for d, h in zip(dims, hs))


gradient._refuses_dtypes = True  # (see overrides.overridable)


class MulBackward1(Node):
    def backward(self, g):
        return g * self.other


class AddBackward1(Node):
    """A Python number added (torch's Scalar overload of add)."""

    def backward(self, g):
        return g


class DivBackward1(Node):
    def backward(self, g):
        return g / self.other


def _by_scalar(t, c, cls, np_fn):
    """``t`` times / over the Python number ``c`` as torch's Scalar overloads record it
    (``MulBackward1``, ``DivBackward1``), which its composite ops use."""
    a, b = binary_arrays(t, c, 'mul')
    n = track1(cls, t)
    if n is not None:
        n.other = c
    return result(np.asarray(np_fn(a, b), a.dtype), n)


# -- scans that keep indices ----------------------------------------------------------------
class CummaxBackward0(Node):
    def backward(self, g, _gi=None):
        idx, = self.saved_tensors
        if g.dim() == 0:
            return g
        return g.new_zeros(self._meta[0][0]).scatter_add(self.dim, idx, g)


class CumminBackward0(CummaxBackward0):
    pass


def _cumext(name, ufunc, cls, named, input, dim):
    x = input._data
    if not x.size and not -x.ndim <= dim < x.ndim:
        dim = 0  # (torch returns an empty input before it looks at dim)
    if x.ndim == 0 and type(dim) is int and dim not in (-1, 0):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = wrap_dim(dim, x.ndim)
    if not x.size or x.ndim == 0:  # (no kernel runs, to refuse a complex input first)
        refuse_complex_grad(name, input)
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        vals = ufunc.accumulate(x, axis=d) if x.size else x.copy()
        pos = np.arange(x.shape[d]).reshape((-1,) + (1,) * (x.ndim - d - 1))
        # An element starts a new run when it ties or beats the running extreme (torch keeps
        # the latest index on ties) or is NaN (a NaN is the extreme from there on).
        hit = (x == vals) | (np.isnan(x) if x.dtype.kind in 'fcV' else False)
        idx = np.maximum.accumulate(np.where(hit, pos, 0), axis=d).astype(np.int64) \
            if x.size else np.zeros(x.shape, np.int64)
    n = track1(cls, input)
    v, i = results([np.asarray(vals, x.dtype), idx], n, (True, False))
    if n is not None:
        n.dim = d
        n.save(i)
    return named(v, i)


@register
def cummax(input, dim):
    """Running maximum along ``dim`` and the index where each was reached."""
    return _cumext('cummax', np.maximum, CummaxBackward0, _cummax_t,
                   input, dim)


@register
def cummin(input, dim):
    """Running minimum along ``dim`` and the index where each was reached."""
    return _cumext('cummin', np.minimum, CumminBackward0, _cummin_t, input, dim)


class LogcumsumexpBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        d = self.dim
        if g.dim() == 0:
            return g
        if x.is_complex():  # (conjugated, as the derivative of a holomorphic function)
            tail = (g * (-out).exp().conj()).flip(d).cumsum(d).flip(d)
            return tail * x.exp().conj()
        # grad_i = sum_{j>=i} g_j exp(x_i - out_j), summed in log space for the positive and
        # negative parts of g separately so no exp overflows.
        from .pointwise import where

        def part(w):
            pos = w > 0
            # (masked so that no log(0) - (-inf) makes a NaN in any derivative order)
            logw = where(pos, where(pos, w, 1.).log() - out, float('-inf'))
            return (logw.flip(d).logcumsumexp(d).flip(d) + x).exp()
        return part(g.clamp(min=0)) - part((-g).clamp(min=0))


@register
def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input)))`` along ``dim``, computed without overflow."""
    x = input._data
    if x.dtype.kind not in 'fcV':
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{dtype_of(input).kernel_name}'")
    d = wrap_dim(dim, x.ndim)
    if not (x.ndim and x.size):
        r = x.copy()
    elif x.dtype.kind == 'c':
        from .pointwise import complex_logaddexp
        r = np.moveaxis(np.array(x), d, 0)
        for i in range(1, r.shape[0]):
            r[i] = complex_logaddexp(r[i - 1], r[i])
        r = np.moveaxis(r, 0, d)
    else:
        r = np.logaddexp.accumulate(x, axis=d)
    n = track1(LogcumsumexpBackward0, input)
    t = result(np.asarray(r, x.dtype), n)
    if n is not None:
        n.dim = d
        # (both the input and the node's own output, the latter without a cycle)
        n._saved = ((input, input._vc[0]), (_SavedOutput(t), t._vc[0]))
    if out is not None:
        from .pointwise import _write_out
        return _write_out(out, t)
    return t


# -- scatters and strided views --------------------------------------------------------------
def _scatter_into(cls, input, src, key, fn_args):
    view = input._data[key]
    if src._data.shape != view.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src._data.shape)}, slice size = {list(view.shape)}")
    out = input._data.copy()
    out[key] = src._data
    n = track(cls, (input, src))
    if n is not None:
        n.args = fn_args
    return result(out, n)


class SelectScatterBackward0(Node):
    def backward(self, g):
        dim, index = self.args
        piece = select(g, dim, index)
        return select_scatter(g, piece.new_zeros(piece.shape), dim, index), piece


class SliceScatterBackward0(Node):
    def backward(self, g):
        dim, start, end, step = self.args
        piece = g[(slice(None),) * dim + (slice(start, end, step),)]
        return slice_scatter(g, piece.new_zeros(piece.shape), dim, start, end, step), piece


@register
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written at ``index`` along ``dim``."""
    d, index = select_position(input, dim, index)
    return _scatter_into(SelectScatterBackward0, input, src,
                         (slice(None),) * d + (index, Ellipsis), (d, index))


@register
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` written at ``start:end:step`` along ``dim``."""
    key, d = slice_key(input, dim, start, end, step)
    return _scatter_into(SliceScatterBackward0, input, src, key, (d, start, end, step))


class DiagonalScatterBackward0(Node):
    def backward(self, g):
        offset, d1, d2 = self.args
        piece = g.diagonal(offset, d1, d2)
        return diagonal_scatter(g, piece.new_zeros(piece.shape), offset, d1, d2), piece


@register
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written on its (offset, dim1, dim2) diagonal."""
    nd = input._data.ndim
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = input._data.copy()
    view = np.diagonal(out, offset, d1, d2)  # (read-only: written through its indices below)
    if src._data.shape != view.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src._data.shape)}, slice size = {list(view.shape)}")
    i, j = _diag_index(out.shape, offset, d1, d2)
    np.moveaxis(out, (d1, d2), (-2, -1))[..., i, j] = src._data
    n = track(DiagonalScatterBackward0, (input, src))
    if n is not None:
        n.args = (offset, d1, d2)
    return result(out, n)


class AsStridedScatterBackward0(Node):
    """``src`` receives the gradient at the elements it was written to; ``input`` the
    gradient everywhere else (``logical``: the written elements as row-major indices)."""

    def backward(self, g):
        flat = g.reshape(-1)
        idx = make(self.logical.reshape(-1))
        piece = flat[idx].reshape(self.logical.shape)
        return flat.index_fill(0, idx, 0).reshape(g.shape), piece


@register
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` (laid out as ``input`` is, as clone does) with ``src`` written
    where ``as_strided(size, stride, storage_offset)`` of that copy looks."""
    out = input._data.copy(order='K')
    memory = out.ravel(order='K')  # (a view: a 'K' copy is dense in its own order)
    size, stride = tuple(size), tuple(stride)
    _strided_args(size, stride, storage_offset)
    offset = 0 if storage_offset is None else storage_offset
    pos = _positions(size, stride, offset)
    if pos.size and (pos.max() >= memory.size or offset < 0):
        isz = memory.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {isz} requiring a storage size of "
                           f"{(int(pos.max()) + 1) * isz} are out of bounds for storage of "
                           f"size {memory.size * isz}")
    if src._data.shape != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src._data.shape)}, slice size = {list(size)}")
    memory[pos] = src._data
    n = track(AsStridedScatterBackward0, (input, src))
    if n is not None:
        ids = np.empty_like(out, dtype=np.int64, order='K')  # (out's layout)
        ids[...] = np.arange(out.size).reshape(out.shape)
        n.logical = ids.ravel(order='K')[pos]
    return result(out, n)


class SliceInverseBackward0(Node):
    """The slice's gradient to ``input`` (the slice), the rest to ``src`` (its base)."""

    def backward(self, g):
        dim, start, end, step = self.args
        dim = wrap_dim(dim, g.dim())
        key = (slice(None),) * dim + (slice(start, end, step),)
        piece = g[key]
        return piece, slice_scatter(g, piece.new_zeros(piece.shape), dim, start, end, step)


@register
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The inverse of ``slice``: given ``input``, a slice of ``src`` along ``dim``, the view
    of ``input``'s memory with ``src``'s shape, strides and offset (``src`` itself, reached
    from the slice). As in torch, ``dim`` is only read by the backward."""
    root = input._base if input._base is not None else input
    arr = as_strided(root.detach(), src.shape, src.stride(), src.storage_offset())._data
    n = track(SliceInverseBackward0, (input, src))
    if n is not None:
        n.args = (dim, start, end, step)
    return view_of(input, arr, n, slice_inverse, (src, dim, start, end, step))


def _positions(shape, stride, offset):
    """Storage positions (in elements) of every element of a strided layout."""
    pos = np.full(shape, offset, np.int64)
    for k, (n, s) in enumerate(zip(shape, stride)):
        pos = pos + (np.arange(n, dtype=np.int64) * s).reshape((-1,) + (1,) * (len(shape) - k - 1))
    return pos


class AsStridedBackward0(Node):
    def backward(self, g):
        # Every output element's gradient lands on the storage element it reads; the input
        # then gathers its own elements' positions out of that storage. Input elements
        # sharing one storage element (an expanded input) share its gradient, as torch's:
        # what reaches the memory behind them is then the storage element's gradient.
        # (the positions are worked out here, not in forward: a view rebuilt after an
        # in-place op is an as_strided of its whole base, most never differentiated)
        out_pos = _positions(self.size, self.stride, self.offset)
        grad_storage = g.new_zeros(self.storage_size).index_add(
            0, make(out_pos.reshape(-1)), g.reshape(-1))
        in_pos = _positions(*self.input_geometry)
        grad = grad_storage[make(in_pos)]
        if in_pos.size:
            shares = np.bincount(in_pos.reshape(-1))
            if shares.max() > 1:
                grad = grad / make(shares[in_pos].astype(g._data.dtype))
        return grad


def _in_batch_element(input, size, stride, offset, shift, physical):
    """The storage offset of ``as_strided`` on ``input``, one element of a batch under vmap
    (``shift``: its offset from the batch's first element), whose ``offset`` counts from
    the batch's start (unless ``physical``): the view must stay within ``input``'s memory,
    as under torch's vmap, where the element is all a batched tensor's view sees."""
    low = input.storage_offset() - shift
    if physical:
        offset -= shift

    def extent(shape, strides):
        return 0 if 0 in shape else 1 + builtins.sum((n - 1) * s for n, s in zip(shape, strides))

    high = low + extent(input._data.shape, input.stride())
    end = offset + extent(size, stride)
    if offset < low or end > high:
        raise RuntimeError(
            f"result = tensor.as_strided({list(size)},{list(stride)},{offset})can access memory "
            f"outside of `tensor`. `result` can access somememory in range [{offset}, {end}], "
            f"but `tensor` can only access some memory in range [{low}, {high}]. This is not "
            "supported inside of vmap, please try torewrite the `as_strided` call as a "
            "sequence of PyTorch view operations")
    return offset + shift


def _strided_args(size, stride, storage_offset):
    """torch's first checks of an as_strided geometry: one stride per size, none negative,
    an offset that is not negative."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in stride:
        if s < 0:
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, "
                               f"got strides: {list(stride)}")
    if storage_offset is not None and storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")


@register
def as_strided(input, size, stride, storage_offset=None):
    """A view over ``input``'s memory with the given sizes, strides and offset (in elements
    from the start of its storage)."""
    size, stride = tuple(size), tuple(stride)
    _strided_args(size, stride, storage_offset)
    from ..storage import memory_of  # (ember.storage loads on first use)
    memory = memory_of(input._data)
    if memory is not None:
        flat = memory[0]  # (the whole storage, as torch's: also what a detach()ed slice left)
    else:
        root = input._base if input._base is not None else input
        flat = root._data.reshape(-1)
        if not np.shares_memory(flat, root._data):
            flat = root._data  # (a non-contiguous root: reshaping copied it)
    offset = input.storage_offset() if storage_offset is None else storage_offset
    shift = input.__dict__.get('_batch_shift')
    if shift is not None:  # one element of a vmapped batch: its own memory only
        offset = _in_batch_element(input, size, stride, offset, shift, storage_offset is None)
    need = 0 if 0 in size else offset + 1 + builtins.sum((n - 1) * s for n, s in zip(size, stride))
    isz = flat.itemsize
    if need > flat.size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {isz} requiring a storage size of "
                           f"{need * isz} are out of bounds for storage of size "
                           f"{flat.size * isz}")
    arr = np.lib.stride_tricks.as_strided(flat[offset:], size, [s * isz for s in stride])
    n = track1(AsStridedBackward0, input)
    if n is not None:
        n.size, n.stride, n.storage_offset = size, stride, storage_offset
        n.storage_size, n.offset = flat.size, offset
        n.input_geometry = (input._data.shape, input.stride(), input.storage_offset())
    return view_of(input, arr, n, as_strided, (size, stride, offset))


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``).
name_saved_values(AsStridedBackward0, attrs={'size': 'size', 'stride': 'stride',
                                             'storage_offset': 'storage_offset'})
