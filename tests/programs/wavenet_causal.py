"""A WaveNet-style autoregressive model on a quantised waveform: mu-law companding
(torch.sign, log1p, and the inverse with expm1-like pow), a causal Conv1d that left-pads
with F.pad, stacked dilated layers with gated tanh * sigmoid units, residual and skip 1x1
convolutions, the receptive field, cross-entropy over the quantisation classes (N, C, L
logits), and sample-by-sample greedy generation from a rolling input buffer."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(21)
Q = 16  # quantisation channels


def mu_law_encoding(x, quantization_channels):
    mu = quantization_channels - 1.0
    if not x.is_floating_point():
        x = x.to(torch.float)
    mu = torch.tensor(mu, dtype=x.dtype)
    x_mu = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / torch.log1p(mu)
    return ((x_mu + 1) / 2 * mu + 0.5).to(torch.int64)


def mu_law_decoding(x_mu, quantization_channels):
    mu = quantization_channels - 1.0
    if not x_mu.is_floating_point():
        x_mu = x_mu.to(torch.float)
    mu = torch.tensor(mu, dtype=x_mu.dtype)
    x = (x_mu / mu) * 2 - 1.0
    return torch.sign(x) * (torch.exp(torch.abs(x) * torch.log1p(mu)) - 1.0) / mu


class CausalConv1d(nn.Conv1d):
    def __init__(self, in_channels, out_channels, kernel_size, dilation=1, **kwargs):
        super().__init__(in_channels, out_channels, kernel_size, padding=0, dilation=dilation,
                         **kwargs)
        self.left_padding = dilation * (kernel_size - 1)

    def forward(self, x):
        return super().forward(F.pad(x, (self.left_padding, 0)))


class ResidualLayer(nn.Module):
    def __init__(self, residual_channels, skip_channels, dilation):
        super().__init__()
        self.dilated = CausalConv1d(residual_channels, 2 * residual_channels, 2, dilation=dilation)
        self.res = nn.Conv1d(residual_channels, residual_channels, 1)
        self.skip = nn.Conv1d(residual_channels, skip_channels, 1)

    def forward(self, x):
        filt, gate = self.dilated(x).chunk(2, dim=1)
        z = torch.tanh(filt) * torch.sigmoid(gate)
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, layers=6, stacks=1, residual_channels=8, skip_channels=16):
        super().__init__()
        self.embed = nn.Embedding(Q, residual_channels)
        dilations = [2 ** (i % layers) for i in range(layers * stacks)]
        self.layers = nn.ModuleList([ResidualLayer(residual_channels, skip_channels, d)
                                     for d in dilations])
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip_channels, skip_channels, 1),
                                 nn.ReLU(), nn.Conv1d(skip_channels, Q, 1))
        self.receptive_field = sum(dilations) + 1

    def forward(self, tokens):
        x = self.embed(tokens).transpose(1, 2)  # N, C, L
        skips = 0
        for layer in self.layers:
            x, s = layer(x)
            skips = skips + s
        return self.out(skips)


x = torch.linspace(-1, 1, 9)
enc = mu_law_encoding(x, Q)
print("mu-law", enc.tolist(), [round(v, 3) for v in mu_law_decoding(enc, Q).tolist()])

t = np.arange(4 * 96) / 16.0
wave = 0.8 * np.sin(2 * np.pi * t / 3.0) * np.cos(2 * np.pi * t / 17.0)
tokens = mu_law_encoding(torch.from_numpy(wave.astype(np.float32)), Q).view(4, 96)

model = WaveNet()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape).astype(np.float32)))
print("receptive field", model.receptive_field, "params", sum(p.numel() for p in model.parameters()))

# causality: changing a future sample leaves earlier outputs alone
with torch.no_grad():
    a = model(tokens[:1])
    changed = tokens[:1].clone()
    changed[0, 50] = (changed[0, 50] + 5) % Q
    b = model(changed)
    diff = (a - b).abs().amax(dim=1)[0]
print("causal", bool((diff[:50] == 0).all()), bool((diff[50:] > 0).any()))

optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(30):
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits, tokens[:, 1:])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step} loss {loss.item():.4f} bits/sample {loss.item() / math.log(2):.3f}")

model.eval()
with torch.no_grad():
    buf = tokens[:1, :model.receptive_field].clone()
    generated = []
    for _ in range(12):
        logits = model(buf)[:, :, -1]
        nxt = logits.argmax(dim=1, keepdim=True)
        generated.append(nxt.item())
        buf = torch.cat([buf[:, 1:], nxt], dim=1)
    acc = (model(tokens[:, :-1]).argmax(1) == tokens[:, 1:]).float().mean()
print("generated", generated)
print("teacher-forced acc", round(acc.item(), 4))
print("decoded", [round(v, 3) for v in mu_law_decoding(torch.tensor(generated[:4]), Q).tolist()])
