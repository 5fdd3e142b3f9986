"""Mixed precision and compilation as a script written for GPUs runs on a CPU: torch.compile
of the model (and of a loss function), torch.autocast('cpu', dtype=torch.bfloat16) around
the forward pass -- the dtype each op gives under the CPU policy (linear, conv, bmm in
bfloat16 and what follows them too; cross-entropy and mse in float32) -- torch.amp.GradScaler
disabled off the GPU, the
float32 master weights and gradients, and an eval pass with autocast nested inside
torch.no_grad() and disabled again in a region (enabled=False)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(10)
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.set_float32_matmul_precision("high")
torch.backends.cuda.matmul.allow_tf32 = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3, padding=1)
        self.norm = nn.LayerNorm(8)
        self.attn_q = nn.Linear(8, 8)
        self.attn_k = nn.Linear(8, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x, trace=None):
        h = self.conv(x).transpose(1, 2)                     # B, L, 8
        h = self.norm(h)
        q, k = self.attn_q(h), self.attn_k(h)
        scores = torch.bmm(q, k.transpose(1, 2)) / np.sqrt(8)
        w = scores.softmax(dim=-1)
        h = torch.bmm(w.to(h.dtype), h)
        out = self.head(h.mean(1))
        if trace is not None:
            trace.update(conv=h.dtype, norm=self.norm(self.conv(x).transpose(1, 2)).dtype,
                         scores=scores.dtype, softmax=w.dtype, out=out.dtype)
        return out


model = Net().to(device)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.4, size=p.shape).astype(np.float32)))
compiled = torch.compile(model)
loss_fn = torch.compile(lambda logits, y: F.cross_entropy(logits, y))
X = torch.from_numpy(rng.normal(size=(16, 4, 6)).astype(np.float32)).to(device)
Y = torch.from_numpy(rng.integers(0, 3, size=16)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
scaler = torch.amp.GradScaler(device, enabled=(device == "cuda"))
print("scaler enabled", scaler.is_enabled(), "scale", scaler.get_scale() if scaler.is_enabled() else None)

trace = {}
with torch.autocast(device_type=device, dtype=torch.bfloat16):
    logits = model(X, trace)
    loss = F.cross_entropy(logits, Y)
print("autocast dtypes", {k: str(v) for k, v in sorted(trace.items())}, "loss", loss.dtype)
print("is_autocast_enabled", torch.is_autocast_enabled(device), "dtype", torch.get_autocast_dtype(device))

for step in range(8):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device, dtype=torch.bfloat16):
        logits = compiled(X)
        loss = loss_fn(logits, Y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    if step % 3 == 0:
        print(f"step {step} loss {loss.item():.2f} logits {logits.dtype} grad {model.head.weight.grad.dtype} "
              f"param {model.head.weight.dtype}")

model.eval()
with torch.no_grad(), torch.autocast(device_type=device, dtype=torch.bfloat16):
    low = model(X)
    with torch.autocast(device_type=device, enabled=False):
        full = model(X.float())
print("eval", low.dtype, full.dtype, "agree", bool((low.float().argmax(1) == full.argmax(1)).float().mean() > 0.8),
      "close", torch.allclose(low.float(), full, atol=0.1))
print("acc", round((full.argmax(1) == Y).float().mean().item(), 2) >= 0.0)
with torch.autocast("cpu", dtype=torch.bfloat16):
    a = torch.ones(2, 2)
    print("mm", (a @ a).dtype, "add", (a + a).dtype, "exp", torch.exp(a).dtype,
          "mse", F.mse_loss(a @ a, a).dtype, "cat", torch.cat([a @ a, a]).dtype)
