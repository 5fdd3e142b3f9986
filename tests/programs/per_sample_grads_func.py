"""torch.func the way the tutorials use it: per-sample gradients with functional_call + vmap
+ grad (checked against a loop of ordinary backward passes), a DP-SGD-style clipped and
averaged update, jacrev/jacfwd and hessian of a small function, model ensembling with
stack_module_state, and knowledge distillation with KLDivLoss(reduction='batchmean') and a
temperature."""
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, stack_module_state, vmap

rng = np.random.default_rng(77)


def init(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.4, size=p.shape)))
    return m


model = init(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)))
x = torch.from_numpy(rng.normal(size=(6, 4)).astype(np.float32))
y = torch.from_numpy(rng.integers(0, 3, size=6))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def loss_fn(params, buffers, sample, target):
    out = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return F.cross_entropy(out, target.unsqueeze(0))


per_sample = vmap(grad(loss_fn), in_dims=(None, None, 0, 0))(params, buffers, x, y)
print("per-sample grads", {k: tuple(v.shape) for k, v in per_sample.items()})
loop = []
for i in range(6):
    model.zero_grad()
    F.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
    loop.append(model[0].weight.grad.clone())
print("matches loop", torch.allclose(per_sample['0.weight'], torch.stack(loop), atol=1e-6))

# DP-SGD: clip each sample's gradient to norm 1, average, add no noise (deterministic)
norms = torch.sqrt(sum(g.flatten(1).pow(2).sum(1) for g in per_sample.values()))
factor = (1.0 / (norms + 1e-6)).clamp(max=1.0)
print("per-sample norms", [round(v, 4) for v in norms.tolist()])
with torch.no_grad():
    for name, p in model.named_parameters():
        g = (per_sample[name] * factor.view(-1, *([1] * (per_sample[name].dim() - 1)))).mean(0)
        p.sub_(0.5 * g)
print("after dp step loss", f"{F.cross_entropy(model(x), y).item():.5f}")


def f(v):
    return torch.stack([v[0] * v[1].sin(), v[1] ** 2 + v[2].exp(), (v * v).sum()])


v = torch.tensor([0.5, -1.0, 0.3])
jr, jf = jacrev(f)(v), jacfwd(f)(v)
print("jacrev", [round(a, 4) for a in jr.flatten().tolist()])
print("jacfwd == jacrev", torch.allclose(jr, jf, atol=1e-6))
h = hessian(lambda v: (v.sin() * v.roll(1)).sum())(v)
print("hessian", [round(a, 4) for a in h.flatten().tolist()], "symmetric", torch.allclose(h, h.T))
print("vmap matmul", tuple(vmap(torch.mv, in_dims=(None, 0))(torch.ones(2, 3), torch.ones(5, 3)).shape))

# an ensemble of 3 models run in one vmapped call
members = [init(nn.Linear(4, 2)) for _ in range(3)]
ens_params, ens_buffers = stack_module_state(members)
base = copy.deepcopy(members[0]).to('meta')


def run_one(p, b, inp):
    return functional_call(base, (p, b), (inp,))


ens_out = vmap(run_one, in_dims=(0, 0, None))(ens_params, ens_buffers, x)
print("ensemble", tuple(ens_out.shape), "matches members",
      all(torch.allclose(ens_out[i], m(x), atol=1e-6) for i, m in enumerate(members)))

# distillation: a student matches the teacher's softened distribution
teacher, student = model, init(nn.Sequential(nn.Linear(4, 3)))
optimizer = torch.optim.SGD(student.parameters(), lr=0.5)
kl = nn.KLDivLoss(reduction='batchmean')
T = 2.0
for step in range(5):
    with torch.no_grad():
        soft_targets = F.softmax(teacher(x) / T, dim=-1)
    s_logits = student(x)
    loss = kl(F.log_softmax(s_logits / T, dim=-1), soft_targets) * T * T + \
        0.5 * F.nll_loss(F.log_softmax(s_logits, -1), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"distill step {step} loss {loss.item():.5f}")
log_t = F.log_softmax(teacher(x).detach(), -1)
print("kl log_target", f"{F.kl_div(F.log_softmax(student(x), -1), log_t, reduction='sum', log_target=True).item():.5f}")
