"""A matrix product state (tensor-train) classifier in the style of tensor-network papers'
reference code: a local feature map (cos, sin), a left-to-right contraction of the cores
with torch.einsum (string and sublist forms), the label core in the middle, training with
Adam; then canonicalisation with torch.linalg.qr, truncation with torch.linalg.svd, the
norm of the state by contracting it with itself (torch.tensordot), and a tensor-train
decomposition of a small tensor by sequential SVDs, compared with the full reconstruction."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(33)
N_SITES, PHYS, BOND, N_LABELS = 6, 2, 4, 2


def feature_map(x):
    # x in [0, 1]: each pixel becomes a 2-vector (cos(pi x / 2), sin(pi x / 2))
    return torch.stack([torch.cos(math.pi * x / 2), torch.sin(math.pi * x / 2)], dim=-1)


class MPS(nn.Module):
    def __init__(self):
        super().__init__()
        cores = []
        for i in range(N_SITES):
            left = 1 if i == 0 else BOND
            right = 1 if i == N_SITES - 1 else BOND
            eye = np.zeros((left, PHYS, right), dtype=np.float32)
            for a in range(min(left, right)):
                eye[a, :, a] = 1.0
            cores.append(nn.Parameter(torch.from_numpy(
                eye + 0.1 * rng.normal(size=eye.shape).astype(np.float32))))
        self.cores = nn.ParameterList(cores)
        self.label_core = nn.Parameter(torch.from_numpy(
            (np.eye(BOND)[:, None, :].repeat(N_LABELS, 1) + 0.1 * rng.normal(size=(BOND, N_LABELS, BOND))).astype(np.float32)))
        self.center = N_SITES // 2

    def forward(self, x):
        phi = feature_map(x)  # batch, sites, phys
        left = torch.einsum('bp,lpr->blr', phi[:, 0], self.cores[0]).squeeze(1)
        for i in range(1, self.center):
            # sublist form: b=0, l=1, p=2, r=3
            left = torch.einsum(left, [0, 1], phi[:, i], [0, 2], self.cores[i], [1, 2, 3], [0, 3])
        right = torch.einsum('bp,lpr->blr', phi[:, -1], self.cores[-1]).squeeze(-1)
        for i in range(N_SITES - 2, self.center - 1, -1):
            right = torch.einsum('bp,lpr,br->bl', phi[:, i], self.cores[i], right)
        return torch.einsum('bl,lor,br->bo', left, self.label_core, right)


# a toy task: is the left half of the "image" brighter than the right half?
X = torch.from_numpy(rng.uniform(0, 1, size=(64, N_SITES)).astype(np.float32))
y = (X[:, :N_SITES // 2].sum(1) > X[:, N_SITES // 2:].sum(1)).long()
model = MPS()
print("cores", [tuple(c.shape) for c in model.cores], tuple(model.label_core.shape))
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(40):
    logits = model(X)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch} loss {loss.item():.4f} acc {(logits.argmax(1) == y).float().mean().item():.3f}")

with torch.no_grad():
    before = model(X)
    # left-canonicalise the first cores with QR, pushing R into the next core
    cores = [c.detach().clone() for c in model.cores]
    for i in range(model.center - 1):
        l, p, r = cores[i].shape
        q, rmat = torch.linalg.qr(cores[i].reshape(l * p, r))
        cores[i] = q.reshape(l, p, q.shape[1])
        cores[i + 1] = torch.tensordot(rmat, cores[i + 1], dims=([1], [0]))
    iso = torch.einsum('lpr,lps->rs', cores[0], cores[0])
    print("isometry", torch.allclose(iso, torch.eye(iso.shape[0]), atol=1e-5))
    for i, c in enumerate(cores):
        model.cores[i].data = c
    after = model(X)
    print("gauge invariant", torch.allclose(before, after, atol=1e-4))

    # truncate the bond between sites 1 and 2 with an SVD of the merged two-site tensor
    theta = torch.einsum('lpr,rqs->lpqs', cores[1], cores[2])
    l, p, q, s = theta.shape
    U, S, Vh = torch.linalg.svd(theta.reshape(l * p, q * s), full_matrices=False)
    print("singular values", [round(v, 4) for v in S.tolist()])
    k = 2
    approx = (U[:, :k] * S[:k]) @ Vh[:k]
    discarded = (S[k:] ** 2).sum() / (S ** 2).sum()
    print(f"truncation error {torch.linalg.norm(approx - theta.reshape(l * p, q * s)).item():.5f} "
          f"discarded weight {discarded.item():.5f}")

    # <psi|psi> for one label slice, contracting the MPS with itself site by site
    env = torch.ones(1, 1)
    for c in cores:
        env = torch.einsum('ab,apc,bpd->cd', env, c, c)
    print("norm^2", round(env.item(), 3), env.dtype)

# tensor-train decomposition of a 4-way tensor by sequential truncated SVDs
full = torch.from_numpy(rng.normal(size=(3, 4, 4, 3)))
ranks, tt, rest, r_prev = [1], [], full, 1
dims = full.shape
for n in dims[:-1]:
    mat = rest.reshape(r_prev * n, -1)
    U, S, Vh = torch.linalg.svd(mat, full_matrices=False)
    r = int((S > 1e-10).sum())
    tt.append(U[:, :r].reshape(r_prev, n, r))
    rest = torch.diag(S[:r]) @ Vh[:r]
    r_prev = r
    ranks.append(r)
tt.append(rest.reshape(r_prev, dims[-1], 1))
recon = tt[0]
for core in tt[1:]:
    recon = torch.einsum('...a,abc->...bc', recon, core)
recon = recon.squeeze(0).squeeze(-1)
print("tt ranks", ranks + [1], "exact", torch.allclose(recon, full), recon.dtype)
print("kron", torch.kron(torch.eye(2), torch.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()[1])
