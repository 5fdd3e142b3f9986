"""Magnitude pruning the way the torch.nn.utils.prune tutorial does it: l1_unstructured on one
layer (weight_orig + weight_mask and a forward pre-hook), ln_structured over output channels
of a conv, global_unstructured across layers, iterative pruning that compounds masks, the
sparsity report, fine-tuning with the masks held, then prune.remove to make it permanent
and a state_dict that has plain weights again."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

rng = np.random.default_rng(5)


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc1 = nn.Linear(8 * 2 * 2, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        return self.fc2(x)


model = LeNet()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape).astype(np.float32)))

X = torch.from_numpy(rng.normal(size=(32, 1, 10, 10)).astype(np.float32))
Y = (X[:, 0, :5].mean((1, 2)) > X[:, 0, 5:].mean((1, 2))).long()


def train(model, steps, lr=0.05):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(X), Y)
        loss.backward()
        opt.step()
    return loss.item()


print("dense loss", round(train(model, 10), 4))

module = model.conv1
print("before", [n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])
prune.l1_unstructured(module, name="weight", amount=0.3)
print("after", [n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])
print("hooks", [type(h).__name__ for h in module._forward_pre_hooks.values()])
print("conv1 zeros", int(torch.sum(module.weight == 0)), "of", module.weight.nelement())
print("mask equals", torch.equal(module.weight, module.weight_orig * module.weight_mask))

prune.ln_structured(model.conv2, name="weight", amount=0.25, n=2, dim=0)
per_channel = model.conv2.weight.abs().sum(dim=(1, 2, 3))
print("conv2 dead channels", int((per_channel == 0).sum()))
# a second round on the same parameter compounds: a PruningContainer holds both
prune.l1_unstructured(model.conv2, name="weight", amount=0.2)
hook = next(iter(model.conv2._forward_pre_hooks.values()))
print("container", type(hook).__name__, [type(h).__name__ for h in hook])

parameters_to_prune = ((model.fc1, 'weight'), (model.fc2, 'weight'))
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.5)
prune.l1_unstructured(model.fc1, name='bias', amount=3)


def sparsity(t):
    return 100.0 * float(torch.sum(t == 0)) / float(t.nelement())


for name, m in model.named_modules():
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        print(f"sparsity in {name}.weight: {sparsity(m.weight):.2f}%", prune.is_pruned(m))
total_zero = sum(float(torch.sum(m.weight == 0)) for m in (model.conv1, model.conv2, model.fc1, model.fc2))
total = sum(float(m.weight.nelement()) for m in (model.conv1, model.conv2, model.fc1, model.fc2))
print(f"global sparsity: {100.0 * total_zero / total:.2f}%")

masks = {n: b.clone() for n, b in model.named_buffers() if n.endswith('_mask')}
print("fine-tuned loss", round(train(model, 10), 4))
still = all(torch.equal(dict(model.named_buffers())[n], m) for n, m in masks.items())
print("masks unchanged", still, "pruned stay zero",
      all(bool((getattr(m, 'weight')[masks[n + '.weight_mask'] == 0] == 0).all())
          for n, m in [('conv1', model.conv1), ('fc1', model.fc1)]))
print("orig grads masked", bool((model.fc1.weight_orig.grad[masks['fc1.weight_mask'] == 0] == 0).all()))

for m, n in [(model.conv1, 'weight'), (model.conv2, 'weight'), (model.fc1, 'weight'),
             (model.fc2, 'weight'), (model.fc1, 'bias')]:
    prune.remove(m, n)
print("state_dict", list(model.state_dict().keys()))
print("is_pruned", prune.is_pruned(model), type(model.fc1.weight).__name__)
with torch.no_grad():
    acc = (model(X).argmax(1) == Y).float().mean().item()
print(f"final acc {acc:.4f} sparsity {sparsity(model.fc1.weight):.2f}%")

# a custom pruning method: every other entry, by subclassing BasePruningMethod
class FooBarPruningMethod(prune.BasePruningMethod):
    PRUNING_TYPE = 'unstructured'

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


lin = nn.Linear(3, 2)
foobar_unstructured(lin, name='bias')
print("custom mask", lin.bias_mask.tolist())
