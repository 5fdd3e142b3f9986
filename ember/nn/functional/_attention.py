"""Attention in functional form: scaled_dot_product_attention and the computation behind
nn.MultiheadAttention (exported by ``ember.nn.functional``). Composed from ember ops, so
every derivative order works."""
import math
import warnings

import numpy as np

from ... import _dtype
from ..._ops import _args, creation as _creation, reduce as _red, shape as _shape
from ..._ops._core import broadcast_shape, make
from ...backends.cuda import _SDP
from . import _dropout as _layers


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims. A bool
    ``attn_mask`` marks with True the pairs that take part; a float one is added."""
    if not (_SDP['math'] or _SDP['flash']):  # (the kernels a CPU can run)
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. "
                           "This is likely due to turning off both the math kernel and the "
                           "fused kernels.")
    # (torch's checks of the inputs, in its order: one dtype, the ranks, the mask's dtype)
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {query.dtype.cpp_name} key.dtype: {key.dtype.cpp_name} "
                           f"and value.dtype: {value.dtype.cpp_name} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
                           f"value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (_dtype.bool_, _dtype.float32,
                                                         query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {attn_mask.dtype.cpp_name} and  "
                           f"query.dtype: {query.dtype.cpp_name} instead.")
    shape = tuple(query.shape[:-1]) + (value.shape[-1],)
    if not math.prod(shape) or not value.numel():
        # torch returns zeros for an empty result or value before any kernel or head
        # sharing runs (or its causal-mask check), tied to every input (its zero gradients
        # have their shapes)
        return _creation.zeros(shape, dtype=query.dtype) + \
            (query.sum() + key.sum() + value.sum()) * 0
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if not (query.dtype.is_floating_point or query.dtype.is_complex):
        # (torch scales query and key by a float first: integers and bools become floats, and
        # value's dtype is refused by the last product)
        query, key = query * 1.0, key * 1.0
    else:  # (the kernels' dtype refusals: only now, after that shortcut)
        _args.refuse_dtypes('scaled_dot_product_attention',
                            _args.refusals('scaled_dot_product_attention') or {},
                            (query, key, value), None)
    if enable_gqa:
        key, value = _share_heads(query, key, value)
    if query.dtype.is_floating_point and query.dtype.itemsize == 2:
        # torch's math kernel computes float16 and bfloat16 in float32 and casts back
        out = scaled_dot_product_attention(_wide(query), _wide(key), _wide(value),
                                           None if attn_mask is None else _wide(attn_mask),
                                           dropout_p, is_causal, scale)
        return out.to(query.dtype)
    L, S = query.shape[-2], key.shape[-2]
    if scale is None:
        # (no features: every score is 0, whatever the scale)
        scale = 1 / math.sqrt(query.shape[-1]) if query.shape[-1] else 1.0
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        attn_mask = make(np.tril(np.ones((L, S), bool)))
    if attn_mask is not None:
        # (torch adds the mask to the scores in place: it may not grow them)
        full = broadcast_shape(scores.shape, attn_mask.shape)
        if full != tuple(scores.shape):
            raise RuntimeError(f"output with shape {list(scores.shape)} doesn't match the "
                               f"broadcast shape {list(full)}")
        if attn_mask.dtype.is_floating_point:
            scores = scores + attn_mask
        else:
            scores = scores.masked_fill(attn_mask.logical_not(), float('-inf'))
    # (a causal mask leaves every query its own key: no row can be all masked out)
    weights = _red.softmax(scores, -1) if is_causal and S else _softmax_visible(scores)
    if dropout_p > 0:
        weights = _layers.dropout(weights, dropout_p)
    return weights.matmul(value)


scaled_dot_product_attention._refuses_dtypes = True  # (see overrides.overridable)


def _share_heads(query, key, value):
    """Grouped-query attention: each of key's and value's heads (dim -3) serves a group of
    consecutive query heads, so both are repeated up to the query's number of heads."""
    heads = query.size(-3)
    kh, vh = key.size(-3), value.size(-3)
    if heads % kh or heads % vh:
        raise RuntimeError("Number of heads in key and value must divide the number of heads "
                           "in ")  # (torch's message stops there)
    return key.repeat_interleave(heads // kh, -3), value.repeat_interleave(heads // vh, -3)


def _wide(t):
    """A float16/bfloat16 tensor as float32; others as they are."""
    return t.float() if t.dtype.is_floating_point and t.dtype.itemsize == 2 else t


def _softmax_visible(scores):
    """Softmax over the last dim, where a row with every key masked out (all -inf) gives
    zeros and zero gradients, as torch's scaled_dot_product_attention, instead of NaN."""
    blind = scores.dtype.is_floating_point and np.isneginf(scores._data).all(-1, keepdims=True)
    if not np.any(blind):
        return _red.softmax(scores, -1)  # (complex scores get softmax's own refusal)
    blind = make(blind)
    return _red.softmax(scores.masked_fill(blind, 0.0), -1).masked_fill(blind, 0.0)


def _canonical_mask(mask, name, dtype, other=None, other_name=''):
    """``mask`` as an additive float mask of ``dtype``: a bool one becomes -inf where True
    (masked out), a float one passes. Warns, as torch, when ``other`` has another dtype."""
    if mask is None:
        return None
    if mask.dtype != _dtype.bool_ and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and mask.dtype != other.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if mask.dtype.is_floating_point:
        return mask
    return make(np.where(mask._data, -np.inf, 0).astype(dtype.np))


def _canonical_masks(key_padding_mask, attn_mask, dtype):
    """Both masks of MultiheadAttention in additive float form (the padding mask first, as
    torch checks them)."""
    key_padding_mask = _canonical_mask(key_padding_mask, 'key_padding_mask', dtype, attn_mask,
                                       'attn_mask')
    return key_padding_mask, _canonical_mask(attn_mask, 'attn_mask', dtype)


def _check_inputs(query, key, value, key_padding_mask, attn_mask, num_heads):
    """The dims of the inputs and masks, as torch checks them; returns whether batched."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    d = query.dim()
    kind = f"For {'batched' if batched else 'unbatched'} ({d}-D) `query`, expected"
    if key.dim() != d or value.dim() != d:
        raise AssertionError(f"{kind} `key` and `value` to be {d}-D but found {key.dim()}-D "
                             f"and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != d - 1:
        raise AssertionError(f"{kind} `key_padding_mask` to be `None` or {d - 1}-D but found "
                             f"{key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"{kind} `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and attn_mask.shape != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


def _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate):
    """q, k and v: from the packed ``in_proj_weight`` (one matmul for self-attention) or,
    with ``separate`` = (q, k, v weights), from those after checking their shapes."""
    from . import linear
    inputs = (query, key, value)
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    if separate is None:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is "
                                 "None")
        if query is key and key is value:
            return linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
        return [linear(x, w, b) for x, w, b in zip(inputs, in_proj_weight.chunk(3), biases)]
    for name, w in zip('qkv', separate):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is "
                                 "None")
    e = query.shape[-1]
    names = ('query', 'key', 'value')
    for name, x, w in zip(names, inputs, separate):
        if w.shape != (e, x.shape[-1]):
            raise AssertionError(f"expecting {name} weights shape of {(e, x.shape[-1])}, but "
                                 f"got {w.shape}")
    for name, b in zip(names, biases):
        if b is not None and b.shape != (e,):
            raise AssertionError(f"expecting {name} bias shape of {(e,)}, but got {b.shape}")
    return [linear(x, w, b) for x, w, b in zip(inputs, separate, biases)]


def _static(t, name, heads, head_dim):
    """A given per-head key or value (static_k/static_v) after checking its shape."""
    if t.shape[0] != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {t.shape[0]}")
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.shape[2]}")
    return t


def _attend(q, k, v, attn_mask, dropout_p, need_weights, causal, bsz, heads):
    """Attention of per-head q, k, v (N * heads, L or S, head_dim) under an additive mask;
    returns the result, laid out (L, N, heads, head_dim) to reshape to (L * N, E), and the
    weights (None unless ``need_weights``)."""
    head_dim = q.shape[-1]
    if not need_weights:
        # torch takes scaled_dot_product_attention here: rows with every key masked give 0
        # (sizes spelled out, no -1: an empty batch would leave it open)
        if attn_mask is not None and attn_mask.shape[0] != 1:
            attn_mask = attn_mask.reshape(bsz, heads, attn_mask.shape[-2], k.shape[1])
        q, k, v = (t.reshape(bsz, heads, t.shape[1], head_dim) for t in (q, k, v))
        out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, causal)
        return out.permute(2, 0, 1, 3), None
    scores = (q * math.sqrt(1.0 / head_dim)).bmm(k.transpose(-2, -1))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = _red.softmax(scores, -1)
    if dropout_p > 0:
        weights = _layers.dropout(weights, dropout_p)
    return weights.bmm(v).transpose(0, 1), weights


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)); returns the output and,
    with ``need_weights``, the attention weights (averaged over heads by default).
    ``bias_k``/``bias_v`` append one learned key/value position, ``add_zero_attn`` one of
    zeros; ``use_separate_proj_weight`` projects with q/k/v_proj_weight (keys and values
    may then have their own sizes)."""
    from . import linear, pad
    batched = _check_inputs(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    # with only the causal hint torch trusts it alone: attn_mask is neither checked nor used
    causal_only = is_causal and key_padding_mask is None and not need_weights
    masks = _canonical_masks(key_padding_mask, None if causal_only else attn_mask, query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    key_padding_mask, attn_mask = masks
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight and key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                             f"value's {value.shape[:2]}")
    if not use_separate_proj_weight and key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias,
                             (q_proj_weight, k_proj_weight, v_proj_weight)
                             if use_separate_proj_weight else None)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is "
                                   f"{attn_mask.shape}, but should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None else
                             "bias_v is set but bias_k is None")
    if bias_k is not None:
        for name, t in (('key', static_k), ('value', static_v)):
            if t is not None:
                raise AssertionError(f"bias cannot be added to static {name}.")
        k = _shape.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _shape.cat([v, bias_v.repeat(1, bsz, 1)])
    heads = bsz * num_heads
    q = q.reshape(tgt_len, heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], heads, head_dim).transpose(0, 1) if static_k is None
         else _static(static_k, 'static_k', heads, head_dim))
    v = (v.reshape(v.shape[0], heads, head_dim).transpose(0, 1) if static_v is None
         else _static(static_v, 'static_v', heads, head_dim))
    if add_zero_attn:
        zeros = _creation.zeros(heads, 1, head_dim, dtype=k.dtype, device=k.device)
        k, v = _shape.cat([k, zeros], 1), _shape.cat([v, zeros], 1)
    # the appended key positions (bias_k, zeros) stay visible under both masks
    added = (bias_k is not None) + bool(add_zero_attn)
    if added:
        attn_mask, key_padding_mask = (None if m is None else pad(m, (0, added))
                                       for m in (attn_mask, key_padding_mask))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        for i, want in enumerate((bsz, src_len)):
            if key_padding_mask.shape[i] != want:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {want}, but "
                                     f"got {key_padding_mask.shape[i]}")
        pad_mask = key_padding_mask.view(bsz, 1, 1, src_len)
        pad_mask = pad_mask.expand(-1, num_heads, -1, -1).reshape(heads, 1, src_len)
        attn_mask = pad_mask if attn_mask is None else attn_mask + pad_mask
    out, weights = _attend(q, k, v, attn_mask, dropout_p if training else 0.0, need_weights,
                           causal_only, bsz, num_heads)
    out = linear(out.reshape(tgt_len * bsz, embed_dim), out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[-1])   # (no -1: an empty batch leaves it open)
    if not batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(1)
    return out, (weights if batched else weights.squeeze(0))
