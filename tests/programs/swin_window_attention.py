"""Swin Transformer blocks as the reference implementation writes them: window_partition /
window_reverse with view-permute-contiguous, a cyclic shift with torch.roll and the
shifted-window attention mask built from slices and masked_fill, a relative position bias
table indexed through a registered buffer (meshgrid, flatten, permute, sum), attention
through F.scaled_dot_product_attention with a float attn_mask (checked against the explicit
softmax), and patch merging; a few classification steps."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(7)


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


class WindowAttention(nn.Module):
    def __init__(self, dim, window_size, num_heads):
        super().__init__()
        self.dim, self.window_size, self.num_heads = dim, window_size, num_heads
        head_dim = dim // num_heads
        self.scale = head_dim ** -0.5
        self.relative_position_bias_table = nn.Parameter(
            torch.zeros((2 * window_size[0] - 1) * (2 * window_size[1] - 1), num_heads))
        coords_h = torch.arange(self.window_size[0])
        coords_w = torch.arange(self.window_size[1])
        coords = torch.stack(torch.meshgrid([coords_h, coords_w], indexing="ij"))
        coords_flatten = torch.flatten(coords, 1)
        relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative_coords = relative_coords.permute(1, 2, 0).contiguous()
        relative_coords[:, :, 0] += self.window_size[0] - 1
        relative_coords[:, :, 1] += self.window_size[1] - 1
        relative_coords[:, :, 0] *= 2 * self.window_size[1] - 1
        relative_position_index = relative_coords.sum(-1)
        self.register_buffer("relative_position_index", relative_position_index)
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.proj = nn.Linear(dim, dim)

    def bias(self):
        n = self.window_size[0] * self.window_size[1]
        b = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(n, n, -1)
        return b.permute(2, 0, 1).contiguous()

    def forward(self, x, mask=None, explicit=False):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        bias = self.bias().unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            bias = (bias.unsqueeze(1) + mask.unsqueeze(1).unsqueeze(0)).expand(B_ // nW, -1, -1, -1, -1)
            bias = bias.reshape(B_, self.num_heads, N, N)
        if explicit:
            attn = (q * self.scale) @ k.transpose(-2, -1) + bias
            x = attn.softmax(dim=-1) @ v
        else:
            x = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = x.transpose(1, 2).reshape(B_, N, C)
        return self.proj(x)


class SwinBlock(nn.Module):
    def __init__(self, dim, resolution, num_heads, window_size=2, shift_size=0):
        super().__init__()
        self.resolution, self.window_size, self.shift_size = resolution, window_size, shift_size
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, (window_size, window_size), num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        if self.shift_size > 0:
            H, W = resolution
            img_mask = torch.zeros((1, H, W, 1))
            slices = (slice(0, -window_size), slice(-window_size, -shift_size), slice(-shift_size, None))
            cnt = 0
            for h in slices:
                for w in slices:
                    img_mask[:, h, w, :] = cnt
                    cnt += 1
            mask_windows = window_partition(img_mask, window_size).view(-1, window_size * window_size)
            attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
            attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))
        else:
            attn_mask = None
        self.register_buffer("attn_mask", attn_mask)

    def forward(self, x, explicit=False):
        H, W = self.resolution
        B, L, C = x.shape
        shortcut = x
        x = self.norm1(x).view(B, H, W, C)
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        x_windows = window_partition(x, self.window_size).view(-1, self.window_size ** 2, C)
        attn_windows = self.attn(x_windows, mask=self.attn_mask, explicit=explicit)
        attn_windows = attn_windows.view(-1, self.window_size, self.window_size, C)
        x = window_reverse(attn_windows, self.window_size, H, W)
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        x = shortcut + x.view(B, H * W, C)
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    def __init__(self, resolution, dim):
        super().__init__()
        self.resolution = resolution
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(4 * dim)

    def forward(self, x):
        H, W = self.resolution
        B, L, C = x.shape
        x = x.view(B, H, W, C)
        x0, x1 = x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :]
        x2, x3 = x[:, 0::2, 1::2, :], x[:, 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1).view(B, -1, 4 * C)
        return self.reduction(self.norm(x))


class TinySwin(nn.Module):
    def __init__(self, num_classes=2, dim=8):
        super().__init__()
        self.patch_embed = nn.Conv2d(1, dim, kernel_size=2, stride=2)
        self.blocks = nn.ModuleList([SwinBlock(dim, (4, 4), 2, 2, 0), SwinBlock(dim, (4, 4), 2, 2, 1)])
        self.merge = PatchMerging((4, 4), dim)
        self.norm = nn.LayerNorm(2 * dim)
        self.head = nn.Linear(2 * dim, num_classes)

    def forward(self, x, explicit=False):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        for blk in self.blocks:
            x = blk(x, explicit=explicit)
        x = self.norm(self.merge(x))
        return self.head(torch.flatten(F.adaptive_avg_pool1d(x.transpose(1, 2), 1), 1))


model = TinySwin()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape).astype(np.float32)))
blk = model.blocks[1]
print("index", blk.attn.relative_position_index.tolist())
print("mask windows", tuple(blk.attn_mask.shape), blk.attn_mask[3].tolist())
x = torch.arange(16.0).view(1, 4, 4, 1)
w = window_partition(x, 2)
print("partition", w.view(4, 4).tolist(), torch.equal(window_reverse(w, 2, 4, 4), x))
print("roll", torch.roll(x, shifts=(-1, -1), dims=(1, 2)).view(4, 4)[0].tolist())

images = torch.from_numpy(rng.normal(size=(8, 1, 8, 8)).astype(np.float32))
labels = torch.tensor([0, 1] * 4)
images[labels == 1, :, ::2, :] += 1.0
with torch.no_grad():
    a, b = model(images), model(images, explicit=True)
print("sdpa matches explicit", torch.allclose(a, b, atol=1e-5))
opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.05)
for step in range(15):
    loss = F.cross_entropy(model(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f} bias-grad {blk.attn.relative_position_bias_table.grad.abs().sum().item():.4f}")
print("acc", (model(images).argmax(1) == labels).float().mean().item())
