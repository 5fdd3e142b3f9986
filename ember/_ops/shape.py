"""Shape ops: views (view, reshape, transpose, expand, select, split, ...) and the copying
ones (cat, stack, repeat, flip, roll, tril, ...), plus dtype conversion (``to``, ``float``).

A view shares memory and the version counter with its base (``_core.view_of``); its Node's
backward maps the gradient back to the base's shape with other ember ops.
"""
import builtins
import warnings

import numpy as np

from .. import _dtype, _meta
from .._device import check_device
from .._memory_format import (contiguous_format, preserve_format, in_format,
                              is_laid_out, suggested_format)
from .._compat import reshape_view
from ..autograd.engine import sum_to
from ..autograd.grad_mode import STATE, INFERENCE_VC
from ..autograd.graph import name_saved_values
from ._core import check_broadcast, check_nonnegative_sizes
from ._core import (Node, Tensor, make, register, track, track1, result, results, view_of, link_view,
                    watch_version, to_tensor, wrap_dim)

_new = object.__new__


def _size_args(args, op):
    """Accepts ``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])``, also ``ember.Size``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = a.__index__()
        elif isinstance(a, builtins.bool) and out:
            a = int(a)  # (past the first element torch's parser unpacks a bool as 0 or 1)
        elif isinstance(a, np.integer):
            a = int(a)  # (torch's parser takes NumPy ints: ``view(-1, np.prod(shape))``)
        elif not isinstance(a, int) or isinstance(a, builtins.bool):
            if not out:  # torch's parser: the first element decides which overload it is
                got = ', '.join(builtins.type(x).__name__ for x in args)
                raise TypeError(f"{op}() received an invalid combination of arguments - got "
                                f"({got}), but expected one of:")
            name = _SIZE_ARG_NAMES.get(op, 'size')
            raise TypeError(f"{op}(): argument '{name}' failed to unpack the object at pos "
                            f"{len(out) + 1} with error \"type must be tuple of ints,but got "
                            f"{builtins.type(a).__name__}\"")
        out.append(a)
    return tuple(out)


_SIZE_ARG_NAMES = {'reshape': 'shape', 'permute': 'dims', 'repeat': 'repeats'}


def _infer_shape(shape, numel, op):
    """Resolves one -1 in ``shape``; torch's errors for invalid shapes."""
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if neg:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                               "because the unspecified dimension size -1 can be any value "
                               "and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:neg[0]] + (numel // known,) + shape[neg[0] + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


# -- reshaping views -------------------------------------------------------------------
class ViewBackward0(Node):
    def backward(self, g):
        return g.reshape(self._meta[0][0])


class UnsafeViewBackward0(ViewBackward0):
    pass


@register(function=False)
def view(input, *shape):
    """A view with a new shape (one dim may be -1); the memory layout must allow it."""
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _view_dtype(input, shape[0])
    shape = _infer_shape(_size_args(shape, 'view'), input._data.size, 'view')
    try:
        arr = reshape_view(input._data, shape)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead.") from None
    return view_of(input, arr, track1(ViewBackward0, input), view, (shape,))




def _alias_view(t):
    """A view of all of ``t`` (same shape) that carries no forward-AD tangent: what
    make_dual and unpack_dual build on."""
    n = track1(ViewBackward0, t)
    if n is not None and n._fw_in is not None:
        n = None if n._fw_only else n
        if n is not None:
            n._fw_in = None
    return view_of(t, t._data.view(), n, view, (t._data.shape,))


def _view_dtype(input, dt):
    a = input._data
    old, new = a.itemsize, dt.itemsize
    if new != old:
        _check_view_dtype(input, dt)
    # As in torch, the reinterpreted tensor shares the data and version counter but is no
    # tracked view: outside the graph (like ``detach``), whatever its base requires.
    t = make(a.view(dt.np))
    t._vc = input._vc
    return t


def _check_view_dtype(input, dt):
    """torch's conditions for viewing elements of one size as another: the last dim is
    contiguous and, viewed as a larger type, holds whole elements, as do the other strides
    and the storage offset (torch counts them in elements, NumPy in bytes)."""
    a = input._data
    old, new = a.itemsize, dt.itemsize
    how = (f"to view {_dtype.FROM_NP[a.dtype].kernel_name} as {dt.kernel_name} (different "
           "element sizes)")
    if a.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {how}")
    strides = [s // old for s in a.strides]
    if a.size == 0:  # (NumPy gives an empty array any strides: ember reports torch's)
        strides = list(input.stride())
    ratio = new // old
    if new > old and a.shape[-1] % ratio:
        raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {how}, but got "
                           f"{a.shape[-1]}")
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {how}, but got {strides[-1]}")
    if new > old:
        offset = input.storage_offset()
        if offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {how}, "
                               f"but got {offset}")
        for d, s in enumerate(strides[:-1]):
            if s % ratio:
                raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {how}, "
                                   f"but got {s}")


@register(function=False)
def view_as(input, other):
    """``view(other.shape)``."""
    return view(input, other._data.shape)


@register
def reshape(input, *shape):
    """``view`` when the layout allows it, otherwise a copy with the new shape."""
    shape = _infer_shape(_size_args(shape, 'reshape'), input._data.size, 'reshape')
    try:
        arr = reshape_view(input._data, shape)
    except ValueError:
        arr = np.reshape(input._data, shape)
        return result(arr, track1(UnsafeViewBackward0, input))
    return view_of(input, arr, track1(ViewBackward0, input), reshape, (shape,))


@register(function=False)
def reshape_as(input, other):
    """``reshape(other.shape)``."""
    return reshape(input, other._data.shape)


@register
def flatten(input, start_dim=0, end_dim=-1):
    """Merges dims ``start_dim..end_dim`` into one."""
    nd = input._data.ndim
    if nd == 0:  # (the dims still wrap as for one dim: 0 and -1 only)
        wrap_dim(start_dim, 0)
        wrap_dim(end_dim, 0)
        return reshape(input, (1,))
    s = wrap_dim(start_dim, nd)
    e = wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return reshape(input, shp[:s] + (n,) + shp[e + 1:])


@register(method=False)
def unflatten(input, dim, sizes):
    """Splits dim ``dim`` into ``sizes`` (one may be -1)."""
    shp = input._data.shape
    sizes = tuple(sizes)
    if shp or dim not in (0, -1):
        wrap_dim(dim, input._data.ndim)  # (torch's op wraps the dim before it reads the sizes)
    return _unflatten(input, dim, sizes)


