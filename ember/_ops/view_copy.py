"""The forms torch derives from its view ops, each made from the view op itself:

- ``<view>_copy`` (``t_copy``, ``split_copy``, ...): the view's values in fresh memory, with
  the view's derivative under torch's name ``<ViewNode>_copy`` (``TBackward0_copy``);
- ``unsafe_split``/``unsafe_chunk``/``unsafe_split_with_sizes``: the pieces share memory
  with the input but are not tracked as its views (torch's ``UnsafeSplitBackward0``);
- the in-place view ops (``t_``, ``squeeze_``, ``transpose_``, ...): ``self`` itself becomes
  the view, its history the view's under torch's in-place node name (``TBackward1``).

One table row per op: the derivative is always the view op's own.
"""
import functools

import numpy as np

from .._tensor import Tensor
from ._core import register, track1, check_inplace, check_view_rewritable, result, relaid
from ..autograd.grad_mode import STATE
from . import shape, arrange, special
from .index import _alias
from .pointwise import NotImplemented_

_new = object.__new__
_RENAMED = {}


def _rename(node, name):
    """Gives ``node`` a class named ``name`` (a cached subclass of its own): the same
    derivative under the name torch gives the derived op's grad_fn."""
    if node is None:
        return
    cls = type(node)
    key = (cls, name)
    if key not in _RENAMED:
        _RENAMED[key] = type(name, (cls,), {'__doc__': f"``{cls.__name__}`` as {name}."})
    node.__class__ = _RENAMED[key]


def _standalone(v, copy):
    """A tensor with view ``v``'s values (copied into fresh contiguous memory, or shared when
    ``copy`` is false) and its place in the graph, but no view relation to anything."""
    t = _new(Tensor)
    t._data = np.array(v._data, order='C') if copy else v._data
    t._vc = [0]
    t._gfn = v._gfn
    t._requires_grad = v._gfn is not None
    if v._output_nr:
        t._output_nr = v._output_nr
    if v._fw is not None:
        t._fw = v._fw
    return t


def _derived(view, suffix=None, name=None, copy=True):
    """The op ``view`` followed by ``_standalone``: its grad_fn renamed ``<name>_copy`` (or
    ``name``); a tuple or list of views gives the same kind of sequence."""
    def op(input, *args, **kwargs):
        r = view(input, *args, **kwargs)
        outs = r if isinstance(r, (tuple, list)) else (r,)
        node = outs[0]._gfn if outs else None
        if node is not None:
            _rename(node, name or type(node).__name__ + suffix)
        made = [_standalone(v, copy) for v in outs]
        return type(r)(made) if isinstance(r, (tuple, list)) else made[0]
    return op


def _slice(input, dim=0, start=None, end=None, step=1):
    return input[shape.slice_key(input, dim, start, end, step)[0]]


def _view(input, size):
    # (the copy needs no view of the memory: a layout ``view`` refuses is copied first)
    try:
        return input.view(size)
    except RuntimeError as e:
        if 'view size is not compatible' not in str(e):
            raise
        return input.contiguous().view(size)


def _detach_copy(input):
    n = track1(NotImplemented_, input)
    if n is not None:
        n.op = 'detach_copy'
    return result(input._data.copy(), n)


def _expand(input, size, *, implicit=False):
    return shape.expand(input, size, implicit=implicit)


def _view_as_complex(input):
    # (torch's order: the dtype, the view's shape checks, then autograd's refusal)
    if input._data.dtype not in (np.float16, np.float32, np.float64):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: "
                           f"{input.dtype.kernel_name}")
    if input._requires_grad:
        from ..autograd.grad_mode import no_grad
        with no_grad():  # (the view's own checks first, as torch's kernel runs before)
            special.view_as_complex(input.detach())
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation "
                           "for outputs with complex dtype.")
    return special.view_as_complex(input)


_COPIES = {
    'alias_copy': _alias, 'as_strided_copy': arrange.as_strided,
    'diagonal_copy': shape.diagonal, 'expand_copy': _expand,
    'permute_copy': shape.permute, 'select_copy': shape.select, 'slice_copy': _slice,
    'split_copy': shape.split, 'split_with_sizes_copy': shape.split,
    'squeeze_copy': shape.squeeze, 't_copy': shape.t, 'transpose_copy': shape.transpose,
    'unbind_copy': shape.unbind, 'unfold_copy': shape.unfold,
    'unsqueeze_copy': shape.unsqueeze, 'view_as_real_copy': special.view_as_real,
    'view_as_complex_copy': _view_as_complex, 'view_copy': _view,
}


