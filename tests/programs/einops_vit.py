"""einops on torch tensors (einops finds its torch backend through sys.modules['torch'] and
isinstance(x, torch.Tensor)): a ViT-style patch embedding with einops.layers.torch,
a class token repeated over the batch, attention heads split and merged with rearrange,
max pooling with reduce, einsum, pack and unpack."""
import numpy as np
import torch
import torch.nn as nn
from einops import einsum, pack, rearrange, reduce, repeat, unpack
from einops.layers.torch import Rearrange, Reduce

rng = np.random.default_rng(6)
images = torch.from_numpy(rng.normal(size=(2, 3, 8, 8)).astype(np.float32))

patch_embed = nn.Sequential(
    Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=4, p2=4),
    nn.Linear(4 * 4 * 3, 12),
)
with torch.no_grad():
    for p in patch_embed.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.1, size=tuple(p.shape))))
print(patch_embed)

tokens = patch_embed(images)
cls_token = torch.from_numpy(rng.normal(size=(1, 1, 12)).astype(np.float32))
tokens = torch.cat([repeat(cls_token, '1 1 d -> b 1 d', b=images.shape[0]), tokens], dim=1)
print("tokens", tuple(tokens.shape))

q = rearrange(tokens, 'b n (h d) -> b h n d', h=3)
k = rearrange(tokens.flip(1), 'b n (h d) -> b h n d', h=3)
scores = einsum(q, k, 'b h i d, b h j d -> b h i j') / 2.0
attn = scores.softmax(dim=-1)
merged = rearrange(attn @ q, 'b h n d -> b n (h d)')
print("merged", tuple(merged.shape), round(merged.sum().item(), 4))

pooled = reduce(merged, 'b n d -> b d', 'max')
print("pooled", [round(v, 4) for v in pooled[0].tolist()[:6]])
summed = Reduce('b n d -> b d', 'sum')(merged)
print("summed", round(summed.abs().sum().item(), 4))

packed, ps = pack([cls_token.expand(2, 1, 12), merged[:, 1:]], 'b * d')
first, rest = unpack(packed, ps, 'b * d')
print("pack", tuple(packed.shape), ps, tuple(first.shape), tuple(rest.shape))
stacked = rearrange([images[0], images[1]], 'n c h w -> n (c h w)')
print("stacked", tuple(stacked.shape), type(stacked).__name__)

loss = pooled.pow(2).mean()
loss.backward()
print("grad norm", round(patch_embed[1].weight.grad.norm().item(), 5))
