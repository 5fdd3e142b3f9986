"""Reductions and scans: sum, mean, prod, max/min (with indices), amax/amin, argmax/argmin,
var/std, norm, logsumexp, softmax/log_softmax, cumsum/cumprod, sort/argsort/topk,
kthvalue/median, all/any.

Every reduction takes ``dim`` (None, an int or a tuple) and ``keepdim``; ``_unreduce``
broadcasts a gradient back over the reduced dims, in one place for all of them. Backward
formulas are written with ember ops (so they are differentiable again) and avoid dividing by
the input where it may be zero (prod, cumprod), so they stay exact there.
"""
import builtins
import collections
import math
import operator
import warnings

import numpy as np

from .. import _dtype, _native
from .._dtype import opmath
from ._core import Node, Tensor, make, register, track1, result, results, wrap_dim
from ..autograd.graph import name_saved_values
from .complex import conj_if_complex as cj
from ..autograd.grad_mode import STATE

__all__ = ['return_types']


# -- named results, printed as torch prints them -------------------------------------------
class _ReturnTypes:
    """``ember.return_types``: the named tuples returned by max(dim), sort, topk, ..."""


return_types = _ReturnTypes()


def _named(name, fields):
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        body = ',\n'.join(f'{f}={v!r}' for f, v in zip(fields, self))
        return f'torch.return_types.{name}(\n{body})'
    cls = type(name, (base,), {'__repr__': __repr__, '__slots__': (),
                               '__doc__': f'``torch.return_types.{name}``: a named tuple '
                                          f'({", ".join(fields)}).'})
    cls.__module__ = 'ember.return_types'
    setattr(return_types, name, cls)
    return cls


_max_t = _named('max', ('values', 'indices'))
_min_t = _named('min', ('values', 'indices'))
_sort_t = _named('sort', ('values', 'indices'))
_topk_t = _named('topk', ('values', 'indices'))
_mode_t = _named('mode', ('values', 'indices'))
_median_t = _named('median', ('values', 'indices'))
_nanmedian_t = _named('nanmedian', ('values', 'indices'))
_kth_t = _named('kthvalue', ('values', 'indices'))
_cummax_t = _named('cummax', ('values', 'indices'))
_cummin_t = _named('cummin', ('values', 'indices'))
_aminmax_t = _named('aminmax', ('min', 'max'))


# -- dims --------------------------------------------------------------------------------
class _NoDim:
    """Default of ``dim`` where torch tells "no dim given" apart from ``dim=None`` (a
    different overload: ``x.sum()`` is SumBackward0, ``x.sum(None)`` SumBackward1)."""
    __slots__ = ()

    def __repr__(self):
        return 'None'


_NODIM = _NoDim()


def _no_keepdim(op):
    return TypeError(f"{op}() received an invalid combination of arguments - got "
                     "(keepdim=bool, ), but expected one of:\n * (*, torch.dtype dtype = None)"
                     "\n * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = "
                     "None)")
def _dims(dim, nd, wrap_first=False):
    """``dim`` as a sorted tuple of non-negative dims (None or () -> all dims). A dim named
    twice is refused as it is met, or with ``wrap_first`` after every dim is wrapped (torch's
    structured reductions -- sum, mean, amax, any... -- wrap the list first: a dim out of
    range is its IndexError even after a repeated one)."""
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, (tuple, list)):
        # (past the first element torch's parser unpacks a bool as 0 or 1)
        dim = [int(d) if i and type(d) is bool else d for i, d in enumerate(dim)]
        if wrap_first:
            for d in dim:
                _check_dim_type(d)
                wrap_dim(d, nd)
        ds = []
        for d in dim:
            _check_dim_type(d)
            w = wrap_dim(d, nd)
            if w in ds:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            ds.append(w)
        return tuple(sorted(ds)) if ds else tuple(range(nd))
    _check_dim_type(dim)
    return (wrap_dim(dim, nd),)


def _wrap1(dim, nd):
    """A single ``dim``, type-checked and wrapped into [0, nd)."""
    _check_dim_type(dim)
    return wrap_dim(dim, nd)


def _check_dim_type(d):
    # bool is an int to Python, but not a dim to torch.
    if type(d) is bool or not isinstance(d, (int, np.integer)):
        raise TypeError(f"argument 'dim' must be int or tuple of ints, not {type(d).__name__}")


def _unreduce(g, shape, dims, keepdim):
    """Broadcasts gradient ``g`` of a reduction back to the input ``shape``."""
    if not keepdim and dims and len(shape):
        g = g.reshape(tuple(1 if i in dims else s for i, s in enumerate(shape)))
    return g.expand(shape)


def _np_axis(dims, nd):
    return dims if nd else None


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _reduced_count(shape, dims):
    """How many input elements fall into each output element."""
    return _numel(tuple(shape[d] for d in dims)) if len(shape) else 1


def _np_mean(x, dims, keepdims):
    """``x.mean`` over ``dims`` as sum / count, which gives NaN for empty slices without
    NumPy's "Mean of empty slice" warning (torch is silent there)."""
    s = np.sum(opmath(x), axis=_np_axis(dims, x.ndim), keepdims=keepdims)
    return np.asarray(np.true_divide(s, _reduced_count(x.shape, dims)), x.dtype)


def _dtype_name(npdt):
    """torch's short legacy name of a dtype ('Long', 'Float', ...), as its messages print."""
    return _dtype.FROM_NP[np.dtype(npdt)].kernel_name


def _out(r, out):
    if out is None:
        return r
    from .pointwise import _write_out
    return _write_out(out, r)


def _out_pair(r, out):
    """``out=(values, indices)`` for the named-tuple ops: dtypes must match exactly."""
    if out is None:
        return r
    for o, t in zip(out, r):
        if o._data.dtype != t._data.dtype:
            from ._args import out_dtype_error
            raise out_dtype_error(t.dtype, o.dtype)
        _out(t, o)
    return type(r)(*out)


def _where(cond, a, b):
    from .pointwise import where
    return where(cond, a, b)


def _const(arr):
    """A constant (no-graph) tensor over ``arr``, for masks used in backward formulas."""
    return make(np.asarray(arr))


# -- sum / mean / prod -------------------------------------------------------------------
class SumBackward0(Node):
    """Gradient of ``sum(x)``: the output gradient, broadcast to every element."""

    def backward(self, g):
        return g.expand(self._meta[0][0])


class SumBackward1(Node):
    """Gradient of ``sum(x, dim)``."""

    def backward(self, g):
        return _unreduce(g, self._meta[0][0], self.dims, self.keepdim)


def _sum_array(input, dtype):
    x = input._data
    if dtype is not None:
        if dtype.np.kind not in 'fcV' and input._requires_grad and STATE.enabled:
            # The result could not carry a gradient; torch refuses rather than drop it.
            raise RuntimeError(f"Autograd not support dtype: {_dtype_name(dtype.np)}")
        return _dtype.real_part_for(x, dtype.np).astype(dtype.np, copy=False)
    if x.dtype.kind in 'biu':
        # torch sums every integer/bool type into int64.
        return x.astype(np.int64)
    return x


@register
def sum(input, dim=_NODIM, keepdim=False, *, dtype=None, out=None):
    """Sum over ``dim`` (all elements if None); integers and bools sum to int64."""
    if dim is _NODIM:
        x = _sum_array(input, dtype)
        if keepdim:
            raise _no_keepdim('sum')
        # (bfloat16 accumulates in float32 and rounds once, as torch does: see opmath)
        r = np.asarray(opmath(x).sum(), dtype=x.dtype)
        return _out(result(r, track1(SumBackward0, input)), out)
    dims = _dims(dim, input._data.ndim, True)  # (before autograd's refusal of the dtype)
    x = _sum_array(input, dtype)
    r = np.asarray(opmath(x).sum(axis=_np_axis(dims, x.ndim), keepdims=keepdim), dtype=x.dtype)
    n = track1(SumBackward1, input)
    if n is not None:
        n.dims, n.keepdim = dims, keepdim
    return _out(result(r, n), out)


class NansumBackward0(Node):
    """Gradient of ``nansum``: like sum's, but NaN elements get none."""

    def backward(self, g):
        x = self.saved_tensors[0]
        g = _unreduce(g, self._meta[0][0], self.dims, self.keepdim)
        return g * _const(~np.isnan(x._data))


