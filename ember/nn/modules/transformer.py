"""MultiheadAttention and the Transformer family: encoder and decoder layers, their stacks,
and the whole Transformer."""
import copy
import warnings

import numpy as np

from ... import _ops
from ...autograd.grad_mode import is_grad_enabled
from .. import functional as F, init
from ..functional._attention import _canonical_mask, _canonical_masks
from ..parameter import Parameter
from .activation import GELU, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear, NonDynamicallyQuantizableLinear
from .module import Module
from .normalization import LayerNorm

__all__ = ['MultiheadAttention', 'TransformerEncoderLayer', 'TransformerEncoder',
           'TransformerDecoderLayer', 'TransformerDecoder', 'Transformer']


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads over ``embed_dim`` features: input projections
    (xavier-uniform, zero bias), scaled dot-product attention per head, an output
    projection. Inputs are (L, N, E), or (N, L, E) with ``batch_first``. Keys and values
    of other sizes (``kdim``, ``vdim``) get separate ``q/k/v_proj_weight`` instead of the
    packed ``in_proj_weight``; ``add_bias_kv`` appends a learned key/value position
    (``bias_k``, ``bias_v``), ``add_zero_attn`` one of zeros."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == embed_dim, "embed_dim must be divisible by num_heads"

        def param(*shape):
            return Parameter(_ops.creation.empty(*shape, device=device, dtype=dtype))
        # registration order decides named_parameters/state_dict order: as torch
        separate = ('q_proj_weight', 'k_proj_weight', 'v_proj_weight')
        if self._qkv_same_embed_dim:
            self.in_proj_weight = param(3 * embed_dim, embed_dim)
            for name in separate:
                self.register_parameter(name, None)
        else:
            for name, size in zip(separate, (embed_dim, self.kdim, self.vdim)):
                setattr(self, name, param(embed_dim, size))
            self.register_parameter('in_proj_weight', None)
        if bias:
            self.in_proj_bias = param(3 * embed_dim)
        else:
            self.register_parameter('in_proj_bias', None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k, self.bias_v = param(1, 1, embed_dim), param(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        for name in ('in_proj_weight', 'q_proj_weight', 'k_proj_weight', 'v_proj_weight'):
            if getattr(self, name) is not None:
                init.xavier_uniform_(getattr(self, name))
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Returns ``(output, weights)``; weights are None unless ``need_weights``."""
        key_padding_mask, attn_mask = _canonical_masks(key_padding_mask, attn_mask,
                                                       query.dtype)
        batch_first = self.batch_first and query.dim() == 3
        if batch_first:
            same_kv = key is value
            if query is key:
                query = key = query.transpose(1, 0)
            else:
                query, key = query.transpose(1, 0), key.transpose(1, 0)
            value = key if same_kv else value.transpose(1, 0)
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        return (out.transpose(1, 0) if batch_first else out), weights


def _add_blocks(layer, blocks, d_model, nhead, dim_feedforward, dropout, layer_norm_eps,
                batch_first, norm_first, bias, kw):
    """The submodules of an encoder (2 blocks) or decoder (3 blocks: with cross-attention
    ``multihead_attn``) layer, registered in torch's order (which orders the state_dict):
    attention, the feed-forward linears and dropout, then a LayerNorm and a dropout per
    block."""
    def attention():
        return MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                  batch_first=batch_first, **kw)
    layer.self_attn = attention()
    if blocks == 3:
        layer.multihead_attn = attention()
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
    layer.norm_first = norm_first
    for i in range(1, blocks + 1):
        setattr(layer, f'norm{i}', LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
    for i in range(1, blocks + 1):
        setattr(layer, f'dropout{i}', Dropout(dropout))


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and
    LayerNorm (after each block, or before with ``norm_first``)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        _add_blocks(self, 2, d_model, nhead, dim_feedforward, dropout, layer_norm_eps,
                    batch_first, norm_first, bias, dict(device=device, dtype=dtype))
        activation = _activation_fn(activation)
        # which fused kernel torch's inference path would pick (0: none); TransformerEncoder
        # reads it to decide whether nested tensors apply
        self.activation_relu_or_gelu = (
            1 if activation is F.relu or isinstance(activation, ReLU) else
            2 if activation is F.gelu or isinstance(activation, GELU) else 0)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """One encoder layer over ``src``."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, 'src_key_padding_mask',
                                               src.dtype, src_mask, 'src_mask')
        src_mask = _canonical_mask(src_mask, 'src_mask', src.dtype)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        if (src_mask is not None or src_key_padding_mask is not None) and \
                _takes_fast_path(self, src):
            # torch's fused kernel gives NaN where a query may attend to no key (the slow
            # path attends to nothing there): the same NaN rows here
            dead = _unattended_queries(src, src_mask, src_key_padding_mask,
                                       self.self_attn.num_heads)
            if dead.any():
                x = x.masked_fill(_ops.creation.tensor(dead)[..., None], float('nan'))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _takes_fast_path(layer, src):
    """Whether torch would run encoder ``layer`` through its fused inference kernel: in
    eval mode without gradients, batch first, with torch's default projections, relu or
    gelu, one LayerNorm eps, an even number of heads, no hooks, no autocast, no
    ``__torch_function__`` operands, and ``backends.mha``'s switch on."""
    from ... import backends, is_autocast_enabled
    from ...overrides import has_torch_function
    attn = layer.self_attn
    if not backends.mha.get_fastpath_enabled() or src.dim() != 3 or layer.training or \
            not attn.batch_first or attn.in_proj_bias is None or \
            not attn._qkv_same_embed_dim or not layer.activation_relu_or_gelu or \
            layer.norm1.eps != layer.norm2.eps or attn.num_heads % 2 == 1 or \
            is_autocast_enabled():
        return False
    if any(m._forward_hooks or m._forward_pre_hooks for m in layer.modules()):
        return False
    args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
            attn.out_proj.bias, layer.norm1.weight, layer.norm1.bias, layer.norm2.weight,
            layer.norm2.bias, layer.linear1.weight, layer.linear1.bias, layer.linear2.weight,
            layer.linear2.bias)
    if has_torch_function(args):
        return False
    return not (is_grad_enabled() and any(t.requires_grad for t in args))


