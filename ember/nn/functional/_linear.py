"""The linear layers of nn.functional: linear (one GEMM over all leading dims, as torch) and
bilinear, both composed of ember ops."""
import math

from ..._ops import linalg as _la


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if weight.dim() == 1 and bias is not None and (input.dim() == 2 or bias.dim() == 1):
        # (torch's addmm path: a vector weight is no matrix there)
        raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
    if (input.dim() >= 2 or (input.dim() == 1 and bias is not None)) and weight.dim() == 2 \
            and (bias is None or input.dim() <= 2 or bias.dim() <= 1):
        # As torch: one 2-D GEMM (addmm with a bias, AddmmBackward0) over all leading dims
        # at once, viewed back -- NumPy's stacked matmul would run one small GEMM per slice.
        # (the leading dims' product, not -1: a last dim of 0 leaves -1 undetermined)
        flat = input if input.dim() == 2 else \
            input.reshape(math.prod(input.shape[:-1]), input.shape[-1])
        out = _la.addmm(bias, flat, weight.t()) if bias is not None else flat.mm(weight.t())
        return out if input.dim() == 2 else out.view(*input.shape[:-1], weight.shape[0])
    out = input.matmul(weight.t())
    # (torch's in-place add: the bias may not enlarge the result nor widen its dtype)
    return out.add_(bias) if bias is not None else out


def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``."""
    given = [('input1', input1), ('input2', input2), ('weight', weight)] + \
        ([('bias', bias)] if bias is not None else [])
    if any(t.dtype != input1.dtype for _, t in given):  # (torch's first check)
        raise RuntimeError("All tensors must have the same dtype, got " + ', '.join(
            f"{name}: {t.dtype.cpp_name}" for name, t in given))
    d1, d2 = input1.dim(), input2.dim()
    if d1 != d2:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {d1} and {d2}")
    for i in range(d1 - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.shape[i]} and {input2.shape[i]}")
    # (each size as torch reads it: a missing dim is its IndexError, in this order -- the
    # weight's size before the input's)
    w1 = weight.size(1)
    if input1.size(-1) != w1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    w2 = weight.size(2)
    if input2.size(-1) != w2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.dim()}")
    out_f, in1, in2 = weight.shape
    if bias is not None and bias.size(0) != out_f:  # (torch reads only its first dim: the
        # rest broadcasts with the result)
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {out_f}")
    batch = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (N, in1) @ (in1, out*in2) -> (N, out, in2), then contract in2 with input2
    tmp = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2)).reshape(-1, out_f, in2)
    # (an integer product stays in its dtype, as torch's _trilinear keeps it: sum would
    # widen it to int64)
    keep = None if tmp.is_floating_point() or tmp.is_complex() else tmp.dtype
    out = (tmp * x2.unsqueeze(1)).sum(-1, dtype=keep).view(batch + (out_f,))
    return out + bias if bias is not None else out
