"""Checkpointing a training run: torch.save of model + optimizer + scheduler state_dicts (and
the epoch), torch.load(weights_only=True) into fresh objects, and resuming gives exactly the
same continuation as never stopping. Also torch.utils.checkpoint (recomputing a block in
backward gives the same gradients) and register_forward_hook for feature extraction."""
import io
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

rng = np.random.default_rng(41)
X = torch.from_numpy(rng.normal(size=(32, 5)).astype(np.float32))
Y = torch.from_numpy((rng.random(32) < 0.5).astype(np.int64))
INIT = [rng.normal(0, 0.5, size=s).astype(np.float32) for s in [(16, 5), (16,), (16,), (16, 16), (16,), (2, 16), (2,)]]


class Net(nn.Module):
    def __init__(self, use_checkpoint=False):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.fc1 = nn.Linear(5, 16, bias=False)  # (BatchNorm follows: a bias would only learn noise)
        self.bn = nn.BatchNorm1d(16)
        self.block = nn.Sequential(nn.Linear(16, 16), nn.Tanh())
        self.fc2 = nn.Linear(16, 2)
        with torch.no_grad():
            for p, a in zip(self.parameters(), INIT):
                p.copy_(torch.from_numpy(a))

    def forward(self, x):
        h = F.relu(self.bn(self.fc1(x)))
        if self.use_checkpoint:
            h = checkpoint(self.block, h, use_reentrant=False)
        else:
            h = self.block(h)
        return self.fc2(h)


def make(use_checkpoint=False):
    model = Net(use_checkpoint)
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.5)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    return model, opt, sched


def train_epoch(model, opt, sched):
    model.train()
    losses = []
    for i in range(0, 32, 8):
        loss = F.cross_entropy(model(X[i:i + 8]), Y[i:i + 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    sched.step()
    return sum(losses) / len(losses)


# one uninterrupted run of 6 epochs
model, opt, sched = make()
straight = [train_epoch(model, opt, sched) for _ in range(6)]
print("straight", [f"{v:.5f}" for v in straight])

# the same run, stopped after 3 epochs and resumed from a checkpoint file
model, opt, sched = make()
first = [train_epoch(model, opt, sched) for _ in range(3)]
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, 'ckpt.pt')
    torch.save({'epoch': 3, 'model_state_dict': model.state_dict(),
                'optimizer_state_dict': opt.state_dict(),
                'scheduler_state_dict': sched.state_dict(), 'loss': first[-1]}, path)
    del model, opt, sched
    ckpt = torch.load(path, weights_only=True)
model, opt, sched = make()
model.load_state_dict(ckpt['model_state_dict'])
opt.load_state_dict(ckpt['optimizer_state_dict'])
sched.load_state_dict(ckpt['scheduler_state_dict'])
resumed = first + [train_epoch(model, opt, sched) for _ in range(ckpt['epoch'], 6)]
print("resumed ", [f"{v:.5f}" for v in resumed])
print("identical continuation", resumed == straight, "lr", sched.get_last_lr())
print("checkpoint keys", sorted(ckpt), "optimizer state keys", sorted(ckpt['optimizer_state_dict']['state'][0]))
print("bn buffers", sorted(k for k in ckpt['model_state_dict'] if k.startswith('bn.')))

# an in-memory round trip keeps dtypes, shapes and sharing
buf = io.BytesIO()
shared = torch.arange(6.0)
torch.save({'a': shared, 'view': shared[2:4], 'ints': torch.tensor([1, 2], dtype=torch.int16)}, buf)
buf.seek(0)
back = torch.load(buf)
back['a'][2] = 100.0
print("round trip", back['ints'].dtype, back['view'].tolist(), "shared storage kept")

# activation checkpointing recomputes the block in backward: same gradients
plain, ckpt_model = Net(), Net(use_checkpoint=True)
for m in (plain, ckpt_model):
    F.cross_entropy(m(X), Y).backward()
print("checkpoint grads equal", all(torch.allclose(a.grad, b.grad, atol=1e-6)
                                   for a, b in zip(plain.parameters(), ckpt_model.parameters())))
seq = nn.Sequential(*[nn.Linear(5, 5) for _ in range(4)])
with torch.no_grad():
    for p in seq.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.4, size=p.shape)))
inp = X[:4].clone().requires_grad_()
out = checkpoint_sequential(seq, 2, inp, use_reentrant=False)
out.sum().backward()
print("checkpoint_sequential", tuple(out.shape), f"{inp.grad.abs().sum().item():.5f}")

# forward hooks collect intermediate features
features = {}


def save_output(name):
    def hook(module, inputs, output):
        features[name] = output.detach()
    return hook


handles = [model.fc1.register_forward_hook(save_output('fc1')),
           model.block.register_forward_hook(save_output('block'))]
pre_calls = []
handles.append(model.fc2.register_forward_pre_hook(lambda m, inp: pre_calls.append(inp[0].shape)))
model.eval()
with torch.no_grad():
    logits = model(X[:3])
print("features", {k: tuple(v.shape) for k, v in features.items()}, "pre-hook", pre_calls)
print("block output", [round(v, 4) for v in features['block'][0, :4].tolist()])
for h in handles:
    h.remove()
features.clear()
model(X[:3])
print("after remove", features, len(pre_calls))
