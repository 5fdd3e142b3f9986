"""FFT workloads (issue 14): ember.fft against torch.fft at the sizes the issue quotes,
forward alone and forward + backward. Target: no slower than 2x torch."""
import numpy as np

from workloads import workload, custom, Measured

_RNG = np.random.default_rng(0)
_SIGNALS = _RNG.standard_normal((64, 4096), dtype=np.float32)
_IMAGES = (_RNG.standard_normal((16, 256, 256), dtype=np.float32) +
           1j * _RNG.standard_normal((16, 256, 256), dtype=np.float32)).astype(np.complex64)
_SPECTRA = np.fft.rfft(_SIGNALS).astype(np.complex64)


def _fwd_bwd(lib, fn, data, seed):
    """``fn(x).backward(g)`` for a leaf ``x`` of ``data`` and a fixed upstream gradient."""
    x = lib.tensor(data, requires_grad=True)
    shape, dt = fn(lib, x).shape, fn(lib, x).detach().numpy().dtype
    g = np.random.default_rng(seed).standard_normal(tuple(shape)).astype(dt)
    if dt.kind == 'c':
        g = (g + 1j * g[::-1]).astype(dt)
    g = lib.tensor(g)

    def run():
        x.grad = None
        fn(lib, x).backward(g)
        return x.grad
    return run


@workload(target=2.0)
def rfft_64x4096(lib):
    """rfft of a 64x4096 float32 batch along the last dim (forward only)."""
    x = lib.tensor(_SIGNALS)
    return lambda: lib.fft.rfft(x)


@workload(target=2.0)
def rfft_fwd_bwd(lib):
    """rfft (norm='ortho') of a 64x4096 float32 leaf, then .backward() of a fixed gradient."""
    # ('ortho' keeps the gradient O(1): unscaled, its entries reach ~200 and float32 rounding
    # of both libraries exceeds the runner's absolute tolerance where an entry is near 0)
    return _fwd_bwd(lib, lambda T, x: T.fft.rfft(x, norm='ortho'), _SIGNALS, 1)


@workload(target=2.0)
def irfft_fwd_bwd(lib):
    """irfft of a 64x2049 complex64 leaf to 64x4096, then .backward() of a fixed gradient."""
    return _fwd_bwd(lib, lambda T, x: T.fft.irfft(x, n=4096), _SPECTRA, 2)


@workload(target=2.0)
def fft2_16x256x256(lib):
    """fft2 of a 16x256x256 complex64 batch (forward only)."""
    x = lib.tensor(_IMAGES)
    return lambda: lib.fft.fft2(x)


@workload(target=2.0)
def fft2_fwd_bwd(lib):
    """fft2 of a 16x256x256 complex64 leaf, then .backward() of a fixed gradient."""
    return _fwd_bwd(lib, lambda T, x: T.fft.fft2(x), _IMAGES, 3)


@workload(target=2.0)
def rfftn_fftshift(lib):
    """A spectrum pipeline on 16x256x256 float32: fftshift(rfft2(x)).abs() + fftfreq."""
    x = lib.tensor(_IMAGES.real.copy())
    return lambda: lib.fft.fftshift(lib.fft.rfft2(x), dim=-2).abs() + lib.fft.rfftfreq(256)


@custom()
def fft_kernels_numpy_vs_scipy(opts):
    """ember.fft's kernels: numpy.fft (without SciPy) against scipy.fft (the 'scipy' extra),
    on rfft of 64x4096 float32 plus fft2 of 16x256x256 complex64. Information, no target."""
    import ember
    from ember._ops import fft as impl
    x, z = ember.tensor(_SIGNALS), ember.tensor(_IMAGES)

    def timed(kernels, n):
        impl._KERNELS[:] = [kernels]
        t0 = opts.timer()
        for _ in range(n):
            ember.fft.rfft(x)
            ember.fft.fft2(z)
        return (opts.timer() - t0) / n

    import scipy.fft
    saved = list(impl._KERNELS)
    n = 1 if opts.quick else 3
    try:
        with_numpy, with_scipy = [], []
        for _ in range(3 if opts.quick else opts.repeat):
            with_numpy.append(timed(np.fft, n))
            with_scipy.append(timed(scipy.fft, n))
    finally:
        impl._KERNELS[:] = saved
    return Measured(float(np.median(with_numpy)), float(np.median(with_scipy)),
                    'ember on scipy.fft')
