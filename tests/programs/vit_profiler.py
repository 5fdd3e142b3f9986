"""A small Vision Transformer (patch embedding by a strided Conv2d, a class token, learned
position embeddings, pre-norm blocks with nn.MultiheadAttention and an MLP, DropPath-free),
trained a few steps with AdamW and a warm-up + cosine LambdaLR; the training step runs under
torch.profiler.profile with record_function labels, and the program reads the labelled
events back from key_averages() (counts only: the timings are the machine's)."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function

rng = np.random.default_rng(2024)


class PatchEmbed(nn.Module):
    def __init__(self, img_size=8, patch_size=4, in_chans=3, embed_dim=16):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        x = self.proj(x)                      # B, C, H', W'
        return x.flatten(2).transpose(1, 2)   # B, N, C


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=2.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        x = x + self.mlp(self.norm2(x))
        return x


class ViT(nn.Module):
    def __init__(self, num_classes=3, embed_dim=16, depth=2, num_heads=2):
        super().__init__()
        self.patch_embed = PatchEmbed(embed_dim=embed_dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, self.patch_embed.num_patches + 1, embed_dim))
        self.blocks = nn.ModuleList([Block(embed_dim, num_heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(embed_dim, eps=1e-6)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        return self.head(x[:, 0])


model = ViT()
with torch.no_grad():
    for name, p in model.named_parameters():
        std = 0.2
        p.copy_(torch.from_numpy(rng.normal(0, std, size=p.shape).astype(np.float32)))
        if name.endswith('bias'):
            p.zero_()

n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("params", n_params)

# three classes: bright top half, bright bottom half, bright left half
images = rng.normal(0, 0.3, size=(24, 3, 8, 8)).astype(np.float32)
labels = np.arange(24) % 3
images[labels == 0, :, :4, :] += 1.0
images[labels == 1, :, 4:, :] += 1.0
images[labels == 2, :, :, :4] += 1.0
X, Y = torch.from_numpy(images), torch.from_numpy(labels)

decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if p.ndim <= 1 or name in ('cls_token', 'pos_embed') else decay).append(p)
optimizer = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.05},
                               {'params': no_decay, 'weight_decay': 0.0}], lr=3e-3)
warmup, total = 3, 12


def lr_lambda(step):
    if step < warmup:
        return float(step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1.0 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    for step in range(total):
        with record_function("forward"):
            logits = model(X)
            loss = criterion(logits, Y)
        with record_function("backward"):
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
        with record_function("optimizer_step"):
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            scheduler.step()
        if step % 3 == 0:
            print(f"step {step:2d} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.6f}")

counts = {e.key: e.count for e in prof.key_averages() if e.key in ("forward", "backward", "optimizer_step")}
print("profiled", sorted(counts.items()))
table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
print("table is text", isinstance(table, str) and "forward" in prof.key_averages().table())

model.eval()
with torch.no_grad():
    pred = model(X).argmax(dim=-1)
print("train acc", (pred == Y).float().mean().item())
attn = model.blocks[0].attn
h = model.blocks[0].norm1(torch.cat((model.cls_token.expand(2, -1, -1), model.patch_embed(X[:2])), 1)
                          + model.pos_embed)
_, w = attn(h, h, h, need_weights=True, average_attn_weights=True)
print("attn weights", tuple(w.shape), f"{w.sum(-1).mean().item():.4f}", f"{w[0, 0].max().item():.4f}")