@register(function=False, name='unflatten')
def _unflatten_method(self, dim, sizes):
    """``Tensor.unflatten``: ``unflatten`` that looks at the sizes first (torch's method
    checks them in Python before it calls the op)."""
    return _unflatten(self, dim, tuple(sizes))


def _unflatten(input, dim, sizes):
    shp = input._data.shape
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not shp and dim in (0, -1):
        # (torch's wrap of a dim of a 0-d tensor fails inside its unflatten, which reports it
        # as an unexpected error: a RuntimeError, not the IndexError)
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but "
                           "tensor has no dimensions")
    d = wrap_dim(dim, input._data.ndim)
    known = _prod(n for n in sizes if n != -1)
    if sizes.count(-1) == 1 and known and not shp[d] % known:
        sizes = _infer_shape(sizes, shp[d], 'unflatten')
    elif sizes.count(-1) > 1:
        _infer_shape(sizes, shp[d], 'unflatten')  # (its refusal of two -1s)
    if -1 in sizes or _prod(sizes) != shp[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {d} ({shp[d]}) in the input tensor")
    return view(input, shp[:d] + sizes + shp[d + 1:])


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


class SqueezeBackward0(Node):
    def backward(self, g):
        return g.reshape(self._meta[0][0])


SqueezeBackward1 = type('SqueezeBackward1', (SqueezeBackward0,), {})
SqueezeBackward2 = type('SqueezeBackward2', (SqueezeBackward0,), {})


def _distinct_dims(dims, nd):
    """``dims`` wrapped into [0, nd), in order; torch's error for a dim named twice."""
    out = []
    for d in dims:
        w = wrap_dim(d, nd)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return out


@register
def squeeze(input, dim=None):
    """Removes dims of size 1 (all, or those in ``dim``, an int or tuple)."""
    shp = input._data.shape
    nd = len(shp)
    if dim is None:
        dims = tuple(i for i, s in enumerate(shp) if s == 1)
        cls = SqueezeBackward0
    else:
        ds = dim if isinstance(dim, (tuple, list)) else (dim,)
        dims = tuple(i for i in _distinct_dims(ds, nd) if nd and shp[i] == 1)
        cls = SqueezeBackward1 if not isinstance(dim, (tuple, list)) else SqueezeBackward2
    arr = np.squeeze(input._data, dims) if dims else input._data.view()
    return view_of(input, arr, track1(cls, input), squeeze, (dim,))


class UnsqueezeBackward0(Node):
    def backward(self, g):
        return g.squeeze(self.dim)


@register
def unsqueeze(input, dim):
    """Inserts a dim of size 1 at ``dim``."""
    d = wrap_dim(dim, input._data.ndim + 1)
    a = input._data
    arr = np.expand_dims(a, d)
    if not a.size and builtins.type(a) is np.ndarray:
        # (torch's stride of the new dim is the size times the stride of the dim it goes
        # before; NumPy's reshape of an empty array makes up its own)
        st = list(a.strides)
        st.insert(d, a.shape[d] * st[d] if d < a.ndim else a.itemsize)
        arr = np.lib.stride_tricks.as_strided(arr, strides=st)
    n = track1(UnsqueezeBackward0, input)
    if n is not None:
        n.dim = d
    return view_of(input, arr, n, unsqueeze, (d,))


# -- transposes ------------------------------------------------------------------------
class TBackward0(Node):
    def backward(self, g):
        return g.t()


class TransposeBackward0(Node):
    def backward(self, g):
        return g.transpose(self.d0, self.d1)


class PermuteBackward0(Node):
    def backward(self, g):
        return g.permute(tuple(np.argsort(self.dims).tolist()))


@register
def t(input):
    """Transposes a tensor of at most 2 dims."""
    nd = input._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    arr = input._data.T
    return view_of(input, arr, track1(TBackward0, input), t, ())


@register(methods=('swapaxes', 'swapdims'))
def transpose(input, dim0, dim1):
    """Swaps dims ``dim0`` and ``dim1``."""
    nd = input._data.ndim
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    arr = np.swapaxes(input._data, d0, d1) if nd else input._data.view()
    n = track1(TransposeBackward0, input)
    if n is not None:
        n.d0, n.d1 = d0, d1
    return view_of(input, arr, n, transpose, (d0, d1))


swapaxes = swapdims = transpose
register(transpose, name='swapaxes', method=False)
register(transpose, name='swapdims', method=False)


@register
def permute(input, *dims):
    """Reorders the dims."""
    dims = _size_args(dims, 'permute')
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    arr = np.transpose(input._data, dims)
    n = track1(PermuteBackward0, input)
    if n is not None:
        n.dims = dims
    return view_of(input, arr, n, permute, (dims,))


@register(methods=('moveaxis',))
def movedim(input, source, destination):
    """Moves dims ``source`` to positions ``destination`` (ints or sequences)."""
    nd = input._data.ndim
    if isinstance(source, (tuple, list)) != isinstance(destination, (tuple, list)):
        raise TypeError(f"movedim() received an invalid combination of arguments - got "
                        f"({builtins.type(source).__name__}, "
                        f"{builtins.type(destination).__name__}), but expected one of:\n"
                        " * (int source, int destination)\n"
                        " * (tuple of ints source, tuple of ints destination)")
    src = list(source) if isinstance(source, (tuple, list)) else [source]
    dst = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(src) != len(dst):  # (torch compares the counts before it looks at the dims)
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    # (past the first element torch's parser unpacks a bool as 0 or 1)
    src, dst = ([int(d) if i and isinstance(d, builtins.bool) else d for i, d in enumerate(ds)]
                for ds in (src, dst))
    given = {'source': src, 'destination': dst}
    src = [wrap_dim(d, nd) for d in src]
    dst = [wrap_dim(d, nd) for d in dst]
    for name, wrapped in (('source', src), ('destination', dst)):
        if len(set(wrapped)) < len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given[name]})")
    if not nd:  # (a 0-d tensor: dims 0 and -1 name it, nothing moves: torch's alias)
        from .index import _alias
        return _alias(input)
    order = [d for d in range(nd) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, tuple(order))


moveaxis = movedim
register(movedim, name='moveaxis', method=False)


def _T(self):
    nd = self._data.ndim
    return permute(self, tuple(range(nd - 1, -1, -1))) if nd != 2 else permute(self, (1, 0))


