"""ember.backends: the switches and capability answers of ``torch.backends``.

ember computes with NumPy on the CPU, so the GPU backends (cudnn, cuda, mps) answer as in a
CPU-only build of torch: not available, not built, flags readable and settable (with torch's
type checks) but without effect. ``mkl``, ``mkldnn`` and ``openmp`` answer for ember
itself: it uses none of them (NumPy's BLAS does the heavy lifting), so ``is_available()`` is
False there, where a torch build with MKL says True.
"""
from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, openmp  # noqa: F401

__all__ = ['cpu', 'cuda', 'cudnn', 'mha', 'mkl', 'mkldnn', 'mps', 'openmp']
