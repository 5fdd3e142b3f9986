"""A seq2seq model that learns to reverse digit sequences: a bidirectional GRU encoder over
packed variable-length inputs, an LSTMCell decoder with additive (Bahdanau) attention and
teacher forcing, gradient accumulation over micro-batches, OneCycleLR, and a bfloat16
autocast('cpu') evaluation pass with torch.amp.GradScaler (disabled off-GPU, as a script
written for both devices has it)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

rng = np.random.default_rng(3)
PAD, SOS, EOS, VOCAB, H = 0, 1, 2, 8, 12


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 8, padding_idx=PAD)
        self.rnn = nn.GRU(8, H, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * H, H)

    def forward(self, src, lengths):
        packed = pack_padded_sequence(self.emb(src), lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        out, h = self.rnn(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=src.size(1))
        h = torch.tanh(self.bridge(torch.cat([h[-2], h[-1]], dim=-1)))
        return out, h


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.W_q = nn.Linear(H, H, bias=False)
        self.W_k = nn.Linear(2 * H, H, bias=False)
        self.v = nn.Linear(H, 1, bias=False)

    def forward(self, query, keys, mask):
        scores = self.v(torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))).squeeze(-1)
        scores = scores.masked_fill(~mask, -1e9)
        weights = F.softmax(scores, dim=-1)
        return torch.bmm(weights.unsqueeze(1), keys).squeeze(1), weights


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 8)
        self.attn = Attention()
        self.cell = nn.LSTMCell(8 + 2 * H, H)
        self.out = nn.Linear(H + 2 * H, VOCAB)

    def forward(self, enc_out, h, mask, targets=None, max_len=None, teacher=None):
        b = enc_out.size(0)
        c = torch.zeros_like(h)
        tok = torch.full((b,), SOS, dtype=torch.long)
        steps = targets.size(1) if targets is not None else max_len
        logits, attns = [], []
        for t in range(steps):
            ctx, w = self.attn(h, enc_out, mask)
            h, c = self.cell(torch.cat([self.emb(tok), ctx], dim=-1), (h, c))
            step_logits = self.out(torch.cat([h, ctx], dim=-1))
            logits.append(step_logits)
            attns.append(w)
            use_teacher = targets is not None and teacher[t]
            tok = targets[:, t] if use_teacher else step_logits.argmax(-1)
        return torch.stack(logits, 1), torch.stack(attns, 1)


def make_batch(n):
    lengths = rng.integers(2, 6, size=n)
    srcs = [torch.from_numpy(rng.integers(3, VOCAB, size=k)) for k in lengths]
    tgts = [torch.cat([s.flip(0), torch.tensor([EOS])]) for s in srcs]
    return (pad_sequence(srcs, batch_first=True, padding_value=PAD), torch.from_numpy(lengths),
            pad_sequence(tgts, batch_first=True, padding_value=-100))


encoder, decoder = Encoder(), Decoder()
params = list(encoder.parameters()) + list(decoder.parameters())
with torch.no_grad():
    for p in params:
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, size=p.shape)))
optimizer = torch.optim.Adam(params, lr=1e-2)
accum, epochs, micro = 2, 5, 2
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.03, total_steps=epochs * micro // accum,
                                                pct_start=0.3, anneal_strategy='cos')
scaler = torch.amp.GradScaler('cuda', enabled=torch.cuda.is_available())
batches = [make_batch(6) for _ in range(micro)]

for epoch in range(epochs):
    total = 0.0
    for i, (src, lengths, tgt) in enumerate(batches):
        mask = src != PAD
        enc_out, h = encoder(src, lengths)
        teacher = rng.random(tgt.size(1)) < 0.5
        logits, _ = decoder(enc_out, h, mask, targets=tgt.clamp(min=0), teacher=teacher)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1), ignore_index=-100)
        scaler.scale(loss / accum).backward()
        total += loss.item()
        if (i + 1) % accum == 0:
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(params, 5.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            scheduler.step()
    print(f"epoch {epoch} loss {total / micro:.4f} lr {scheduler.get_last_lr()[0]:.6f} "
          f"momentum {optimizer.param_groups[0]['betas'][0]:.4f}")

src, lengths, tgt = batches[0]
with torch.no_grad():
    enc_out, h = encoder(src, lengths)
    logits, attn = decoder(enc_out, h, src != PAD, max_len=tgt.size(1))
    print("attn", tuple(attn.shape), "no weight on padding",
          bool((attn.masked_select(~(src != PAD)[:, None, :].expand_as(attn)) < 1e-6).all()))
    with torch.autocast('cpu', dtype=torch.bfloat16):
        enc_bf, h_bf = encoder(src, lengths)
        proj = decoder.out(torch.cat([h_bf, enc_bf[:, 0]], dim=-1))
        print("autocast", torch.is_autocast_enabled('cpu'), proj.dtype, h_bf.dtype,
              torch.get_autocast_dtype('cpu'))
    print("bf16 close to fp32", torch.allclose(proj.float(),
                                                decoder.out(torch.cat([h, enc_out[:, 0]], -1)),
                                                atol=0.1))
print("scaler enabled", scaler.is_enabled(), "scale", scaler.get_scale())
