"""Separable linear maps of the spatial dims, shared by average pooling (plain and adaptive)
and by interpolate: per spatial dim a matrix ``M`` (out x in) maps the input along that dim.
The forward applies each ``M`` on arrays; the backward applies each ``M.T`` in ember ops
(linear, so it differentiates again)."""
import numpy as np

from ..._ops._core import Node, make


def apply(x, mats):
    """Each of ``mats`` applied along its dim of the array ``x`` (the last ``len(mats)``)."""
    if len(mats) == 2:                       # two batched GEMMs, no transposed copies
        return mats[0] @ x @ mats[1].T
    k = len(mats)
    for ax, m in zip(range(x.ndim - k, x.ndim), mats):
        x = np.moveaxis(np.moveaxis(x, ax, -1) @ m.T, -1, ax)
    return np.ascontiguousarray(x)


def apply_windows(x, mats):
    """``apply`` for maps that average over windows (pooling): a non-finite element stays in
    the windows that hold it. The matrix products multiply it by the zeros outside them too
    (inf * 0 = NaN in every output); only then are the finite parts recomputed and the
    windows holding inf, -inf or NaN given inf, -inf or NaN."""
    out = apply(x, mats)
    if np.isfinite(out).all():
        return out
    finite = np.isfinite(x)
    out = apply(np.where(finite, x, 0), mats)
    inside = [(m != 0).astype(x.dtype) for m in mats]

    def meets(mask):  # the outputs whose window holds an element of ``mask``
        return apply(mask.astype(x.dtype), inside) > 0
    pos, neg = meets(x == np.inf), meets(x == -np.inf)
    nan = meets(np.isnan(x)) | pos & neg
    return np.where(nan, np.nan, np.where(pos, np.inf, np.where(neg, -np.inf, out))).astype(
        out.dtype, copy=False)


class SeparableBackward(Node):
    """Gradient of the separable map: ``M.T`` applied along each spatial dim."""

    def backward(self, g):
        dtype = g.dtype
        low = g._data.dtype.itemsize == 2   # (float16/bfloat16: sums in float32, as torch)
        if low:
            g = g.float()
        if not np.isfinite(g._data).all():
            # (a non-finite gradient reaches only the inputs of its window, as in torch;
            # the products would give it to all. Not differentiable again on this path.)
            r = make(apply_windows(g._data, [m.T.astype(g._data.dtype) for m in self.mats]))
            return r.to(dtype) if low else r
        mats = [make(m.astype(g._data.dtype)) for m in self.mats]
        if len(mats) == 2:
            g = mats[0].t().matmul(g).matmul(mats[1])
        else:
            for ax, m in zip(range(g.dim() - len(mats), g.dim()), mats):
                g = g.transpose(ax, -1).matmul(m).transpose(ax, -1)
        return g.to(dtype) if low else g


def apply_fixed_point(x, mats):
    """``apply`` on a uint8 array ``x`` as torch's uint8 kernels (PIL's way): one dim at a
    time from the last, each matrix rounded to 16-bit fixed point (as many fraction bits as
    its largest weight allows), each pass rounded and clamped to 0..255. A dim whose size
    does not change is left alone."""
    k = len(mats)
    for ax, m in reversed(list(zip(range(x.ndim - k, x.ndim), mats))):
        if m.shape[0] == m.shape[1]:
            continue
        top = m.max()
        bits = 0
        while bits < 22 and int(0.5 + top * (1 << (bits + 1))) < (1 << 15):
            bits += 1
        q = m.astype(np.float64) * (1 << bits)
        q = np.trunc(q + np.where(q < 0, -0.5, 0.5))
        # (a float64 product of these integers is exact: every partial sum is below 2**53)
        y = (np.moveaxis(x, ax, -1).astype(np.float64) @ q.T).astype(np.int64)
        y = (y + (1 << (bits - 1))) >> bits
        x = np.moveaxis(np.clip(y, 0, 255).astype(np.uint8), -1, ax)
    return np.ascontiguousarray(x)
