"""Signal windows: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window`` (torch's top-level factories; ``torch.signal.windows``
has more).

Each is computed in the requested dtype, step by step as torch's kernels are, so a float16
window rounds as torch's does. A periodic window of length N is the symmetric window of
length N + 1 without its last point (what spectral analysis wants).
"""
import math

import numpy as np

from .. import _dtype
from .._layout import strided
from ._core import register
from ._specfun import i0
from .creation import _dt, _finish, _tensor_options, check_device

__all__ = ['hann_window', 'hamming_window', 'blackman_window', 'bartlett_window',
           'kaiser_window']


def _window(op, window_length, periodic, dtype, layout, device, requires_grad, body):
    """The shared checks and the periodic trim around ``body(n, np_dtype)``, which returns
    the symmetric window of length ``n`` (n >= 2)."""
    if window_length < 0:
        raise RuntimeError(f"{op} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if layout is not None and layout is not strided:
        shown = _tensor_options(dtype or _dtype.DEFAULT.float, factory=True, layout='Sparse',
                                # (only hann's check sees the dtype still unset)
                                dtype_default=dtype is None and op == 'hann_window')
        raise RuntimeError(f"{op} is not implemented for sparse types, got: {shown}")
    if dtype is not None and dtype.category < _dtype.FLOAT:
        raise RuntimeError(f"{op} expects floating point dtypes, got: "
                           f"{_tensor_options(dtype, factory=True)}")
    dev = check_device(device, op)
    np_dtype = _dt(dtype)
    if window_length <= 1:
        # (through ``cast``: NumPy's ones of complex32's structured dtype set both parts)
        arr = _dtype.cast(np.ones(window_length, np.float32), np_dtype)
    else:
        if dtype is not None and dtype.category == _dtype.COMPLEX:
            # (torch's checks let complex through; its ``arange`` then refuses it)
            raise NotImplementedError(f'"arange_cpu" not implemented for '
                                      f"'{dtype.kernel_name}'")
        n = window_length + 1 if periodic else window_length
        arr = body(n, np_dtype)[:window_length]
    return _finish(np.ascontiguousarray(arr), requires_grad, op, dev)


def _ramp(n, np_dtype, scale):
    """``arange(n) * scale`` in ``np_dtype`` (torch multiplies in the window's dtype)."""
    return np.arange(n, dtype=np_dtype) * np_dtype.type(scale)


@register(method=False)
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """The generalised Hamming window ``alpha - beta cos(2 pi n / (N - 1))``."""
    def body(n, t):
        return np.cos(_ramp(n, t, 2 * math.pi / (n - 1))) * t.type(-beta) + t.type(alpha)
    return _window('hamming_window', window_length, periodic, dtype, layout, device,
                   requires_grad, body)


@register(method=False)
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """The Hann window: ``hamming_window`` with ``alpha = beta = 0.5``."""
    def body(n, t):
        return np.cos(_ramp(n, t, 2 * math.pi / (n - 1))) * t.type(-0.5) + t.type(0.5)
    return _window('hann_window', window_length, periodic, dtype, layout, device,
                   requires_grad, body)


@register(method=False)
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    def body(n, t):
        x = _ramp(n, t, math.pi / (n - 1))
        return np.cos(x * t.type(4)) * t.type(0.08) - np.cos(x * t.type(2)) * t.type(0.5) + \
            t.type(0.42)
    return _window('blackman_window', window_length, periodic, dtype, layout, device,
                   requires_grad, body)


@register(method=False)
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangular Bartlett window ``1 - |2n / (N - 1) - 1|``."""
    def body(n, t):
        x = _ramp(n, t, 2 / (n - 1))
        half = ((n - 1) >> 1) + 1
        x[half:] = t.type(2) - x[half:]
        return x
    return _window('bartlett_window', window_length, periodic, dtype, layout, device,
                   requires_grad, body)


@register(method=False)
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """The Kaiser window ``I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta)``, ``a = (N-1)/2``
    (computed in float32 at least, as torch's kernel does for half types)."""
    def body(n, t):
        work = np.promote_types(t, np.float32)
        alpha = (n - 1) / 2.0
        x = (np.arange(n, dtype=work) - work.type(alpha)) / work.type(alpha)
        out = i0(work.type(beta) * np.sqrt(np.maximum(work.type(1) - x * x, 0))) / \
            i0(np.asarray(beta, work))
        return out.astype(t)
    return _window('kaiser_window', window_length, periodic, dtype, layout, device,
                   requires_grad, body)
