"""ember.backends.cudnn: cuDNN's flags and availability, as in torch's CPU-only build.

The flags (``enabled``, ``benchmark``, ``deterministic``, ``allow_tf32``) keep torch's
defaults and accept only bools; nothing reads them, because ember has no cuDNN.
"""
from ._flags import install, flags_context

__all__ = ['is_available', 'version', 'is_acceptable', 'flags']

benchmark_limit = None
fp32_precision = 'none'


def is_available():
    """False: ember has no cuDNN."""
    return False


def version():
    """None: no cuDNN library is loaded."""
    return None


def is_acceptable(tensor):
    """False: no tensor can go to cuDNN."""
    return False


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision='none', depthwise_kernel='auto'):
    """Context manager setting the flags for its body (torch's signature and defaults)."""
    import sys
    return flags_context(sys.modules[__name__], enabled=enabled, benchmark=benchmark,
                         deterministic=deterministic, allow_tf32=allow_tf32)


install(__name__, {'enabled': ('set_enabled_cudnn', True),
                   'benchmark': ('set_benchmark_cudnn', False),
                   'deterministic': ('set_deterministic_cudnn', False),
                   'allow_tf32': ('set_allow_tf32_cublas', True)})
