"""Old built-in autograd Functions kept for compatibility (torch.autograd._functions):
``Resize`` (a differentiable reshape that keeps the number of elements) and the deprecated
``Type`` (a differentiable dtype change)."""
import math
import warnings

from .function import Function

__all__ = ['Resize', 'Type']


class Resize(Function):
    """``Resize.apply(t, sizes)``: ``t``'s elements in a new contiguous tensor of shape
    ``sizes``; the gradient is reshaped back."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        numel = math.prod(sizes)
        if tensor.numel() != numel:
            have = 'x'.join(str(s) for s in tensor.size())
            raise RuntimeError(
                f"requested resize to {'x'.join(str(s) for s in sizes)} ({numel} elements in "
                f"total), but the given tensor has a size of {have} ({tensor.numel()} "
                "elements). autograd's resize can only change the shape of a given tensor, "
                "while preserving the number of elements. ")
        ctx.input_sizes = tensor.size()
        # A copy, so the output never aliases the input (as the old op made a new tensor).
        return tensor.contiguous().clone().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None


class Type(Function):
    """``Type.apply(t, dest_type)``: ``t.type(dest_type)``, differentiable (deprecated: use
    ``t.to(dtype)``)."""

    @staticmethod
    def forward(ctx, i, dest_type):
        warnings.warn("`torch.autograd._functions.Type` is deprecated as of PyTorch 2.1, "
                      "please use `torch.tensor.to(dtype=dtype)` instead.", FutureWarning,
                      stacklevel=2)
        ctx.input_type = i.type()
        return i.type(dest_type)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.type(ctx.input_type), None
