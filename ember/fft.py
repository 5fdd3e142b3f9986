"""``ember.fft``: torch.fft's discrete Fourier transforms, sample frequencies and shifts.
They live in ``ember/_ops/fft.py``; this module, loaded on first use of ``ember.fft``,
only names them."""
from ._ops.fft import FFT as _FFT

globals().update(_FFT)
__all__ = sorted(_FFT)
del _FFT
