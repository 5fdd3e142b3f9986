"""ember.backends.mkldnn: oneDNN (MKL-DNN). ember does not use it: ``is_available()`` is
False; the ``enabled`` flag keeps torch's default and type check, and has no effect."""
from ._flags import install, flags_context

__all__ = ['is_available', 'flags']


def is_available():
    """False: ember computes with NumPy, not oneDNN (torch's MKL-DNN build says True)."""
    return False


def flags(enabled=False, deterministic=False):
    """Context manager setting ``enabled`` for its body."""
    import sys
    return flags_context(sys.modules[__name__], enabled=enabled)


install(__name__, {'enabled': ('set_enabled_mkldnn', True)})