@register
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """``sum`` treating NaN as zero."""
    dims = _dims(dim, input._data.ndim)  # (torch's order: the dims, a complex input,
    _nansum_check(input)                 # autograd's refusal of the result dtype)
    if dtype is _dtype.complex32:  # (NumPy cannot sum into it: the kernel's refusal now)
        _nansum_check(input, dtype)
    x = _sum_array(input, dtype)
    _nansum_check(input, dtype)
    r = np.asarray(np.nansum(opmath(x), axis=_np_axis(dims, x.ndim), keepdims=keepdim),
                   dtype=x.dtype)
    n = track1(NansumBackward0, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim = dims, keepdim
    return _out(result(r, n), out)


class MeanBackward0(Node):
    """Gradient of ``mean(x)``: the output gradient over the element count, everywhere."""

    def backward(self, g):
        shape = self._meta[0][0]
        return g.expand(shape) / _numel(shape)


class MeanBackward1(Node):
    """Gradient of ``mean(x, dim)``."""

    def backward(self, g):
        shape = self._meta[0][0]
        return _unreduce(g, shape, self.dims, self.keepdim) / _reduced_count(shape, self.dims)


def _mean_array(input, dtype, op='mean'):
    x = input._data
    if dtype is not None:
        x = _dtype.real_part_for(x, dtype.np).astype(dtype.np, copy=False)
    if x.dtype.kind not in 'fcV':
        raise RuntimeError(f"{op}(): could not infer output dtype. "
                           f"{'Input' if dtype is None else 'Optional'} dtype must be either "
                           f"a floating point or complex dtype. Got: {_dtype_name(x.dtype)}")
    return x


@register
def mean(input, dim=_NODIM, keepdim=False, *, dtype=None, out=None):
    """Mean over ``dim`` (all elements if None); needs a float or complex dtype."""
    x = _mean_array(input, dtype)
    if dim is _NODIM:
        if keepdim:
            raise _no_keepdim('mean')
        dim = None
        nodim = True
    else:
        nodim = False
    dims = _dims(dim, x.ndim, True)
    r = _np_mean(x, dims, keepdim)
    if nodim:
        n = track1(MeanBackward0, input)
    else:
        n = track1(MeanBackward1, input)
        if n is not None:
            n.dims, n.keepdim = dims, keepdim
    return _out(result(r, n), out)


def _nansum_check(input, dtype=None):
    """torch's refusals of ``nansum``: a complex input, then (its kernel) a complex
    ``dtype``."""
    if input.dtype.is_complex:  # (whatever dtype= asks for)
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if dtype is not None and dtype.is_complex and input._data.size and \
            input._data.dtype.kind in 'fV':  # (no kernel runs on an empty input; integers
        # are summed by sum's)
        raise NotImplementedError(f'"nansum_cpu" not implemented for \'{dtype.kernel_name}\'')


@register
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """``mean`` ignoring NaN elements (``nansum / count of non-NaN``, as torch computes it)."""
    if input._data.dtype.kind not in 'fcV':
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_dtype_name(input._data.dtype)}")
    _mean_array(input, dtype, 'nanmean')
    count = make(np.asarray(np.sum(~np.isnan(input._data), axis=_np_axis(
        _dims(dim, input.ndim, True), input.ndim), keepdims=keepdim)))
    _nansum_check(input)
    _nansum_check(input, dtype)
    return _out(nansum(input, dim, keepdim, dtype=dtype) / count, out)


class ProdBackward0(Node):
    """Gradient of ``prod(x)`` (products of the conjugated ``x`` for complex gradients)."""

    def backward(self, g):
        x = _prod_operand(self)
        if x.dim() == 0:
            return g.expand(())
        return _others_product(x.reshape(-1), 0).reshape(x.shape) * g


class ProdBackward1(Node):
    """Gradient of ``prod(x, dim)``."""

    def backward(self, g):
        x = _prod_operand(self)
        if x.dim() == 0:
            return g.expand(())
        d = self.dim
        gg = g if self.keepdim else g.unsqueeze(d)
        return gg * _others_product(x, d)


def _prod_operand(node):
    """The values a prod multiplied, conjugated: the input's, or under ``dtype=`` the
    input's in that dtype (a complex input's real parts for a real dtype, as torch
    differentiates it)."""
    x = node.saved_tensors[0]
    dt = node.dtype
    if dt is not None and dt is not x.dtype:
        x = (x.real if x.is_complex() and not dt.is_complex else x).to(dt)
    return cj(x)


def _others_product(x, d):
    """For each element, the product of the other elements of its slice along ``d``:
    exclusive cumulative products from both sides, so no division (exact with zeros)."""
    return _exclusive_cumprod(x, d) * _exclusive_cumprod(x.flip(d), d).flip(d)


class _ShiftBackward(Node):
    def backward(self, g):
        return _shift(g, self.dim, -self.step, 0)


def _shift(x, d, step, fill):
    """``x`` moved by ``step`` (+1 or -1) along ``d``, the vacated slot set to ``fill``
    (differentiable): ``[a, b, c] -> [fill, a, b]`` for +1."""
    a = x._data
    r = np.empty_like(a)
    n = a.shape[d]
    src = [slice(None)] * a.ndim
    dst = [slice(None)] * a.ndim
    edge = [slice(None)] * a.ndim
    if step > 0:
        src[d], dst[d], edge[d] = slice(0, n - 1), slice(1, n), slice(0, 1)
    else:
        src[d], dst[d], edge[d] = slice(1, n), slice(0, n - 1), slice(n - 1, n)
    r[tuple(dst)] = a[tuple(src)]
    if n:
        r[tuple(edge)] = fill
    node = track1(_ShiftBackward, x)
    if node is not None:
        node.dim, node.step = d, step
    return result(r, node)


def _exclusive_cumprod(x, d):
    """``prod(x[..:i])`` at each position ``i`` along ``d`` (1 at the first)."""
    return _shift(x, d, 1, 1).cumprod(d)


