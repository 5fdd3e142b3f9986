"""A small nn.Transformer translation model: src/tgt key padding masks, the causal mask from
nn.Transformer.generate_square_subsequent_mask, norm_first layers with GELU, a learned
positional embedding, label-smoothed loss, Adam with the inverse-square-root ("Noam")
schedule, and greedy decoding with torch.no_grad() growing the target one token a step."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(404)
PAD, BOS, EOS, VOCAB, D = 0, 1, 2, 12, 16


class Seq2SeqTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = nn.Parameter(torch.zeros(1, 16, D))
        self.transformer = nn.Transformer(d_model=D, nhead=2, num_encoder_layers=1,
                                          num_decoder_layers=1, dim_feedforward=32,
                                          dropout=0.0, activation='gelu', batch_first=True,
                                          norm_first=True)
        self.generator = nn.Linear(D, VOCAB)

    def embed(self, emb, x):
        return emb(x) * math.sqrt(D) + self.pos[:, :x.size(1)]

    def forward(self, src, tgt):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        out = self.transformer(self.embed(self.src_emb, src), self.embed(self.tgt_emb, tgt),
                               tgt_mask=tgt_mask, src_key_padding_mask=src == PAD,
                               tgt_key_padding_mask=tgt == PAD, memory_key_padding_mask=src == PAD,
                               tgt_is_causal=True)
        return self.generator(out)

    @torch.no_grad()
    def greedy(self, src, max_len=8):
        memory = self.transformer.encoder(self.embed(self.src_emb, src),
                                          src_key_padding_mask=src == PAD)
        ys = torch.full((src.size(0), 1), BOS, dtype=torch.long)
        done = torch.zeros(src.size(0), dtype=torch.bool)
        for _ in range(max_len - 1):
            mask = nn.Transformer.generate_square_subsequent_mask(ys.size(1))
            out = self.transformer.decoder(self.embed(self.tgt_emb, ys), memory, tgt_mask=mask,
                                           memory_key_padding_mask=src == PAD)
            nxt = self.generator(out[:, -1]).argmax(-1)
            nxt = nxt.masked_fill(done, PAD)
            ys = torch.cat([ys, nxt[:, None]], dim=1)
            done |= nxt == EOS
            if bool(done.all()):
                break
        return ys


def batch(n):
    srcs, tgts = [], []
    for _ in range(n):
        k = int(rng.integers(2, 6))
        s = rng.integers(3, VOCAB, size=k)
        srcs.append(torch.from_numpy(s))
        tgts.append(torch.from_numpy(np.concatenate([[BOS], (s - 3 + 1) % (VOCAB - 3) + 3, [EOS]])))
    pad = nn.utils.rnn.pad_sequence
    return pad(srcs, batch_first=True, padding_value=PAD), pad(tgts, batch_first=True, padding_value=PAD)


model = Seq2SeqTransformer()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() > 1:
            p.copy_(torch.from_numpy(rng.normal(0, 1 / math.sqrt(p.shape[-1]), size=p.shape)))
        elif 'norm' not in name:
            p.zero_()
    model.src_emb.weight[PAD].zero_()
    model.tgt_emb.weight[PAD].zero_()
src, tgt = batch(8)
print("src", tuple(src.shape), "tgt", tuple(tgt.shape), "mask row 2",
      nn.Transformer.generate_square_subsequent_mask(4)[2].tolist())
optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
warmup = 4
noam = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: D ** -0.5 * min((s + 1) ** -0.5, (s + 1) * warmup ** -1.5))
criterion = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
for step in range(10):
    logits = model(src, tgt[:, :-1])
    loss = criterion(logits.reshape(-1, VOCAB), tgt[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    noam.step()
    print(f"step {step} loss {loss.item():.4f} lr {noam.get_last_lr()[0]:.5f}")

model.eval()
out = model.greedy(src[:3])
print("greedy", tuple(out.shape), "starts with BOS", bool((out[:, 0] == BOS).all()))
with torch.no_grad():
    logits = model(src, tgt[:, :-1])
    acc = (logits.argmax(-1) == tgt[:, 1:])[tgt[:, 1:] != PAD].float().mean()
print("teacher-forced accuracy", f"{acc.item():.3f}")
enc_layer = model.transformer.encoder.layers[0]
print("layer", type(enc_layer).__name__, enc_layer.norm_first, type(enc_layer.activation).__name__
      if not callable(enc_layer.activation) or isinstance(enc_layer.activation, nn.Module)
      else enc_layer.activation.__name__)
