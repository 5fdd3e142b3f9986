"""Attention in functional form: scaled_dot_product_attention and the computation behind
nn.MultiheadAttention (exported by ``ember.nn.functional``). Composed from ember ops, so
every derivative order works."""
import math

import numpy as np

from .._ops import reduce as _red
from .._ops._core import make
from . import _layer_functional as _layers


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims. A bool
    ``attn_mask`` marks with True the pairs that take part; a float one is added."""
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) is not "
                                  "supported by ember yet")
    L, S = query.shape[-2], key.shape[-2]
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not "
                               "be set when is_causal=True")
        attn_mask = make(np.tril(np.ones((L, S), bool)))
    if attn_mask is not None:
        if attn_mask.dtype.is_floating_point:
            scores = scores + attn_mask
        else:
            scores = scores.masked_fill(attn_mask.logical_not(), float('-inf'))
    weights = _red.softmax(scores, -1)
    if dropout_p > 0:
        weights = _layers.dropout(weights, dropout_p)
    return weights.matmul(value)


def _float_mask(mask, dtype):
    """A bool mask (True = masked out) as an additive float mask; float masks pass."""
    if mask is None or mask.dtype.is_floating_point:
        return mask
    return make(np.where(mask._data, -np.inf, 0).astype(dtype.np))


def multi_head_attention_forward(query, key, value, num_heads, in_proj_weight, in_proj_bias,
                                 out_proj_weight, out_proj_bias, *, dropout_p=0.0,
                                 training=True, key_padding_mask=None, need_weights=True,
                                 attn_mask=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)); returns the output and,
    with ``need_weights``, the attention weights (averaged over heads by default)."""
    from .functional import linear
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    head_dim = embed_dim // num_heads
    if query is key and key is value:
        q, k, v = linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    else:
        ws = in_proj_weight.chunk(3)
        bs = in_proj_bias.chunk(3) if in_proj_bias is not None else (None,) * 3
        q, k, v = (linear(x, w, b) for x, w, b in zip((query, key, value), ws, bs))
    attn_mask = _float_mask(attn_mask, q.dtype)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is "
                                   f"{attn_mask.shape}, but should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
    if key_padding_mask is not None:
        pad = _float_mask(key_padding_mask, q.dtype).view(bsz, 1, 1, src_len)
        pad = pad.expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = pad if attn_mask is None else attn_mask + pad
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(src_len, bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(src_len, bsz * num_heads, head_dim).transpose(0, 1)
    scores = (q * math.sqrt(1.0 / head_dim)).bmm(k.transpose(-2, -1))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = _red.softmax(scores, -1)
    if dropout_p > 0 and training:
        weights = _layers.dropout(weights, dropout_p)
    out = weights.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
    if not batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(1)
    return out, (weights if batched else weights.squeeze(0))