@register
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product over all elements, or over one ``dim``; integers and bools give int64."""
    if dim is not None:
        _wrap1(dim, input._data.ndim)  # (torch checks the dim before the dtype)
    x = _sum_array(input, dtype)
    if dim is None:
        # (bfloat16 multiplies in bfloat16, step by step: torch's prod does not widen)
        r = np.asarray(x.prod(), dtype=x.dtype)
        n = track1(ProdBackward0, input)
    else:
        d = _wrap1(dim, x.ndim)
        r = np.asarray(x.prod(axis=d if x.ndim else None, keepdims=keepdim), dtype=x.dtype)
        n = track1(ProdBackward1, input)
        if n is not None:
            n.dim, n.keepdim = d, keepdim
    if n is not None:
        n.save(input)
        n.dtype = dtype
    return _out(result(r, n), out)


# -- max / min ---------------------------------------------------------------------------
_NUMEL0 = ("{}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.")


class _EvenlyDistributed(Node):
    """Gradient of a full max/min (or amax/amin over ``dims``): shared equally among the
    elements tied for the extreme, as torch does."""

    nan_ties = True  # max()/min()/median(): a NaN result is shared among the NaNs

    def backward(self, g):
        return _evenly(g, self.saved_tensors[0], self.out_value, self.dims, self.keepdim,
                       self._meta[0][0], self.nan_ties)


def _evenly(g, x, out, dims, keepdim, shape, nan_ties=False):
    gx = _unreduce(g, shape, dims, keepdim)
    o = out._data if keepdim or not dims or not len(shape) else \
        np.expand_dims(out._data, dims)
    mask = x._data == o
    if nan_ties and x._data.dtype.kind in 'fcV':
        mask |= np.isnan(x._data) & np.isnan(o)
    count = np.sum(mask, axis=_np_axis(dims, len(shape)), keepdims=True)
    return gx * _const((mask / count).astype(x._data.dtype))


class MaxBackward1(_EvenlyDistributed):
    """Gradient of ``max(x)``."""


class MinBackward1(_EvenlyDistributed):
    """Gradient of ``min(x)``."""


class AmaxBackward0(_EvenlyDistributed):
    """Gradient of ``amax(x, dim)``."""
    nan_ties = False


class AminBackward0(_EvenlyDistributed):
    """Gradient of ``amin(x, dim)``."""
    nan_ties = False


class MedianBackward0(_EvenlyDistributed):
    """Gradient of ``median(x)``."""


def _extreme_all(input, np_fn, cls, op):
    x = input._data
    if x.size == 0:
        raise RuntimeError(_NUMEL0.format(op))
    r = np.asarray(np_fn(x))
    n = track1(cls, input)
    t = result(r, n)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim = tuple(range(x.ndim)), False
        n.out_value = make(r)
    return t


class _SelectBackward(Node):
    """Gradient of a selection along ``dim`` (max/min/sort/topk/kthvalue/median with a dim):
    the output gradient scattered back to the chosen ``indices``."""

    def backward(self, g, _unused=None):
        return _put_along(g, self.indices, self.dim, self._meta[0][0], self.keepdim)


class MaxBackward0(_SelectBackward):
    """Gradient of ``max(x, dim)``."""


class MinBackward0(_SelectBackward):
    """Gradient of ``min(x, dim)``."""


class KthvalueBackward0(_SelectBackward):
    """Gradient of ``kthvalue``."""


class MedianBackward1(_SelectBackward):
    """Gradient of ``median(x, dim)``."""


class SortBackward0(_SelectBackward):
    """Gradient of ``sort``."""


class TopkBackward0(_SelectBackward):
    """Gradient of ``topk``."""


class _PutAlongBackward(Node):
    def backward(self, g):
        return _take_along(g, self.indices, self.dim, self.keepdim)


def _put_along(g, indices, dim, shape, keepdim=True):
    """Zeros of ``shape`` with ``g`` placed at ``indices`` along ``dim`` (differentiable)."""
    idx = indices._data
    gd = g._data
    if len(shape) == 0:
        out = gd.reshape(()).copy()
    else:
        if not keepdim:
            idx = np.expand_dims(idx, dim)
            gd = np.expand_dims(gd, dim)
        out = np.zeros(shape, gd.dtype)
        np.put_along_axis(out, idx, gd, dim)
    n = track1(_PutAlongBackward, g)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, dim, keepdim
    return result(out, n)


class _TakeAlongBackward(Node):
    def backward(self, g):
        return _put_along(g, self.indices, self.dim, self._meta[0][0], self.keepdim)


def _take_along(x, indices, dim, keepdim=True):
    """``x`` gathered at ``indices`` along ``dim`` (differentiable)."""
    xd = x._data
    if xd.ndim == 0:
        out = xd.copy()
    else:
        idx = indices._data
        if not keepdim:
            idx = np.expand_dims(idx, dim)
        out = np.take_along_axis(xd, idx, dim)
        if not keepdim:
            out = np.squeeze(out, dim)
    n = track1(_TakeAlongBackward, x)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, dim, keepdim
    return result(np.asarray(out), n)


def _selection(input, idx, d, keepdim, cls, tup):
    """The (values, indices) named tuple of a selection along ``d``; ``idx`` holds the chosen
    indices with the dim kept (size 1 for reductions)."""
    x = input._data
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        vals = np.take_along_axis(x, idx, d)
        if not keepdim:
            idx, vals = np.squeeze(idx, d), np.squeeze(vals, d)
    indices = make(np.asarray(idx, np.int64))
    n = track1(cls, input)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, d, keepdim or x.ndim == 0
    return tup(result(np.asarray(vals), n), indices)


def _extreme_dim(input, dim, keepdim, arg_fn, cls, tup, op):
    x = input._data
    d = _wrap1(dim, x.ndim)
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    if op in ('max', 'min') and input.dtype.is_complex:  # (complex32's kind is 'V')
        raise RuntimeError(f"{op}(): does not support complex input")
    # NumPy's argmax/argmin pick the first NaN of a slice, which is what torch returns too.
    idx = arg_fn(x, axis=d, keepdims=True) if x.ndim else None
    return _selection(input, idx, d, keepdim, cls, tup)


def _two_arg(name, reduce_fn, node_all, node_dim, arg_fn, tup, elementwise):
    def fn(input, dim=_NODIM, keepdim=False, *, out=None):
        if isinstance(dim, Tensor):
            return _out(elementwise(input, dim), out)
        if dim is None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            "(Tensor, NoneType), but expected (Tensor input, int dim, bool "
                            "keepdim)")
        if dim is _NODIM:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments - got "
                                "(Tensor, NoneType, bool), but expected (Tensor input, int "
                                "dim, bool keepdim)")
            return _out(_extreme_all(input, reduce_fn, node_all, name), out)
        return _out_pair(_extreme_dim(input, dim, keepdim, arg_fn, node_dim, tup, name), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Without ``dim``: the {name}imum element. With ``dim``: a named tuple "
                  f"(values, indices) of the {name}imum along ``dim``. With a tensor: "
                  f"elementwise ``{name}imum``.")
    register(fn)
    return fn


def _max_elementwise(a, b):
    from .pointwise import maximum
    return maximum(a, b)


def _min_elementwise(a, b):
    from .pointwise import minimum
    return minimum(a, b)


max = _two_arg('max', np.max, MaxBackward1, MaxBackward0, np.argmax, _max_t,
               _max_elementwise)
min = _two_arg('min', np.min, MinBackward1, MinBackward0, np.argmin, _min_t,
               _min_elementwise)


def _check_reduced_nonempty(x, dim, op):
    """amax/amin's check that no reduced dim is empty: torch walks ``dim`` as given,
    wrapping each (an out-of-range one is its IndexError) and naming the first empty one as
    it was given (``-1``), before it looks for a dim named twice."""
    if x.size == 0:
        for i, d in enumerate(dim if isinstance(dim, (tuple, list)) else (dim,)):
            d = int(d) if i and type(d) is bool else d  # (as ``_dims``: the parser's unpacking)
            _check_dim_type(d)
            if x.shape[wrap_dim(d, x.ndim)] == 0:
                raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _amaxmin(name, np_fn, cls):
    def fn(input, dim=(), keepdim=False, *, out=None):
        x = input._data
        all_dims = dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)
        if x.size == 0 and not all_dims:
            _check_reduced_nonempty(x, dim, name)
        dims = _dims(None if all_dims else dim, x.ndim, True)
        if x.size == 0 and all_dims:
            raise RuntimeError(_NUMEL0.format(name))
        r = np.asarray(np_fn(x, axis=_np_axis(dims, x.ndim), keepdims=keepdim))
        n = track1(cls, input)
        t = result(r, n)
        if n is not None:
            n.save(input)
            n.dims, n.keepdim = dims, keepdim
            n.out_value = make(r)
        return _out(t, out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The {name[1:]}imum over ``dim`` (all dims by default), without indices; "
                  "the gradient is shared evenly among tied elements.")
    register(fn)
    return fn


amax = _amaxmin('amax', np.max, AmaxBackward0)
amin = _amaxmin('amin', np.min, AminBackward0)


class AminmaxBackward0(Node):
    """Gradient of ``aminmax``: each output's gradient shared among its tied elements."""
    n_outputs = 2

    def backward(self, gmin, gmax):
        x = self.saved_tensors[0]
        shape = self._meta[0][0]
        lo, hi = self.out_values
        return (_evenly(gmin, x, lo, self.dims, self.keepdim, shape) +
                _evenly(gmax, x, hi, self.dims, self.keepdim, shape))


