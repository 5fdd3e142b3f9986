"""torch.distributions in a continuous-control policy gradient and a mixture density network:
a tanh-squashed Normal policy (Independent, TransformedDistribution with TanhTransform,
rsample, log_prob, entropy, kl_divergence against the old policy as PPO's early stop), a
MixtureSameFamily of Normals fitted by maximum likelihood, and MultivariateNormal /
Categorical / Beta / Dirichlet log-densities. The noise the samples are made of comes from
NumPy and goes in through the distributions' own transforms, so both frameworks compute the
same; what torch's own sampler draws is checked only for shape and support."""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import (Beta, Categorical, Dirichlet, Independent, MixtureSameFamily,
                                 MultivariateNormal, Normal, TransformedDistribution,
                                 kl_divergence)
from torch.distributions.transforms import AffineTransform, TanhTransform

rng = np.random.default_rng(13)


def init(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape)))
    return module


class Policy(nn.Module):
    def __init__(self, obs=3, act=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, 16), nn.Tanh())
        self.mu = nn.Linear(16, act)
        self.log_std = nn.Parameter(torch.full((act,), -0.5))

    def dist(self, obs):
        base = Independent(Normal(self.mu(self.body(obs)), self.log_std.exp()), 1)
        return TransformedDistribution(base, [TanhTransform(cache_size=1),
                                              AffineTransform(0.0, 2.0)])


policy = init(Policy())
optimizer = torch.optim.Adam(policy.parameters(), lr=0.01)
obs = torch.from_numpy(rng.normal(size=(16, 3)).astype(np.float32))
target = torch.tensor([1.0, -0.5])
for it in range(4):
    old = policy.dist(obs)
    old_base = Independent(Normal(old.base_dist.base_dist.loc.detach(),
                                  old.base_dist.base_dist.scale.detach()), 1)
    for epoch in range(3):
        d = policy.dist(obs)
        eps = torch.from_numpy(rng.normal(size=(16, 2)).astype(np.float32))
        base = d.base_dist.base_dist
        action = torch.tanh(base.loc + base.scale * eps) * 2.0   # rsample with fixed noise
        reward = -((action - target) ** 2).sum(-1)
        logp = d.log_prob(action)
        entropy = d.base_dist.entropy().mean()
        loss = -(reward.mean()) - 0.01 * entropy
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        kl = kl_divergence(old_base, Independent(Normal(base.loc, base.scale), 1)).mean()
    print(f"iter {it} reward {reward.mean().item():.4f} logp {logp.mean().item():.4f} "
          f"entropy {entropy.item():.4f} kl {kl.item():.5f}")

sample = policy.dist(obs).rsample((5,))
print("rsample", tuple(sample.shape), "in support", bool((sample.abs() <= 2).all()),
      "event_shape", policy.dist(obs).event_shape, "batch_shape", policy.dist(obs).batch_shape)


class MDN(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.hidden = nn.Sequential(nn.Linear(1, 16), nn.Tanh())
        self.logits = nn.Linear(16, k)
        self.loc = nn.Linear(16, k)
        self.log_scale = nn.Linear(16, k)

    def forward(self, x):
        h = self.hidden(x)
        mix = Categorical(logits=self.logits(h))
        comp = Normal(self.loc(h), self.log_scale(h).clamp(-4, 2).exp())
        return MixtureSameFamily(mix, comp)


xs = np.linspace(-1, 1, 48)
ys = np.where(rng.random(48) < 0.5, np.sin(3 * xs), -np.sin(3 * xs)) + rng.normal(0, 0.1, 48)
x_t = torch.tensor(xs, dtype=torch.float32).unsqueeze(-1)
y_t = torch.tensor(ys, dtype=torch.float32).unsqueeze(-1)
mdn = init(MDN())
opt = torch.optim.Adam(mdn.parameters(), lr=0.02)
for step in range(30):
    nll = -mdn(x_t).log_prob(y_t.squeeze(-1)).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 10 == 9:
        print(f"mdn step {step} nll {nll.item():.4f}")
with torch.no_grad():
    m = mdn(x_t[:4])
    print("mixture mean", [round(v, 4) for v in m.mean.tolist()], "var",
          [round(v, 4) for v in m.variance.tolist()])
    print("cdf", [round(v, 4) for v in m.cdf(torch.zeros(4)).tolist()], "sample",
          tuple(m.sample((7,)).shape))

cov = torch.tensor([[1.0, 0.3], [0.3, 0.5]])
mvn = MultivariateNormal(torch.zeros(2), covariance_matrix=cov)
pts = torch.tensor([[0.1, -0.2], [1.0, 1.0]])
print("mvn log_prob", [round(v, 4) for v in mvn.log_prob(pts).tolist()], "entropy",
      round(mvn.entropy().item(), 4), "scale_tril", [round(v, 4) for v in mvn.scale_tril.flatten().tolist()])
print("kl mvn", round(kl_divergence(mvn, MultivariateNormal(torch.ones(2), torch.eye(2))).item(), 4))
cat = Categorical(probs=torch.tensor([0.2, 0.5, 0.3]))
print("categorical", [round(v, 4) for v in cat.log_prob(torch.tensor([0, 1, 2])).tolist()],
      round(cat.entropy().item(), 4), "kl", round(kl_divergence(cat, Categorical(logits=torch.zeros(3))).item(), 4))
beta = Beta(torch.tensor([2.0, 0.5]), torch.tensor([3.0, 0.5]))
print("beta", [round(v, 4) for v in beta.log_prob(torch.tensor([0.3, 0.9])).tolist()],
      [round(v, 4) for v in beta.mean.tolist()], "dirichlet",
      round(Dirichlet(torch.tensor([1.0, 2.0, 3.0])).log_prob(torch.tensor([0.2, 0.3, 0.5])).item(), 4))
n = Normal(torch.tensor(0.0), torch.tensor(1.0))
print("normal icdf", round(n.icdf(torch.tensor(0.975)).item(), 4), "cdf", round(n.cdf(torch.tensor(1.0)).item(), 4),
      "log_prob", round(n.log_prob(torch.tensor(0.5)).item(), 4), round(-0.5 * 0.25 - 0.5 * math.log(2 * math.pi), 4))
