"""Module-level helpers of ``torch.nn.utils``: ``skip_init`` (build a module without running
its initialisation) and ``convert_conv2d/3d_weight_memory_format`` (lay the convolution
weights of a module tree out channels-last)."""
import inspect

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module

__all__ = ['skip_init', 'convert_conv2d_weight_memory_format',
           'convert_conv3d_weight_memory_format']


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialised parameters and buffers: built on
    the 'meta' device, then given empty CPU memory (the class must take ``device=``)."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if 'device' not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop('device', 'cpu')
    kwargs['device'] = 'meta'
    return module_cls(*args, **kwargs).to_empty(device=final_device)


def _convert(kinds, module, memory_format):
    if isinstance(module, kinds):
        with_format = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = with_format.resize_(with_format.size(),
                                                 memory_format=memory_format)
    for child in module.children():
        _convert(kinds, child, memory_format)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Lays the weight of every Conv2d/ConvTranspose2d in ``module`` out in
    ``memory_format`` (``ember.channels_last``); returns ``module``."""
    return _convert((Conv2d, ConvTranspose2d), module, memory_format)


def convert_conv3d_weight_memory_format(module, memory_format):
    """Lays the weight of every Conv3d/ConvTranspose3d in ``module`` out in
    ``memory_format`` (``ember.channels_last_3d``); returns ``module``."""
    return _convert((Conv3d, ConvTranspose3d), module, memory_format)