@register
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """Named tuple (min, max) over ``dim`` (all elements if None)."""
    x = input._data
    if dim is None:
        if x.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        dims = tuple(range(x.ndim))
    else:
        dims = (_wrap1(dim, x.ndim),)
        if x.ndim and x.shape[dims[0]] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero "
                             "size.")
        if not x.ndim and x.dtype.kind == 'c':  # (torch's 0-d path has a message of its own)
            raise RuntimeError(f"aminmax not implemented for {input.dtype.kernel_name}")
    ax = _np_axis(dims, x.ndim)
    lo = np.asarray(np.min(x, axis=ax, keepdims=keepdim))
    hi = np.asarray(np.max(x, axis=ax, keepdims=keepdim))
    n = track1(AminmaxBackward0, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim, n.out_values = dims, keepdim, (make(lo), make(hi))
    return _out_pair(_aminmax_t(*results([lo, hi], n)), out)


def _arg(name, arg_fn):
    def fn(input, dim=None, keepdim=False, *, out=None):
        x = input._data
        if x.dtype == np.bool_ or input.dtype.is_complex:  # (before the dim and the size)
            raise RuntimeError(f"{name}(): does not support "
                               f"{'bool' if x.dtype == np.bool_ else 'complex'} input")
        if dim is None:
            if x.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.")
            r = np.asarray(arg_fn(x.reshape(-1), axis=0), np.int64)
            if keepdim:
                r = r.reshape((1,) * x.ndim)
            return _out(make(r), out)
        d = _wrap1(dim, x.ndim)
        if x.ndim == 0:
            return _out(make(np.zeros((), np.int64)), out)
        if x.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _out(make(np.asarray(arg_fn(x, axis=d, keepdims=keepdim), np.int64)), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Index of the {name[3:]}imum (of the flattened tensor if ``dim`` is None)."
    register(fn)
    return fn


argmax = _arg('argmax', np.argmax)
argmin = _arg('argmin', np.argmin)


# -- statistics --------------------------------------------------------------------------
def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


def _backward_dof(dim, ndim, count, c):
    """The degrees of freedom torch's var/std backward divides by, a NumPy float (zero
    divides to inf/nan, as in torch, instead of raising ZeroDivisionError). Over every dim
    (``dim`` None, or a 0-d input) it is the forward's ``N - correction``, and None when
    that leaves none (torch's gradient is then inf, NaN where x is the mean); over given
    dims it is the count of those dims less the correction, not clamped (negative past the
    count), and for an empty dim list that count is 1 while the forward reduces over
    everything. Kept so ember's gradients stay torch's."""
    if dim is None or isinstance(dim, bool) or not ndim:
        return np.float64(count - c) if count > c else None
    if isinstance(dim, (tuple, list)) and not dim:
        count = 1
    return np.float64(count - c)


def _var_grad(g, x, dims, keepdim, c, dof, shape):
    """d var / dx = 2 (x - mean) / (N - correction), as ember ops; with no degrees of
    freedom left, torch's inf (NaN where x is its mean) whatever the deviation's sign."""
    mu = x.mean(dims, keepdim=True)
    gx = _unreduce(g, shape, dims, keepdim)
    if dof is None:
        from .pointwise import where
        return gx * where(x == mu, np.nan, np.inf)
    return gx * (x - mu) * (2.0 / dof)


def _std_grad(g, x, dims, keepdim, c, dof, shape):
    """d std / dx = (x - mean) / ((N - correction) std); std is recomputed from ``x`` so that
    double backward differentiates through it."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # the forward already warned about the dof
        std = x.std(dims, keepdim=True, correction=c)
    mu = x.mean(dims, keepdim=True)
    # A constant slice gets a zero gradient, as in torch, not 0/0: torch's std of equal
    # values is exactly 0, where the mean's rounding can leave ours a few ulps above it.
    from .pointwise import where
    constant = std._data == 0
    if x._data.size:
        d = x._data
        axes = None if dims is None or not len(dims) or not d.ndim else tuple(dims)
        same = None
        for part in ((d.real, d.imag) if d.dtype.kind == 'c' else (d,)):
            flat = np.ptp(part, axis=axes, keepdims=True) == 0
            same = flat if same is None else same & flat
        if same.shape == constant.shape:
            constant = constant | same
    scaled = where(make(constant), 0.0, _unreduce(g, shape, dims, keepdim) / std)
    return scaled * (x - mu) / (np.float64(0) if dof is None else dof)


class VarBackward0(Node):
    """Gradient of ``var``."""

    def backward(self, g):
        return _var_grad(g, self.saved_tensors[0], self.dims, self.keepdim, self.correction,
                         self.dof, self._meta[0][0])


class StdBackward0(Node):
    """Gradient of ``std``."""

    def backward(self, g):
        return _std_grad(g, self.saved_tensors[0], self.dims, self.keepdim, self.correction,
                         self.dof, self._meta[0][0])


class VarMeanBackward0(Node):
    """Gradient of ``var_mean``: the two outputs' gradients, added."""
    n_outputs = 2
    _first = staticmethod(_var_grad)

    def backward(self, gv, gm):
        x = self.saved_tensors[0]
        shape = self._meta[0][0]
        parts = []
        # An output nobody used gets a constant zero gradient from the engine; torch skips
        # that output altogether, which matters when its formula would give 0 * inf.
        if not _unused(gv):
            parts.append(self._first(gv, x, self.dims, self.keepdim, self.correction,
                                     self.dof, shape))
        if not _unused(gm) or not parts:
            parts.append(_unreduce(gm, shape, self.dims, self.keepdim) /
                         np.float64(self.mean_count))
        return parts[0] if len(parts) == 1 else parts[0] + parts[1]


def _unused(g):
    return g._gfn is None and not g._requires_grad and not g._data.any()


class StdMeanBackward0(VarMeanBackward0):
    """Gradient of ``std_mean``."""
    _first = staticmethod(_std_grad)


def _var_args(input, dim, unbiased, keepdim, correction, op):
    # var(x, True) is var(x, unbiased=True) in torch's old signature.
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments: unbiased and "
                        "correction cannot be given together")
    x = input._data
    if x.dtype.kind not in 'fcV':
        which = op if op.endswith('_mean') else 'std and var'
        raise RuntimeError(f"{which} only support floating point and complex dtypes")
    if isinstance(correction, (complex, np.complexfloating, Tensor)):
        # (torch reads the correction as a double, before it looks at the dims)
        from .pointwise import scalar_as
        correction = scalar_as(correction, np.float64)
    c = _correction(unbiased, correction)
    dims = _dims(dim, x.ndim)
    count = _reduced_count(x.shape, dims)
    if not count - c > 0:  # (a NaN correction too)
        from ..overrides import _warn_at_caller
        _warn_at_caller(f"{op}(): degrees of freedom is <= 0. Correction should be strictly "
                        "less than the reduction factor (input numel divided by output numel).")
    return x, dims, c, count


def _var_array(x, dims, c, count, keepdim):
    """Sum of squared deviations over ``max(0, N - correction)``: inf or nan when the degrees
    of freedom run out, as in torch."""
    ax = _np_axis(dims, x.ndim)
    if x.dtype.kind == 'V':  # bfloat16 (complex32): computed in float32 (complex64), rounded
        # once -- to float16 for complex32, whose variance is real
        return _var_array(opmath(x), dims, c, count, keepdim).astype(
            np.float16 if x.dtype.names is not None else x.dtype)
    mu = x.mean(axis=ax, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
    dev = x - mu
    ss = np.sum((dev * dev.conj()).real if x.dtype.kind == 'c' else dev * dev, axis=ax,
                keepdims=keepdim)
    if count == 0:  # the mean of nothing is NaN, whatever the correction
        ss = ss + np.nan
    # (max(0, N - c): a NaN correction leaves 0 degrees of freedom, as std::max does)
    return np.asarray(ss / builtins.max(0, count - c), dtype=ss.dtype)


def _std_array(x, dims, c, count, keepdim):
    """The square root of ``_var_array``, computed in double for the narrower floats (torch
    accumulates their variance in double): a spread whose square overflows float32 (values
    near 1e30) still has its finite standard deviation."""
    if x.dtype.kind == 'c' or x.dtype.itemsize >= 8:  # (complex64 stays in float, as torch's)
        return np.sqrt(_var_array(x, dims, c, count, keepdim))
    wide = _var_array(x.astype(np.float64), dims, c, count, keepdim)
    return np.sqrt(wide).astype(x.dtype)


@register
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Variance over ``dim`` with Bessel's ``correction`` (default 1)."""
    x, dims, c, count = _var_args(input, dim, unbiased, keepdim, correction, 'var')
    r = _var_array(x, dims, c, count, keepdim)
    n = track1(VarBackward0, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim, n.correction = dims, keepdim, c
        n.dof = _backward_dof(dim, x.ndim, count, c)
    return _out(result(r, n), out)


@register
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Standard deviation over ``dim`` with Bessel's ``correction`` (default 1)."""
    x, dims, c, count = _var_args(input, dim, unbiased, keepdim, correction, 'std')
    r = _std_array(x, dims, c, count, keepdim)
    n = track1(StdBackward0, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim, n.correction = dims, keepdim, c
        n.dof = _backward_dof(dim, x.ndim, count, c)
    return _out(result(np.asarray(r), n), out)


def _stat_mean(input, dim, unbiased, keepdim, correction, op, cls, sqrt):
    x, dims, c, count = _var_args(input, dim, unbiased, keepdim, correction, op)
    v = (_std_array if sqrt else _var_array)(x, dims, c, count, keepdim)
    if x.dtype.kind == 'c':
        # torch's mean here is the real and imaginary parts' own (an infinite real part
        # leaves a zero imaginary part zero; complex division would make it NaN)
        re = _running_mean(x.real, dims, keepdim)
        m = np.empty(re.shape, x.dtype)
        m.real, m.imag = re, _running_mean(x.imag, dims, keepdim)
    else:
        m = _running_mean(x, dims, keepdim)
    n = track1(cls, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim, n.correction = dims, keepdim, c
        n.dof, n.mean_count = _backward_dof(dim, x.ndim, count, c), count
    return tuple(results([np.asarray(v), m], n))


def _running_mean(x, dims, keepdim):
    """The mean var_mean/std_mean give: torch's running (Welford) mean, which is the plain
    mean on finite values; an infinity makes it NaN (inf - inf) unless it is the slice's
    last element, read in logical order."""
    m = _np_mean(x, dims, keepdim)
    if x.dtype.kind not in 'fV' or not x.size or np.isfinite(x).all():
        return m
    axes = tuple(range(x.ndim)) if dims is None or not x.ndim else tuple(dims)
    rest = [a for a in range(x.ndim) if a not in axes]
    flat = np.transpose(x, rest + list(axes)).reshape(
        [x.shape[a] for a in rest] + [-1])
    bad = ~np.isfinite(flat)
    last = flat[..., -1]
    keep_last = np.isinf(last) & ~bad[..., :-1].any(-1)
    r = np.where(bad.any(-1), np.where(keep_last, last, np.nan), m.reshape(last.shape))
    return np.asarray(r, m.dtype).reshape(m.shape)


@register
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over ``dim``."""
    return _stat_mean(input, dim, unbiased, keepdim, correction, 'var_mean', VarMeanBackward0,
                      False)


@register
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over ``dim``."""
    return _stat_mean(input, dim, unbiased, keepdim, correction, 'std_mean', StdMeanBackward0,
                      True)


class LinalgVectorNormBackward0(Node):
    """Gradient of the vector p-norm (``norm``, ``linalg.vector_norm``)."""

    def backward(self, g):
        shape = self._meta[0][0]
        gx = _unreduce(g, shape, self.dims, self.keepdim)
        return vector_norm_backward(self.saved_tensors[0], gx, self.p, self.dims)


class NormBackward1(LinalgVectorNormBackward0):
    """The same gradient under the name torch gives its internal ``norm(x, p, dim)`` calls
    (``pairwise_distance``)."""


def vector_norm_backward(x, gx, p, dims):
    """``gx`` (already broadcast to ``x``'s shape) times the derivative of ``x``'s p-norm
    over ``dims``, written with ember ops so it differentiates again."""
    shape = tuple(x.shape)
    if p == 0:
        return gx * 0
    if p == 1:
        return gx * x.sgn()
    # The norm is recomputed from x so that double backward sees its dependence on x.
    norm = _unreduce(_vector_norm(x, p, dims, True), shape, dims, True)
    zero = _const(norm._data == 0)
    if p == 2:
        return x * _where(zero, 0.0, gx / norm)
    if p == float('inf') or p == float('-inf'):
        a = x._data.__abs__()
        mask = a == norm._data
        count = np.sum(mask, axis=_np_axis(dims, len(shape)), keepdims=True)
        return gx * x.sgn() * _const((mask / count).astype(a.dtype))
    return x.sgn() * x.abs().pow(p - 1) * _where(zero, 0.0, gx / norm.pow(p - 1))


def _no_identity(shape, dim, dims, p):
    """torch's refusal of a norm with no identity (a negative or infinite order) over an
    empty reduction: of the whole tensor, or along an empty dim."""
    if dim is None or dim == () or dim == []:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty "
                           "tensor because the operation does not have an identity")
    for d in dims:
        if shape[d] == 0:  # (torch's message lacks the space after the dim)
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on the "
                               f"dimension {d}because this dimension is empty and the "
                               "operation does not have an identity")


def check_norm_dtype(input, dtype, op):
    """torch's checks of a norm's ``dtype=``: floating or complex, complex exactly for a
    complex input, and no narrower than the input's."""
    x = input._data
    if dtype.np.kind not in 'fcV':
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got "
                           f"{_dtype_name(dtype.np)}")
    if dtype.is_complex != input.dtype.is_complex:  # (complex32's array kind is 'V')
        kind = 'complex' if input.dtype.is_complex else 'real'
        raise RuntimeError(f"{op}: dtype should be {kind} for {kind} inputs, but got "
                           f"{_dtype_name(dtype.np)}")
    if _dtype.promote_types(input.dtype, dtype) is not dtype:
        raise RuntimeError(f"{op}: the dtype of the input ({_dtype_name(x.dtype)}) should be "
                           f"convertible without narrowing to the specified dtype "
                           f"({_dtype_name(dtype.np)})")


def _vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None,
                 node=LinalgVectorNormBackward0):
    x = input._data
    if x.dtype.kind not in 'fcV':
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_dtype_name(x.dtype)}")
    if isinstance(ord, (complex, np.complexfloating)):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order of "
                           "norm.")
    if dtype is not None:
        check_norm_dtype(input, dtype, 'linalg.vector_norm')
        x = x.astype(dtype.np, copy=False)
    dims = _dims(dim, x.ndim)
    ax = _np_axis(dims, x.ndim)
    a = np.abs(x)
    real = a.dtype
    if real.itemsize < 4:  # (float16 and bfloat16 accumulate in float32, as torch's kernel)
        a = a.astype(np.float32)
    p = ord
    if (p < 0 or p == float('inf')) and x.size == 0:
        _no_identity(x.shape, dim, dims, p)
    count = math.prod(x.shape[d] for d in dims if d < x.ndim)
    if count == 0 or p != 0 and count == 1 and (x.ndim or dim is None or
                                                 not isinstance(dim, int) and not len(dim)):
        # The norm of one element is its magnitude: torch returns it, not |x| ** p ** (1/p)
        # (which over- or underflows, 1e30 ** 2 in float32); of no elements 0, the sum's
        # identity, whatever the order (a NaN order too). (Not a 0-d input given a dim:
        # torch's shortcut looks for size-1 dims, which it has none of, and runs its kernel.)
        r = np.sum(a, axis=ax, keepdims=keepdim)
    elif p == 2:
        r = np.sqrt(np.sum(a * a, axis=ax, keepdims=keepdim))
    elif p == 1:
        r = np.sum(a, axis=ax, keepdims=keepdim)
    elif p == float('inf') or p == float('-inf'):
        r = (np.max if p > 0 else np.min)(a, axis=ax, keepdims=keepdim)
    elif p == 0:
        r = np.sum(a != 0, axis=ax, keepdims=keepdim)
    else:
        r = np.sum(a ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)
    r = np.asarray(r, dtype=real)
    n = track1(node, input)
    if n is not None:
        n.save(input)
        n.p, n.dims, n.keepdim = p, dims, keepdim
    return result(r, n)


