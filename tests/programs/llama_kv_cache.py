"""A Llama-style decoder as written in minimal reference code: nn.RMSNorm, rotary position
embeddings through torch.polar / view_as_complex / view_as_real, grouped-query attention
(repeat_interleave of key/value heads), a SwiGLU MLP, a preallocated KV cache filled by
slice assignment under torch.inference_mode(), and checks that cached incremental decoding
matches the full causal forward; top-p filtering with sort/cumsum/scatter."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(7)
DIM, HEADS, KV_HEADS, VOCAB, MAX_LEN = 16, 4, 2, 20, 12
HEAD_DIM = DIM // HEADS


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(DIM, HEADS * HEAD_DIM, bias=False)
        self.wk = nn.Linear(DIM, KV_HEADS * HEAD_DIM, bias=False)
        self.wv = nn.Linear(DIM, KV_HEADS * HEAD_DIM, bias=False)
        self.wo = nn.Linear(HEADS * HEAD_DIM, DIM, bias=False)
        self.register_buffer('cache_k', torch.zeros(2, MAX_LEN, KV_HEADS, HEAD_DIM), persistent=False)
        self.register_buffer('cache_v', torch.zeros(2, MAX_LEN, KV_HEADS, HEAD_DIM), persistent=False)

    def forward(self, x, start_pos, freqs_cis, mask, use_cache):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, HEADS, HEAD_DIM)
        xk = self.wk(x).view(bsz, seqlen, KV_HEADS, HEAD_DIM)
        xv = self.wv(x).view(bsz, seqlen, KV_HEADS, HEAD_DIM)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis)
        if use_cache:
            self.cache_k[:bsz, start_pos:start_pos + seqlen] = xk
            self.cache_v[:bsz, start_pos:start_pos + seqlen] = xv
            keys = self.cache_k[:bsz, :start_pos + seqlen]
            values = self.cache_v[:bsz, :start_pos + seqlen]
        else:
            keys, values = xk, xv
        keys = keys.repeat_interleave(HEADS // KV_HEADS, dim=2)
        values = values.repeat_interleave(HEADS // KV_HEADS, dim=2)
        q, k, v = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(HEAD_DIM)
        if mask is not None:
            scores = scores + mask
        out = torch.matmul(F.softmax(scores.float(), dim=-1).type_as(q), v)
        return self.wo(out.transpose(1, 2).contiguous().view(bsz, seqlen, -1))


class FeedForward(nn.Module):
    def __init__(self, hidden=40):
        super().__init__()
        self.w1 = nn.Linear(DIM, hidden, bias=False)
        self.w2 = nn.Linear(hidden, DIM, bias=False)
        self.w3 = nn.Linear(DIM, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention_norm = nn.RMSNorm(DIM, eps=1e-5)
        self.attention = Attention()
        self.ffn_norm = nn.RMSNorm(DIM, eps=1e-5)
        self.feed_forward = FeedForward()

    def forward(self, x, start_pos, freqs_cis, mask, use_cache):
        h = x + self.attention(self.attention_norm(x), start_pos, freqs_cis, mask, use_cache)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        self.tok_embeddings = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList([Block() for _ in range(n_layers)])
        self.norm = nn.RMSNorm(DIM, eps=1e-5)
        self.output = nn.Linear(DIM, VOCAB, bias=False)
        self.freqs_cis = precompute_freqs_cis(HEAD_DIM, MAX_LEN * 2)

    def forward(self, tokens, start_pos=0, use_cache=False):
        _, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        freqs_cis = self.freqs_cis[start_pos:start_pos + seqlen]
        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float('-inf'))
            mask = torch.triu(mask, diagonal=1)
            mask = torch.hstack([torch.zeros((seqlen, start_pos)), mask]).type_as(h)
        for layer in self.layers:
            h = layer(h, start_pos, freqs_cis, mask, use_cache)
        return self.output(self.norm(h)).float()


model = Transformer()
with torch.no_grad():
    for name, p in model.named_parameters():
        if 'norm' in name:
            p.copy_(torch.from_numpy(1 + 0.1 * rng.normal(size=p.shape)))
        else:
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape)))
print("freqs_cis", tuple(model.freqs_cis.shape), model.freqs_cis.dtype,
      [round(v, 4) for v in torch.view_as_real(model.freqs_cis[3, :2]).flatten().tolist()])

tokens = torch.from_numpy(rng.integers(0, VOCAB, size=(2, 8)))
targets = torch.roll(tokens, -1, dims=1)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1)
for step in range(4):
    logits = model(tokens)
    loss = F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")

with torch.inference_mode():
    full = model(tokens)
    prompt = tokens[:, :5]
    step_logits = [model(prompt, 0, use_cache=True)[:, -1]]
    for pos in range(5, 8):
        step_logits.append(model(tokens[:, pos:pos + 1], pos, use_cache=True)[:, -1])
    cached = torch.stack(step_logits, 1)
    print("cache matches full forward", torch.allclose(cached, full[:, 4:8], atol=1e-4),
          "inference tensor", cached.is_inference(), "requires_grad", cached.requires_grad)
    print("last logits", [round(v, 3) for v in cached[0, -1, :5].tolist()])


def top_p_filter(logits, p):
    sorted_logits, sorted_idx = torch.sort(logits, descending=True)
    cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
    remove = cum - F.softmax(sorted_logits, dim=-1) > p
    sorted_logits = sorted_logits.masked_fill(remove, float('-inf'))
    return torch.full_like(logits, float('-inf')).scatter(-1, sorted_idx, sorted_logits)


filtered = top_p_filter(cached[:, -1], 0.8)
probs = F.softmax(filtered, dim=-1)
print("top-p kept", torch.isfinite(filtered).sum(-1).tolist(), "probs sum",
      [round(v, 4) for v in probs.sum(-1).tolist()])
sample = torch.multinomial(probs, num_samples=1, generator=torch.Generator().manual_seed(0))
print("sample", tuple(sample.shape), "in kept set", bool(torch.isfinite(filtered.gather(1, sample)).all()))
rms = nn.RMSNorm(DIM)
x = torch.from_numpy(rng.normal(size=(3, DIM)).astype(np.float32))
print("rms_norm", torch.allclose(rms(x), x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + torch.finfo(x.dtype).eps)),
      "F.rms_norm", torch.allclose(F.rms_norm(x, (DIM,)), rms(x)))
