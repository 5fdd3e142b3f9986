"""Image-to-image pieces: a spatial transformer (F.affine_grid + F.grid_sample, bilinear and
nearest, zeros/border padding, align_corners both ways), an ESPCN-style super-resolution
net with nn.PixelShuffle, weight_norm and spectral_norm parametrizations, patch extraction
with F.unfold / F.fold (overlap-add counts), and a total-variation + L1 loss."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations, parametrize

rng = np.random.default_rng(19)
img = torch.from_numpy(rng.random((2, 1, 8, 8)).astype(np.float32))

theta = torch.tensor([[[math.cos(0.3), -math.sin(0.3), 0.1], [math.sin(0.3), math.cos(0.3), -0.2]],
                      [[1.2, 0.0, 0.0], [0.0, 0.8, 0.1]]], dtype=torch.float32)
for align in (False, True):
    grid = F.affine_grid(theta, img.shape, align_corners=align)
    for mode, pad in [('bilinear', 'zeros'), ('nearest', 'border'), ('bilinear', 'reflection')]:
        out = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=align)
        print(f"grid_sample align={align} {mode}/{pad}", f"{out.sum().item():.4f}",
              [round(v, 4) for v in out[0, 0, 3, :3].tolist()])


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 4, 3), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(),
                                 nn.Linear(4 * 3 * 3, 6))
        with torch.no_grad():
            self.loc[0].weight.copy_(torch.from_numpy(rng.normal(0, 0.3, size=(4, 1, 3, 3))))
            self.loc[0].bias.zero_()
            self.loc[4].weight.zero_()
            self.loc[4].bias.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        return F.grid_sample(x, F.affine_grid(theta, x.size(), align_corners=False),
                             align_corners=False)


stn = STN()
target = torch.roll(img, shifts=1, dims=3)
opt = torch.optim.SGD(stn.parameters(), lr=0.5)
for step in range(4):
    loss = F.mse_loss(stn(img), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"stn step {step} loss {loss.item():.5f}")
print("theta bias", [round(v, 4) for v in stn.loc[4].bias.tolist()])


class ESPCN(nn.Module):
    def __init__(self, r=2):
        super().__init__()
        self.c1 = parametrizations.weight_norm(nn.Conv2d(1, 8, 3, padding=1))
        self.c2 = parametrizations.spectral_norm(nn.Conv2d(8, r * r, 3, padding=1))
        self.shuffle = nn.PixelShuffle(r)

    def forward(self, x):
        return self.shuffle(self.c2(torch.tanh(self.c1(x))))


sr = ESPCN()
with torch.no_grad():
    sr.c1.parametrizations.weight.original0.copy_(torch.ones(8, 1, 1, 1))
    sr.c1.parametrizations.weight.original1.copy_(torch.from_numpy(rng.normal(0, 0.3, size=(8, 1, 3, 3))))
    sr.c2.parametrizations.weight.original.copy_(torch.from_numpy(rng.normal(0, 0.3, size=(4, 8, 3, 3))))
    sr.c1.bias.zero_()
    sr.c2.bias.zero_()
sr.eval()  # spectral_norm's power iteration starts from torch's random vectors: evaluate
with torch.no_grad():  # with them frozen, and compare only what does not depend on them
    w = sr.c1.weight
    print("weight_norm", tuple(w.shape), "row norms are g", torch.allclose(
        w.flatten(1).norm(dim=1), torch.ones(8), atol=1e-5), parametrize.is_parametrized(sr.c1, 'weight'))
    print("spectral_norm", parametrize.is_parametrized(sr.c2), type(sr.c2.parametrizations.weight[0]).__name__)
low = F.avg_pool2d(img, 2)  # (what interpolate(scale_factor=0.5, mode='area') gives)
up = sr(low)
print("pixel_shuffle", tuple(low.shape), "->", tuple(up.shape),
      "unshuffle roundtrip", torch.equal(F.pixel_unshuffle(F.pixel_shuffle(img.repeat(1, 4, 1, 1), 2), 2),
                                         img.repeat(1, 4, 1, 1)))
sr.c2 = nn.Conv2d(8, 4, 3, padding=1)
with torch.no_grad():
    sr.c2.weight.copy_(torch.from_numpy(rng.normal(0, 0.3, size=(4, 8, 3, 3))))
    sr.c2.bias.zero_()
parametrize.remove_parametrizations(sr.c1, 'weight', leave_parametrized=True)
opt = torch.optim.Adam(sr.parameters(), lr=0.01)
for step in range(4):
    out = sr(low)
    tv = (out[..., 1:, :] - out[..., :-1, :]).abs().mean() + (out[..., 1:] - out[..., :-1]).abs().mean()
    loss = F.l1_loss(out, img) + 0.1 * tv
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"sr step {step} loss {loss.item():.5f}")
print("c1 parametrized", parametrize.is_parametrized(sr.c1), type(sr.c1.weight).__name__)

patches = F.unfold(img, kernel_size=3, stride=2, padding=1)
print("unfold", tuple(patches.shape))
folded = F.fold(patches, output_size=(8, 8), kernel_size=3, stride=2, padding=1)
counts = F.fold(F.unfold(torch.ones_like(img), 3, stride=2, padding=1), (8, 8), 3, stride=2, padding=1)
print("fold/counts == img", torch.allclose(folded / counts, img, atol=1e-6),
      "counts", counts[0, 0, :3, :3].flatten().tolist())
unfold = nn.Unfold(kernel_size=(2, 4), dilation=(2, 1), stride=(1, 2))
print("nn.Unfold", tuple(unfold(img).shape), f"{unfold(img).sum().item():.4f}")
