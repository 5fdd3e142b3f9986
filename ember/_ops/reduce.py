"""Reductions and scans: sum, mean, prod, max/min (with indices), amax/amin, argmax/argmin,
var/std, norm, logsumexp, softmax/log_softmax, cumsum/cumprod, sort/argsort/topk, all/any.

Every reduction takes ``dim`` (None, an int or a tuple) and ``keepdim``; ``_unreduce``
broadcasts a gradient back over the reduced dims, in one place for all of them.
"""
import builtins
import collections

import numpy as np

from .. import _dtype
from ._core import Node, Tensor, make, register, track1, result, results, wrap_dim

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
    cls = type(name, (base,), {'__repr__': __repr__, '__slots__': ()})
    cls.__module__ = 'ember.return_types'
    setattr(return_types, name, cls)
    return cls


_max_t = _named('max', ('values', 'indices'))
_min_t = _named('min', ('values', 'indices'))
_sort_t = _named('sort', ('values', 'indices'))
_topk_t = _named('topk', ('values', 'indices'))
_mode_t = _named('mode', ('values', 'indices'))
_median_t = _named('median', ('values', 'indices'))
_kth_t = _named('kthvalue', ('values', 'indices'))
_cummax_t = _named('cummax', ('values', 'indices'))
_cummin_t = _named('cummin', ('values', 'indices'))
_aminmax_t = _named('aminmax', ('min', 'max'))


# -- dims --------------------------------------------------------------------------------
def _dims(dim, nd):
    """``dim`` as a sorted tuple of non-negative dims (None or () -> all dims)."""
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, (tuple, list)):
        ds = tuple(wrap_dim(d, nd) for d in dim)
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"dim {ds[0]} appears multiple times in the list of dims")
        return tuple(sorted(ds)) if ds else tuple(range(nd))
    return (wrap_dim(dim, nd),)


def _unreduce(g, shape, dims, keepdim):
    """Broadcasts gradient ``g`` of a reduction back to the input ``shape``."""
    if not keepdim and dims and len(shape):
        g = g.reshape(tuple(1 if i in dims else s for i, s in enumerate(shape)))
    return g.expand(shape)


def _np_axis(dims, nd):
    return dims if nd else None


# -- sum / mean / prod -------------------------------------------------------------------
class SumBackward0(Node):
    def backward(self, g):
        return g.expand(self._meta[0][0])


class SumBackward1(Node):
    def backward(self, g):
        return _unreduce(g, self._meta[0][0], self.dims, self.keepdim)


@register
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all elements if None); ints and bools sum to int64."""
    x = input._data
    if dtype is not None:
        x = x.astype(dtype.np)
    elif x.dtype.kind in 'biu':
        x = x.astype(np.int64)
    if dim is None:
        r = np.asarray(x.sum())
        if keepdim:
            r = r.reshape((1,) * x.ndim)
        n = track1(SumBackward0 if not keepdim else SumBackward1, input)
        if n is not None and keepdim:
            n.dims, n.keepdim = tuple(range(x.ndim)), True
        return result(r, n)
    dims = _dims(dim, x.ndim)
    r = np.asarray(x.sum(axis=_np_axis(dims, x.ndim), keepdims=keepdim))
    n = track1(SumBackward1, input)
    if n is not None:
        n.dims, n.keepdim = dims, keepdim
    return result(r, n)


@register
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """``sum`` treating NaN as zero."""
    mask = input.isnan()
    return sum(input.masked_fill(mask, 0), dim, keepdim, dtype=dtype)


class MeanBackward0(Node):
    def backward(self, g):
        shape = self._meta[0][0]
        return g.expand(shape) / builtins.max(_numel(shape), 1) if _numel(shape) else \
            g.expand(shape)


class MeanBackward1(Node):
    def backward(self, g):
        shape = self._meta[0][0]
        n = _numel(tuple(shape[d] for d in self.dims)) if shape else 1
        return _unreduce(g, shape, self.dims, self.keepdim) / n


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@register
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` (all elements if None); needs a float or complex dtype."""
    x = input._data
    if dtype is not None:
        x = x.astype(dtype.np)
    if x.dtype.kind not in 'fc':
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: "
                           f"{_dtype.FROM_NP[x.dtype]._legacy.replace('Tensor', '')}")
    dims = _dims(dim, x.ndim)
    with np.errstate(all='ignore'):
        r = np.asarray(x.mean(axis=_np_axis(dims, x.ndim), keepdims=keepdim),
                       dtype=x.dtype)
    if dim is None and not keepdim:
        n = track1(MeanBackward0, input)
    else:
        n = track1(MeanBackward1, input)
        if n is not None:
            n.dims, n.keepdim = dims, keepdim
    return result(r, n)


