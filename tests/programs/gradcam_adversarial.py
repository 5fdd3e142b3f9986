"""Model interpretation and robustness on a small CNN, written the way notebooks do: Grad-CAM
from a forward hook that keeps the feature maps and a full backward hook that keeps their
gradients, vanilla saliency from input.grad, FGSM and a PGD attack (sign of the gradient,
projection with torch.clamp and torch.max/min), adversarial training for a few steps, with
NumPy scalars mixed into the arithmetic (np.float32 epsilons, np.prod for the flattened
size, np.sqrt scaling) as such code does."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(123)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
            nn.Conv2d(4, 8, 3, padding=1), nn.ReLU())
        self.pool = nn.MaxPool2d(np.int64(2))
        flat = int(np.prod((8, 4, 4)))
        self.fc = nn.Linear(flat, 2)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(x.view(-1, np.prod(x.shape[1:])))


def make_data(n):
    x = rng.normal(0, 0.3, size=(n, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 2, size=n)
    x[y == 1, 0, 2:6, 2:6] += 1.0  # class 1: a bright square in the middle
    return torch.from_numpy(x), torch.from_numpy(y)


X, Y = make_data(48)
model = SmallCNN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape).astype(np.float32)))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(15):
    loss = F.cross_entropy(model(X), Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
with torch.no_grad():
    clean_acc = (model(X).argmax(1) == Y).float().mean().item()
print(f"clean loss {loss.item():.4f} acc {clean_acc:.3f}")

# ---- Grad-CAM on the last conv layer
activations, gradients = {}, {}


def save_activation(module, inp, out):
    activations['value'] = out.detach()


def save_gradient(module, grad_input, grad_output):
    gradients['value'] = grad_output[0].detach()


target_layer = model.features[2]
h1 = target_layer.register_forward_hook(save_activation)
h2 = target_layer.register_full_backward_hook(save_gradient)
img = X[Y == 1][:2]
out = model(img)
model.zero_grad()
out[:, 1].sum().backward()
weights = gradients['value'].mean(dim=(2, 3), keepdim=True)
cam = F.relu((weights * activations['value']).sum(dim=1))
cam = cam / (cam.amax(dim=(1, 2), keepdim=True) + np.float32(1e-8))
h1.remove()
h2.remove()
center = cam[:, 2:6, 2:6].mean().item()
border = (cam.sum() - cam[:, 2:6, 2:6].sum()).item() / (cam.numel() - 32)
print("cam shape", tuple(cam.shape), "centre > border", center > border,
      f"max {cam.max().item():.3f}", "hooks left", len(target_layer._forward_hooks))

# ---- saliency
x = img.clone().requires_grad_(True)
score = model(x)[:, 1].sum()
score.backward()
saliency = x.grad.abs().amax(dim=1)
print("saliency", tuple(saliency.shape), f"{saliency.sum().item():.4f}")


# ---- FGSM and PGD
def fgsm(model, x, y, eps):
    x = x.clone().detach().requires_grad_(True)
    loss = F.cross_entropy(model(x), y)
    grad, = torch.autograd.grad(loss, x)
    return (x + eps * grad.sign()).detach()


def pgd(model, x, y, eps, alpha, steps):
    x_adv = x.clone().detach()
    for _ in range(steps):
        x_adv.requires_grad_(True)
        loss = F.cross_entropy(model(x_adv), y)
        grad = torch.autograd.grad(loss, x_adv)[0]
        x_adv = x_adv.detach() + alpha * grad.sign()
        x_adv = torch.max(torch.min(x_adv, x + eps), x - eps)
        x_adv = torch.clamp(x_adv, -3, 3)
    return x_adv.detach()


eps = np.float32(0.3)
for name, adv in [("fgsm", fgsm(model, X, Y, eps)),
                  ("pgd", pgd(model, X, Y, eps, alpha=eps / np.float32(4), steps=5))]:
    with torch.no_grad():
        acc = (model(adv).argmax(1) == Y).float().mean().item()
    linf = (adv - X).abs().max().item()
    print(f"{name}: acc {acc:.3f} linf {linf:.4f} type {type(adv).__name__} dtype {adv.dtype}")

# ---- adversarial training: half clean, half FGSM examples
model.train()
for step in range(10):
    adv = fgsm(model, X, Y, eps)
    logits = model(torch.cat([X, adv]))
    loss = F.cross_entropy(logits, torch.cat([Y, Y])) * np.sqrt(2.0) / np.sqrt(2.0)
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
adv = fgsm(model, X, Y, eps)
with torch.no_grad():
    robust = (model(adv).argmax(1) == Y).float().mean().item()
    print(f"after adversarial training: loss {loss.item():.4f} robust acc {robust:.3f}")
    scale = np.float64(0.5) * model.fc.weight
    print("np-scaled weight", type(scale).__name__, scale.dtype, tuple(scale.shape))
