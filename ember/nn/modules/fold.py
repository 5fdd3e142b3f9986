"""Unfold and Fold: sliding blocks to columns and back."""
from .. import functional as F
from .module import Module

__all__ = ['Unfold', 'Fold']


class Unfold(Module):
    """Each ``kernel_size`` block of the last two dims as a column: ``(N, C, H, W)`` ->
    ``(N, C*kh*kw, L)``."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f'kernel_size={self.kernel_size}, dilation={self.dilation}, '
                f'padding={self.padding}, stride={self.stride}')


class Fold(Module):
    """Columns ``(N, C*kh*kw, L)`` summed back into their blocks of an
    ``(N, C, *output_size)`` output (``Unfold``'s adjoint)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size, self.dilation = output_size, kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return (f'output_size={self.output_size}, kernel_size={self.kernel_size}, '
                f'dilation={self.dilation}, padding={self.padding}, stride={self.stride}')
