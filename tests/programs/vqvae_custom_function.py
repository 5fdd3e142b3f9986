"""A VQ-VAE step and a mixture-of-experts layer: a custom torch.autograd.Function
(straight-through quantisation with ctx.save_for_backward / ctx.mark_non_differentiable,
checked with torch.autograd.gradcheck), codebook lookup with cdist/argmin, a codebook EMA
update with index_add_ and one_hot, a @torch.jit.script helper, and top-2 expert routing
with topk, softmax, scatter and a load-balancing auxiliary loss."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function, gradcheck

rng = np.random.default_rng(8)


class StraightThroughQuantize(Function):
    @staticmethod
    def forward(ctx, z, codebook):
        dist = torch.cdist(z, codebook)
        idx = dist.argmin(dim=1)
        ctx.save_for_backward(idx, codebook)
        ctx.mark_non_differentiable(idx)
        return codebook[idx], idx

    @staticmethod
    def backward(ctx, grad_q, grad_idx):
        idx, codebook = ctx.saved_tensors
        grad_codebook = torch.zeros_like(codebook).index_add_(0, idx, grad_q)
        return grad_q, grad_codebook          # straight-through for z


class Scale(Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, g):
        return g * ctx.factor, None


@torch.jit.script
def commitment(z: torch.Tensor, q: torch.Tensor, beta: float) -> torch.Tensor:
    return beta * F.mse_loss(z, q.detach()) + F.mse_loss(q, z.detach())


x64 = torch.tensor(rng.normal(size=(4, 3)), requires_grad=True)
print("gradcheck Scale", gradcheck(lambda t: Scale.apply(t, 2.5), (x64,), eps=1e-6, atol=1e-4))

K, D = 6, 3
encoder, decoder = nn.Linear(5, D), nn.Linear(D, 5)
codebook = nn.Parameter(torch.from_numpy(rng.normal(size=(K, D)).astype(np.float32)))
with torch.no_grad():
    for p in list(encoder.parameters()) + list(decoder.parameters()):
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, size=p.shape)))
data = torch.from_numpy(rng.normal(size=(32, 5)).astype(np.float32))
params = list(encoder.parameters()) + list(decoder.parameters()) + [codebook]
optimizer = torch.optim.Adam(params, lr=0.02)
ema_counts = torch.zeros(K)
ema_sum = torch.zeros(K, D)
for step in range(5):
    z = encoder(data)
    q, idx = StraightThroughQuantize.apply(z, codebook)
    recon = decoder(q)
    loss = F.mse_loss(recon, data) + commitment(z, q, 0.25)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        onehot = F.one_hot(idx, K).float()
        ema_counts.mul_(0.9).add_(onehot.sum(0), alpha=0.1)
        ema_sum.mul_(0.9).add_(torch.zeros(K, D).index_add_(0, idx, z), alpha=0.1)
    usage = torch.bincount(idx, minlength=K)
    perplexity = torch.exp(-(onehot.mean(0) * torch.log(onehot.mean(0) + 1e-10)).sum())
    print(f"step {step} loss {loss.item():.4f} perplexity {perplexity.item():.3f} usage {usage.tolist()}")
print("idx requires_grad", idx.requires_grad, "q grad_fn", type(q.grad_fn).__name__,
      "codebook grad", tuple(codebook.grad.shape))
print("ema", [round(v, 4) for v in ema_counts.tolist()])


class MoE(nn.Module):
    def __init__(self, dim=4, experts=4, k=2):
        super().__init__()
        self.k = k
        self.gate = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(dim, 8), nn.ReLU(), nn.Linear(8, dim))
                                      for _ in range(experts)])

    def forward(self, x):
        logits = self.gate(x)
        weights, chosen = logits.topk(self.k, dim=-1)
        weights = weights.softmax(dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            rows, slot = torch.where(chosen == e)
            if rows.numel():
                out.index_add_(0, rows, weights[rows, slot, None] * expert(x[rows]))
        probs = logits.softmax(-1)
        mask = torch.zeros_like(probs).scatter_(1, chosen, 1.0)
        aux = (probs.mean(0) * mask.mean(0)).sum() * probs.size(1)
        return out, aux, chosen


moe = MoE()
with torch.no_grad():
    for p in moe.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, size=p.shape)))
x = torch.from_numpy(rng.normal(size=(10, 4)).astype(np.float32))
opt = torch.optim.SGD(moe.parameters(), lr=0.1)
for step in range(3):
    out, aux, chosen = moe(x)
    loss = (out - x).pow(2).mean() + 0.01 * aux
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"moe step {step} loss {loss.item():.4f} aux {aux.item():.4f} load {torch.bincount(chosen.flatten(), minlength=4).tolist()}")
