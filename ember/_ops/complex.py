"""Complex numbers: conj, conj_physical, resolve_conj, is_conj, real, imag -- and
``conj_if_complex``, the conjugate every derivative rule applies to complex operands.

torch's convention for complex gradients (conjugate Wirtinger calculus): for a real loss
``L`` of ``z = x + iy``, ``z.grad`` is ``dL/dx + i dL/dy``. A rule for ``out = f(a, ...)``
that is holomorphic in ``a`` then reads ``grad_a = grad * conj(d out / d a)`` -- for
``out = a * b``, ``grad * conj(b)``; for ``a @ b``, ``grad @ b^H``. For real tensors the
conjugate is the tensor itself, so the same formula serves both.
"""
import numpy as np

from ._core import Node, Tensor, register, track1, result, view_of, inplace
from .lazy_bits import flip, has, lazy_view

__all__ = ['conj', 'conj_physical', 'resolve_conj', 'is_conj', 'real', 'imag',
           'conj_if_complex']


def conj_if_complex(x):
    """``x``'s complex conjugate if ``x`` (a tensor or a number) is complex, else ``x``
    itself: the factor derivative rules multiply the incoming gradient by is
    ``conj_if_complex(d out / d input)`` (see the module docstring)."""
    if isinstance(x, Tensor):
        return conj_memory(x) if x._data.dtype.kind == 'c' else x
    return x.conjugate() if isinstance(x, (complex, np.complexfloating)) else x


class ConjBackward0(Node):
    def backward(self, g):
        return conj_memory(g)


class ConjPhysicalBackward0(Node):
    def backward(self, g):
        return conj_physical(g)


def _cplx(d):
    """Whether NumPy dtype ``d`` is complex: complex64/128, or complex32's structured one."""
    return d.kind == 'c' or d.kind == 'V' and d.names is not None


def _np_conj(a):
    """NumPy's conj, for complex32's structured arrays too."""
    if a.dtype.kind == 'c':
        return np.conj(a)
    out = a.copy()
    out['imag'] = -a['imag']
    return out


def _part(a, name):
    """The real or imaginary part of a complex array, as a view (a complex32 array's field)."""
    return getattr(a, name) if a.dtype.kind == 'c' else a[name]


@register
def conj(input):
    """The complex conjugate: for a complex tensor a view flagged ``is_conj()`` (see
    ``lazy_bits``; of a flagged one, a view without the flag), else ``input`` itself."""
    if not _cplx(input._data.dtype):
        return input
    return lazy_view(input, _np_conj, flip(input._bits, 'conj'), track1(ConjBackward0, input),
                     conj)


def conj_memory(input):
    """``conj`` (its node included) computed into new memory without the conjugate bit:
    what derivative rules use, so a gradient carries no bit where torch's carries none."""
    return result(np.asarray(_np_conj(input._data)), track1(ConjBackward0, input))


@register
def conj_physical(input):
    """The complex conjugate in new memory; ``input`` itself when it is not complex."""
    if not _cplx(input._data.dtype):
        return input
    return result(np.asarray(_np_conj(input._data)), track1(ConjPhysicalBackward0, input))


@register
def conj_physical_(input):
    """In-place ``conj_physical``."""
    if not _cplx(input._data.dtype):
        return input
    return inplace(input, conj_physical, (), 'conj_physical_')


@register
def resolve_conj(input):
    """``input`` itself, or a copy in new memory without the conjugate bit if it has it
    (the copy has no negative bit either, as torch's)."""
    return input.clone() if has(input._bits, 'conj') else input


@register
def is_conj(input):
    """Whether ``input`` is a lazily conjugated view (``conj()`` of a complex tensor)."""
    return has(input._bits, 'conj')


class _RealBackward(Node):
    # The real gradient of the real part; the engine makes it complex for the input.
    def backward(self, g):
        return g


class _ImagBackward(Node):
    def backward(self, g):
        return g * 1j


# torch computes both as a select of view_as_real, and names their grad_fn after it.
_RealBackward.__name__ = _RealBackward.__qualname__ = 'SelectBackward0'
_ImagBackward.__name__ = _ImagBackward.__qualname__ = 'SelectBackward0'


@register(method=False)
def real(input):
    """The real part of a complex tensor, as a view (writing to it changes ``input``);
    ``input`` itself when it is not complex. Also the property ``Tensor.real``."""
    if not _cplx(input._data.dtype):
        return input
    t = view_of(input, _part(input._data, 'real'), track1(_RealBackward, input), real, ())
    if has(t._bits, 'conj'):  # (the real part of a conjugate is no conjugate)
        t._bits = flip(t._bits, 'conj')
    return t


@register(method=False)
def imag(input):
    """The imaginary part of a complex tensor, as a view; RuntimeError for real tensors.
    Also the property ``Tensor.imag``."""
    if not _cplx(input._data.dtype):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    t = view_of(input, _part(input._data, 'imag'), track1(_ImagBackward, input), imag, ())
    if has(t._bits, 'conj'):  # (the imaginary part of a conjugate is the negated one)
        t._bits = flip(flip(t._bits, 'conj'), 'neg')
    return t


# Installed on Tensor as properties (``x.real``), as in torch.
PROPERTIES = {'real': real, 'imag': imag}
