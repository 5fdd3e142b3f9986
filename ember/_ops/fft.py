"""Discrete Fourier transforms: the ``ember.fft`` functions (torch.fft's twins).

Every transform is built, as in torch, from three primitives with torch's grad_fn names:

- ``_fft_c2c`` (complex to complex, either sign)         -> ``FftC2CBackward0``
- ``_fft_r2c`` (real to complex, forward sign, optionally one-sided) -> ``FftR2CBackward0``
- ``_fft_c2r`` (one-sided Hermitian to real, inverse sign) -> ``FftC2RBackward0``

plus ``conj`` (inverse transforms of real input, the Hermitian ones) and the dtype cast to
complex -- so a transform's grad_fn chain is torch's. Each primitive's backward is another
primitive (the adjoint of a DFT is the DFT of the other sign with the same scaling), written
with ember ops, so derivatives of any order follow.

Input is resized to the requested signal sizes (``n``/``s``) before the primitive, with
``narrow``/``cat`` (differentiable like any op). Scaling follows torch: ``norm`` is
``"backward"`` (default: no scaling forward, 1/n inverse), ``"forward"`` (the reverse) or
``"ortho"`` (1/sqrt(n) both ways); a primitive scales by its own transformed sizes.

The kernels are SciPy's ``scipy.fft`` when SciPy is installed (several times faster than
``numpy.fft`` on float32 and complex64, measured in benchmarks/fft_workloads.py) and
``numpy.fft`` otherwise; both keep single precision and take the same arguments. SciPy is
imported on the first transform, never by ``import ember``.
"""
import numpy as np

from .. import _dtype
from ._core import Node, Tensor, track1, result, wrap_dim
from ._core import write_into, check_nonnegative_sizes
from .complex import conj, conj_physical
from .shape import narrow, cat, convert, roll
from .creation import _finish
from .._device import check_device
from ..autograd.grad_mode import STATE
from ..overrides import overridable

__all__ = ['FFT']

# ember.fft.<name> -> the dispatching public function.
FFT = {}


def _fft(f):
    FFT[f.__name__] = overridable(f, 'ember.fft.' + f.__name__)
    return f


_KERNELS = []


def _kernels():
    """The FFT module in use: ``scipy.fft`` if importable, else ``numpy.fft`` (chosen once)."""
    if not _KERNELS:
        try:
            import scipy.fft as mod
        except ImportError:
            mod = np.fft
        _KERNELS.append(mod)
    return _KERNELS[0]


# A primitive's scaling: 0 none, 1 by 1/sqrt(n), 2 by 1/n. The kernels take it as their
# ``norm`` word, which means different things for forward and inverse transforms.
_NP_NORM_FORWARD = ('backward', 'ortho', 'forward')
_NP_NORM_INVERSE = ('forward', 'ortho', 'backward')


def _norm_mode(norm, forward, fname='fft'):
    """torch's scaling for ``norm`` in a transform of the given direction."""
    if norm is None or norm == 'backward':
        return 0 if forward else 2
    if norm == 'forward':
        return 2 if forward else 0
    if norm == 'ortho':
        return 1
    if not isinstance(norm, str):
        raise TypeError(f"fft_{fname}(): argument 'norm' must be str, not {type(norm).__name__}")
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


# -- the primitives -------------------------------------------------------------------------
class FftC2CBackward0(Node):
    def backward(self, g):
        return _fft_c2c(g, self.dims, self.mode, not self.forward)


class FftR2CBackward0(Node):
    def backward(self, g):
        if self.onesided:
            # The dropped half of the spectrum gets no gradient: zero-pad it back.
            last = self.dims[-1]
            g = _resize(g, (last,), (self._meta[0][0][last],))
        return _fft_c2c(g, self.dims, self.mode, False).real


class FftC2RBackward0(Node):
    def backward(self, g):
        gi = _fft_r2c(g, self.dims, self.mode, True)
        # The one-sided input stands for both halves of a Hermitian spectrum: every bin but
        # DC (and Nyquist, for even sizes) appears twice in the output.
        last = self.dims[-1]
        half = gi._data.shape[last]
        doubled = g._data.shape[last] - half
        if doubled > 0:
            w = np.ones(half, g._data.dtype)
            w[1:1 + doubled] = 2
            w = w.reshape((half,) + (1,) * (gi._data.ndim - 1 - last))
            gi = gi * _const(w)
        return gi