def _swap_last(self, name, conj):
    """``mT``, ``mH``, ``H`` and ``adjoint``: the last two dims swapped (and the values
    conjugated), with torch's checks -- ``H`` takes matrices only, the others batches of
    them -- and its deprecated 0-d case: the tensor itself (conjugated), with a warning."""
    nd = self._data.ndim
    if nd == 0:
        label = 'adjoint()' if name == 'adjoint' else f'Tensor.{name}'
        hint = 'Consider using x.conj().' if conj else \
            'This function is the identity in these cases.'
        warnings.warn(f"{label} is deprecated on 0-D tensors. {hint}", UserWarning,
                      stacklevel=3)
        return self.conj() if conj and self.is_complex() else self
    if name == 'H' and nd != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D "
                           "tensor." + (" For batches of matrices, consider using tensor.mH"
                                        if nd > 2 else ''))
    if nd < 2:
        label = 'adjoint()' if name == 'adjoint' else name
        raise RuntimeError(f"tensor.{label} is only supported on matrices or batches of "
                           f"matrices. Got {nd}-D tensor.")
    t = transpose(self, -2, -1)
    return t.conj() if conj and self.is_complex() else t


def _mT(self):
    return _swap_last(self, 'mT', False)


def _mH(self):
    return _swap_last(self, 'mH', True)


def _H(self):
    return _swap_last(self, 'H', True)


@register
def adjoint(input):
    """Conjugate transpose of the last two dims (a 0-dim tensor's is itself, conjugated)."""
    return _swap_last(input, 'adjoint', True)


# -- expand / broadcast ----------------------------------------------------------------
class ExpandBackward0(Node):
    def backward(self, g):
        return sum_to(g, self._meta[0][0])


@register
def expand(input, *sizes, size=None, implicit=False):
    """A view broadcasting size-1 dims to ``sizes`` (-1 keeps a dim); no copy. (``implicit``
    only marks torch's internal broadcasts: it changes nothing.)"""
    sizes = _size_args(sizes if size is None else (size,), 'expand')
    shp = input._data.shape
    nd = len(shp)
    if len(sizes) < nd:
        raise RuntimeError(f"expand({input.dtype.type_string}{{{list(shp)}}}, size="
                           f"{list(sizes)}): the number of sizes provided ({len(sizes)}) must "
                           f"be greater or equal to the number of dimensions in the tensor "
                           f"({nd})")
    lead = len(sizes) - nd
    if nd == 0 and any(s < 0 for s in sizes):  # (a 0-d tensor takes the sizes as they are)
        raise RuntimeError("numel: integer multiplication overflow")
    target = []
    for i in range(len(sizes) - 1, -1, -1):  # (torch checks from the last dim)
        s = sizes[i]
        if i < lead:
            if s == -1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            target.append(s)
            continue
        cur = shp[i - lead]
        if s == -1:
            s = cur
        if cur != s and cur != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(shp)}")
        target.append(s)
    target = tuple(target[::-1])
    if any(s < 0 for s in target):  # (another negative size: torch's count of elements)
        raise RuntimeError("numel: integer multiplication overflow")
    if target[lead:] == shp and all(s == 1 for s in target[:lead]):
        # Nothing is repeated: a plain (writable) view, so in-place ops work on it as in
        # torch; broadcast_to's result is read-only.
        # (``[()]`` of a 0-d array would give a NumPy scalar, not a view)
        arr = input._data[(np.newaxis,) * lead] if lead else input._data.view()
    else:
        arr = np.broadcast_to(input._data, target)
    if 1 in target:
        # (NumPy gives a new or broadcast size-1 dim stride 0; torch's strides differ there)
        arr = np.lib.stride_tricks.as_strided(arr, strides=_expand_strides(input._data, target))
    return view_of(input, arr, track1(ExpandBackward0, input), expand, (target,))


def _expand_strides(a, target):
    """torch's strides (in bytes) of the array ``a`` expanded to ``target``: a dim that
    keeps its size keeps its stride, a repeated one has stride 0, and a new leading size-1
    dim steps over the dims inside it (stride 0 inside none)."""
    lead = len(target) - a.ndim
    out, inner = [0] * len(target), 0
    for i in reversed(range(len(target))):
        size, stride = (a.shape[i - lead], a.strides[i - lead]) if i >= lead else (1, inner)
        if size != target[i]:
            size, stride = target[i], 0
        out[i], inner = stride, size * stride
    return tuple(out)


@register(function=False)
def expand_as(input, other):
    """``expand(other.shape)``."""
    return expand(input, other._data.shape)


@register
def broadcast_to(input, size):
    """``expand(size)``."""
    return expand(input, tuple(size))


@register(method=False)
def broadcast_tensors(*tensors):
    """Expands all tensors to their common broadcast shape."""
    from ._args import tensor_varargs
    tensor_varargs(tensors)
    # (torch's tensor-a/tensor-b message here, not broadcast_shapes' own)
    shape = check_broadcast(*(t._data.shape for t in tensors))
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


@register(method=False, dispatch=False)
def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to."""
    from .._tensor import Size
    shapes = [(s,) if isinstance(s, int) else s for s in shapes]
    common = [1] * max((len(s) for s in shapes), default=0)
    # (torch's order: argument by argument, each from its last dim, the common shape filled
    # in as it goes -- its message shows the shape so far)
    for i, shape in enumerate(shapes):
        for d in range(-1, -1 - len(shape), -1):
            if common[d] == 1:
                if shape[d] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[d] = shape[d]
            elif shape[d] != 1 and shape[d] != common[d]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[d]} "
                                   f"at {d}! Mismatching argument at index {i} had {shape!r}; "
                                   f"but expected shape should be broadcastable to {common}")
    return Size(common)


# -- slicing views ---------------------------------------------------------------------
class EmbedBackward(Node):
    """Backward of ``embed``: the gradient of a value placed into zeros is its region."""

    def backward(self, g):
        return g[self.key]


def embed(g, shape, key):
    """Zeros of ``shape`` with ``g`` written at basic index ``key`` (differentiable): the
    gradient of every slicing view."""
    out = np.zeros(shape, g._data.dtype)
    out[key] = g._data
    n = track1(EmbedBackward, g)
    if n is not None:
        n.key = key
    return result(out, n)


class SliceBackward0(Node):
    def backward(self, g):
        return embed(g, self._meta[0][0], self.key)


class SelectBackward0(SliceBackward0):
    pass


@register
def narrow(input, dim, start, length):
    """The view ``input[..., start:start+length, ...]`` along ``dim``."""
    nd = input._data.ndim
    if isinstance(start, Tensor) and (start._data.ndim or start._data.dtype.kind not in 'iu'):
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    size = input._data.shape[d]
    if isinstance(start, Tensor):
        start = int(start)
    if length < 0:  # (torch checks the length before the start)
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    key = (slice(None),) * d + (slice(start, start + length),)
    return _slice_view(input, key, SliceBackward0, narrow, (d, start, length))


def _slice_view(input, key, cls, fn, args):
    arr = input._data[key]
    if not arr.size and arr.__class__ is np.ndarray:
        arr = _stepped_empty_strides(input._data, key, arr)
    n = track1(cls, input)
    if n is not None:
        n.key = key
    return view_of(input, arr, n, fn, args)


def _stepped_empty_strides(src, key, arr):
    """A strided slice of an empty array with torch's strides: NumPy leaves the stride of a
    dim sliced to nothing as it was, torch multiplies it by the step
    (``zeros(0)[::2].stride()`` is (2,))."""
    if not all(k.__class__ is slice for k in key):
        return arr
    strides = list(arr.strides)
    for d, k in enumerate(key):
        if k.step not in (None, 1):
            strides[d] = src.strides[d] * k.step
    if strides == list(arr.strides):
        return arr
    return np.lib.stride_tricks.as_strided(arr, strides=strides)


def select_position(input, dim, index):
    """``dim`` and ``index`` of a select on ``input``, checked and made non-negative (also
    what select_scatter writes to)."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    size = input._data.shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input._data.shape)} at dimension {d}")
    return d, index + size if index < 0 else index


