"""``torch.signal.windows``: SciPy-style window functions (``sym=True`` gives the symmetric
window, ``sym=False`` the periodic one used for spectral analysis), made of ember ops, so a
window asked to ``requires_grad`` carries the same history as torch's.

The top-level ``ember.hann_window`` & co. are torch's other, periodic-by-default family
(``ember/_ops/windows.py``).
"""
import math
from collections.abc import Iterable

from .. import _dtype
from .._layout import strided

__all__ = ['bartlett', 'blackman', 'cosine', 'exponential', 'gaussian', 'general_cosine',
           'general_hamming', 'hamming', 'hann', 'kaiser', 'nuttall']


def _checked(name, M, dtype, layout):
    """``dtype`` (the default one for None), after the checks every window makes."""
    import ember
    dtype = ember.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M, dtype, device, requires_grad, ones=True):
    """The window of length 0 (empty) or 1 (one 1), or None for a longer one."""
    import ember
    if M == 0:
        return ember.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and ones:
        return ember.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _ramp(start, step, M, dtype, device, requires_grad):
    """``start, start + step, ...`` (M values), as torch's linspace makes them."""
    import ember
    return ember.linspace(start, start + (M - 1) * step, M, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def _span(M, sym):
    """The denominator of the window's phase: M - 1 for a symmetric window, M for a periodic
    one (a periodic window is the symmetric one of M + 1 points without its last)."""
    return M - 1 if sym else M


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None,
                requires_grad=False):
    """``exp(-|n - center| / tau)``; ``center`` defaults to the window's middle and may only
    be given for a periodic window."""
    import ember
    dtype = _checked('exponential', M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    empty = _trivial(M, dtype, device, requires_grad, ones=False)
    if empty is not None:
        return empty
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _ramp(-center / tau, 1 / tau, M, dtype, device, requires_grad)
    return ember.exp(-ember.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The sine (cosine) window ``sin(pi (n + 1/2) / M)``."""
    import ember
    dtype = _checked('cosine', M, dtype, layout)
    empty = _trivial(M, dtype, device, requires_grad, ones=False)
    if empty is not None:
        return empty
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return ember.sin(_ramp(0.5 * step, step, M, dtype, device, requires_grad))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):
    """The Gaussian window ``exp(-(n - middle)^2 / (2 std^2))``."""
    import ember
    dtype = _checked('gaussian', M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    empty = _trivial(M, dtype, device, requires_grad, ones=False)
    if empty is not None:
        return empty
    step = 1 / (std * math.sqrt(2))
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    k = _ramp(start * step, step, M, dtype, device, requires_grad)
    return ember.exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):
    """The Kaiser window ``I0(sqrt(beta^2 - k^2)) / I0(beta)``, k from -beta to beta."""
    import ember
    dtype = _checked('kaiser', M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    short = _trivial(M, dtype, device, requires_grad)
    if short is not None:
        return short
    b = ember.tensor(beta, dtype=dtype, device=device)
    step = 2.0 * b / _span(M, sym)
    end = ember.minimum(b, -b + (M - 1) * step)
    k = ember.linspace(-b, end, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return ember.i0(ember.sqrt(b * b - ember.pow(k, 2))) / ember.i0(b)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The triangular window ``1 - |k|``, k from -1 to 1."""
    import ember
    dtype = _checked('bartlett', M, dtype, layout)
    short = _trivial(M, dtype, device, requires_grad)
    if short is not None:
        return short
    k = _ramp(-1, 2 / _span(M, sym), M, dtype, device, requires_grad)
    return 1 - ember.abs(k)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):
    """The sum of cosines ``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``."""
    import ember
    dtype = _checked('general_cosine', M, dtype, layout)
    short = _trivial(M, dtype, device, requires_grad)
    if short is not None:
        return short
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _ramp(0, 2 * math.pi / _span(M, sym), M, dtype, device, requires_grad)
    signed = ember.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device,
                          requires_grad=requires_grad)
    i = ember.arange(signed.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (signed.unsqueeze(-1) * ember.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hamming window (``general_hamming`` with alpha 0.54)."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hann window (``general_hamming`` with alpha 0.5)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Blackman window (``general_cosine`` with 0.42, 0.5, 0.08)."""
    dtype = _checked('blackman', M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """Nuttall's minimum 4-term Blackman-Harris window."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