def _zeros(shape, npdtype):
    return _const(np.zeros(shape, npdtype))


def _const(arr):
    return result(arr, None)


def _fft_c2c(x, dims, mode, forward):
    """Complex-to-complex DFT of ``x`` over ``dims`` (``forward``: sign -1)."""
    k = _kernels()
    if not dims:
        arr = x._data.copy()
    else:
        fn = k.fftn if forward else k.ifftn
        arr = fn(x._data, axes=dims, norm=(_NP_NORM_FORWARD if forward else
                                          _NP_NORM_INVERSE)[mode])
    n = track1(FftC2CBackward0, x)
    if n is not None:
        n.dims, n.mode, n.forward = dims, mode, forward
    return result(arr, n)


def _fft_r2c(x, dims, mode, onesided):
    """Real-to-complex forward DFT of ``x`` over ``dims``; ``onesided`` keeps only the
    first ``n // 2 + 1`` bins of the last dim (the rest are their conjugates)."""
    k = _kernels()
    norm = _NP_NORM_FORWARD[mode]
    if onesided:
        arr = k.rfftn(x._data, axes=dims, norm=norm)
    else:
        arr = k.fftn(x._data, axes=dims, norm=norm)
    n = track1(FftR2CBackward0, x)
    if n is not None:
        n.dims, n.mode, n.onesided = dims, mode, onesided
    return result(arr, n)


def _fft_c2r(x, dims, mode, last_size):
    """Inverse DFT of the one-sided Hermitian spectrum ``x`` over ``dims``: a real signal
    whose last transformed dim has ``last_size`` points."""
    k = _kernels()
    s = [x._data.shape[d] for d in dims[:-1]] + [last_size]
    arr = k.irfftn(x._data, s=s, axes=dims, norm=_NP_NORM_INVERSE[mode])
    n = track1(FftC2RBackward0, x)
    if n is not None:
        n.dims, n.mode = dims, mode
    return result(arr, n)


# -- arguments ------------------------------------------------------------------------------
def _promote(x, fname, complex_input=None):
    """torch's dtype rule: integers and bool become the default float dtype; single and
    double precision (real or complex) are kept; half precision is not supported.
    ``complex_input``: True casts real input to complex, False rejects complex input."""
    if not isinstance(x, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    dt = x.dtype
    if dt.category < _dtype.FLOAT:
        x = convert(x, _dtype.DEFAULT.float)
    elif dt is _dtype.complex32:
        if complex_input is not False:  # (a real transform refuses it as complex, below)
            # (torch's dtype check lets it through to the kernel, which names its parts')
            raise RuntimeError("MKL FFT doesn't support tensors of type: Half")
    elif dt.itemsize < 4 or (dt.is_complex and dt.itemsize < 8):
        raise RuntimeError(f"Unsupported dtype {dt.kernel_name}")
    if complex_input is False and x.dtype.is_complex:
        # (torch's n-d real transforms word it differently)
        if fname in ('ihfft2', 'ihfftn'):
            raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                               f"{x.dtype.kernel_name}")
        raise RuntimeError(f"{fname} expects a real input tensor, but got "
                           f"{x.dtype.kernel_name}" if fname in ('rfft', 'ihfft') else
                           f"rfftn expects a real-valued input tensor, but got "
                           f"{x.dtype.kernel_name}")
    if complex_input and not x.dtype.is_complex:
        x = convert(x, x.dtype.to_complex())
    return x


def _nd_name(fname):
    """The n-d transform a 2-d one is (torch's messages name it): ``rfft2`` -> ``rfftn``."""
    return fname[:-1] + 'n' if fname.endswith('2') else fname


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _int_arg(v, fname, arg):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"fft_{fname}(): argument '{arg}' must be int, not {type(v).__name__}")
    return int(v)


