"""Flattening parameters into one vector and back, as torch.nn.utils.convert_parameters."""
from ..._ops.shape import cat as _cat
from ..._tensor import Tensor

__all__ = ['parameters_to_vector', 'vector_to_parameters']


def _typename(obj):
    """torch.typename for a non-tensor: the qualified class name, bare for builtins."""
    cls = type(obj)
    module = cls.__module__ or ''
    return cls.__qualname__ if module in ('', 'builtins') else f"{module}.{cls.__qualname__}"


def parameters_to_vector(parameters):
    """One 1-D tensor: every parameter flattened, concatenated in order (differentiable)."""
    return _cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of the 1-D ``vec`` into ``parameters`` (in order, each
    reshaped to its parameter's shape) by replacing each parameter's ``.data``."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        # As torch: .data is rebound to a view of vec, so the params share vec's memory.
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
