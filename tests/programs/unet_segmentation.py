"""A small U-Net training step for binary segmentation: Conv2d/BatchNorm2d blocks, max-pool
down, ConvTranspose2d and F.interpolate(align_corners=True) up, torch.cat skip connections,
a Dice + BCEWithLogits loss, AdamW with CosineAnnealingLR."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(17)


class DoubleConv(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.block(x)


class UNet(nn.Module):
    def __init__(self, in_ch=1, base=4):
        super().__init__()
        self.inc = DoubleConv(in_ch, base)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base, base * 2))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base * 2, base * 4))
        self.up1 = nn.ConvTranspose2d(base * 4, base * 2, kernel_size=2, stride=2)
        self.conv1 = DoubleConv(base * 4, base * 2)
        self.reduce = nn.Conv2d(base * 2, base, 1)
        self.conv2 = DoubleConv(base * 2, base)
        self.outc = nn.Conv2d(base, 1, kernel_size=1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        u = self.up1(x3)
        u = self.conv1(torch.cat([x2, u], dim=1))
        # bilinear upsampling for the second stage, as the "bilinear=True" U-Net variant does
        u = F.interpolate(u, scale_factor=2, mode='bilinear', align_corners=True)
        u = self.conv2(torch.cat([x1, self.reduce(u)], dim=1))
        return self.outc(u)


def dice_loss(logits, target, eps=1.0):
    prob = torch.sigmoid(logits)
    dims = (1, 2, 3)
    inter = (prob * target).sum(dim=dims)
    union = prob.sum(dim=dims) + target.sum(dim=dims)
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


model = UNet()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() > 1:
            fan_in = p[0].numel()
            p.copy_(torch.from_numpy(rng.normal(0, (2.0 / fan_in) ** 0.5, size=p.shape)))
        elif 'bias' in name:
            p.zero_()

# circles of random radius: the mask is what the network must find
yy, xx = np.mgrid[0:16, 0:16]
images, masks = [], []
for i in range(6):
    cy, cx, r = rng.uniform(5, 11), rng.uniform(5, 11), rng.uniform(2, 5)
    m = ((yy - cy) ** 2 + (xx - cx) ** 2 < r ** 2).astype(np.float32)
    images.append(m + rng.normal(0, 0.3, size=m.shape).astype(np.float32))
    masks.append(m)
x = torch.from_numpy(np.stack(images)).unsqueeze(1)
y = torch.from_numpy(np.stack(masks)).unsqueeze(1)

bce = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=8, eta_min=1e-4)

model.train()
for step in range(8):
    optimizer.zero_grad(set_to_none=True)
    logits = model(x)
    loss = bce(logits, y) + dice_loss(logits, y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.6f}")

model.eval()
with torch.no_grad():
    pred = (torch.sigmoid(model(x)) > 0.5).float()
    iou = (pred * y).sum() / ((pred + y).clamp(max=1).sum())
print("logits", tuple(logits.shape), "iou", f"{iou.item():.3f}")
print("running_mean", [round(v, 4) for v in model.inc.block[1].running_mean.tolist()])
print("num_batches_tracked", model.inc.block[1].num_batches_tracked.item())