@register(method=False)
def norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None):
    """Vector p-norm over ``dim`` (all elements by default); 'fro' is the 2-norm, other
    strings (or 'fro' over more than two dims) a matrix norm. As torch's, this is
    ``linalg.vector_norm`` or ``linalg.matrix_norm``, called with its arguments."""
    import ember.linalg as linalg  # (the public ops: they check ``out`` and ``dtype``)
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == 'fro' and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return linalg.vector_norm(input, 2, dims, keepdim, dtype=dtype, out=out)
        dims = list(range(input.dim())) if dims is None else dims
        return linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype, out=out)
    return linalg.vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype,
                              out=out)


@register(function=False, name='norm')
def _norm_method(self, p='fro', dim=None, keepdim=False, dtype=None):
    """``Tensor.norm``: ``norm`` without ``out``, ``dtype`` its fifth positional argument."""
    return norm(self, p, dim, keepdim, dtype=dtype)


class LogsumexpBackward0(Node):
    """Gradient of ``logsumexp``: the softmax of ``x`` over ``dim`` times the gradient."""

    def backward(self, g):
        x = self.saved_tensors[0]
        shape = self._meta[0][0]
        r = logsumexp(x, self.dims, True)
        return _unreduce(g, shape, self.dims, self.keepdim) * cj((x - r).exp())


@register
def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input), dim))`` computed without overflow; integers give floats."""
    x = input._data
    if x.dtype.kind not in 'fcV':
        x = x.astype(_dtype.DEFAULT.np_float)
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' (position 2) must be tuple of ints, not "
                        "NoneType")
    if isinstance(dim, (tuple, list)) and not dim and x.ndim and x.size and not keepdim:
        # torch reduces over no dim here and then fails to write the result; so do we.
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"{[1] * x.ndim}")
    dims = _dims(dim, x.ndim, True)
    ax = _np_axis(dims, x.ndim)
    # (complex input shifts by the largest real part, as torch: the result's imaginary part
    # is then the principal one of the log, in (-pi, pi])
    m = np.max(x.real if x.dtype.kind == 'c' else x, axis=ax, keepdims=True) if x.size else \
        np.zeros(tuple(1 if i in dims else s for i, s in enumerate(x.shape)), x.real.dtype)
    # Shifting by an infinite max would give inf - inf = nan; those slices need no shift.
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(opmath(x) - m)
    if out is not None and x.dtype.kind == 'c' and not out.dtype.is_complex:
        # (torch sums into a real out: the log of the real part of the sum, in out's
        # precision where it is double)
        e = e.real.astype(np.float64) if out.dtype.itemsize == 8 else e.real
    r = np.log(np.sum(e, axis=ax, keepdims=True)) + m
    if not keepdim and x.ndim:
        r = np.squeeze(r, dims)
    r = np.asarray(r, x.dtype if r.dtype.kind == 'c' or x.dtype.kind != 'c' else r.dtype)
    n = track1(LogsumexpBackward0, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim = dims, keepdim
    t = result(r, n)
    if out is not None:
        # (torch copies the result into out: any floating or complex dtype, a complex result
        # into a real one losing its imaginary part with copy_'s warning)
        if not (out.dtype.is_floating_point or out.dtype.is_complex):
            raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, "
                               f"but got: {out.dtype.kernel_name}")
        t = t.to(out.dtype)
    return _out(t, out)


# -- sums of rows and columns, by BLAS ---------------------------------------------------
def row_sums(a, scale=1.0):
    """``scale`` times the sums of the rows of a 2-D array, as a column. For float32/float64
    a matrix-vector product: BLAS sums short rows 3-4x faster than NumPy's reduction (the
    hot reduction of softmax and the normalisations)."""
    if a.dtype.kind != 'f' or a.dtype.itemsize < 4 or not a.size:
        return a.sum(1, keepdims=True) * a.dtype.type(scale)
    return (a @ np.full(a.shape[1], scale, a.dtype))[:, None]


def row_dots(a, v):
    """``sum(a * v, 1)`` for a 2-D array ``a`` and a vector ``v`` of its row length, as a
    column: one matrix-vector product for float32/float64 (as ``row_sums``)."""
    if a.dtype.kind != 'f' or a.dtype.itemsize < 4 or not a.size or v.dtype != a.dtype:
        return (a * v).sum(1, keepdims=True)
    return (a @ v)[:, None]


def _dot_over(a, b, d):
    """``np.sum(a * b, d, keepdims=True)``; along the last axis of float32/float64 arrays
    without the product's temporary (one pass of einsum instead of two)."""
    if d == a.ndim - 1 and a.size and a.dtype == b.dtype and a.dtype in _EINSUM_DTYPES:
        return np.einsum('...j,...j->...', a, b)[..., None]
    return _sum_over(np.asarray(a * b), d)


_EINSUM_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def column_sums(a):
    """The sums of the columns of a 2-D array (a vector-matrix product, as ``row_sums``)."""
    if a.dtype.kind != 'f' or a.dtype.itemsize < 4 or not a.size:
        return a.sum(0)
    return np.ones(a.shape[0], a.dtype) @ a


def _sum_over(a, d):
    """``np.sum(a, d, keepdims=True)``, by ``row_sums`` when ``d`` is the last axis of a
    C-contiguous array."""
    if d == a.ndim - 1 and a.ndim and a.size and a.flags.c_contiguous:
        return row_sums(a.reshape(-1, a.shape[-1])).reshape(a.shape[:-1] + (1,))
    return a.sum(d, keepdims=True)


# -- softmax -----------------------------------------------------------------------------
def _softmax_shift(x, d):
    """What softmax subtracts before exp: the maximum along ``d`` (so exp cannot overflow),
    or -- when every element is finite and they all lie within half of exp's normal range
    of each other -- the global maximum, which gives the same values up to rounding (the
    result is shift-invariant and no exp leaves the normal range) and costs a tenth of a
    maximum per row (one SIMD pass instead of a strided reduction)."""
    hi, lo = x.max(), x.min()
    if lo == -np.inf and hi > lo:   # masked entries (attention): exp gives 0 whatever the
        lo = np.min(x, initial=hi, where=x > lo)                # shift, so they do not count
    if hi - lo < _SHIFT_SPREAD.get(x.dtype, 0):    # (False for inf and nan)
        return hi
    return np.max(x, axis=d, keepdims=True)


_SHIFT_SPREAD = {np.dtype(t): -0.5 * math.log(np.finfo(t).tiny)
                 for t in (np.float16, np.float32, np.float64)}