def _unattended_queries(src, attn_mask, key_padding_mask, num_heads):
    """An (N, S) bool array: the queries of batch-first ``src`` that every key is masked
    from in some head. The masks are canonical (float): the fused kernel counts any nonzero
    entry as masked (it converts them to bool)."""
    n, s = src.shape[0], src.shape[1]
    masked = np.zeros((n, 1, s, s), bool)
    if key_padding_mask is not None:
        masked = masked | (key_padding_mask._data != 0).reshape(n, 1, 1, s)
    if attn_mask is not None:
        am = attn_mask._data != 0
        masked = masked | (am if am.ndim == 2 else am.reshape(n, num_heads, s, s))
    return masked.all(-1).any(1)


def _activation_fn(activation):
    """``activation`` as a callable: 'relu' and 'gelu' by name, any callable as given."""
    if not isinstance(activation, str):
        return activation
    if activation not in ('relu', 'gelu'):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return F.relu if activation == 'relu' else F.gelu


_get_activation_fn = _activation_fn  # (torch's name, which model code imports)


def _clones(module, n):
    """``n`` independent deep copies of ``module`` (each with its own parameters)."""
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _square_subsequent_mask(sz, device=None, dtype=None):
    """A (sz, sz) additive mask: -inf above the diagonal (future positions), 0 elsewhere."""
    return _ops.creation.full((sz, sz), float('-inf'), dtype=dtype, device=device).triu(1)


def _seq_len(src, batch_first):
    return src.shape[1 if src.dim() == 3 and batch_first else 0]


