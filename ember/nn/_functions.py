"""Autograd Functions behind nn modules, as torch's ``torch.nn._functions`` (their node names
are torch's: ``CrossMapLRN2dBackward``)."""
import numpy as np

from .. import _ops
from ..autograd.function import Function


def _channel_sums(window, t):
    """Per channel, the sum of ``t`` over the channels ``window`` (C x C, 0/1) selects."""
    return _ops.linalg.einsum('cj,njhw->nchw', _ops.creation.tensor(window, dtype=t.dtype), t)


class CrossMapLRN2d(Function):
    """torch's kernels for CrossMapLRN2d, as an autograd Function of that name. The forward
    keeps torch's running sum: channel ``c`` sums the squares of channels 0 to
    ``c + p - 1`` (``p = (size - 1) // 2 + 1``) less channels 1 to ``c - p`` (channel 0
    stays in). The backward is torch's formula, a window of ``size`` channels around each
    -- which is not the forward's exact derivative where the two windows differ."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        channels = input.shape[1]
        p = int((size - 1) / 2 + 1)
        window = np.zeros((channels, channels))
        for c in range(channels):
            window[c, :min(c + p, channels)] = 1
            if c > p:
                window[c, 1:c - p + 1] = 0
        scale = _channel_sums(window, input * input) * (alpha / size) + k
        output = input * scale.pow(-beta)
        ctx.save_for_backward(input, output, scale)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, channels = ctx.size, input.shape[1]
        before = int(size - (size - 1) / 2)      # (torch's inversePrePad)
        c = np.arange(channels)[:, None]
        j = np.arange(channels)[None, :]
        window = ((j >= c - before) & (j <= c + size - 1 - before)).astype(np.float64)
        accum = _channel_sums(window, grad_output * output / scale)
        return (scale.pow(-ctx.beta) * grad_output
                - (2 * ctx.alpha * ctx.beta / size) * input * accum, None, None, None, None)