class SoftmaxBackward0(Node):
    """Gradient of ``softmax``: ``y * (g - sum(g * y))``, from the saved output ``y``."""

    def backward(self, g):
        y = self.saved_tensors[0]
        if not STATE.enabled:   # no graph of the gradient wanted: y (g - sum(g y)) on arrays
            ga, ya = g._data, y._data
            gx = _native.softmax_backward(ya, ga, self.dim, log=False)
            if gx is not None:
                return make(gx)
            gx = np.asarray(np.subtract(ga, _dot_over(ga, ya, self.dim)))
            gx *= ya
            return make(gx)
        gy = g * y
        return gy - y * gy.sum(self.dim, keepdim=True)


class LogSoftmaxBackward0(Node):
    """Gradient of ``log_softmax``: ``g - exp(y) * sum(g)``, from the saved output ``y``."""
    #: ``(exp(x - shift), 1 / its sum)`` from the NumPy forward, or None
    shifted_exp = None

    def backward(self, g):
        y = self.saved_tensors[0]
        if not STATE.enabled:   # on arrays: g - exp(y) sum(g)
            ga = g._data
            gx = _native.softmax_backward(y._data, ga, self.dim, log=True)
            if gx is not None:
                return make(gx)
            if self.shifted_exp is not None:   # exp(y) = exp(x - shift) / sum(...)
                e, inv_sum = self.shifted_exp
                gx = np.multiply(e, _sum_over(ga, self.dim) * inv_sum)
            else:
                gx = np.asarray(np.exp(y._data))
                gx *= _sum_over(ga, self.dim)
            np.subtract(ga, gx, out=gx)
            return make(gx)
        return g - y.exp() * g.sum(self.dim, keepdim=True)


def implicit_softmax_dim(nd, op, stacklevel=3):
    """The dim ``nn.functional.softmax``-style calls use when given ``dim=None`` (torch's
    legacy choice, with its deprecation warning); ``ember.softmax`` itself needs a dim."""
    try:
        stacklevel = operator.index(stacklevel)
    except TypeError:  # (Python's words for ``warnings.warn``'s stacklevel, torch's names)
        from ._args import _type_name
        raise TypeError(f"'{_type_name(stacklevel)}' object cannot be interpreted as an "
                        "integer") from None
    warnings.warn(f"Implicit dimension choice for {op} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel + 1)
    return 0 if nd in (0, 1, 3) else 1


def _softmax_dim(dim, nd, op):
    if type(dim) is bool or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'dim' (position 2) must be int, not "
                        f"{type(dim).__name__}")
    return wrap_dim(dim, nd)


def _softmax_input(input, dim, dtype, op):
    x = input._data
    d = _softmax_dim(dim, x.ndim, op)
    if dtype is not None:
        x = _dtype.real_part_for(x, dtype.np).astype(dtype.np, copy=False) if x.size else \
            np.empty(x.shape, dtype.np)
    # (an empty input runs no kernel; complex32's arrays have bfloat16's kind 'V': ask the dtype)
    if x.size and not _dtype.FROM_NP[x.dtype].is_floating_point:
        kernel = 'lastdim_kernel_impl' if d == x.ndim - 1 or x.ndim == 0 else 'kernel_impl'
        raise NotImplementedError(f'"{op}_{kernel}" not implemented for '
                                  f"'{_dtype_name(x.dtype)}'")
    if x.dtype.kind == 'c' and input._requires_grad and STATE.enabled:
        # (an empty complex input gets past the kernel: torch's autograd refuses the output)
        raise RuntimeError(f"_{op} does not support automatic differentiation for outputs "
                           "with complex dtype.")
    return x, d


@register
def softmax(input, dim, dtype=None, *, _stacklevel=3):
    """``exp(x) / sum(exp(x), dim)``, computed stably."""
    x, d = _softmax_input(input, dim, dtype, 'softmax')
    if x.ndim == 0:  # (exp(x - x) / itself: 1, NaN for a non-finite x)
        r = np.asarray(x - x + 1, x.dtype)
    elif x.size == 0:
        r = x.copy()
    else:
        r = _native.softmax_forward(x, d, log=False)
        if r is None:
            w = opmath(x)
            r = np.subtract(w, _softmax_shift(w, d))   # in place from here
            np.exp(r, out=r)
            r /= _sum_over(r, d)
    # (an integer result -- of an empty input -- is not differentiable)
    n = track1(SoftmaxBackward0, input) if x.dtype.kind in 'fcV' else None
    t = result(np.asarray(r, x.dtype), n)
    if n is not None:
        n.dim = d
        n.save_output(t)
    return t


@register
def log_softmax(input, dim, dtype=None, *, _stacklevel=3):
    """``x - logsumexp(x, dim)``, computed stably."""
    x, d = _softmax_input(input, dim, dtype, 'log_softmax')
    shifted_exp = None
    if x.ndim == 0:  # (x - x: 0, NaN for a non-finite x)
        r = np.asarray(x - x, x.dtype)
    elif x.size == 0:
        r = x.copy()
    else:
        r = _native.softmax_forward(x, d, log=True)
        if r is None:
            w = opmath(x)
            m = _softmax_shift(w, d)
            s = np.asarray(w - np.where(m == -np.inf, 0, m))   # (+inf maximum: nan, as torch)
            e = np.exp(s)
            total = _sum_over(e, d)
            r = np.subtract(s, np.log(total), out=s)
            # the backward's exp(r) is e / total: kept (memory for an exp pass; NumPy's exp
            # is the slowest step of both directions)
            shifted_exp = (e, np.reciprocal(total)) if e.dtype == x.dtype else None
    # (an integer result -- of an empty input -- is not differentiable)
    n = track1(LogSoftmaxBackward0, input) if x.dtype.kind in 'fcV' else None
    t = result(np.asarray(r, x.dtype), n)
    if n is not None:
        n.dim = d
        n.save_output(t)
        n.shifted_exp = shifted_exp
    return t


def _half_to_float(input, dim, half_to_float, op):
    # (torch wraps the dim first; then the flag, which only its GPU kernels take)
    _softmax_dim(dim, input._data.ndim, op)
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")


@register(method=False)
def _softmax(input, dim, half_to_float):
    """aten's softmax, ``softmax(input, dim)``; ``half_to_float`` is refused on the CPU."""
    _half_to_float(input, dim, half_to_float, '_softmax')
    return softmax(input, dim)


@register(method=False)
def _log_softmax(input, dim, half_to_float):
    """aten's log-softmax, ``log_softmax(input, dim)``; ``half_to_float`` is refused on the
    CPU."""
    _half_to_float(input, dim, half_to_float, '_log_softmax')
    return log_softmax(input, dim)

# -- masked softmax (the transformer fast path's kernel) ---------------------------------
class MaskedSoftmaxBackward0(Node):
    """Gradient of ``_masked_softmax``: softmax's ``y * (g - sum(g * y))``, zero where the
    mask is set (so a fully masked row, whose output is NaN, gets a zero gradient)."""

    def backward(self, g):
        y = self.saved_tensors[0]
        mask = self.mask
        if not STATE.enabled:
            ya = np.where(mask, 0, opmath(y._data))
            ga = opmath(g._data)
            gx = ya * (ga - np.sum(ga * ya, self.dim, keepdims=True))
            return make(np.asarray(np.where(mask, 0, gx), y._data.dtype))
        m = make(mask)
        y = y.masked_fill(m, 0)
        gy = g * y
        return (gy - y * gy.sum(self.dim, keepdim=True)).masked_fill(m, 0)


def _masked_softmax_mask(x, mask, mask_type):
    """The mask of ``_masked_softmax`` as an array broadcast to the input's shape, after
    torch's checks: a 2-D mask of a 4-D input may be an (L, L) attention mask (type 0) or a
    (B, L) padding mask (type 1); any other mask (type 2) has the input's shape."""
    m = mask._data
    if m.dtype != np.bool_:
        raise RuntimeError("Mask should be a boolean tensor")
    if m.ndim != 2 or x.ndim != 4:
        mask_type = 2   # (types 0 and 1 describe only 2-D masks of 4-D inputs)
    if mask_type is None:
        raise RuntimeError("Mask Type should be defined")
    if mask_type == 2:
        if m.shape != x.shape:
            raise RuntimeError("For mask_type == 2 mask shape should match input shape")
        return m
    if mask_type == 1:
        if m.shape != (x.shape[0], x.shape[2]):
            raise RuntimeError("For mask_type == 1 mask shape should be (B, L)")
        return np.broadcast_to(m[:, None, None, :], x.shape)
    if mask_type == 0:
        if m.shape != (x.shape[2], x.shape[2]):
            raise RuntimeError("For mask_type == 0 mask shape should be (L, L)")
        return np.broadcast_to(m, x.shape)
    raise RuntimeError("Mask Type should be 0 (src_mask) or 1 (src_key_padding_mask), or 2 "
                       "(default_mask)")


