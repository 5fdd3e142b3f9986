"""A BERT-style masked-language-model step: token + position + segment embeddings, encoder
layers whose self-attention takes a padding mask (masked_fill with finfo.min), one layer
through F.scaled_dot_product_attention (attn_mask, then is_causal) and one through
nn.MultiheadAttention(key_padding_mask=...), GELU(approximate='tanh'), CrossEntropyLoss with
ignore_index=-100 and label_smoothing, clip_grad_norm_ and a linear warm-up/decay LambdaLR."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(23)
VOCAB, HIDDEN, HEADS, MAXLEN, PAD, MASK = 30, 16, 4, 10, 0, 1


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)

    def forward(self, x, attention_mask=None, causal=False, manual=False):
        b, t, h = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.heads, h // self.heads).transpose(1, 2) for z in (q, k, v))
        if manual:
            scores = q @ k.transpose(-2, -1) / math.sqrt(h // self.heads)
            mask = attention_mask[:, None, None, :] == 0
            scores = scores.masked_fill(mask, torch.finfo(scores.dtype).min)
            ctx = scores.softmax(dim=-1) @ v
        elif causal:
            ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            bias = torch.zeros(b, 1, 1, t).masked_fill(attention_mask[:, None, None, :] == 0,
                                                        float('-inf'))
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        return self.out(ctx.transpose(1, 2).reshape(b, t, h))


class Layer(nn.Module):
    def __init__(self, hidden, heads, use_mha=False):
        super().__init__()
        self.use_mha = use_mha
        if use_mha:
            self.attn = nn.MultiheadAttention(hidden, heads, batch_first=True)
        else:
            self.attn = SelfAttention(hidden, heads)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(approximate='tanh'),
                                 nn.Linear(4 * hidden, hidden))
        self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x, attention_mask, **kw):
        if self.use_mha:
            a, weights = self.attn(x, x, x, key_padding_mask=attention_mask == 0,
                                   need_weights=True, average_attn_weights=True)
            self.last_weights = weights
        else:
            a = self.attn(x, attention_mask, **kw)
        x = self.ln1(x + a)
        return self.ln2(x + self.ffn(x))


class MiniBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, HIDDEN, padding_idx=PAD)
        self.pos = nn.Embedding(MAXLEN, HIDDEN)
        self.seg = nn.Embedding(2, HIDDEN)
        self.ln = nn.LayerNorm(HIDDEN)
        self.layers = nn.ModuleList([Layer(HIDDEN, HEADS), Layer(HIDDEN, HEADS, use_mha=True)])
        self.head = nn.Linear(HIDDEN, VOCAB)
        self.head.weight = self.tok.weight  # tied input/output embeddings
        self.register_buffer('position_ids', torch.arange(MAXLEN).expand((1, -1)),
                             persistent=False)

    def forward(self, ids, segments, attention_mask, manual=False):
        pos = self.position_ids[:, :ids.size(1)]
        x = self.ln(self.tok(ids) + self.pos(pos) + self.seg(segments))
        x = self.layers[0](x, attention_mask, manual=manual)
        x = self.layers[1](x, attention_mask)
        return self.head(x)


model = MiniBert()
with torch.no_grad():
    for name, p in model.named_parameters():
        if name.endswith('bias'):
            p.zero_()
        elif 'ln' in name:
            p.fill_(1.0)
        else:
            p.copy_(torch.from_numpy(rng.normal(0, 0.2, size=p.shape).astype(np.float32)))
    model.tok.weight[PAD].zero_()

lengths = [10, 7, 5, 8]
ids = torch.full((4, MAXLEN), PAD, dtype=torch.long)
segments = torch.zeros(4, MAXLEN, dtype=torch.long)
for i, n in enumerate(lengths):
    ids[i, :n] = torch.from_numpy(rng.integers(2, VOCAB, size=n))
    segments[i, n // 2:n] = 1
attention_mask = (ids != PAD).long()
labels = torch.full_like(ids, -100)
chosen = torch.from_numpy(rng.random(ids.shape) < 0.3) & attention_mask.bool()
labels[chosen] = ids[chosen]
inputs = ids.masked_fill(chosen, MASK)
print("masked tokens", int(chosen.sum()), "per row", chosen.sum(dim=1).tolist())

with torch.no_grad():
    a = model(inputs, segments, attention_mask)
    b = model(inputs, segments, attention_mask, manual=True)
    print("sdpa matches manual attention", torch.allclose(a, b, atol=1e-5))
    q = torch.from_numpy(rng.normal(size=(2, 4, 6, 8)).astype(np.float32))
    causal = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    tri = torch.ones(6, 6, dtype=torch.bool).tril()
    print("is_causal == bool tril mask",
          torch.allclose(causal, F.scaled_dot_product_attention(q, q, q, attn_mask=tri),
                         atol=1e-6))

criterion = nn.CrossEntropyLoss(ignore_index=-100, label_smoothing=0.1)
no_decay = ['bias', 'ln']
groups = [
    {'params': [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)],
     'weight_decay': 0.01},
    {'params': [p for n, p in model.named_parameters() if any(k in n for k in no_decay)],
     'weight_decay': 0.0},
]
optimizer = torch.optim.AdamW(groups, lr=5e-3)
warmup, total = 2, 8


def lr_lambda(step):
    if step < warmup:
        return float(step + 1) / float(max(1, warmup))
    return max(0.0, float(total - step) / float(max(1, total - warmup)))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
model.train()
for step in range(total):
    logits = model(inputs, segments, attention_mask)
    loss = criterion(logits.view(-1, VOCAB), labels.view(-1))
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    print(f"step {step} loss {loss.item():.4f} grad_norm {norm.item():.4f} "
          f"lr {scheduler.get_last_lr()[0]:.5f}")

w = model.layers[1].last_weights
print("mha weights", tuple(w.shape), "padded keys get zero",
      bool((w[2, :, 5:] == 0).all()), "rows sum to 1", torch.allclose(w.sum(-1), torch.ones(4, 10)))
print("tied", model.head.weight is model.tok.weight, "pad row grad-free",
      float(model.tok.weight[PAD].abs().sum()) < 0.05)
print("state_dict keys", len(model.state_dict()), "position_ids saved",
      'position_ids' in model.state_dict())