def slice_key(input, dim, start, end, step):
    """The index of a ``slice(dim, start, end, step)`` of ``input`` (also what slice_scatter
    writes to), its arguments checked in torch's order: the 0-dim input, the dim, the step."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return (slice(None),) * d + (slice(start, end, step),), d


@register
def select(input, dim, index):
    """The view at ``index`` along ``dim`` (that dim removed)."""
    d, index = select_position(input, dim, index)
    # The trailing Ellipsis keeps a 0-d result a NumPy view rather than a scalar copy.
    key = (slice(None),) * d + (index, Ellipsis)
    return _slice_view(input, key, SelectBackward0, select, (d, index))


class UnbindBackward0(Node):
    def backward(self, *grads):
        return stack(list(grads), self.dim)


def _multi_view(input, arrs, node, fn, args_of, cls):
    """The views of ``input`` one op returns together (unbind, split...): made in grad mode,
    each refuses in-place ops, as torch's, since one backward formula covers them all;
    made without grad mode from a tensor requiring grad, each is a no-grad view."""
    outs = results(arrs, node)
    name = cls.__name__[:-len('Backward0')] if STATE.enabled else None
    no_grad_view = not STATE.enabled and input._requires_grad
    for i, o in enumerate(outs):
        o._vc = input._vc
        if o._vc is INFERENCE_VC:  # views of an inference tensor: plain inference tensors
            o._requires_grad = False
            o._gfn = None
            continue
        link_view(o, input, fn, args_of(i))
        if name is not None:
            o._multi_view_of = (name, i)
        elif no_grad_view:
            o._requires_grad = True
            o._no_grad_view = 'inference' if STATE.inference else 'no_grad'
            watch_version(o)
    return tuple(outs)


def _pick(t, fn, args, i):
    return fn(t, *args)[i]


@register
def unbind(input, dim=0):
    """Tuple of the views along ``dim``."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, nd)
    arr = input._data
    # (the trailing Ellipsis keeps a 0-d piece a NumPy view, not a scalar copy)
    arrs = [arr[(slice(None),) * d + (i, Ellipsis)] for i in range(arr.shape[d])]
    n = track1(UnbindBackward0, input)
    if n is not None:
        n.dim = d
    return _multi_view(input, arrs, n, _pick, lambda i: (unbind, (d,), i), UnbindBackward0)


class SplitBackward0(Node):
    def backward(self, *grads):
        return cat(list(grads), self.dim)


SplitWithSizesBackward0 = type('SplitWithSizesBackward0', (SplitBackward0,), {})


@register(function=False, name='split')
def _split_method(self, split_size, dim=0):
    """``Tensor.split``: ``split`` of ``self`` (torch's method names the sizes ``split_size``)."""
    return split(self, split_size, dim)


@register(method=False)
def split(tensor, split_size_or_sections, dim=0):
    """Views of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes."""
    nd = tensor._data.ndim
    if isinstance(split_size_or_sections, Tensor) and split_size_or_sections._data.size == 1:
        split_size_or_sections = int(split_size_or_sections)  # (as torch's Tensor.split)
    if builtins.type(split_size_or_sections) is not int:
        _split_arguments(tensor, split_size_or_sections, dim)
    _at_least_1d(tensor, 'split expects at least a 1-dimensional tensor')
    if isinstance(split_size_or_sections, int) and split_size_or_sections < 0:  # (before dim)
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size_or_sections}")
    d = wrap_dim(dim, nd)
    size = tensor._data.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step == 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {size}")
        sizes = [builtins.min(step, size - i) for i in range(0, size, step)] if size else [0]
        cls = SplitBackward0
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                               f"(input tensor's size at dimension {dim}), but got split_sizes="
                               f"{sizes}")
        cls = SplitWithSizesBackward0
    arr = tensor._data
    arrs, start = [], 0
    for s in sizes:
        arrs.append(arr[(slice(None),) * d + (slice(start, start + s),)])
        start += s
    n = track1(cls, tensor)
    if n is not None:
        n.dim = d
    return _multi_view(tensor, arrs, n, _pick, lambda i: (split, (split_size_or_sections, d), i),
                       cls)


def _at_least_1d(input, message):
    """torch's RuntimeError for a 0-d tensor given to an op that splits along a dim (the
    split/chunk/tensor_split family checks this before the dim)."""
    if not input._data.ndim:
        raise RuntimeError(message)


def _split_arguments(tensor, split_size, dim):
    """torch's TypeError for a ``split_size`` torch's ``split`` refuses: a bool goes to the
    parser of the int form, anything else but an int to that of ``split_with_sizes``."""
    from . import _args
    if isinstance(split_size, bool):
        raise TypeError(f"split() received an invalid combination of arguments - got "
                        f"{_args._got((tensor, split_size, dim), None)}, but expected one of:\n"
                        f" * (Tensor input, int split_size, int dim = 0)\n"
                        f" * (Tensor input, tuple of ints split_size, int dim = 0)\n")
    _args.check('split_with_sizes', (tensor, split_size, dim), None)


def _split_indices(t):
    """``tensor_split``'s sections (a 0-d tensor) or indices (a 1-d one) as Python ints,
    after torch's checks of the tensor."""
    if t._data.dtype != np.int64:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {_dtype.FROM_NP[t._data.dtype].kernel_name}")
    if t._data.ndim > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                           f"zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{t._data.ndim} dims")
    return t._data.tolist()


