"""ember.backends.cpu: what the CPU backend offers."""

__all__ = ['get_cpu_capability']


def get_cpu_capability():
    """The widest SIMD instruction set NumPy dispatches to here: 'AVX512', 'AVX2' or
    'DEFAULT' (torch reports its own kernels' choice the same way)."""
    import numpy as np
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as features
    del np
    if features.get('AVX512F') and features.get('AVX512BW') and features.get('AVX512VL'):
        return 'AVX512'
    if features.get('AVX2'):
        return 'AVX2'
    return 'DEFAULT'
