"""The lines that open most training scripts: pick a device with torch.cuda.is_available(),
cudnn flags, thread count, seeding every generator, moving the model and data .to(device),
a numerically safe division by torch.finfo(...).eps, and a short training loop."""
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = False
torch.set_num_threads(1)
torch.manual_seed(0)
if torch.cuda.is_available():
    torch.cuda.manual_seed_all(0)
print("device", device, "threads", torch.get_num_threads(),
      "mps", torch.backends.mps.is_available())

rng = np.random.default_rng(0)
x = torch.from_numpy(rng.normal(size=(32, 4)).astype(np.float32)).to(device)
y = (x.sum(dim=1, keepdim=True) > 0).float().to(device)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, size=tuple(p.shape)).astype(np.float32)))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
eps = torch.finfo(torch.float32).eps
for step in range(5):
    optimizer.zero_grad()
    logits = model(x)
    loss = nn.functional.binary_cross_entropy_with_logits(logits, y)
    loss.backward()
    optimizer.step()
    grad_scale = sum(p.grad.abs().sum() for p in model.parameters()) / (x.numel() + eps)
    print(f"step {step} loss {loss.item():.5f} grad scale {grad_scale.item():.5f}")
print("on", next(model.parameters()).device, "cuda tensors",
      next(model.parameters()).is_cuda)
