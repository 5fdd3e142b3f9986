"""The few places where ember's supported NumPy (1.26 on) and Python (3.10 on) versions differ.

Each helper here has one behaviour on every supported version, so the rest of ember never
tests versions itself.
"""
import numpy as np

# NumPy 2.1 brought np.reshape(..., copy=False) ("a view or an error, never a copy") and
# ndarray.__dlpack__'s max_version/copy (versioned DLPack capsules).
_NUMPY_2_1 = np.lib.NumpyVersion(np.__version__) >= '2.1.0'


def reshape_view(array, shape):
    """``array`` seen with ``shape`` without copying; ValueError when no view can do it."""
    if _NUMPY_2_1:
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


def dlpack_capsule(array, stream=None, max_version=None, copy=None):
    """``array.__dlpack__(...)``: a versioned capsule where NumPy can make one (2.1 on), else
    the legacy capsule, which every DLPack consumer also takes. ``copy=True`` exports a copy."""
    if copy:
        array = array.copy()
    if _NUMPY_2_1 and max_version is not None:
        return array.__dlpack__(stream=stream, max_version=max_version)
    return array.__dlpack__(stream=stream)


class _WritableView:
    """An array interface over memory NumPy 2.0 imported read-only (see below)."""

    def __init__(self, array):
        self.__array_interface__ = dict(array.__array_interface__,
                                        data=(array.__array_interface__['data'][0], False))
        self._owner = array     # keeps the imported memory alive


def from_dlpack(obj):
    """``np.from_dlpack(obj)``, writable where the producer's memory is: NumPy 2.0 marks every
    DLPack import read-only (its legacy capsules cannot say), 2.1 on trust the producer."""
    array = np.from_dlpack(obj)
    if array.flags.writeable or _NUMPY_2_1:
        return array
    return np.asarray(_WritableView(array))
