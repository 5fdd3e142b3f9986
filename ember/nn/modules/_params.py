"""How layers create and initialise their parameters, written once for all of them."""
import math

from ... import _ops
from .. import init
from ..parameter import Parameter


def register_new(module, name, present, *shape, device=None, dtype=None):
    """Registers ``name`` as a new (uninitialised) Parameter of ``shape``, or as None when not
    ``present`` -- so the name exists either way, as torch's layers do."""
    # (the size as one tuple: an empty shape makes a 0-d parameter, as torch's LayerNorm(()))
    param = Parameter(_ops.creation.empty(tuple(shape), device=device, dtype=dtype)) \
        if present else None
    module.register_parameter(name, param)


def register_affine(module, shape, affine, bias, device=None, dtype=None):
    """A normalisation layer's ``weight`` and ``bias`` of ``shape`` (None when absent)."""
    register_new(module, 'weight', affine, *shape, device=device, dtype=dtype)
    register_new(module, 'bias', affine and bias, *shape, device=device, dtype=dtype)


def reset_affine(module):
    """Scale to ones, shift to zeros."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


def reset_kaiming_default(weight, bias):
    """torch's default for Linear and convolutions: kaiming_uniform_(a=sqrt(5)) for the
    weight, uniform in +-1/sqrt(fan_in) for the bias."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in = init._calculate_fan_in_and_fan_out(weight)[0]
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)