@register
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """``mean`` ignoring NaN elements."""
    mask = ~input.isnan()
    return sum(input.masked_fill(~mask, 0), dim, keepdim) / sum(mask, dim, keepdim)


class ProdBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]
        return _prod_grad(g, x, None, False)


class ProdBackward1(ProdBackward0):
    def backward(self, g):
        x = self.saved_tensors[0]
        return _prod_grad(g, x, self.dim, self.keepdim)


def _prod_grad(g, x, dim, keepdim):
    """d prod / dx_i = product of the others, exact even when some x are zero: computed as
    exclusive cumulative products from both sides."""
    if dim is None:
        flat = x.reshape(-1)
        gg = g.reshape(())
        d = 0
    else:
        flat = x
        d = dim
        gg = g if keepdim else g.unsqueeze(d)
    left = _exclusive_cumprod(flat, d, False)
    right = _exclusive_cumprod(flat, d, True)
    out = gg * left * right
    return out.reshape(x.shape) if dim is None else out


def _exclusive_cumprod(x, d, reverse):
    if reverse:
        x = x.flip(d)
    n = x.shape[d] if x.dim() else 1
    ones = x.new_ones(tuple(1 if i == d else s for i, s in enumerate(x.shape)))
    if n <= 1:
        r = ones.expand(x.shape) if x.dim() else x.new_ones(())
    else:
        from .shape import cat
        r = cat([ones, x.narrow(d, 0, n - 1).cumprod(d)], d)
    return r.flip(d) if reverse else r


