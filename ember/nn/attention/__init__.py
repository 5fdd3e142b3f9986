"""ember.nn.attention: choosing the kernels behind ``F.scaled_dot_product_attention``.

``sdpa_kernel(backends)`` enables only the listed ``SDPBackend`` kernels for its body (it
flips ``ember.backends.cuda``'s switches and restores them after). On the CPU, as in torch,
the math and flash kernels can compute attention; with both switched off the call is
refused."""
import contextlib
import enum

from ...backends import cuda as _cuda

__all__ = ['SDPBackend', 'sdpa_kernel', 'WARN_FOR_UNFUSED_KERNELS']

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The kernels ``scaled_dot_product_attention`` may use."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self):
        return f'SDPBackend.{self.name}'

    def __int__(self):
        return self.value


# the backends.cuda switch behind each backend (ERROR and OVERRIDEABLE have none here)
_SWITCH = {SDPBackend.MATH: 'math', SDPBackend.FLASH_ATTENTION: 'flash',
           SDPBackend.EFFICIENT_ATTENTION: 'mem_efficient',
           SDPBackend.CUDNN_ATTENTION: 'cudnn'}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Enables only ``backends`` (one SDPBackend or a list of them) for the body of the
    ``with``; ``set_priority`` (an order to try them in) changes nothing on the CPU."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, (list, tuple, set)) or \
            not all(isinstance(b, SDPBackend) for b in backends):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of "
                             f"SDPBackend instances, got {type(backends).__name__}")
    saved = dict(_cuda._SDP)
    for backend, switch in _SWITCH.items():
        _cuda._SDP[switch] = backend in backends
    try:
        yield {}
    finally:
        _cuda._SDP.update(saved)
