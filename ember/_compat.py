"""The few places where ember's supported NumPy (1.26 on) and Python (3.10 on) versions differ.

Each helper here has one behaviour on every supported version, so the rest of ember never
tests versions itself.
"""
import numpy as np

# np.reshape(..., copy=False) -- "a view or an error, never a copy" -- arrived in NumPy 2.1.
_HAS_RESHAPE_COPY = np.lib.NumpyVersion(np.__version__) >= '2.1.0'


def reshape_view(array, shape):
    """``array`` seen with ``shape`` without copying; ValueError when no view can do it."""
    if _HAS_RESHAPE_COPY:
        return np.reshape(array, shape, copy=False)
    view = array.view()
    try:
        view.shape = shape      # refuses (AttributeError) exactly when a copy would be needed
    except AttributeError as e:
        raise ValueError(str(e)) from None
    return view


def rename_code(code, name):
    """``code`` with ``co_name`` (and, where Python has it, ``co_qualname``) set to ``name``."""
    if hasattr(code, 'co_qualname'):          # Python 3.11+
        return code.replace(co_name=name, co_qualname=name)
    return code.replace(co_name=name)
