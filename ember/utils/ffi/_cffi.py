"""cffi itself, imported on first use with a clear error when it is missing."""
import functools

__all__ = ['cffi']

INSTALL_HINT = "pip install 'ember[ffi]' (or: pip install cffi)"


@functools.lru_cache(maxsize=None)
def cffi():
    """The cffi package; ImportError saying how to install it when it is missing."""
    try:
        import cffi
    except ImportError as e:
        raise ImportError(f'ember.utils.ffi builds C extensions with cffi, which is not '
                          f'installed: {INSTALL_HINT}') from e
    return cffi