@register(function=False)
def split_with_sizes(input, split_sizes, dim=0):
    """``split`` with a list of sizes."""
    return split(input, list(split_sizes), dim)


@register
def chunk(input, chunks, dim=0):
    """Splits into ``chunks`` nearly equal views (the last may be smaller)."""
    _at_least_1d(input, 'chunk expects at least a 1-dimensional tensor')
    if isinstance(chunks, np.integer):
        chunks = int(chunks)  # (torch's parser takes NumPy ints; split's Python check not)
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if size == 0:  # torch gives ``chunks`` empty pieces
        return split(input, [0] * chunks, d)
    step = -(-size // chunks)
    return split(input, builtins.max(step, 1), dim)


@register
def tensor_split(input, indices_or_sections, dim=0):
    """Splits into sections like ``numpy.array_split``, or at the given indices."""
    _at_least_1d(input, 'tensor_split expected at least a 1-dimensional tensor, but got a '
                        'tensor with 0 dims')
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = _split_indices(indices_or_sections)
    elif isinstance(indices_or_sections, np.integer):
        indices_or_sections = int(indices_or_sections)  # (torch's parser takes NumPy ints)
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        sizes = [q + 1] * r + [q] * (n - r)
        starts = [builtins.sum(sizes[:i]) for i in range(n)]
    else:
        # Each piece is [a, b) clamped to the dim: unsorted indices give empty pieces.
        idx = [0] + [builtins.max(0, i + size) if i < 0 else i
                     for i in indices_or_sections] + [size]
        starts = [builtins.min(a, size) for a in idx[:-1]]
        sizes = [builtins.max(0, builtins.min(b, size) - s) for s, b in zip(starts, idx[1:])]
    # torch makes each piece a slice of its own (SliceBackward0), not one split node.
    return tuple(narrow(input, d, s, n) for s, n in zip(starts, sizes))


class DiagonalBackward0(Node):
    def backward(self, g):
        return diag_embed_like(g, self._meta[0][0], self.offset, self.d1, self.d2)


def _diag_index(shape, offset, d1, d2):
    n1, n2 = shape[d1], shape[d2]
    if offset >= 0:
        k = builtins.max(0, builtins.min(n1, n2 - offset))
        return np.arange(k), np.arange(k) + offset
    k = builtins.max(0, builtins.min(n1 + offset, n2))
    return np.arange(k) - offset, np.arange(k)


class DiagEmbedBackward0(Node):
    def backward(self, g):
        return diagonal(g, self.offset, self.d1, self.d2)


def diag_embed_like(g, shape, offset, d1, d2):
    """Zeros of ``shape`` with ``g`` on the (offset, d1, d2) diagonal; inverse of diagonal."""
    out = np.zeros(shape, g._data.dtype)
    i, j = _diag_index(shape, offset, d1, d2)
    view = np.moveaxis(out, (d1, d2), (-2, -1))
    view[..., i, j] = g._data
    n = track1(DiagEmbedBackward0, g)
    if n is not None:
        n.offset, n.d1, n.d2 = offset, d1, d2
    return result(out, n)


@register
def diagonal(input, offset=0, dim1=0, dim2=1):
    """View of the diagonal over dims ``dim1``, ``dim2`` (appended as the last dim)."""
    nd = input._data.ndim
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    arr = np.diagonal(input._data, offset, d1, d2)
    if input._data.flags.writeable:
        # NumPy hands diagonals out read-only; torch's are ordinary views that can be
        # written through (x.diagonal().fill_(1), fill_diagonal_)
        arr.flags.writeable = True
    n = track1(DiagonalBackward0, input)
    if n is not None:
        n.offset, n.d1, n.d2 = offset, d1, d2
    return view_of(input, arr, n, diagonal, (offset, d1, d2))


# -- copies ----------------------------------------------------------------------------
class CloneBackward0(Node):
    def backward(self, g):
        return g


@register
def clone(input, *, memory_format=None):
    """A copy with its own memory (differentiable), laid out as ``memory_format`` (by
    default as ``input``, when its memory is dense; else row-major)."""
    data = input._data
    return result(in_format(data, memory_format, 'clone') if isinstance(data, np.ndarray)
                  else data.copy(), track1(CloneBackward0, input))  # (sparse: its storage)


@register(function=False)
def contiguous(input, memory_format=None):
    """``input`` itself if laid out row-major (or as ``memory_format``) without gaps, else
    such a copy."""
    if memory_format is None or memory_format is contiguous_format or \
            memory_format is preserve_format:
        if input._data.flags.c_contiguous:
            return input
        return clone(input, memory_format=contiguous_format)
    if is_laid_out(input._data, memory_format):
        return input
    return clone(input, memory_format=memory_format)


class ToCopyBackward0(Node):
    def backward(self, g):
        dt = _dtype.FROM_NP[self._meta[0][1]]
        # A real input gets the real part of a complex gradient (as in torch).
        return (g if dt.is_complex else g.real).to(dt)


def convert(input, dt, copy=False):
    """``input`` in dtype ``dt``: itself when nothing changes (unless ``copy``)."""
    if input._data.dtype == dt.np and not copy:
        return input
    arr = _dtype.cast(_dtype.real_part_for(input._data, dt.np), dt.np)  # (complex32 too)
    n = None
    if dt.category >= _dtype.FLOAT:
        n = track1(ToCopyBackward0, input)
    return result(arr, n)


@register(function=False)
def to(input, *args, dtype=None, device=None, copy=False, non_blocking=False,
       memory_format=None):
    """Converts dtype and/or device: ``to(dtype)``, ``to(device)``, ``to(other_tensor)``,
    ``to(device, dtype)``. Returns ``input`` itself when nothing changes."""
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif a is not None:
            device = a
    if device is not None and check_device(device, 'to') is not input.device:
        return _to_other_device(input, dtype)
    # (torch copies unless the strides suggest the format asked for: a transposed tensor
    # stays as it is for contiguous_format, an ambiguous one is copied for channels_last)
    if memory_format is not None and memory_format is not preserve_format and \
            suggested_format(input._data) is not memory_format:
        input = clone(input, memory_format=memory_format)
        copy = False
    if dtype is None:
        return clone(input) if copy else input
    return convert(input, dtype, copy)


def _to_other_device(input, dtype):
    """``to`` between the CPU and 'meta': a meta tensor of the same shape (and ``dtype``);
    a meta tensor's values cannot come back, as in torch."""
    if input.is_meta:
        _meta.refuse_copy_out()
    return make(_meta.empty(input._data.shape,
                            input._data.dtype if dtype is None else dtype.np))


def _converter(dt_name):
    def f(self, memory_format=None):
        return convert(self, getattr(_dtype, dt_name))
    f.__name__ = f.__qualname__ = dt_name if dt_name != 'bool_' else 'bool'
    f.__doc__ = f"``to(ember.{dt_name.rstrip('_')})``."
    return f


for _name, _dt in (('float', 'float32'), ('double', 'float64'), ('half', 'float16'),
                   ('bfloat16', 'bfloat16'),
                   ('long', 'int64'), ('int', 'int32'), ('short', 'int16'), ('char', 'int8'),
                   ('byte', 'uint8'), ('bool', 'bool_'), ('cfloat', 'complex64'),
                   ('cdouble', 'complex128'), ('chalf', 'complex32')):
    register(_converter(_dt), name=_name, function=False)


_TYPE_NAMES = {'torch.FloatTensor': _dtype.float32, 'torch.DoubleTensor': _dtype.float64,
               'torch.HalfTensor': _dtype.float16, 'torch.BFloat16Tensor': _dtype.bfloat16,
               'torch.LongTensor': _dtype.int64,
               'torch.IntTensor': _dtype.int32, 'torch.ShortTensor': _dtype.int16,
               'torch.CharTensor': _dtype.int8, 'torch.ByteTensor': _dtype.uint8,
               'torch.BoolTensor': _dtype.bool_}


@register(function=False)
def type(input, dtype=None, non_blocking=False):
    """Without arguments, the legacy type name (``'torch.FloatTensor'``); else ``to(dtype)``,
    where ``dtype`` may also be a type name or a legacy type (``ember.DoubleTensor``)."""
    if dtype is None:
        return 'torch.' + input.dtype._legacy
    if dtype is Tensor or dtype == 'torch.Tensor':
        dtype = _dtype.DEFAULT.float
    elif isinstance(dtype, str):
        if dtype not in _TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _TYPE_NAMES[dtype]
    elif not isinstance(dtype, _dtype.dtype):  # a legacy type such as ember.FloatTensor
        dtype = dtype.dtype
    return convert(input, dtype)


@register(function=False)
def type_as(input, other):
    """``to(other.dtype)``."""
    return convert(input, other.dtype)


@register(function=False)
def cpu(input, memory_format=None):
    """``input`` itself: tensors live on the CPU (a meta tensor's values cannot come back)."""
    if input.is_meta:
        _meta.refuse_copy_out()
    return input


@register(function=False)
def cuda(input, device=None, non_blocking=False, memory_format=None):
    """Raises: ember has no CUDA backend yet."""
    check_device('cuda', 'cuda')


class CatBackward0(Node):
    def backward(self, g):
        # (a skipped 1-D empty input has no size along a later dim: its part is empty, and
        # its gradient keeps its own shape [0])
        shapes = [m[0] for m in self._meta]
        sizes = [0 if len(s) < 2 and not builtins.sum(s) else s[self.dim] for s in shapes]
        parts = split(g, sizes, self.dim)
        return tuple(None if not len(s) else p.reshape(s) if s == (0,) else p
                     for p, s in zip(parts, shapes))


@register(method=False)  # (torch has no Tensor.cat)
def cat(tensors, dim=0):
    """Joins tensors along an existing dim (1-D empty tensors are skipped, as in torch)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"cat() received an invalid combination of arguments - got "
                        f"({builtins.type(tensors).__name__}, int), but expected (tuple of "
                        f"Tensors tensors, int dim)")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    tensors = [to_tensor(t, 'cat', 'tensors') for t in tensors]
    # torch skips 1-D empty tensors whatever the other shapes are (legacy behaviour).
    skipped = [t._data.ndim == 1 and t._data.shape[0] == 0 for t in tensors]
    live = [t for t, skip in zip(tensors, skipped) if not skip]
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = _dtype.promote_types(dt, t.dtype)
    if not live:  # (still recorded: the result requires grad if an input does)
        n = track(CatBackward0, tensors)
        if n is not None:
            n.dim = 0
        return result(np.zeros(0, dt.np), n)
    for i, t in enumerate(tensors):  # (torch checks them all before it wraps the dim)
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    ref = live[0]._data
    nd = ref.ndim
    d = wrap_dim(dim, nd)
    for i, t in enumerate(tensors):
        s = t._data.shape
        if not skipped[i] and (len(s) != nd or any(a != b for k, (a, b) in
                                              enumerate(zip(s, ref.shape)) if k != d)):
            if len(s) != nd:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and "
                                   f"{len(s)}")
            k = next(k for k, (a, b) in enumerate(zip(s, ref.shape)) if k != d and a != b)
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected "
                               f"size {ref.shape[k]} but got size {s[k]} for tensor number {i} "
                               "in the list.")
    arr = np.concatenate([t._data.astype(dt.np, copy=False) if dt.np.kind != 'V' or
                          t._data.dtype == dt.np else _dtype.cast(t._data, dt.np)
                          for t in live], axis=d)
    n = track(CatBackward0, tensors)
    if n is not None:
        n.dim = d
    return result(arr, n)


concat = concatenate = cat
register(cat, name='concat', method=False)
register(cat, name='concatenate', method=False)


class StackBackward0(Node):
    def backward(self, g):
        return g.unbind(self.dim)


@register(method=False)
def stack(tensors, dim=0):
    """Joins equally shaped tensors along a new dim."""
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    tensors = [t if builtins.type(t) is Tensor else to_tensor(t, 'stack', 'tensors')
               for t in tensors]
    arrays = [t._data for t in tensors]
    s0, dt0 = arrays[0].shape, arrays[0].dtype
    d = wrap_dim(dim, len(s0) + 1)  # (the first tensor's dims, before the sizes: torch's order)
    mixed = False
    for i, a in enumerate(arrays):
        if a.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(s0)} "
                               f"at entry 0 and {list(a.shape)} at entry {i}")
        mixed = mixed or a.dtype != dt0
    if mixed:
        dt = tensors[0].dtype
        for t in tensors[1:]:
            dt = _dtype.promote_types(dt, t.dtype)
        arrays = [a.astype(dt.np, copy=False) for a in arrays]
    if d == 0:
        # (A loop of row copies: np.stack's general path costs twice as much for the many
        # small samples a DataLoader batches.)
        arr = np.empty((len(arrays),) + s0, arrays[0].dtype)
        for i, a in enumerate(arrays):
            arr[i] = a
    else:
        arr = np.stack(arrays, axis=d)
    n = track(StackBackward0, tensors)
    if n is not None:
        n.dim = d
    return result(arr, n)


@register(method=False)
def hstack(tensors):
    """Concatenates along dim 1 (dim 0 for 1-D tensors); 0-dim tensors count as 1-D."""
    tensors = [t.reshape(1) if t.dim() == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors[0].dim() == 1 else 1)


@register(method=False)
def vstack(tensors):
    """Concatenates along dim 0 (1-D and 0-dim tensors become rows)."""
    return cat([t.reshape(1, -1) if t.dim() < 2 else t for t in tensors], 0)


row_stack = vstack
register(vstack, name='row_stack', method=False)


class RepeatBackward0(Node):
    def backward(self, g):
        reps, shape = self.reps, self.in_shape
        if not g._data.size:  # (no copies: a repeat of 0, or of -1 on an empty dim)
            return g.new_zeros(shape)
        lead = len(reps) - len(shape)
        full = (1,) * lead + tuple(shape)
        inter = []
        for r, s in zip(reps, full):
            inter += [r, s]
        g = g.reshape(inter).sum(tuple(range(0, 2 * len(reps), 2)))
        return g.reshape(shape)


@register(function=False)
def repeat(input, *sizes):
    """Tiles the tensor ``sizes[i]`` times along each dim (copies)."""
    reps = _size_args(sizes, 'repeat')
    nd = input._data.ndim
    if len(reps) < nd:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    arr = input._data.reshape((1,) * (len(reps) - nd) + input._data.shape)
    check_nonnegative_sizes([r * n for r, n in zip(reps, arr.shape)])
    out = np.tile(arr, reps)
    n = track1(RepeatBackward0, input)
    if n is not None:
        n.reps, n.in_shape = reps, input._data.shape
    return result(out, n)


@register
def tile(input, *dims):
    """``repeat`` that pads ``dims`` with leading 1s when shorter than the tensor's dims
    (the method also takes them as separate arguments, ``t.tile(2, 3)``)."""
    dims = _size_args(dims, 'tile')
    nd = input._data.ndim
    if len(dims) < nd:
        dims = (1,) * (nd - len(dims)) + dims
    return repeat(input, dims)


class FlipBackward0(Node):
    def backward(self, g):
        return g.flip(self.dims)


@register
def flip(input, *dims):
    """Reverses the order of elements along ``dims`` (a copy, as in torch); the method
    takes them unpacked too, ``t.flip(0, 1)``."""
    dims = dims[0] if len(dims) == 1 else list(dims)
    nd = input._data.ndim
    dims = tuple(_distinct_dims(dims if isinstance(dims, (tuple, list)) else [dims], nd))
    out = np.flip(input._data, dims).copy() if nd else input._data.copy()
    n = track1(FlipBackward0, input)
    if n is not None:
        n.dims = dims
    return result(out, n)


@register
def fliplr(input):
    """``flip(input, [1])``."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, [1])


@register
def flipud(input):
    """``flip(input, [0])``."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, [0])


class RollBackward0(Node):
    def backward(self, g):
        shifts = tuple(-s for s in self.shifts) if isinstance(self.shifts, tuple) \
            else -self.shifts
        return g.roll(shifts, self.dims)


@register
def roll(input, shifts, dims=None):
    """Rotates elements by ``shifts`` along ``dims`` (flattened when ``dims`` is None)."""
    if isinstance(shifts, list):
        shifts = tuple(shifts)
    if isinstance(dims, list):
        dims = tuple(dims)
    # torch's rules: shifts pair with dims one to one; no dims means the flattened tensor,
    # which takes exactly one shift.
    ns = len(shifts) if isinstance(shifts, tuple) else 1
    nd = 0 if dims is None else len(dims) if isinstance(dims, tuple) else 1
    if ns == 0:
        raise RuntimeError("`shifts` required")
    if nd == 0 and ns != 1 or nd and nd != ns:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {ns}, dims:{nd}")
    if nd == 0:
        dims = None
        shifts = shifts[0] if isinstance(shifts, tuple) else shifts
    elif input._data.size:  # (torch checks the dims of an empty input for nothing)
        ndim = input._data.ndim
        if ndim == 0:  # (torch's dim wrap takes no scalar as 1-d here)
            d = dims[0] if isinstance(dims, tuple) else dims
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        dims = tuple(wrap_dim(d, ndim) for d in dims) if isinstance(dims, tuple) else \
            wrap_dim(dims, ndim)
    out = np.roll(input._data, shifts, dims) if input._data.size else input._data.copy()
    n = track1(RollBackward0, input)
    if n is not None:
        n.shifts, n.dims = shifts, dims
    return result(out, n)


class TrilBackward0(Node):
    def backward(self, g):
        return g.tril(self.k)


class TriuBackward0(Node):
    def backward(self, g):
        return g.triu(self.k)


def _tri(name, kernel, cls):
    def fn(input, diagonal=0):
        if input._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        r = kernel(input._data, diagonal)
        n = track1(cls, input)
        if n is not None:
            n.k = diagonal
        return result(r, n)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Keeps the {'lower' if name == 'tril' else 'upper'} triangle (relative to "
                  "``diagonal``) of the last two dims, zeroing the rest.")
    register(fn)

    def fn_(self, diagonal=0):
        from ._core import inplace
        return inplace(self, fn, (diagonal,), name + '_')
    fn_.__name__ = fn_.__qualname__ = name + '_'
    fn_.__doc__ = f"In-place ``{name}``."
    register(fn_, function=False)
    return fn


tril = _tri('tril', np.tril, TrilBackward0)
triu = _tri('triu', np.triu, TriuBackward0)


class DiagonalBackward0_copy(DiagonalBackward0):
    """diag of a matrix: a copy of the diagonal (torch names it so)."""


@register
def diag(input, diagonal=0):
    """1-D input: a square matrix with it on the ``diagonal``; 2-D input: that diagonal."""
    nd = input._data.ndim
    if nd == 1:
        n = input._data.shape[0] + builtins.abs(diagonal)
        return diag_embed_like(input, (n, n), diagonal, 0, 1)
    if nd == 2:
        arr = np.diagonal(input._data, diagonal).copy()
        node = track1(DiagonalBackward0_copy, input)
        if node is not None:
            node.offset, node.d1, node.d2 = diagonal, 0, 1
        return result(arr, node)
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{nd}D")


@register
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Puts the last dim of ``input`` on a diagonal of new dims ``dim1``, ``dim2``."""
    nd = input._data.ndim + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input._data.shape[-1] + builtins.abs(offset)
    shape = list(input._data.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    return diag_embed_like(input, tuple(shape), offset, d1, d2)


@register
def ravel(input):
    """``reshape(-1)``: a view when possible."""
    return reshape(input, (-1,))


@register
def atleast_1d(*tensors):
    """Tensors with at least one dim."""
    r = [t.reshape(1) if t.dim() == 0 else t for t in _tensors(tensors, 'atleast_1d')]
    return _one_or_tuple(r, tensors)


@register
def atleast_2d(*tensors):
    """Tensors with at least two dims."""
    r = [t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t
         for t in _tensors(tensors, 'atleast_2d')]
    return _one_or_tuple(r, tensors)


@register(method=False)
def atleast_3d(*tensors):
    """Tensors with at least three dims: a scalar becomes (1, 1, 1), a vector (1, n, 1), a
    matrix (m, n, 1)."""
    def up(t):
        nd = t.dim()
        if nd == 0:
            return t.reshape(1, 1, 1)
        if nd == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        return t.unsqueeze(-1) if nd == 2 else t
    return _one_or_tuple([up(t) for t in _tensors(tensors, 'atleast_3d')], tensors)


def _tensors(ts, op):
    """The tensors of an ``atleast_*`` call: torch parses one argument as a tensor or a
    tuple of them, several as one list of tensors (anything else is its parser's
    TypeError)."""
    from ._args import tensor_varargs, _type_name
    if len(ts) == 1 and not isinstance(ts[0], (Tensor, list, tuple)):
        got = _type_name(ts[0])
        why = f"      didn't match because some of the arguments have invalid types: (!{got}!)\n"
        raise TypeError(f"{op}() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n * (Tensor input)\n{why} * (tuple of Tensors "
                        f"tensors)\n{why}")
    return tensor_varargs(ts[0] if len(ts) == 1 and isinstance(ts[0], (list, tuple)) else ts)


class BlockDiagBackward0(Node):
    """Each block's gradient is its rectangle of ``g``."""

    def backward(self, g):
        grads = []
        r = c = 0
        for shape, (h, w) in zip(self.shapes, self.blocks):
            grads.append(g[r:r + h, c:c + w].reshape(shape))
            r, c = r + h, c + w
        return tuple(grads)


@register(method=False)
def block_diag(*tensors):
    """The block-diagonal matrix of the given tensors (scalars count as 1x1, vectors as one
    row), promoted to a common dtype."""
    from ._args import tensor_varargs
    blocks = []
    for i, t in enumerate(tensor_varargs(tensors)):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t._data.ndim} dimensions")
        blocks.append(t._data.reshape((1,) * (2 - t._data.ndim) + t._data.shape))
    if not tensors:  # (torch gives one empty row)
        return make(np.zeros((1, 0), _dtype.DEFAULT.np_float))
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = _dtype.promote_types(dt, t.dtype)
    out = np.zeros((builtins.sum(b.shape[0] for b in blocks),
                    builtins.sum(b.shape[1] for b in blocks)), dt.np)
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    n = track(BlockDiagBackward0, tensors)
    if n is not None:
        n.shapes = [t._data.shape for t in tensors]
        n.blocks = [b.shape for b in blocks]
    return result(out, n)


@register(function=False)
def fill_diagonal_(self, fill_value, wrap=False):
    """Writes ``fill_value`` on the main diagonal (all dims equal, or a matrix); with
    ``wrap``, a tall matrix's diagonal restarts every ``columns + 1`` rows. It writes
    through diagonal views, so autograd sees it as torch does (CopySlices)."""
    shp = self._data.shape
    if len(shp) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shp) > 2 and len(set(shp)) > 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if len(shp) > 2:
        n = shp[0]
        self.as_strided((n,), (builtins.sum(self.stride()),), self.storage_offset()).fill_(
            fill_value)
        return self
    rows, cols = shp
    starts = range(0, rows, cols + 1) if wrap and rows > cols + 1 else (0,)
    for s in starts:
        self[s:].diagonal().fill_(fill_value)
    return self


