"""A tiny character-level GPT (nanoGPT's model and training loop, scaled down).

Causal self-attention with a registered tril mask, pre-LayerNorm blocks with a GELU MLP,
weight tying, AdamW with decay / no-decay parameter groups, gradient clipping, a cosine
learning-rate schedule, and greedy generation under torch.no_grad(). Weights are loaded
from a seeded NumPy source so that every framework starts from the same model.
"""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

text = ("First Citizen: Before we proceed any further, hear me speak. "
        "All: Speak, speak. First Citizen: You are all resolved rather to die than to famish? "
        "All: Resolved. resolved. ") * 4
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)

block_size, n_embd, n_head, n_layer, batch_size = 16, 32, 4, 2, 8


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                             .view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(n_embd, dim=2)
        k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
        q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
        v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                 nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            h=nn.ModuleList([Block() for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -block_size:])
            idx_next = torch.argmax(logits[:, -1, :], dim=-1, keepdim=True)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def load_numpy_weights(model, seed):
    rng = np.random.default_rng(seed)
    state = model.state_dict()
    for name, value in state.items():
        if name.endswith('.attn.bias'):  # the causal mask buffer
            continue
        shape = tuple(value.shape)
        if name.startswith('transformer.ln') or '.ln_' in name:
            arr = (1.0 if name.endswith('weight') else 0.0) + 0.02 * rng.standard_normal(shape)
        else:
            arr = 0.02 * rng.standard_normal(shape)
        state[name] = torch.from_numpy(arr.astype(np.float32))
    model.load_state_dict(state)


model = GPT(len(chars))
load_numpy_weights(model, 0)
print("number of parameters:", sum(p.numel() for p in model.parameters()))

decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
optimizer = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.1},
                               {'params': no_decay, 'weight_decay': 0.0}],
                              lr=3e-3, betas=(0.9, 0.95))
max_iters = 12


def get_lr(it):
    return 3e-3 * 0.5 * (1.0 + math.cos(math.pi * it / max_iters))


batch_rng = np.random.default_rng(1)
for it in range(max_iters):
    ix = batch_rng.integers(0, len(data) - block_size, size=batch_size)
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    for group in optimizer.param_groups:
        group['lr'] = get_lr(it)
    logits, loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    print(f"iter {it}: loss {loss.item():.4f}, grad norm {norm.item():.4f}")

model.eval()
context = torch.tensor([[stoi['F']]], dtype=torch.long)
print("sample:", repr(''.join(itos[i] for i in model.generate(context, 20)[0].tolist())))
