"""Pooling layers: max, average, adaptive, power-average and fractional max pooling
(1-d, 2-d, 3-d), and max unpooling."""
from .. import functional as F
from .utils import _ntuple
from .module import Module

__all__ = ['MaxPool1d', 'MaxPool2d', 'AvgPool1d', 'AvgPool2d', 'AdaptiveAvgPool2d']


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, '
                f'dilation={self.dilation}, ceil_mode={self.ceil_mode}')


class MaxPool1d(_MaxPoolNd):
    """Max pooling over the last dim of ``(N, C, L)`` or ``(C, L)`` inputs."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Max pooling over the last two dims of ``(N, C, H, W)`` or ``(C, H, W)`` inputs."""

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """Average pooling over the last dim of ``(N, C, L)`` or ``(C, L)`` inputs."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}'


def _single(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class AvgPool2d(Module):
    """Average pooling over the last two dims of ``(N, C, H, W)`` or ``(C, H, W)`` inputs."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}'


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed ``output_size`` (int or pair; None keeps the input's size)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f'output_size={self.output_size}'


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f'output_size={self.output_size}'


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of the last dim to a fixed ``output_size`` (``return_indices``: also the
    argmax positions)."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of the last two dims to a fixed ``output_size`` (int or pair; None keeps
    the input's size; ``return_indices``: also the argmax positions)."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(Module):
    """Average pooling of the last dim to a fixed ``output_size``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self):
        return f'output_size={self.output_size}'


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        nd = self._nd
        self.kernel_size = _ntuple(nd)(kernel_size)
        self.stride = _ntuple(nd)(stride if stride is not None else kernel_size)
        self.padding = _ntuple(nd)(padding)

    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}'


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``: ``forward(input, indices, output_size=None)``
    puts each value back at its index, zeros elsewhere."""

    _nd = 1

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``: ``forward(input, indices, output_size=None)``
    puts each value back at its index, zeros elsewhere."""

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f'norm_type={self.norm_type}, kernel_size={self.kernel_size}, '
                f'stride={self.stride}, ceil_mode={self.ceil_mode}')


class LPPool1d(_LPPoolNd):
    """Power-average pooling over the last dim: each window's ``norm_type``-norm."""

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over the last two dims: each window's ``norm_type``-norm."""

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


__all__ += ['AdaptiveMaxPool1d', 'AdaptiveMaxPool2d', 'AdaptiveAvgPool1d', 'MaxUnpool1d',
            'MaxUnpool2d', 'LPPool1d', 'LPPool2d']


class MaxPool3d(_MaxPoolNd):
    """Max pooling over the last three dims of ``(N, C, D, H, W)`` or ``(C, D, H, W)``
    inputs."""

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(AvgPool2d):
    """Average pooling over the last three dims of ``(N, C, D, H, W)`` or ``(C, D, H, W)``
    inputs."""

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Average pooling of the last three dims to a fixed ``output_size`` (int or triple;
    None keeps the input's size)."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of the last three dims to a fixed ``output_size`` (``return_indices``:
    also the argmax positions)."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d``: ``forward(input, indices, output_size=None)``
    puts each value back at its index, zeros elsewhere."""

    _nd = 3

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over the last three dims: each window's ``norm_type``-norm."""

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class _FractionalMaxPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        nd = self._nd
        self.kernel_size = _ntuple(nd)(kernel_size)
        self.return_indices = return_indices
        self.register_buffer('_random_samples', _random_samples)
        self.output_size = _ntuple(nd)(output_size) if output_size is not None else None
        self.output_ratio = _ntuple(nd)(output_ratio) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling over pseudo-randomly placed windows of the last two dims, to
    ``output_size`` or ``output_ratio`` times the input's size."""


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max pooling over pseudo-randomly placed windows of the last three dims, to
    ``output_size`` or ``output_ratio`` times the input's size."""

    _nd = 3


__all__ += ['MaxPool3d', 'AvgPool3d', 'AdaptiveAvgPool3d', 'AdaptiveMaxPool3d', 'MaxUnpool3d',
            'LPPool3d', 'FractionalMaxPool2d', 'FractionalMaxPool3d']