@register
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over all elements, or over one ``dim``."""
    x = input._data
    if dtype is not None:
        x = x.astype(dtype.np)
    elif x.dtype.kind in 'biu':
        x = x.astype(np.int64)
    if dim is None:
        r = np.asarray(x.prod())
        n = track1(ProdBackward0, input)
    else:
        d = wrap_dim(dim, x.ndim)
        r = np.asarray(x.prod(axis=d if x.ndim else None, keepdims=keepdim))
        n = track1(ProdBackward1, input)
        if n is not None:
            n.dim, n.keepdim = d, keepdim
    if n is not None:
        n.save(input)
    return result(r, n)


# -- max / min ---------------------------------------------------------------------------
def _check_nonempty(x, op, dim=None):
    if x.size == 0 and (dim is None or x.shape[dim] == 0 if x.ndim else True):
        raise IndexError(f"{op}(): Expected reduction dim {dim if dim is not None else ''} to "
                         "have non-zero size." if dim is not None else
                         f"{op}(): Expected reduction dim to be specified for input.numel() == "
                         "0. Specify the reduction dim with the 'dim' argument.")


class _EvenlyDistributed(Node):
    """Gradient of a full/amax-style reduction: shared equally among the tied extremes."""

    def backward(self, g):
        x = self.saved_tensors[0]
        out = self.out_value
        shape = self._meta[0][0]
        dims = self.dims
        gx = _unreduce(g, shape, dims, self.keepdim)
        o = _unreduce(out, shape, dims, self.keepdim)
        mask = (x == o)
        count = mask.sum(dims if dims else None, keepdim=True)
        return gx * mask / count


class MaxBackward1(_EvenlyDistributed):
    pass


class MinBackward1(_EvenlyDistributed):
    pass


class AmaxBackward0(_EvenlyDistributed):
    pass


class AminBackward0(_EvenlyDistributed):
    pass


def _extreme_all(input, np_fn, cls, op):
    x = input._data
    _check_nonempty(x, op)
    r = np.asarray(np_fn(x))
    n = track1(cls, input)
    t = result(r, n)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim = tuple(range(x.ndim)), False
        n.out_value = t.detach()
    return t


class MaxBackward0(Node):
    """Gradient of max/min/sort-style selections: scattered back to the chosen indices."""

    def backward(self, g, _unused=None):
        return _put_along(g, self.indices, self.dim, self._meta[0][0], self.keepdim)


class MinBackward0(MaxBackward0):
    pass


class _PutAlongBackward(Node):
    def backward(self, g):
        return _take_along(g, self.indices, self.dim, self.keepdim)


def _put_along(g, indices, dim, shape, keepdim=True):
    """Zeros of ``shape`` with ``g`` placed at ``indices`` along ``dim`` (differentiable)."""
    idx = indices._data
    gd = g._data
    if not keepdim:
        idx = np.expand_dims(idx, dim)
        gd = np.expand_dims(gd, dim)
    out = np.zeros(shape, gd.dtype)
    if len(shape) == 0:
        out = gd.reshape(()).copy()
    else:
        np.put_along_axis(out, idx, gd, dim)
    n = track1(_PutAlongBackward, g)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, dim, keepdim
    return result(out, n)


class _TakeAlongBackward(Node):
    def backward(self, g):
        return _put_along(g, self.indices, self.dim, self._meta[0][0], self.keepdim)


def _take_along(x, indices, dim, keepdim=True):
    idx = indices._data
    if not keepdim:
        idx = np.expand_dims(idx, dim)
    out = np.take_along_axis(x._data, idx, dim) if x._data.ndim else x._data.copy()
    if not keepdim:
        out = np.squeeze(out, dim)
    n = track1(_TakeAlongBackward, x)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, dim, keepdim
    return result(np.asarray(out), n)


def _extreme_dim(input, dim, keepdim, arg_fn, cls, tup, op):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    if x.ndim == 0:
        idx = np.zeros((), np.int64)
        vals = x.copy()
    else:
        idx = arg_fn(x, axis=d, keepdims=True)
        vals = np.take_along_axis(x, idx, d)
        if not keepdim:
            idx = np.squeeze(idx, d)
            vals = np.squeeze(vals, d)
    indices = make(np.asarray(idx, np.int64))
    n = track1(cls, input)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, d, keepdim or x.ndim == 0
    v = result(np.asarray(vals), n)
    return tup(v, indices)


def _nan_argmax(x, axis, keepdims):
    # torch propagates NaN: a NaN is the max (and the min) of its slice.
    nan = np.isnan(x) if x.dtype.kind in 'fc' else None
    if nan is not None and nan.any():
        return np.argmax(nan, axis=axis, keepdims=keepdims)
    return np.argmax(x, axis=axis, keepdims=keepdims)


def _nan_argmin(x, axis, keepdims):
    nan = np.isnan(x) if x.dtype.kind in 'fc' else None
    if nan is not None and nan.any():
        return np.argmax(nan, axis=axis, keepdims=keepdims)
    return np.argmin(x, axis=axis, keepdims=keepdims)


def _two_arg(name, reduce_fn, node_all, node_dim, arg_fn, tup, elementwise):
    def fn(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, Tensor):
            return elementwise(input, dim)
        if dim is None:
            return _extreme_all(input, reduce_fn, node_all, name)
        return _extreme_dim(input, dim, keepdim, arg_fn, node_dim, tup, name)
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


max = _two_arg('max', np.max, MaxBackward1, MaxBackward0, _nan_argmax, _max_t,
               _max_elementwise)
min = _two_arg('min', np.min, MinBackward1, MinBackward0, _nan_argmin, _min_t,
               _min_elementwise)


def _amaxmin(name, np_fn, cls):
    def fn(input, dim=(), keepdim=False, *, out=None):
        x = input._data
        dims = _dims(dim if dim != () else None, x.ndim)
        if x.size == 0:
            for d in dims:
                if x.shape[d] == 0:
                    raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero "
                                     "size.")
        r = np.asarray(np_fn(x, axis=_np_axis(dims, x.ndim), keepdims=keepdim))
        n = track1(cls, input)
        t = result(r, n)
        if n is not None:
            n.save(input)
            n.dims, n.keepdim = dims, keepdim
            n.out_value = t.detach()
        return t
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The {name[1:]}imum over ``dim`` (all dims by default), without indices."
    register(fn)
    return fn


amax = _amaxmin('amax', np.max, AmaxBackward0)
amin = _amaxmin('amin', np.min, AminBackward0)


@register
def aminmax(input, *, dim=None, keepdim=False):
    """Named tuple (min, max) over ``dim`` (all elements if None)."""
    d = () if dim is None else dim
    return _aminmax_t(amin(input, d, keepdim), amax(input, d, keepdim))


def _arg(name, arg_fn):
    def fn(input, dim=None, keepdim=False):
        x = input._data
        if dim is None:
            if x.size == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0.")
            r = np.asarray(arg_fn(x.reshape(-1), axis=0, keepdims=False))
            if keepdim:
                r = r.reshape((1,) * x.ndim)
            return make(r.astype(np.int64))
        d = wrap_dim(dim, x.ndim)
        if x.ndim == 0:
            return make(np.zeros((), np.int64))
        if x.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return make(np.asarray(arg_fn(x, axis=d, keepdims=keepdim)).astype(np.int64))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Index of the {name[3:]}imum (of the flattened tensor if ``dim`` is None)."
    register(fn)
    return fn


argmax = _arg('argmax', _nan_argmax)
argmin = _arg('argmin', _nan_argmin)


# -- statistics --------------------------------------------------------------------------
def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


class VarBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]
        shape = self._meta[0][0]
        n = self.count
        mu = x.mean(self.dims, keepdim=True)
        return _unreduce(g, shape, self.dims, self.keepdim) * (x - mu) * \
            (2.0 / builtins.max(n - self.correction, 0))


class StdBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]
        shape = self._meta[0][0]
        # Recomputed from x (not stored) so that double backward differentiates through it.
        std = x.std(self.dims, keepdim=True, correction=self.correction)
        mu = x.mean(self.dims, keepdim=True)
        gs = _unreduce(g, shape, self.dims, self.keepdim) / std
        return gs * (x - mu) / builtins.max(self.count - self.correction, 0)


def _var_args(input, dim, unbiased, keepdim, correction):
    # var(x, True) is var(x, unbiased=True) in torch's old signature.
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    x = input._data
    if x.dtype.kind not in 'fc':
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims(dim, x.ndim)
    c = _correction(unbiased, correction)
    count = _numel(tuple(x.shape[d] for d in dims)) if x.ndim else 1
    return x, dims, c, count, keepdim


@register
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` with Bessel's ``correction`` (default 1)."""
    x, dims, c, count, keepdim = _var_args(input, dim, unbiased, keepdim, correction)
    with np.errstate(all='ignore'):
        r = np.asarray(np.var(x, axis=_np_axis(dims, x.ndim), ddof=c, keepdims=keepdim)
                       if count - c > 0 else
                       np.full(np.var(x, axis=_np_axis(dims, x.ndim), keepdims=keepdim).shape,
                               np.nan if count - c == 0 or count == 0 else np.inf), x.dtype)
    n = track1(VarBackward0, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim, n.correction, n.count = dims, keepdim, c, count
    return result(r, n)


@register
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over ``dim`` with Bessel's ``correction`` (default 1)."""
    v = var(input, dim, unbiased, keepdim, correction=correction)
    x, dims, c, count, keepdim = _var_args(input, dim, unbiased, keepdim, correction)
    r = np.sqrt(v._data)
    n = track1(StdBackward0, input)
    t = result(np.asarray(r), n)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim, n.correction, n.count = dims, keepdim, c, count
    return t


@register
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over ``dim``."""
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return (var(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


@register
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over ``dim``."""
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return (std(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


class LinalgVectorNormBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]
        p, dims, keepdim = self.p, self.dims, self.keepdim
        shape = self._meta[0][0]
        norm = _vector_norm(x, p, dims, True).expand(shape)
        gx = _unreduce(g, shape, dims, keepdim)
        if p == 0:
            return gx * 0
        if p == 1:
            return gx * x.sign()
        if p == 2:
            return gx * x / norm.masked_fill(norm == 0, 1) * (norm != 0)
        if p == float('inf') or p == float('-inf'):
            a = x.abs()
            mask = a == norm
            count = mask.sum(dims, keepdim=True)
            return gx * x.sign() * mask / count
        a = x.abs()
        return gx * x.sign() * a.pow(p - 1) / norm.pow(p - 1).masked_fill(norm == 0, 1)


def _vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    x = input._data
    if dtype is not None:
        x = x.astype(dtype.np)
    if x.dtype.kind not in 'fc':
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_dtype.FROM_NP[x.dtype]._legacy.replace('Tensor', '')}")
    dims = _dims(dim, x.ndim)
    ax = _np_axis(dims, x.ndim)
    a = np.abs(x)
    p = ord
    if p == 2:
        r = np.sqrt(np.sum(a * a, axis=ax, keepdims=keepdim))
    elif p == 1:
        r = np.sum(a, axis=ax, keepdims=keepdim)
    elif p == float('inf'):
        r = np.max(a, axis=ax, keepdims=keepdim)
    elif p == float('-inf'):
        r = np.min(a, axis=ax, keepdims=keepdim)
    elif p == 0:
        r = np.sum(a != 0, axis=ax, keepdims=keepdim).astype(a.dtype)
    else:
        r = np.sum(a ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)
    r = np.asarray(r, dtype=a.dtype)
    n = track1(LinalgVectorNormBackward0, input)
    if n is not None:
        n.save(input)
        n.p, n.dims, n.keepdim = p, dims, keepdim
    return result(r, n)


@register
def norm(input, p='fro', dim=None, keepdim=False, dtype=None):
    """Vector p-norm over ``dim`` (all elements by default); 'fro' is the 2-norm."""
    if p == 'fro' or p is None:
        p = 2
    if p == 'nuc':
        raise NotImplementedError("norm(p='nuc') needs ember.linalg (not implemented yet)")
    return _vector_norm(input, p, dim, keepdim, dtype=dtype)


class LogsumexpBackward0(Node):
    def backward(self, g):
        x = self.saved_tensors[0]
        shape = self._meta[0][0]
        r = logsumexp(x, self.dims, True)
        return _unreduce(g, shape, self.dims, self.keepdim) * (x - r).exp()


@register
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))`` computed without overflow."""
    x = input._data
    if x.dtype.kind not in 'fc':
        x = x.astype(_dtype.DEFAULT.np_float)
    dims = _dims(dim, x.ndim)
    ax = _np_axis(dims, x.ndim)
    m = np.max(x, axis=ax, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide='ignore'):
        r = np.log(np.sum(np.exp(x - m), axis=ax, keepdims=True)) + m
    if not keepdim:
        r = r.reshape(tuple(s for i, s in enumerate(x.shape) if i not in dims))
    r = np.asarray(r, x.dtype)
    n = track1(LogsumexpBackward0, input)
    if n is not None:
        n.save(input)
        n.dims, n.keepdim = dims, keepdim
    return result(r, n)


# -- softmax -----------------------------------------------------------------------------
class SoftmaxBackward0(Node):
    def backward(self, g):
        y = self.saved_tensors[0]
        gy = g * y
        return gy - y * gy.sum(self.dim, keepdim=True)


class LogSoftmaxBackward0(Node):
    def backward(self, g):
        y = self.saved_tensors[0]
        return g - y.exp() * g.sum(self.dim, keepdim=True)


def _softmax_dim(dim, nd, op):
    if dim is None:
        # torch's legacy implicit choice (with a deprecation warning).
        import warnings
        warnings.warn(f"Implicit dimension choice for {op} has been deprecated. Change the call "
                      "to include dim=X as an argument.", stacklevel=3)
        dim = 0 if nd in (0, 1, 3) else 1
    return wrap_dim(dim, nd)


def _softmax_input(input, dtype):
    x = input._data
    if dtype is not None:
        x = x.astype(dtype.np)
    if x.dtype.kind not in 'fc':
        raise RuntimeError(f'"softmax_lastdim_kernel_impl" not implemented for '
                           f"'{_dtype.FROM_NP[x.dtype]._legacy.replace('Tensor', '')}'")
    return x


@register
def softmax(input, dim=None, dtype=None, *, _stacklevel=3):
    """``exp(x) / sum(exp(x), dim)``, computed stably."""
    x = _softmax_input(input, dtype)
    d = _softmax_dim(dim, x.ndim, 'softmax')
    if x.ndim == 0:
        r = np.ones((), x.dtype)
    else:
        e = np.exp(x - np.max(x, axis=d, keepdims=True))
        r = e / np.sum(e, axis=d, keepdims=True)
    n = track1(SoftmaxBackward0, input)
    t = result(np.asarray(r, x.dtype), n)
    if n is not None:
        n.dim = d
        n.save_output(t)
    return t


@register
def log_softmax(input, dim=None, dtype=None, *, _stacklevel=3):
    """``x - logsumexp(x, dim)``, computed stably."""
    x = _softmax_input(input, dtype)
    d = _softmax_dim(dim, x.ndim, 'log_softmax')
    if x.ndim == 0:
        r = np.zeros((), x.dtype)
    else:
        s = x - np.max(x, axis=d, keepdims=True)
        r = s - np.log(np.sum(np.exp(s), axis=d, keepdims=True))
    n = track1(LogSoftmaxBackward0, input)
    t = result(np.asarray(r, x.dtype), n)
    if n is not None:
        n.dim = d
        n.save_output(t)
    return t


# -- scans -------------------------------------------------------------------------------
class CumsumBackward0(Node):
    def backward(self, g):
        d = self.dim
        return g.flip(d).cumsum(d).flip(d) if g.dim() else g


class CumprodBackward0(Node):
    def backward(self, g):
        from .shape import cat
        x = self.saved_tensors[0]
        d = self.dim
        if x.dim() == 0:
            return g
        # d out_j / d x_i = prod_{k<i} x_k * prod_{i<k<=j} x_k, summed over j >= i; built
        # from products that skip x_i, so it stays exact when some x are zero.
        n = x.shape[d]
        left = _exclusive_cumprod(x, d, False)
        ones = x.new_ones(tuple(1 if k == d else s for k, s in enumerate(x.shape)))
        parts = []
        for i in range(n):
            run = ones if i + 1 == n else cat([ones, x.narrow(d, i + 1, n - i - 1).cumprod(d)], d)
            parts.append((g.narrow(d, i, n - i) * run).sum(d, keepdim=True))
        return cat(parts, d) * left


def _scan(name, np_fn, cls):
    def fn(input, dim, *, dtype=None, out=None):
        x = input._data
        if dtype is not None:
            x = x.astype(dtype.np)
        elif x.dtype.kind in 'biu':
            x = x.astype(np.int64)
        d = wrap_dim(dim, x.ndim)
        r = np.asarray(np_fn(x, axis=d) if x.ndim else x.copy())
        n = track1(cls, input)
        if n is not None:
            n.dim = d
            n.save(input)
        return result(r, n)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Cumulative {name[3:]} along ``dim``."
    register(fn)

    def fn_(self, dim, *, dtype=None):
        from ._core import inplace
        return inplace(self, lambda t: fn(t, dim, dtype=dtype), (), name + '_')
    fn_.__name__ = fn_.__qualname__ = name + '_'
    fn_.__doc__ = f"In-place ``{name}``."
    register(fn_, function=False)
    return fn


cumsum = _scan('cumsum', np.cumsum, CumsumBackward0)
cumprod = _scan('cumprod', np.cumprod, CumprodBackward0)


# -- sorting -----------------------------------------------------------------------------
class SortBackward0(MaxBackward0):
    pass


class TopkBackward0(MaxBackward0):
    pass


def _sort_indices(x, d, descending):
    if not descending:
        return np.argsort(x, axis=d, kind='stable')
    # Stable descending order: sort negated keys; NaN counts as the largest value, as in torch.
    if x.dtype.kind == 'b':
        key = ~x
    elif x.dtype.kind in 'iu':
        key = -x.astype(np.int64)
    else:
        key = np.where(np.isnan(x), -np.inf, -x)
    return np.argsort(key, axis=d, kind='stable')


@register
def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """Named tuple (values, indices) sorted along ``dim``."""
    x = input._data
    if x.ndim == 0:
        return _sort_t(input.clone(), make(np.zeros((), np.int64)))
    d = wrap_dim(dim, x.ndim)
    idx = _sort_indices(x, d, descending)
    vals = np.take_along_axis(x, idx, d)
    indices = make(idx.astype(np.int64))
    n = track1(SortBackward0, input)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, d, True
    return _sort_t(result(vals, n), indices)


@register
def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim``."""
    return sort(input, dim, descending, stable).indices


