"""A RealNVP normalizing flow on two moons: affine coupling layers with alternating binary
masks (scale through tanh, log-determinant as a sum), a base MultivariateNormal, the change
of variables by hand, then the same flow expressed with torch.distributions transforms
(TransformedDistribution over AffineTransform / ComposeTransform / SigmoidTransform, with
log_abs_det_jacobian and inverse). Samples are drawn from NumPy noise pushed through the
inverse, so both frameworks draw the same."""
import numpy as np
import torch
import torch.nn as nn
from torch import distributions as D
from torch.distributions import transforms as T

rng = np.random.default_rng(99)


def make_moons(n):
    t = rng.uniform(0, np.pi, size=n)
    upper = np.stack([np.cos(t), np.sin(t)], 1)
    lower = np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1)
    pts = np.where((np.arange(n) % 2 == 0)[:, None], upper, lower)
    return (pts + 0.05 * rng.normal(size=pts.shape)).astype(np.float32)


class RealNVP(nn.Module):
    def __init__(self, nets, nett, mask, prior):
        super(RealNVP, self).__init__()
        self.prior = prior
        self.mask = nn.Parameter(mask, requires_grad=False)
        self.t = torch.nn.ModuleList([nett() for _ in range(len(mask))])
        self.s = torch.nn.ModuleList([nets() for _ in range(len(mask))])

    def g(self, z):
        x = z
        for i in range(len(self.t)):
            x_ = x * self.mask[i]
            s = self.s[i](x_) * (1 - self.mask[i])
            t = self.t[i](x_) * (1 - self.mask[i])
            x = x_ + (1 - self.mask[i]) * (x * torch.exp(s) + t)
        return x

    def f(self, x):
        log_det_J, z = x.new_zeros(x.shape[0]), x
        for i in reversed(range(len(self.t))):
            z_ = self.mask[i] * z
            s = self.s[i](z_) * (1 - self.mask[i])
            t = self.t[i](z_) * (1 - self.mask[i])
            z = (1 - self.mask[i]) * (z - t) * torch.exp(-s) + z_
            log_det_J -= s.sum(dim=1)
        return z, log_det_J

    def log_prob(self, x):
        z, logp = self.f(x)
        return self.prior.log_prob(z) + logp


def nets():
    return nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(), nn.Linear(32, 32), nn.LeakyReLU(),
                         nn.Linear(32, 2), nn.Tanh())


def nett():
    return nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(), nn.Linear(32, 32), nn.LeakyReLU(),
                         nn.Linear(32, 2))


masks = torch.from_numpy(np.array([[0, 1], [1, 0]] * 3).astype(np.float32))
prior = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
flow = RealNVP(nets, nett, masks, prior)
with torch.no_grad():
    for p in flow.parameters():
        if p.requires_grad:
            p.copy_(torch.from_numpy(rng.normal(0, 0.2, size=p.shape).astype(np.float32)))
print("trainable", sum(p.numel() for p in flow.parameters() if p.requires_grad),
      "mask grad", flow.mask.requires_grad)

optimizer = torch.optim.Adam([p for p in flow.parameters() if p.requires_grad], lr=1e-3)
data = torch.from_numpy(make_moons(256))
for t in range(41):
    batch = data[(t * 64) % 256:(t * 64) % 256 + 64]
    loss = -flow.log_prob(batch).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
    if t % 10 == 0:
        print(f'iter {t}: loss = {loss.item():.4f}')

with torch.no_grad():
    z, ld = flow.f(data[:5])
    x_back = flow.g(z)
    print("invertible", torch.allclose(x_back, data[:5], atol=1e-5), f"{ld.mean().item():.4f}")
    noise = torch.from_numpy(rng.normal(size=(500, 2)).astype(np.float32))
    samples = flow.g(noise)
    print("sample mean", [round(v, 3) for v in samples.mean(0).tolist()])

# the same idea with distribution transforms: a learned elementwise affine flow into (0, 1)
loc = torch.zeros(2, requires_grad=True)
log_scale = torch.zeros(2, requires_grad=True)
opt = torch.optim.Adam([loc, log_scale], lr=0.05)
unit = torch.from_numpy(rng.beta(2, 5, size=(200, 2)).astype(np.float32))
base = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
for step in range(60):
    flow_t = T.ComposeTransform([T.AffineTransform(loc, log_scale.exp()), T.SigmoidTransform()])
    dist = D.TransformedDistribution(base, [flow_t])
    nll = -dist.log_prob(unit.clamp(1e-4, 1 - 1e-4)).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
print(f"affine-sigmoid nll {nll.item():.4f} loc {[round(v, 3) for v in loc.tolist()]}")
y = flow_t(torch.tensor([[0.0, 1.0]]))
print("forward", [round(v, 4) for v in y[0].tolist()],
      "inverse", [round(v, 4) for v in flow_t.inv(y)[0].tolist()],
      "ladj", [round(v, 4) for v in flow_t.log_abs_det_jacobian(torch.tensor([[0.0, 1.0]]), y)[0].tolist()])
print("event shape", dist.event_shape, "batch shape", dist.batch_shape, "support", type(dist.support).__name__)
e = T.ExpTransform()
print("exp sign", e.sign, "bijective", e.bijective, "codomain", e.codomain, "inv of inv", e.inv.inv is e)
lognormal = D.TransformedDistribution(D.Normal(0.0, 1.0), [T.ExpTransform()])
print("lognormal", round(lognormal.log_prob(torch.tensor(2.0)).item(), 5),
      round(D.LogNormal(0.0, 1.0).log_prob(torch.tensor(2.0)).item(), 5))
