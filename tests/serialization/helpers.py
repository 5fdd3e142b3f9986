"""Shared by the serialization tests: files through torch and ember, compared."""
import io
import zipfile

import numpy as np

import ember
from ..oracle.oracle import torch

# every dtype ember has, by torch's name; bfloat16 once ember has it
DTYPES = ['float16', 'float32', 'float64', 'complex64', 'complex128', 'int8', 'int16', 'int32',
          'int64', 'uint8', 'bool'] + (['bfloat16'] if getattr(ember, 'bfloat16', None) else [])
SHAPES = [(), (0,), (5,), (2, 3), (3, 0, 2), (2, 1, 3)]


def saved(lib, obj, **kwargs):
    """``obj`` as the bytes ``lib.save`` writes."""
    buf = io.BytesIO()
    lib.save(obj, buf, **kwargs)
    return buf.getvalue()


def loaded(lib, data, **kwargs):
    """``lib.load`` of ``data`` (bytes)."""
    return lib.load(io.BytesIO(data), **kwargs)


def values(t):
    """A tensor of either library as a NumPy array (bfloat16 as float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return (t.float() if t.dtype is torch.bfloat16 else t).numpy()
    a = t.detach()._data
    return a.astype(np.float32) if a.dtype.name == 'bfloat16' else a


def same_tensor(e, t):
    """ember tensor ``e`` and torch tensor ``t`` agree in type, dtype, shape, strides,
    requires_grad and values."""
    assert type(e).__name__ == type(t).__name__
    assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
    assert e.requires_grad == t.requires_grad
    if e.numel():
        assert e.stride() == t.stride()
    np.testing.assert_array_equal(values(e), values(t))


def rezip(data, edit):
    """The zip archive ``data`` with each record passed through ``edit(name, bytes)``
    (None drops it), written by Python's zipfile (uncompressed unless ``edit`` says)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w') as dst:
        for info in src.infolist():
            new = edit(info.filename, src.read(info))
            if new is not None:
                dst.writestr(info.filename, new)
    return out.getvalue()


def outcome(fn):
    """What ``fn()`` did: ('ok', result) or (exception class, message)."""
    try:
        return 'ok', fn()
    except Exception as e:  # noqa: BLE001 -- the class is what is compared
        return type(e), str(e)