def _one_or_tuple(r, args):
    """atleast_*d's result: a tensor for one tensor argument, a tuple for several or for a
    list/tuple argument (even of one tensor), as in torch."""
    return r[0] if len(args) == 1 and not isinstance(args[0], (list, tuple)) else tuple(r)


@register(function=False)
def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    """A new tensor from ``data`` with this tensor's dtype unless ``dtype`` is given."""
    from .creation import tensor
    if isinstance(data, Tensor):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        data = data._data
    return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


@register(function=False)
def unfold(input, dimension, size, step):
    """All slices of ``size`` along ``dimension`` taken every ``step``, as a new last dim
    (a copy in ember; torch returns a view)."""
    d = wrap_dim(dimension, input._data.ndim)
    arr = input._data
    if arr.ndim == 0:
        arr = arr.reshape(1)
    # (torch's order: the size against the dim's, the size's sign, the step's)
    if size > arr.shape[d]:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {arr.shape[d]} but size "
                           f"is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    win = np.lib.stride_tricks.sliding_window_view(arr, size, axis=d)
    win = win[(slice(None),) * d + (slice(None, None, step),)]
    out = np.ascontiguousarray(win)
    if input._data.ndim == 0:  # (torch: the one window alone, shape [size])
        out = out.reshape(size)
    n_ = track1(UnfoldBackward0, input)
    if n_ is not None:
        n_.d, n_.size, n_.step = d, size, step
    return result(out, n_)


class UnfoldBackward0(Node):
    def backward(self, g):
        shape = self._meta[0][0]
        d, size, step = self.d, self.size, self.step
        if not shape:  # (a 0-d input: its one window of size 0 or 1)
            return g.sum()
        out = make(np.zeros(shape, g._data.dtype))
        n = g._data.shape[d]
        # Windows may overlap: scatter-add each window back.
        acc = out
        for k in range(n):
            part = g.select(d, k).movedim(-1, d)
            key = (slice(None),) * d + (slice(k * step, k * step + size),)
            acc = acc + embed(part, shape, key)
        return acc


# Tensor properties made from the view ops above.
PROPERTIES = {'T': _T, 'mT': _mT, 'mH': _mH, 'H': _H}


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``; a dim reads
# back normalized, where torch's reads a negative one as its unsigned 64-bit form).
for _cls in (StackBackward0, CatBackward0, UnsqueezeBackward0, UnbindBackward0):
    name_saved_values(_cls, attrs={'dim': 'dim'})
for _cls in (ViewBackward0, ExpandBackward0):
    name_saved_values(_cls, inputs=('self',), sizes=('self_sym_sizes',))
