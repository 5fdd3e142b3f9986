"""safetensors files of ember tensors, as ``safetensors.torch`` offers them for torch.

The format is a JSON header (names, dtypes, shapes, offsets) and raw little-endian bytes:
nothing in it can run code, and torch, JAX and NumPy read it. This module hands ember
tensors to the ``safetensors`` package's NumPy API (``pip install 'ember[safetensors]'``),
which does the reading and writing; bfloat16 tensors keep their dtype when ember has it.

>>> from ember.utils.safetensors import save_file, load_file, load_model
>>> save_file(model.state_dict(), 'model.safetensors')
>>> model.load_state_dict(load_file('model.safetensors'))   # or: load_model(model, path)
"""
import numpy as np

__all__ = ['save', 'save_file', 'load', 'load_file', 'save_model', 'load_model']


def _numpy_api():
    try:
        import safetensors.numpy
    except ImportError:
        raise ImportError("ember.utils.safetensors needs the safetensors package: "
                          "pip install 'ember[safetensors]'") from None
    return safetensors.numpy


def _arrays(tensors):
    """The tensors as contiguous NumPy arrays; refuses, as safetensors.torch does, tensors
    sharing memory (a file has one copy per name, so sharing would not come back)."""
    from .. import Tensor
    from ..serialization._pickler import _root
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received "
                         f"{type(tensors)}")
    out, owners = {}, {}
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received "
                             f"{type(t)}")
        a = t.detach()._data
        root = id(_root(a))
        if a.size and root in owners:
            raise RuntimeError(
                f"Some tensors share memory, this will lead to duplicate memory on disk and "
                f"potential differences when loading them again: "
                f"[{{{owners[root]!r}, {name!r}}}]. A potential way to correctly save your "
                "model is to use `save_model`.")
        owners[root] = name
        out[name] = a if a.flags.c_contiguous else a.copy(order='C')
    return out


def _tensors(arrays):
    from .._ops.creation import from_numpy
    # the package hands back read-only views of its buffer: give each tensor its own memory
    # (and 0-d ones come back as NumPy scalars)
    return {k: from_numpy(np.array(a) if not isinstance(a, np.ndarray) or
                          not a.flags.writeable else a) for k, a in arrays.items()}


def save(tensors, metadata=None):
    """The safetensors bytes of a dict of tensors (``metadata``: a dict of str to str)."""
    return _numpy_api().save(_arrays(tensors), metadata=metadata)


def save_file(tensors, filename, metadata=None):
    """Writes a dict of tensors to the safetensors file ``filename``."""
    _numpy_api().save_file(_arrays(tensors), filename, metadata=metadata)


# the file's dtype codes (the package's NumPy loader of bytes lacks BF16)
_CODES = {'F64': 'float64', 'F32': 'float32', 'F16': 'float16', 'BF16': 'bfloat16',
          'C64': 'complex64', 'I64': 'int64', 'I32': 'int32', 'I16': 'int16', 'I8': 'int8',
          'U8': 'uint8', 'BOOL': 'bool'}


def _np_dtype(code):
    import ember
    d = getattr(ember, _CODES.get(code, ''), None) if code != 'BOOL' else ember.bool
    if d is None:
        raise TypeError(f"ember has no dtype for the safetensors dtype {code}"
                        f"{' (bfloat16)' if code == 'BF16' else ''}")
    return d.np


def load(data):
    """The dict of tensors in safetensors bytes ``data``."""
    from safetensors import deserialize
    _numpy_api()
    return _tensors({name: np.frombuffer(view['data'], _np_dtype(view['dtype']))
                     .reshape(view['shape']) for name, view in deserialize(data)})


def load_file(filename, device='cpu'):
    """The dict of tensors in the safetensors file ``filename`` (``device``: the CPU)."""
    from .._device import check_device
    check_device(device, 'load_file')
    return _tensors(_numpy_api().load_file(filename))


def _unshared(state_dict):
    """``state_dict`` without names whose tensor shares memory with an earlier name's (tied
    weights): the file keeps one; ``load_model`` ties them again through the module."""
    from ..serialization._pickler import _root
    seen, out = set(), {}
    for name, t in state_dict.items():
        root = id(_root(t._data))
        if t.numel() and root in seen:
            continue
        seen.add(root)
        out[name] = t
    return out


def save_model(model, filename, metadata=None):
    """Writes ``model.state_dict()`` to ``filename``, one copy of tied (shared) weights."""
    save_file(_unshared(model.state_dict()), filename, metadata)


def load_model(model, filename, strict=True, device='cpu'):
    """Loads the file's tensors into ``model``; returns ``(missing, unexpected)`` (a set and
    a list of names, as safetensors.torch returns them; names ``save_model`` left out for
    tied weights are not missing). ``strict`` raises for any missing or unexpected name."""
    state = load_file(filename, device)
    kept = _unshared(model.state_dict())
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = {k for k in missing if k in kept}
    if strict and (missing or unexpected):
        error = f"Error(s) in loading state_dict for {type(model).__name__}:"
        if missing:
            error += "\n    Missing key(s) in state_dict: " + \
                ", ".join(f'"{k}"' for k in sorted(missing))
        if unexpected:
            error += "\n    Unexpected key(s) in state_dict: " + \
                ", ".join(f'"{k}"' for k in sorted(unexpected))
        raise RuntimeError(error)
    return missing, list(unexpected)