def _install_copies():
    for name, view in _COPIES.items():
        fn = _derived(view, '_copy')
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = (f"``{name[:-5]}`` of ``input`` as a new tensor (its own memory, no view "
                      "relation), differentiable as the view is.")
        register(fn, method=False)


_install_copies()


@register(method=False)
def detach_copy(input):
    """``detach`` as a new tensor: torch records it with a grad_fn that has no derivative."""
    return _detach_copy(input)


@register
def narrow_copy(input, dim, start, length):
    """``narrow`` of ``input`` in fresh memory (grad_fn ``NarrowCopyBackward0``)."""
    if 0 < input._data.ndim <= dim:  # (torch's kernel asserts this before wrapping dim)
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")
    if input._data.ndim and type(start) is int and type(dim) is int and \
            -input._data.ndim <= dim < input._data.ndim:
        # (torch's kernel checks the start before the length, as narrow does not)
        size = input._data.shape[dim]
        if not -size <= start <= size:
            raise IndexError(f"start out of range (expected to be in range of [{-size}, "
                             f"{size}], but got {start})")
        s = start + size if start < 0 else start
        if type(length) is int and (length < 0 or s + length > size):
            raise RuntimeError(f"start ({s}) + length ({length}) exceeds dimension size "
                               f"({size}).")
    return _derived(shape.narrow, name='NarrowCopyBackward0')(input, dim, start, length)


# -- unsafe splits: shared memory, no view tracking --------------------------------------
@register
def unsafe_split(input, split_size, dim=0):
    """``split`` whose pieces share ``input``'s memory without being tracked as its views
    (so in-place changes to them are not checked against it)."""
    return _derived(shape.split, name='UnsafeSplitBackward0', copy=False)(input, split_size, dim)


@register
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes`` as ``unsafe_split`` does it."""
    return _derived(shape.split, name='UnsafeSplitWithSizesBackward0', copy=False)(
        input, list(split_sizes), dim)


@register
def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` as ``unsafe_split`` does it."""
    return _derived(shape.chunk, name='UnsafeSplitBackward0', copy=False)(input, chunks, dim)


register(shape.split_with_sizes, method=False)


# -- in-place view ops ----------------------------------------------------------------------
# torch's in-place node names, from the out-of-place ones ember's view ops record.
_INPLACE_NAMES = {'SqueezeBackward0': 'SqueezeBackward3', 'SqueezeBackward1': 'SqueezeBackward4',
                  'SqueezeBackward2': 'SqueezeBackward5',
                  'UnsqueezeBackward0': 'UnsqueezeBackward1',
                  'TBackward0': 'TBackward1', 'TransposeBackward0': 'TransposeBackward1',
                  'AsStridedBackward0': 'AsStridedBackward1'}


def _inverse(view, t, args, kwargs):
    """The view step that turns ``view(t, *args, **kwargs)`` back into ``t``'s layout (None
    for as_strided, whose views of a relaid tensor are not brought up to date)."""
    if view is shape.transpose or view is shape.t:  # (each undoes itself)
        return (functools.partial(view, **kwargs) if kwargs else view), args
    if view is shape.squeeze or view is shape.unsqueeze:  # (only dims of size 1 move)
        return shape.view, tuple(t._data.shape)
    return None


def _inplace_view(view, name):
    def method(self, *args, **kwargs):
        check_inplace(self, name)
        if self._base is not None and STATE.enabled and self.requires_grad:
            # (a view whose history cannot be rewritten cannot become another view either)
            check_view_rewritable(self)
        if name == 't_' and self._data.ndim > 2:  # (torch's t_ names itself)
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                               f"{self._data.ndim}D")
        root = self._base is None
        if root:
            inverse = _inverse(view, self, args, kwargs)
        r = view(self, *args, **kwargs)
        node = r._gfn
        if node is not None:
            _rename(node, _INPLACE_NAMES[type(node).__name__])
            self._gfn = node
            self._requires_grad = True
            if self._output_nr:
                self._output_nr = 0
        self._data = r._data
        if self._base is not None:  # still a view of the same root, one step further
            self._view_fn = r._view_fn
        if r._fw is not None:
            self._fw = r._fw
        self._vc[0] += 1
        if root and inverse is not None:
            relaid(self, inverse)
        return self
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"In-place ``{name[:-1]}``: ``self`` becomes that view of its own memory "
                      "(its shape and strides change, its values do not move).")
    register(method, function=False)


for _view_op, _names in ((shape.squeeze, ('squeeze_',)), (shape.unsqueeze, ('unsqueeze_',)),
                         (shape.t, ('t_',)),
                         (shape.transpose, ('transpose_', 'swapaxes_', 'swapdims_')),
                         (arrange.as_strided, ('as_strided_',))):
    for _name in _names:
        _inplace_view(_view_op, _name)