@register
def msort(input):
    """``sort(input, dim=0).values``."""
    return sort(input, 0).values


@register
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """Named tuple (values, indices) of the ``k`` largest (or smallest) along ``dim``."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    size = x.shape[d] if x.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        return _topk_t(input.clone(), make(np.zeros((), np.int64)))
    idx = _sort_indices(x, d, largest)
    idx = np.take(idx, np.arange(k), axis=d)
    vals = np.take_along_axis(x, idx, d)
    indices = make(idx.astype(np.int64))
    n = track1(TopkBackward0, input)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, d, True
    return _topk_t(result(vals, n), indices)


@register
def kthvalue(input, k, dim=-1, keepdim=False):
    """Named tuple (values, indices) of the ``k``-th smallest along ``dim``."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = np.take(np.argsort(x, axis=d, kind='stable'), [k - 1], axis=d)
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = np.squeeze(idx, d), np.squeeze(vals, d)
    indices = make(idx.astype(np.int64))
    n = track1(MaxBackward0, input)
    if n is not None:
        n.indices, n.dim, n.keepdim = indices, d, keepdim
    return _kth_t(result(np.asarray(vals), n), indices)


@register
def median(input, dim=None, keepdim=False):
    """Lower median of all elements, or named tuple (values, indices) along ``dim``."""
    if dim is None:
        flat = input.reshape(-1)
        k = (flat.shape[0] - 1) // 2
        return kthvalue(flat, k + 1, 0).values
    x = input._data
    d = wrap_dim(dim, x.ndim)
    r = kthvalue(input, (x.shape[d] - 1) // 2 + 1, d, keepdim)
    return _median_t(r.values, r.indices)


# -- logic -------------------------------------------------------------------------------
def _logic(name, np_fn):
    def fn(input, dim=None, keepdim=False, *, out=None):
        x = input._data
        dims = _dims(dim, x.ndim) if dim is not None else None
        r = np.asarray(np_fn(x, axis=_np_axis(dims, x.ndim) if dims is not None else None,
                             keepdims=keepdim))
        return make(r.astype(np.uint8) if x.dtype == np.uint8 else r)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"True if {name} elements (along ``dim``) are non-zero."
    register(fn)
    return fn


all = _logic('all', np.all)
any = _logic('any', np.any)


@register
def count_nonzero(input, dim=None):
    """Number of non-zero elements (along ``dim``)."""
    x = input._data
    dims = _dims(dim, x.ndim) if dim is not None else None
    return make(np.asarray(np.count_nonzero(x, axis=dims), np.int64))