def _one_dim(x, dim):
    if x._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, x._data.ndim)


def _resize(x, dims, sizes):
    """``x`` trimmed or zero-padded to ``sizes`` along ``dims`` (differentiably)."""
    for d, n in zip(dims, sizes):
        have = x._data.shape[d]
        if n < have:
            x = narrow(x, d, 0, n)
        elif n > have:
            shape = list(x._data.shape)
            shape[d] = n - have
            x = cat([x, _zeros(shape, x._data.dtype)], d)
    return x


def _dims_and_sizes(x, s, dim, fname):
    """torch's reading of ``s`` and ``dim``: the dims to transform (unique, wrapped) and the
    signal size along each (``-1`` in ``s``: the input's size)."""
    nd = x._data.ndim
    if dim is not None:
        dims = [dim] if isinstance(dim, (int, np.integer)) else list(dim)
        dims = [_one_dim(x, _int_arg(d, fname, 'dim')) if nd == 0 else
                wrap_dim(_int_arg(d, fname, 'dim'), nd) for d in dims]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = [s] if isinstance(s, (int, np.integer)) else [_int_arg(v, fname, 's') for v in s]
        if dim is not None:
            if len(s) != len(dims):
                raise RuntimeError("When given, dim and shape arguments must have the same "
                                   "length")
        else:
            if len(s) > nd:
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only "
                                   f"has {nd} dimensions.")
            dims = list(range(nd - len(s), nd))
        sizes = [x._data.shape[d] if v == -1 else _points(v) for d, v in zip(dims, s)]
    else:
        if dim is None:
            dims = list(range(nd))
        sizes = [_points(x._data.shape[d]) for d in dims]
    return tuple(dims), sizes


def _prepare(x, s, dim, fname, complex_input=None):
    """The promoted input, the dims and the sizes, checked in torch's order: a 1-d
    transform (``dim`` an int) checks the dtype first, an n-d one its dims and sizes (but
    ``rfftn``/``rfft2`` refuse a complex input first)."""
    if isinstance(x, Tensor) and not isinstance(dim, int) and not (
            fname.startswith('rfft') and x.dtype.is_complex):
        dims, sizes = _dims_and_sizes(x, s, dim, fname)
        if not dims and x.dtype is _dtype.complex32 and complex_input is not False:
            return x, dims, sizes  # (no dim to transform: no kernel, a copy)
        return _promote(x, fname, complex_input), dims, sizes
    if isinstance(x, Tensor) and x.dtype is _dtype.complex32 and complex_input is not False:
        found = _dims_and_sizes(x, s, dim, fname)  # (its refusal is the kernel's: after)
        return (_promote(x, fname, complex_input),) + found
    x = _promote(x, fname, complex_input)
    return (x,) + _dims_and_sizes(x, s, dim, fname)


def _out_kind(out, fname, want_complex):
    """torch's refusal of an out tensor of the wrong kind: a complex one for a complex
    result, a floating point one for a real result (named as the n-d transform; the
    inverse c2c transforms as ``fftn``)."""
    if out.dtype.is_complex if want_complex else out.dtype.is_floating_point:
        return
    name = _nd_name(fname)
    if name in ('ifftn', 'fftn'):
        name = 'fftn' if name != fname or fname == 'ifftn' else name
    raise RuntimeError(f"{name} expects a {'complex' if want_complex else 'floating point'} "
                       f"output tensor, but got {out.dtype.kernel_name}")


def _conj_out(r, out, flipped):
    """torch's inverse transform of a real signal over one dim conjugates the forward one
    into ``out``, which must then have its complex dtype: "Found dtype ComplexDouble but
    expected ComplexFloat" (the n-d forms name the two the other way round)."""
    if isinstance(out, Tensor) and out.dtype.is_complex and out.dtype is not r.dtype and \
            not (r.requires_grad and STATE.enabled):
        found, want = (r.dtype, out.dtype) if flipped else (out.dtype, r.dtype)
        raise RuntimeError(f"Found dtype {found.kernel_name} but expected {want.kernel_name}")