@register(method=False)
def _masked_softmax(input, mask, dim=None, mask_type=None):
    """Softmax along ``dim`` (default the last) over the entries whose ``mask`` is False;
    masked entries give 0 and a fully masked row NaN (torch's CPU kernel; its callers
    replace those rows). The mask is ``mask_type`` 0 (an (L, L) attention mask of a
    (B, H, L, L) input), 1 (a (B, L) padding mask) or 2 (the input's shape)."""
    x = input._data
    m = _masked_softmax_mask(x, mask, mask_type)
    d = wrap_dim(x.ndim - 1 if dim is None else dim, x.ndim or 1)
    if x.dtype.kind not in 'fV':
        raise NotImplementedError(f'"masked_softmax" not implemented for '
                                  f"'{_dtype_name(x.dtype)}'")
    if x.ndim == 0:
        r = np.asarray(np.where(m, np.nan, 1.0), x.dtype)
    else:
        w = np.where(m, -np.inf, opmath(x))
        with np.errstate(invalid='ignore'):   # (a fully masked row: -inf - -inf, as torch)
            e = np.exp(w - np.max(w, d, keepdims=True))
            r = np.asarray(e / e.sum(d, keepdims=True), x.dtype)
    n = track1(MaskedSoftmaxBackward0, input)
    t = result(r, n)
    if n is not None:
        n.dim, n.mask = d, m
        n.save_output(t)
    return t

# -- scans -------------------------------------------------------------------------------
class CumsumBackward0(Node):
    """Gradient of ``cumsum``: the reversed cumulative sum of the output gradient."""

    def backward(self, g):
        d = self.dim
        return g.flip(d).cumsum(d).flip(d) if g.dim() else g


class CumprodBackward0(Node):
    """Gradient of ``cumprod`` (products of the conjugated ``x`` for complex gradients)."""

    def backward(self, g):
        x = cj(self.saved_tensors[0])
        d = self.dim
        if x.dim() == 0 or x._data.size == 0:
            return g
        if np.all(x._data != 0):
            # d out_j / d x_i = out_j / x_i for j >= i: exact while no x is zero.
            return (g * x.cumprod(d)).flip(d).cumsum(d).flip(d) / x
        # With zeros: grad_i = prod_{k<i} x_k * r_i where r_i = sum_{j>=i} g_j prod_{i<k<=j} x_k,
        # i.e. r_i = g_i + x_{i+1} r_{i+1}. Only products, so it is exact at every order.
        from .shape import stack
        n = x.shape[d]
        xs, gs = x.movedim(d, -1), g.movedim(d, -1)
        r = [gs.select(-1, n - 1)]
        for i in range(n - 2, -1, -1):
            r.append(gs.select(-1, i) + xs.select(-1, i + 1) * r[-1])
        return _exclusive_cumprod(x, d) * stack(r[::-1], -1).movedim(-1, d)


# The types torch's CPU scans accumulate in (its acc_type), rounding once at the end.
_SCAN_ACC = {np.dtype(np.float16): np.float32, np.dtype(np.float32): np.float64,
             np.dtype(np.complex64): np.complex128}


def _wide_scan(np_fn, x, d):
    """``np_fn(x, axis=d)`` as torch's scan computes it: float16 in float32, float32 in
    float64, complex64 in complex128, so a running sum or product that overflows (or, a
    product, underflows) on the way can come back: 3e38 + 3e38 - 3e38 is 3e38. Large
    float32 and complex64 inputs scan in their own type first and again wide only where
    that met an inf, NaN or 0 (otherwise the two differ by rounding alone): as fast."""
    wide = _SCAN_ACC.get(x.dtype)
    if wide is None or not x.size:
        return np_fn(x, axis=d)
    if x.dtype != np.float16 and x.size > 4096:  # (small ones: the checks cost more)
        r = np_fn(x, axis=d)
        if np.isfinite(r).all() and (np_fn is not _cumprod or r.all()):
            return r
    return np_fn(x.astype(wide), axis=d).astype(x.dtype)


def _scan(name, np_fn, cls):
    def fn(input, dim, *, dtype=None, out=None):
        d = _wrap1(dim, input._data.ndim)
        x = _sum_array(input, dtype)
        if x.dtype == np.bool_ and x.ndim and x.size:
            # (bool asked for: torch has no bool kernel to accumulate, and runs one unless
            # there is nothing to scan)
            raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
        r = np.asarray(_wide_scan(np_fn, opmath(x), d) if x.ndim else x.copy(), dtype=x.dtype)
        n = track1(cls, input)
        if n is not None:
            n.dim = d
            # (the backward's formula reads the values scanned: the input cast to ``dtype``,
            # as an op so higher derivatives reach the input -- a complex input cast to a
            # real dtype loses its imaginary part, on which the result does not depend)
            n.save(input if x.dtype == input._data.dtype else input.to(dtype))
        return _out(result(r, n), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Cumulative {name[3:]} along ``dim``; integers and bools accumulate in "
                  "int64.")
    register(fn)

    def fn_(self, dim, *, dtype=None):
        from ._core import inplace
        _wrap1(dim, self._data.ndim)
        if dtype is not None and dtype != self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {self.dtype.cpp_name} and "
                               f"output tensor dtype {dtype.cpp_name} should match")
        return inplace(self, lambda t: fn(t, dim, dtype=dtype or t.dtype), (), name + '_')
    fn_.__name__ = fn_.__qualname__ = name + '_'
    fn_.__doc__ = f"In-place ``{name}``."
    register(fn_, function=False)
    return fn


cumsum = _scan('cumsum', np.cumsum, CumsumBackward0)
def _cumprod(x, axis):
    """NumPy's cumprod; a complex scan starts from the product 1 * x[0] as torch's
    accumulator does, so an infinite first element gets its NaN part (-inf + 0j -> -inf +
    nanj) and passes it on. (Only the first: later elements meet the running product.)"""
    if x.dtype.kind == 'c' and x.shape[axis]:
        x = x.copy()
        first = (slice(None),) * (axis % x.ndim) + (0,)
        with np.errstate(invalid='ignore'):
            x[first] *= 1 + 0j
            return np.cumprod(x, axis=axis)
    return np.cumprod(x, axis=axis)


cumprod = _scan('cumprod', _cumprod, CumprodBackward0)


# -- sorting -----------------------------------------------------------------------------
def _sort_indices(x, d, descending):
    """Stable sorting permutation along ``d``; NaN counts as the largest value, as in torch."""
    if x.dtype.kind == 'V':  # (NumPy's sort of bfloat16 leaves NaNs where they are)
        x = x.astype(np.float32)
    if not descending:
        return np.argsort(x, axis=d, kind='stable')
    if x.dtype.kind in 'biu':
        # (~x = -x - 1 reverses the order without overflow: -x of int64's minimum is itself)
        return np.argsort(~x, axis=d, kind='stable')
    idx = np.argsort(-x, axis=d, kind='stable')  # NaNs land last, in order
    if x.dtype.kind == 'f' and np.isnan(x).any():
        # ... then a second stable pass moves them to the front.
        nan = np.take_along_axis(np.isnan(x), idx, d)
        idx = np.take_along_axis(idx, np.argsort(~nan, axis=d, kind='stable'), d)
    return idx


class SortBackward1(_SelectBackward):
    """Gradient of ``sort(..., stable=...)`` (torch's other overload)."""


@register
def sort(input, *args, stable=None, dim=-1, descending=False, out=None):
    """Named tuple (values, indices) sorted along ``dim`` (always stable). As in torch,
    ``stable`` selects an overload whose ``dim``/``descending`` are keyword-only."""
    if args:
        if stable is not None or len(args) > 2:
            got = ', '.join(['Tensor'] + [type(a).__name__ for a in args] +
                            ([f'stable={type(stable).__name__}'] if stable is not None else []))
            raise TypeError(f"sort() received an invalid combination of arguments - got "
                            f"({got}), but expected one of:\n"
                            " * (Tensor input, *, bool stable, int dim = -1, bool descending = "
                            "False, tuple of Tensors out = None)\n"
                            " * (Tensor input, int dim = -1, bool descending = False, *, tuple "
                            "of Tensors out = None)")
        dim = args[0]
        if len(args) == 2:
            descending = args[1]
    x = input._data
    d = _wrap1(dim, x.ndim)
    idx = _sort_indices(x, d, descending) if x.ndim else None
    r = _selection(input, idx, d, True, SortBackward0 if stable is None else SortBackward1,
                   _sort_t)
    return _out_pair(r, out)


@register
def argsort(input, dim=-1, descending=False, stable=None):
    """Indices that sort ``input`` along ``dim``."""
    x = input._data
    d = _wrap1(dim, x.ndim)
    if x.ndim == 0:
        return make(np.zeros((), np.int64))
    return make(_sort_indices(x, d, descending).astype(np.int64))


@register
def msort(input):
    """``sort(input, dim=0).values``."""
    return sort(input, dim=0).values


def _check_k(k, op):
    if type(k) is bool or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'k' (position 2) must be int, not "
                        f"{type(k).__name__}")


@register
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """Named tuple (values, indices) of the ``k`` largest (or smallest) along ``dim``."""
    _check_k(k, 'topk')
    x = input._data
    d = _wrap1(dim, x.ndim)
    size = x.shape[d] if x.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    idx = _topk_indices(x, d, k, largest, sorted) if x.ndim else None
    return _out_pair(_selection(input, idx, d, True, TopkBackward0, _topk_t), out)