def _detect_is_causal_mask(mask, is_causal, size):
    """``is_causal`` when given; if None, whether ``mask`` is the square causal mask of
    ``size`` (in its dtype)."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = _square_subsequent_mask(size, dtype=mask.dtype)
    return tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())


def _why_no_nested_tensor(layer):
    """Why torch's encoder could not run ``layer`` on nested tensors ('' when it could), in
    torch's words (they make its warning)."""
    name = 'encoder_layer'
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    for failed, why in (
            (layer.norm_first, "norm_first was True"),
            (not attn.batch_first, "self_attn.batch_first was not True(use batch_first for "
                                   "better inference performance)"),
            (not attn._qkv_same_embed_dim, "self_attn._qkv_same_embed_dim was not True"),
            (attn.in_proj_bias is None, "self_attn was passed bias=False"),
            (not layer.activation_relu_or_gelu, "activation_relu_or_gelu was not True"),
            (layer.norm1.eps != layer.norm2.eps, f"norm1.eps was not equal to {name}.norm2.eps"),
            (attn.num_heads % 2 == 1, "self_attn.num_heads is odd")):
        if failed:
            return f"{name}.{why}"
    return ''


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (``layers.0``, ``layers.1``, ...) applied in
    turn, then the optional ``norm``.

    torch runs padded batches as nested tensors in inference (eval, no gradient needed, a
    ``src_key_padding_mask`` and no ``mask``); ember has none, but gives the same result:
    zeros at the padded positions (before ``norm``), as torch's nested path does."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """The layers over ``src``; ``is_causal=None`` detects a causal ``mask``."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, 'src_key_padding_mask',
                                               src.dtype, mask, 'mask')
        mask = _canonical_mask(mask, 'mask', src.dtype)
        first = self.layers[0]
        is_causal = _detect_is_causal_mask(mask, is_causal,
                                           _seq_len(src, first.self_attn.batch_first))
        dropped = self._nested_padding(src, mask, src_key_padding_mask)
        if dropped is not None:
            src_key_padding_mask = _canonical_mask(dropped, 'src_key_padding_mask', src.dtype)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        if dropped is not None:  # (nested tensors need batch_first: (N, S, E) here)
            output = output.masked_fill(dropped[..., None], 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_padding(self, src, mask, padding):
        """Where torch's nested-tensor path applies, the (N, S) bool mask of the positions it
        leaves out: each row keeps as many leading positions as its padding mask keeps (the
        same positions for a left-aligned mask, which ``mask_check`` demands). Else None."""
        first = self.layers[0]
        if (not getattr(self, 'use_nested_tensor', False) or first.training or src.dim() != 3
                or padding is None or mask is not None):
            return None
        keep = padding._data == 0
        kept = keep.sum(1)
        left_aligned = _ops.creation.arange(keep.shape[1])._data[None, :] < kept[:, None]
        if self.mask_check and (left_aligned != keep).any():
            return None
        tensors = (src, first.self_attn.in_proj_weight, first.self_attn.in_proj_bias,
                   first.self_attn.out_proj.weight, first.self_attn.out_proj.bias,
                   first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias,
                   first.linear1.weight, first.linear1.bias, first.linear2.weight,
                   first.linear2.bias)
        if is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors):
            return None
        return _ops.creation.tensor(~left_aligned)


class TransformerDecoderLayer(Module):
    """Self-attention over ``tgt``, attention from ``tgt`` to ``memory``, then a
    feed-forward block; each with a residual connection and LayerNorm (after each block,
    or before with ``norm_first``)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        _add_blocks(self, 3, d_model, nhead, dim_feedforward, dropout, layer_norm_eps,
                    batch_first, norm_first, bias, dict(device=device, dtype=dtype))
        self.activation = _activation_fn(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """One decoder layer over ``tgt`` attending to ``memory``."""
        x = tgt
        sa = (tgt_mask, tgt_key_padding_mask, tgt_is_causal)
        ca = (memory, memory_mask, memory_key_padding_mask, memory_is_causal)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), *sa)
            x = x + self._mha_block(self.norm2(x), *ca)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, *sa))
        x = self.norm2(x + self._mha_block(x, *ca))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` (``layers.0``, ...) applied in turn, each
    attending to ``memory``, then the optional ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """The layers over ``tgt``; ``tgt_is_causal=None`` detects a causal ``tgt_mask``."""
        tgt_is_causal = _detect_is_causal_mask(
            tgt_mask, tgt_is_causal, _seq_len(tgt, self.layers[0].self_attn.batch_first))
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """An encoder (``num_encoder_layers`` layers and a final LayerNorm) over ``src`` and a
    decoder (``num_decoder_layers`` layers and a final LayerNorm) over ``tgt`` attending to
    the encoder's output; ``custom_encoder``/``custom_decoder`` replace either. Every
    parameter of more than one dim is re-initialised xavier-uniform."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer_args, **kw), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer_args, **kw), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """The decoder's output for ``tgt`` given the encoder's output for ``src``."""
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A (sz, sz) float mask: -inf above the diagonal (future positions), 0 elsewhere."""
        return _square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