def _out(r, out, fname, prim, want_complex):
    """Implements ``out=``: torch's checks, then the result written into ``out``."""
    if out is None:
        return r
    if not isinstance(out, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'out' must be Tensor, not "
                        f"{type(out).__name__}")
    _out_kind(out, fname, want_complex)
    if r.requires_grad and STATE.enabled:
        raise RuntimeError(f"{prim}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if out._data.shape != r._data.shape:
        out._data = np.empty(r._data.shape, out._data.dtype)
    write_into(out, r._data.astype(out._data.dtype, copy=False), 'out')
    return out


# -- the transforms -------------------------------------------------------------------------
def _c2c(fname, x, s, dim, norm, forward, out):
    x, dims, sizes = _prepare(x, s, dim, fname)
    mode = _norm_mode(norm, forward, fname)
    x = _resize(x, dims, sizes)
    if not x.dtype.is_complex and len(dims) == 1:
        # A real signal: one real-to-complex transform (the inverse one is its conjugate).
        r = _fft_r2c(x, dims, mode, False)
        if not forward:
            if fname == 'ifft':  # (the n-d forms cast into out)
                _conj_out(r, out, False)
            r = conj(r)
        return _out(r, out, fname, '_fft_r2c', True)
    x = convert(x, x.dtype.to_complex())
    return _out(_fft_c2c(x, dims, mode, forward), out, fname, '_fft_c2c', True)


def _r2c(fname, x, s, dim, norm, forward, out):
    x, dims, sizes = _prepare(x, s, dim, fname, complex_input=False)
    if not dims:
        raise RuntimeError(f"{_nd_name(fname)} must transform at least one axis")
    x = _resize(x, dims, sizes)
    mode = _norm_mode(norm, forward, fname)
    if forward:  # rfft: one real-to-complex transform
        return _out(_fft_r2c(x, dims, mode, True), out, fname, '_fft_r2c', True)
    # ihfft: the inverse transform of a real signal is the conjugate of its forward one.
    # As torch: the last dim one-sided, conjugated, then the other dims' inverse transform.
    r = _fft_r2c(x, dims[-1:], mode, True)
    if len(dims) == 1:
        _conj_out(r, out, fname != 'ihfft')
    r = conj(r) if len(dims) == 1 else _fft_c2c(conj_physical(r), dims[:-1], mode, False)
    return _out(r, out, fname, '_fft_r2c', True)


def _c2r(fname, x, s, dim, norm, forward, out):
    x, dims, sizes = _prepare(x, s, dim, fname, complex_input=True)
    if not dims:
        raise RuntimeError(f"{_nd_name(fname)} must transform at least one axis")
    last = None if s is None else _int_arg(s if isinstance(s, (int, np.integer, Tensor))
                                           else s[-1], fname, 's')
    # The output's last size; by default the one a one-sided spectrum of this size comes from.
    last_size = sizes[-1] if last is not None and last != -1 else \
        _points(2 * (x._data.shape[dims[-1]] - 1))
    x = _resize(x, dims, sizes[:-1] + [last_size // 2 + 1])
    mode = _norm_mode(norm, forward, fname)
    if forward:  # hfft: the forward transform of a Hermitian signal (given by its half)
        if len(dims) > 1:
            x = _fft_c2c(x, dims[:-1], mode, True)
        r = _fft_c2r(conj(x), dims[-1:], mode, last_size)
    else:
        r = _fft_c2r(x, dims, mode, last_size)
    return _out(r, out, fname, '_fft_c2r', False)


def _one(kind, fname, forward, doc):
    """A 1-d transform ``fname(input, n=None, dim=-1, norm=None, *, out=None)``."""
    def fn(input, n=None, dim=-1, norm=None, *, out=None):
        if isinstance(out, Tensor):  # (torch's 1-d transforms check out's kind first)
            _out_kind(out, fname, kind is not _c2r)
        dim = _int_arg(dim, fname, 'dim')
        if n is not None:
            n = _int_arg(n, fname, 'n')
            if n < 1:  # (torch's order: the dtype, the dim, then the number of points)
                x = _promote(input, fname, _COMPLEX_INPUT[kind])
                if x._data.ndim == 0:
                    _one_dim(x, dim)
                wrap_dim(dim, x._data.ndim)
                _points(n)
        elif kind is _c2r and isinstance(input, Tensor) and input._data.ndim and \
                input._data.size == 0:
            # (torch's default n, 2 * (size - 1), checked as given: -2 for an empty dim)
            x = _promote(input, fname, _COMPLEX_INPUT[kind])
            size = x._data.shape[wrap_dim(dim, x._data.ndim)]
            if size < 1:
                _points(2 * (size - 1))
        return kind(fname, input, n, dim, norm, forward, out)
    return _named(fn, fname, doc)


def _two(kind, fname, forward, doc):
    """A 2-d transform ``fname(input, s=None, dim=(-2, -1), norm=None, *, out=None)``."""
    def fn(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        _shape_and_dims_first(kind, fname, input, s, dim)
        return kind(fname, input, s, dim, norm, forward, out)
    return _named(fn, fname, doc)


def _many(kind, fname, forward, doc):
    """An n-d transform ``fname(input, s=None, dim=None, norm=None, *, out=None)``."""
    def fn(input, s=None, dim=None, norm=None, *, out=None):
        _shape_and_dims_first(kind, fname, input, s, dim)
        return kind(fname, input, s, dim, norm, forward, out)
    return _named(fn, fname, doc)


def _shape_and_dims_first(kind, fname, input, s, dim):
    """torch's 2-d and n-d transforms read ``s`` and ``dim`` before the input's dtype (but
    for rfftn's refusal of complex input): their errors come first."""
    if isinstance(input, Tensor):
        if fname.startswith('rfft') and input.dtype.is_complex:
            _promote(input, fname, False)  # (rfftn refuses complex input before all else)
        dims, _ = _dims_and_sizes(input, s, dim, fname)
        if not dims and kind is not _c2c:
            raise RuntimeError(f"{_nd_name(fname)} must transform at least one axis")


# whether each kind of transform casts real input to complex (True) or refuses complex
# input (False)
_COMPLEX_INPUT = {_c2c: None, _r2c: False, _c2r: True}


def _named(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    _fft(fn)
    return fn


_NORM_DOC = (" ``norm``: ``'backward'`` (default), ``'forward'`` or ``'ortho'`` -- which "
             "direction is scaled by 1/n, or both by 1/sqrt(n).")
_SIZE1 = " ``n``: signal length along ``dim`` (the input is trimmed or zero-padded)."
_SIZES = (" ``s``: signal sizes along ``dim`` (trimmed or zero-padded; -1 keeps the input's "
          "size).")

fft = _one(_c2c, 'fft', True, "The 1-d discrete Fourier transform of ``input``." + _SIZE1 +
           _NORM_DOC)
ifft = _one(_c2c, 'ifft', False, "The 1-d inverse discrete Fourier transform." + _SIZE1 +
            _NORM_DOC)
fft2 = _two(_c2c, 'fft2', True, "The 2-d discrete Fourier transform over ``dim``." + _SIZES +
            _NORM_DOC)
ifft2 = _two(_c2c, 'ifft2', False, "The 2-d inverse discrete Fourier transform." + _SIZES +
             _NORM_DOC)
fftn = _many(_c2c, 'fftn', True, "The n-d discrete Fourier transform over ``dim`` (all dims "
             "by default, or the last ``len(s)``)." + _SIZES + _NORM_DOC)
ifftn = _many(_c2c, 'ifftn', False, "The n-d inverse discrete Fourier transform." + _SIZES +
              _NORM_DOC)
rfft = _one(_r2c, 'rfft', True, "The 1-d Fourier transform of a real signal: the ``n // 2 + "
            "1`` non-redundant bins." + _SIZE1 + _NORM_DOC)
irfft = _one(_c2r, 'irfft', False, "The inverse of ``rfft``: a real signal of ``n`` points "
             "(default ``2 * (input.size(dim) - 1)``) from its one-sided spectrum." + _NORM_DOC)
rfft2 = _two(_r2c, 'rfft2', True, "The 2-d Fourier transform of a real signal, one-sided in "
             "the last dim." + _SIZES + _NORM_DOC)
irfft2 = _two(_c2r, 'irfft2', False, "The inverse of ``rfft2``." + _SIZES + _NORM_DOC)
rfftn = _many(_r2c, 'rfftn', True, "The n-d Fourier transform of a real signal, one-sided in "
              "the last transformed dim." + _SIZES + _NORM_DOC)
irfftn = _many(_c2r, 'irfftn', False, "The inverse of ``rfftn``." + _SIZES + _NORM_DOC)
hfft = _one(_c2r, 'hfft', True, "The Fourier transform of a Hermitian-symmetric signal given "
            "by its first half: a real spectrum of ``n`` points (default ``2 * "
            "(input.size(dim) - 1)``)." + _NORM_DOC)
ihfft = _one(_r2c, 'ihfft', False, "The inverse of ``hfft``: the one-sided inverse transform "
             "of a real signal." + _SIZE1 + _NORM_DOC)
hfft2 = _two(_c2r, 'hfft2', True, "The 2-d ``hfft``." + _SIZES + _NORM_DOC)
ihfft2 = _two(_r2c, 'ihfft2', False, "The 2-d ``ihfft``." + _SIZES + _NORM_DOC)
hfftn = _many(_c2r, 'hfftn', True, "The n-d ``hfft``." + _SIZES + _NORM_DOC)
ihfftn = _many(_r2c, 'ihfftn', False, "The n-d ``ihfft``." + _SIZES + _NORM_DOC)


# -- sample frequencies and shifts ----------------------------------------------------------
def _freq(n, d, dtype, requires_grad, out, fname, onesided):
    n = _int_arg(n, fname, 'n')
    m = (abs(n) // 2 * (1 if n >= 0 else -1) + 1) if onesided else n  # (C's n / 2)
    check_nonnegative_sizes([m])
    dt = dtype or _dtype.DEFAULT.float
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    if dt.is_complex:  # (torch makes it with arange, which has no complex kernel)
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{dt.kernel_name}\'')
    npdt = dt.np
    arr = np.arange(m, dtype=npdt)
    if not onesided:
        arr[(n + 1) // 2:] -= n
    # as torch: multiplied by 1 / (n d), the factor rounded to the tensor's dtype (inf for
    # n = 0, so rfftfreq(0) is [nan] as in torch)
    arr = arr * (1.0 / (n * d) if n * d else np.inf)
    arr = arr.astype(npdt, copy=False)
    if out is not None:
        if out._data.shape != arr.shape:
            out._data = np.empty(arr.shape, out._data.dtype)
        write_into(out, arr, 'out')
        return out
    return _finish(arr, requires_grad, fname)


@_fft
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point ``fft`` with sample spacing ``d``:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``."""
    check_device(device, 'fftfreq')
    return _freq(n, d, dtype, requires_grad, out, 'fftfreq', False)


@_fft
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """The sample frequencies of an ``n``-point ``rfft``: ``[0, 1, ..., n // 2] / (d * n)``."""
    check_device(device, 'rfftfreq')
    return _freq(n, d, dtype, requires_grad, out, 'rfftfreq', True)


def _shift(input, dim, sign):
    dims = list(range(input._data.ndim)) if dim is None else \
        ([dim] if isinstance(dim, (int, np.integer)) else list(dim))
    if not dims:  # a 0-d input: torch's roll refuses the empty shift list
        raise RuntimeError("`shifts` required")
    if input._data.ndim == 0:  # (torch reads the size of the first dim: no scalar wrap)
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    dims = [wrap_dim(d, input._data.ndim) for d in dims]
    shifts = [sign * (input._data.shape[d] // 2) for d in dims]
    return roll(input, shifts, dims)


@_fft
def fftshift(input, dim=None):
    """Moves the zero frequency of an ``fftn`` output to the centre of ``dim`` (all dims by
    default): a ``roll`` by half the size."""
    return _shift(input, dim, 1)


@_fft
def ifftshift(input, dim=None):
    """Undoes ``fftshift``: a ``roll`` back by half the size."""
    return _shift(input, dim, -1)