def _topk_indices(x, d, k, largest, sorted_):
    """The first ``k`` of the stable sort, except in the rows where torch's answer is its
    C++ algorithms' accident (``_libstdcxx.topk_order``): a tie (or two NaNs) among the first
    k + 1, or an unsorted answer (``sorted=False`` where nth_element picks, k * 64 > n), whose
    order is nth_element's. Only those rows take the Python replay."""
    n = x.shape[d]
    last = d == x.ndim - 1
    rows = x if last else np.moveaxis(x, d, -1)
    order = _sort_indices(rows, -1, largest)
    top = order[..., :k]
    if k and n > 1:
        # (the values of the first k + 1, gathered by plain fancy indexing: NumPy's
        # take_along_axis costs twice as much on small tensors)
        if rows.ndim == 1:
            head = rows[order[:k + 1]]
        else:
            flat_rows = rows.reshape(-1, n)
            head = flat_rows[np.arange(len(flat_rows))[:, None],
                             order.reshape(-1, n)[:, :k + 1]]
            head = head.reshape(order.shape[:-1] + (head.shape[-1],))
        same = head[..., 1:] == head[..., :-1]
        if rows.dtype.kind in 'fV':
            nan = np.isnan(head)
            same |= nan[..., 1:] & nan[..., :-1]
        unsorted = not sorted_ and k > 2 and k * 64 > n  # (k <= 2: nth_element's first
        if unsorted or same.any():                       # k - 1 are sorted by construction)
            redo = np.ones(same.shape[:-1], bool) if unsorted else same.any(-1)
            top = _topk_replay(rows, top, redo, k, largest, sorted_)
    return top if last else np.moveaxis(top, -1, d)


def _topk_replay(rows, top, redo, k, largest, sorted_):
    from ._libstdcxx import topk_order
    flat = top.reshape(-1, k).copy()
    which = np.flatnonzero(redo)
    keys = rows.reshape(-1, rows.shape[-1])[which]
    keys = keys.astype(np.float64) if keys.dtype.kind in 'fV' else keys
    for r, row in zip(which.tolist(), keys):
        flat[r] = topk_order(row, k, largest, sorted_)
    return flat.reshape(top.shape)


@register
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """Named tuple (values, indices) of the ``k``-th smallest along ``dim``."""
    _check_k(k, 'kthvalue')
    x = input._data
    d = _wrap1(dim, x.ndim)
    size = x.shape[d] if x.ndim else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    idx = np.take(_sort_indices(x, d, False), [k - 1], axis=d) if x.ndim else None
    if x.ndim and x.shape[d] > 1:
        idx = _kth_ties(x, d, k - 1, idx)
    return _out_pair(_selection(input, idx, d, keepdim, KthvalueBackward0, _kth_t), out)


def _kth_ties(x, d, k, idx):
    """Where the k-th value is tied, the index torch reports is the one its quickselect
    (Numerical Recipes' ``select``) leaves at position k; elsewhere the value is unique and
    the stable sort's index is the answer. Only tied slices take the Python loop."""
    rows = np.moveaxis(x, d, -1).reshape(-1, x.shape[d])
    flat = np.moveaxis(idx, d, -1).reshape(-1)
    kth = rows[np.arange(rows.shape[0]), flat]
    same = (rows == kth[:, None])
    if rows.dtype.kind in 'fcV':
        same |= np.isnan(rows) & np.isnan(kth)[:, None]
    tied = np.nonzero(same.sum(1) > 1)[0]
    if not tied.size:
        return idx
    flat = flat.copy()
    for r in tied:
        flat[r] = _select(rows[r].tolist(), k)
    shape = list(np.moveaxis(idx, d, -1).shape)
    return np.moveaxis(flat.reshape(shape), -1, d)


def _after(a, b):
    # a sorts after b: greater, or NaN against a number (NaN is the largest)
    return a > b or (a != a and b == b)


def _select(values, k):
    """Position (in ``values``) of the k-th smallest (0-based) as found by median-of-three
    quickselect with Hoare partitioning (Numerical Recipes' ``select``), which decides which
    of several tied elements torch's kthvalue reports."""
    a = values
    ix = list(range(len(a)))

    def swap(p, q):
        a[p], a[q] = a[q], a[p]
        ix[p], ix[q] = ix[q], ix[p]
    lo, hi = 0, len(a) - 1
    while hi > lo:
        if hi == lo + 1:
            if _after(a[lo], a[hi]):
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)
        if _after(a[lo + 1], a[hi]):
            swap(lo + 1, hi)
        if _after(a[lo], a[hi]):
            swap(lo, hi)
        if _after(a[lo + 1], a[lo]):
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, a[lo]
        while True:
            i += 1
            while _after(piv, a[i]):
                i += 1
            j -= 1
            while _after(a[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return ix[k]


def median_all(input, flat, nan, cls, op='median'):
    """The lower median of ``flat`` (``input``'s values, maybe filtered) as a 0-d result
    whose gradient ``cls`` shares among the tied elements; NaN if ``nan``."""
    x = input._data
    if not x.size and x.dtype.kind == 'c' and input.requires_grad and STATE.enabled:
        # (no kernel runs on an empty input: autograd refuses the complex result instead)
        raise RuntimeError(f"{op} does not support automatic differentiation for outputs "
                           "with complex dtype.")
    if flat.size == 0:
        # torch returns NaN rather than raising, converted to an integer or bool dtype as C
        # converts it (x86: through int32 below 32 bits -- 0 for int8 and int16 -- the lowest
        # value for int32 and int64, True for bool), as NumPy's astype does.
        with np.errstate(invalid='ignore'):
            r = np.asarray(np.nan).astype(x.dtype)
    elif nan:
        r = np.asarray(np.nan, x.dtype)
    else:
        r = np.asarray(np.sort(flat)[(flat.size - 1) // 2])
    n = track1(cls, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim, n.out_value = tuple(range(x.ndim)), False, make(r)
    return result(r, n)


def median_dim_checks(x, d):
    """torch's refusals of a median along dim ``d`` of ``x`` (nanmedian's too): an empty
    dim, then its kernel's dtypes (bool and complex, even for an empty result)."""
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    if x.dtype.kind in 'bc':
        raise NotImplementedError(f"\"median_out\" not implemented for '{_dtype_name(x.dtype)}'")


@register
def median(input, dim=_NODIM, keepdim=False, *, out=None):
    """Lower median of all elements (NaN if any), or named tuple (values, indices) along
    ``dim``."""
    x = input._data
    if dim is _NODIM:
        flat = x.reshape(-1)
        nan = x.dtype.kind in 'fV' and np.isnan(flat).any()
        return _out(median_all(input, flat, nan, MedianBackward0), out)
    d = _wrap1(dim, x.ndim)
    median_dim_checks(x, d)
    if x.ndim == 0:
        idx = None
    else:
        order = _sort_indices(x, d, False)
        idx = np.take(order, [(x.shape[d] - 1) // 2], axis=d)
        if x.dtype.kind in 'fV':
            # torch: a slice holding NaN has median NaN, at its first NaN.
            nan = np.isnan(x)
            has = nan.any(axis=d, keepdims=True)
            idx = np.where(has, np.argmax(nan, axis=d, keepdims=True), idx)
    return _out_pair(_selection(input, idx, d, keepdim, MedianBackward1, _median_t), out)


# -- logic -------------------------------------------------------------------------------
def _logic(name, np_fn):
    def fn(input, dim=None, keepdim=False, *, out=None):
        x = input._data
        if x.dtype.kind == 'V' and x.dtype.names is not None:  # complex32: as complex64
            x = _dtype.chalf_to_complex64(x)
        # torch keeps uint8 for uint8 inputs (a legacy); every other dtype gives bool. An
        # out= tensor may be either, and its dtype is the result's.
        as_uint8 = x.dtype == np.uint8 if out is None else _logic_out(name, out)
        if isinstance(dim, (tuple, list)) and not dim:
            # unlike sum/amax, torch's all/any reduce over no dim for an empty dim list
            r = np.asarray(x != 0) if x.dtype != np.bool_ else x.copy()  # (0-d: an array)
        else:
            dims = _dims(dim, x.ndim, True)
            r = np.asarray(np_fn(x, axis=_np_axis(dims, x.ndim), keepdims=keepdim))
        return _out(make(r.astype(np.uint8) if as_uint8 else r), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"True if {name} elements (along ``dim``) are non-zero."
    register(fn)
    return fn


def _logic_out(name, out):
    """Whether all/any's ``out`` tensor holds uint8 (else bool; torch refuses any other)."""
    if out.dtype not in (_dtype.bool_, _dtype.uint8):
        raise RuntimeError(f"{name} only supports bool tensor for result, got: "
                           f"{out.dtype.kernel_name}")
    return out.dtype is _dtype.uint8


all = _logic('all', np.all)
any = _logic('any', np.any)


@register
def count_nonzero(input, dim=None):
    """Number of non-zero elements (along ``dim``)."""
    x = input._data
    if x.dtype.kind == 'V' and x.dtype.names is not None:  # complex32: as complex64
        x = _dtype.chalf_to_complex64(x)
    dims = _dims(dim, x.ndim, True)
    return make(np.asarray(np.count_nonzero(x, axis=_np_axis(dims, x.ndim)), np.int64))


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``).
name_saved_values(SumBackward0, inputs=('self',), sizes=('self_sym_sizes',))
name_saved_values(SumBackward1, inputs=('self',), sizes=('self_sym_sizes',),
                  attrs={'dim': 'dims', 'keepdim': 'keepdim'})
name_saved_values(MeanBackward0, inputs=('self',), sizes=('self_sym_sizes', 'self_sym_numel'))
name_saved_values(MeanBackward1, inputs=('self',), sizes=('self_sym_sizes', 'self_sym_numel'),
                  attrs={'dim': 'dims', 'keepdim': 'keepdim'})
