"""ember.backends.mps: Apple's Metal backend, absent here as in torch's CPU-only build."""

__all__ = ['is_available', 'is_built', 'is_macos13_or_newer']


def is_available():
    """False: ember has no MPS backend."""
    return False


def is_built():
    """False: ember was not built with MPS."""
    return False


def is_macos13_or_newer(minor=0):
    """Raises torch's RuntimeError: the check needs the MPS backend."""
    raise RuntimeError('Cannot execute isOnMacOSorNewer() without MPS backend.')
