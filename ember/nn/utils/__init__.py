"""nn.utils: gradient clipping, flattening parameters to/from one vector, fusing BatchNorm
into the layer before it (``nn.utils.fusion``), the hook-based weight and spectral
normalisation (and their parametrization forms, ``parametrize`` / ``parametrizations``),
padding/packing sequences (``nn.utils.rnn``) and pruning (``prune``)."""
from .clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_  # noqa: F401
from .clip_grad import clip_grad_norm  # noqa: F401
from .init_and_layout import (skip_init, convert_conv2d_weight_memory_format,  # noqa: F401
                              convert_conv3d_weight_memory_format)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from . import fusion  # noqa: F401
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401,E501

__all__ = ['clip_grad_norm_', 'clip_grad_value_', 'get_total_norm', 'clip_grads_with_norm_',
           'parameters_to_vector', 'vector_to_parameters', 'fuse_conv_bn_eval',
           'fuse_conv_bn_weights', 'fuse_linear_bn_eval', 'fuse_linear_bn_weights',
           'weight_norm', 'remove_weight_norm', 'spectral_norm', 'remove_spectral_norm',
           'clip_grad_norm', 'skip_init', 'convert_conv2d_weight_memory_format',
           'convert_conv3d_weight_memory_format']
from . import rnn  # noqa: F401,E402
from . import stateless  # noqa: F401,E402 (functional_call's deprecated home)
from . import parametrize, parametrizations, prune  # noqa: F401,E402
