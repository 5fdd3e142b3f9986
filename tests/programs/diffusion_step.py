"""A DDPM-style diffusion model on 2-D points: a linear beta schedule, coefficients gathered
per sample, sinusoidal timestep embeddings, a GroupNorm/SiLU noise predictor, an EMA of the
weights (torch._foreach_mul_/_foreach_add_ and lerp_), and a torch.no_grad() sampling loop
driven by a seeded torch.Generator. The training noise comes from NumPy (so both frameworks
see the same); torch.randn_like and the Generator's stream differ between frameworks, so
only shapes and reproducibility are printed from those."""
import copy
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)
T = 50
betas = torch.linspace(1e-4, 0.05, T, dtype=torch.float64).float()
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
sqrt_ac = alphas_cumprod.sqrt()
sqrt_1m_ac = (1.0 - alphas_cumprod).sqrt()
posterior_var = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)


def extract(a, t, x_shape):
    """a[t] per sample, shaped to broadcast over x."""
    out = a.gather(-1, t)
    return out.reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))


def timestep_embedding(t, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Block(nn.Module):
    def __init__(self, dim, groups=4):
        super().__init__()
        self.norm = nn.GroupNorm(groups, dim)
        self.act = nn.SiLU()
        self.lin = nn.Linear(dim, dim)
        self.temb = nn.Linear(dim, dim)

    def forward(self, h, emb):
        return h + self.lin(self.act(self.norm(h))) + self.temb(F.silu(emb))


class Denoiser(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.dim = dim
        self.inp = nn.Linear(2, dim)
        self.time = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.blocks = nn.ModuleList([Block(dim), Block(dim)])
        self.out = nn.Sequential(nn.GroupNorm(4, dim), nn.SiLU(), nn.Linear(dim, 2))

    def forward(self, x, t):
        emb = self.time(timestep_embedding(t, self.dim))
        h = self.inp(x)
        for b in self.blocks:
            h = b(h, emb)
        return self.out(h)


model = Denoiser()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() == 2:
            p.copy_(torch.from_numpy(rng.normal(0, 1 / math.sqrt(p.shape[1]), size=p.shape)))
        elif 'norm' in name or name.startswith('out.0'):
            p.copy_(torch.from_numpy(1 + 0.1 * rng.normal(size=p.shape)) if name.endswith(
                'weight') else torch.from_numpy(0.1 * rng.normal(size=p.shape)))
        else:
            p.zero_()
ema = copy.deepcopy(model).requires_grad_(False)
ema_params = list(ema.parameters())

# two moons-ish data
angles = rng.uniform(0, math.pi, size=64)
data = np.stack([np.cos(angles), np.sin(angles)], 1) + rng.normal(0, 0.05, size=(64, 2))
data[32:] = data[32:] * [1, -1] + [1, 0.3]
x0 = torch.from_numpy(data.astype(np.float32))

optimizer = torch.optim.Adam(model.parameters(), lr=2e-3, betas=(0.9, 0.99))
decay = 0.9
for step in range(6):
    t = torch.from_numpy(rng.integers(0, T, size=64))
    noise = torch.from_numpy(rng.normal(size=(64, 2)).astype(np.float32))
    x_t = extract(sqrt_ac, t, x0.shape) * x0 + extract(sqrt_1m_ac, t, x0.shape) * noise
    loss = F.mse_loss(model(x_t, t), noise)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        params = [p.detach() for p in model.parameters()]
        if step % 2 == 0:
            torch._foreach_mul_(ema_params, decay)
            torch._foreach_add_(ema_params, params, alpha=1 - decay)
        else:
            for e, p in zip(ema_params, params):
                e.lerp_(p, 1 - decay)
    print(f"step {step} loss {loss.item():.5f}")

gap = sum(float((e - p).abs().max()) for e, p in zip(ema_params, model.parameters()))
print("ema differs from model", gap > 0, f"{gap:.5f}")
print("posterior_var[1:4]", [round(v, 7) for v in posterior_var[1:4].tolist()])


@torch.no_grad()
def sample(net, n, generator):
    x = torch.randn(n, 2, generator=generator)
    for i in reversed(range(T)):
        t = torch.full((n,), i, dtype=torch.long)
        eps = net(x, t)
        coef = extract(betas, t, x.shape) / extract(sqrt_1m_ac, t, x.shape)
        mean = (x - coef * eps) / extract(alphas, t, x.shape).sqrt()
        if i > 0:
            z = torch.randn(x.shape, generator=generator)
            x = mean + extract(posterior_var, t, x.shape).sqrt() * z
        else:
            x = mean
    return x


a = sample(ema, 8, torch.Generator().manual_seed(42))
b = sample(ema, 8, torch.Generator().manual_seed(42))
g = torch.Generator()
g.manual_seed(7)
state = g.get_state()
c1 = torch.randn(3, generator=g)
g.set_state(state)
print("samples", tuple(a.shape), a.dtype, "finite", bool(torch.isfinite(a).all()),
      "same seed same samples", torch.equal(a, b), "state replay", torch.equal(c1, torch.randn(3, generator=g)))
print("randn_like", tuple(torch.randn_like(x0).shape), "grad", model.training, ema.inp.weight.requires_grad)
