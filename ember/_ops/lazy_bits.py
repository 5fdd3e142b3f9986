"""torch's conjugate and negative bits: ``conj()`` of a complex tensor is a view flagged
``is_conj()``, its ``.imag`` a view flagged ``is_neg()``, and ``_neg_view`` a negated view.

torch keeps such a view's memory that of its base and conjugates (negates) when reading;
NumPy has no such views, so ember's holds the conjugated (negated) values in memory of its
own and a version counter of its own, ``_LazyVersion``. Every in-place write bumps the
counter of the tensor it writes, so a write through the view, or through any view of it,
is copied back into the base's memory, conjugated (negated) again, and bumps the base's
counter; reading the view's ``_version`` reads the base's. The view is refreshed from its
base before it is written, so a write lands on the base's current values; a plain read
of the view after the base was changed in place shows the values it had when last
refreshed (torch's shows the base's new ones). ``_bits`` on a tensor ('conj', 'neg',
'conj+neg' for both, default None) holds the flags; views of a flagged tensor inherit them
(``_core.view_of``), ``conj``/``_neg_view`` toggle one (``flip``), ``real``/``imag``
adjust them, and everything that makes new memory (``clone``, ``resolve_conj``,
``resolve_neg``, arithmetic) drops both. Real tensors never pay anything.
"""
import numpy as np

from ._core import Node, register, track1, view_of, writable_alias
from ..autograd.grad_mode import INFERENCE_VC

__all__ = ['lazy_view', 'is_neg', 'resolve_neg', '_neg_view']


def has(bits, flag):
    """Whether the ``_bits`` value ``bits`` includes ``flag`` ('conj' or 'neg')."""
    return bits is not None and flag in bits


def flip(bits, flag):
    """``bits`` with ``flag`` ('conj' or 'neg') toggled: conjugating a conjugate, or
    negating a negation, undoes the flag."""
    conj, neg = has(bits, 'conj'), has(bits, 'neg')
    if flag == 'conj':
        conj = not conj
    else:
        neg = not neg
    return ('conj+neg' if neg else 'conj') if conj else ('neg' if neg else None)


class _LazyVersion(list):
    """The version counter of a lazily conjugated or negated view and of its views: writes
    through them reach the base (see the module docstring)."""
    __slots__ = ('mem', 'src', 'fn', 'outer', 'synced')

    def __init__(self, mem, src, fn, outer):
        super().__init__((0,))
        self.mem, self.src, self.fn, self.outer = mem, src, fn, outer
        self.synced = outer[0]

    def __getitem__(self, i):
        return self.outer[i]

    def __setitem__(self, i, value):
        # (called by ``vc[0] += 1`` after a write into the view's memory)
        dst = self.src if self.src.flags.writeable else writable_alias(self.src, True)
        if dst is not None:
            np.copyto(dst, self.fn(self.mem), casting='unsafe')
        self.outer[0] += 1
        self.synced = self.outer[0]

    def before_write(self):
        """Called by in-place ops before they write: the view catches up with its base."""
        outer = self.outer
        if outer.__class__ is not list:
            outer.before_write()
        if outer[0] != self.synced:
            np.copyto(self.mem, self.fn(self.src), casting='unsafe')
            self.synced = outer[0]


def lazy_view(input, fn, bits, node, op, args=()):
    """The view ``op(input, *args)`` whose values are ``fn`` (np.conj or np.negative) of
    ``input``'s, flagged ``bits`` (see ``flip``; None for a view that undoes a flag)."""
    mem = fn(input._data)
    if type(mem) is not np.ndarray:  # (a ufunc of a 0-d array gives a NumPy scalar)
        mem = np.asarray(mem)
    t = view_of(input, mem, node, op, args)
    t._bits = bits
    if t._vc is input._vc and input._vc is not INFERENCE_VC:
        t._vc = _LazyVersion(mem, input._data, fn, input._vc)
    return t


class NegViewBackward0(Node):
    def backward(self, g):
        return _neg_view(g)


@register
def _neg_view(input):
    """A view of ``input`` holding its negated values, flagged ``is_neg()``; writes through
    it land negated in ``input``."""
    return lazy_view(input, np.negative, flip(input._bits, 'neg'),
                     track1(NegViewBackward0, input), _neg_view)


@register
def is_neg(input):
    """Whether ``input`` carries the negative bit (``_neg_view``, or the ``imag`` of a
    conjugated view)."""
    return has(input._bits, 'neg')


@register
def resolve_neg(input):
    """``input`` itself, or a copy in new memory without the negative bit if it has it
    (the copy has no conjugate bit either, as torch's)."""
    return input.clone() if has(input._bits, 'neg') else input
