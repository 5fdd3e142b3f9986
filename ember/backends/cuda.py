"""ember.backends.cuda: CUDA's switches, as in torch's CPU-only build.

``is_built()`` is False; ``matmul.allow_tf32`` and the reduced-precision switches, and the
scaled-dot-product-attention kernel switches, keep torch's defaults and type checks and
change nothing (ember has no CUDA kernels).
"""
import warnings

__all__ = ['is_built', 'matmul', 'flash_sdp_enabled', 'enable_flash_sdp', 'math_sdp_enabled',
           'enable_math_sdp', 'mem_efficient_sdp_enabled', 'enable_mem_efficient_sdp',
           'cudnn_sdp_enabled', 'enable_cudnn_sdp', 'sdp_kernel']


def is_built():
    """False: ember was not built with CUDA."""
    return False


class cuBLASModule:
    """``ember.backends.cuda.matmul``: cuBLAS switches (no effect without CUDA)."""
    _BOOL = ('allow_tf32',)
    _REDUCED = ('allow_fp16_reduced_precision_reduction',
                'allow_bf16_reduced_precision_reduction')

    def __init__(self):
        d = self.__dict__
        d['allow_tf32'] = False
        d['allow_fp16_reduced_precision_reduction'] = True
        d['allow_bf16_reduced_precision_reduction'] = True
        d['fp32_precision'] = 'none'

    def __getattr__(self, name):
        raise AttributeError(f'Unknown attribute {name}')

    def __setattr__(self, name, value):
        if name in self._BOOL:
            if not isinstance(value, bool):
                raise RuntimeError(f'set_allow_tf32_cublas expects a bool, but got '
                                   f'{type(value).__name__}')
        elif name in self._REDUCED:
            if not isinstance(value, (bool, tuple, list)):
                raise TypeError(f'{name} expects a bool or a tuple/list of bools, but got '
                                f'{type(value)}')
        elif name != 'fp32_precision':
            raise AttributeError(f'Unknown attribute {name}')
        self.__dict__[name] = value


matmul = cuBLASModule()

_SDP = {'flash': True, 'mem_efficient': True, 'math': True, 'cudnn': True}


def _sdp_switch(kind):
    def enabled():
        return _SDP[kind]

    def enable(enabled):
        # torch's setters share one message naming the math kernel's setter
        if not isinstance(enabled, bool):
            raise RuntimeError(f'set_sdp_use_math expects a bool, but got '
                               f'{type(enabled).__name__}')
        _SDP[kind] = enabled
    enabled.__name__, enable.__name__ = f'{kind}_sdp_enabled', f'enable_{kind}_sdp'
    enabled.__doc__ = f"Whether the {kind} attention kernel may be used (a switch only)."
    enable.__doc__ = f"Switches the {kind} attention kernel on or off (no effect on the CPU)."
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_switch('flash')
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switch('mem_efficient')
math_sdp_enabled, enable_math_sdp = _sdp_switch('math')
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switch('cudnn')


class sdp_kernel:
    """Deprecated context manager switching the attention kernels for its body."""

    def __init__(self, enable_flash=True, enable_math=True, enable_mem_efficient=True,
                 enable_cudnn=True):
        warnings.warn('`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this '
                      'context manager will be removed. Please see '
                      '`torch.nn.attention.sdpa_kernel()` for the new context manager, with '
                      'updated signature.', FutureWarning, stacklevel=2)
        self._want = {'flash': enable_flash, 'math': enable_math,
                      'mem_efficient': enable_mem_efficient, 'cudnn': enable_cudnn}

    def __enter__(self):
        self._old = dict(_SDP)
        _SDP.update(self._want)
        return self

    def __exit__(self, *exc):
        _SDP.update(self._old)
        return False
