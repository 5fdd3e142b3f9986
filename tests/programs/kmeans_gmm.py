"""Clustering with tensors, as written without scikit-learn: k-means++ seeding (distances by
torch.cdist, the next centre drawn by NumPy from the squared-distance weights), Lloyd
iterations with argmin, scatter_add_ / index_add_ and torch.bincount, inertia; then a
Gaussian mixture fitted by EM (log-densities through torch.linalg.cholesky and
solve_triangular, responsibilities with torch.logsumexp, weighted means and covariances
with einsum), compared with MultivariateNormal.log_prob, and a silhouette score."""
import math

import numpy as np
import torch
from torch.distributions import MultivariateNormal

rng = np.random.default_rng(9)
centres = np.array([[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]])
X_np = np.concatenate([c + rng.normal(0, 0.5, size=(40, 2)) for c in centres])
X = torch.from_numpy(X_np)
N, D, K = X.shape[0], X.shape[1], 3


def kmeans_pp(X, k):
    idx = [int(rng.integers(len(X)))]
    for _ in range(1, k):
        d2 = torch.cdist(X, X[idx]).min(dim=1).values ** 2
        probs = (d2 / d2.sum()).numpy()
        idx.append(int(rng.choice(len(X), p=probs)))
    return X[idx].clone()


C = kmeans_pp(X, K)
for it in range(20):
    dist = torch.cdist(X, C)
    labels = dist.argmin(dim=1)
    counts = torch.bincount(labels, minlength=K)
    sums = torch.zeros(K, D, dtype=X.dtype).index_add_(0, labels, X)
    new_C = sums / counts.clamp(min=1).unsqueeze(1)
    shift = (new_C - C).norm(dim=1).max()
    C = new_C
    if shift < 1e-6:
        break
inertia = ((X - C[labels]) ** 2).sum()
order = torch.argsort(C[:, 0] * 10 + C[:, 1])
print("kmeans iterations", it + 1, "inertia", round(inertia.item(), 4))
print("centres", [[round(v, 3) for v in row] for row in C[order].tolist()])
print("sizes", counts[order].tolist())
same = torch.zeros(K, K, dtype=torch.long)
same.view(-1).scatter_add_(0, labels * K + labels, torch.ones(N, dtype=torch.long))
print("diag counts sorted", sorted(same.diag().tolist()))

# ---- Gaussian mixture by EM, started from k-means
pi = counts.double() / N
mu = C.clone()
cov = torch.stack([torch.cov((X[labels == j] - mu[j]).T) + 1e-3 * torch.eye(D, dtype=X.dtype)
                   for j in range(K)])


def log_gauss(X, mu, cov):
    L = torch.linalg.cholesky(cov)                                   # K, D, D
    diff = (X.unsqueeze(0) - mu.unsqueeze(1)).transpose(1, 2)        # K, D, N
    sol = torch.linalg.solve_triangular(L, diff, upper=False)        # K, D, N
    maha = (sol ** 2).sum(1)                                         # K, N
    logdet = 2 * torch.log(torch.diagonal(L, dim1=-2, dim2=-1)).sum(-1)
    return -0.5 * (D * np.log(2 * np.pi) + logdet.unsqueeze(1) + maha)  # K, N


prev = -math.inf
for it in range(50):
    log_p = log_gauss(X, mu, cov) + torch.log(pi).unsqueeze(1)       # K, N
    log_norm = torch.logsumexp(log_p, dim=0)                         # N
    ll = log_norm.sum().item()
    resp = torch.exp(log_p - log_norm)                               # K, N
    nk = resp.sum(1)
    pi = nk / N
    mu = (resp @ X) / nk.unsqueeze(1)
    diff = X.unsqueeze(0) - mu.unsqueeze(1)                          # K, N, D
    cov = torch.einsum('kn,kni,knj->kij', resp, diff, diff) / nk.view(K, 1, 1) \
        + 1e-6 * torch.eye(D, dtype=X.dtype)
    if ll - prev < 1e-8:
        break
    prev = ll
order = torch.argsort(mu[:, 0] * 10 + mu[:, 1])
print("em iterations", it + 1, "log-likelihood", round(ll, 4))
print("weights", [round(v, 4) for v in pi[order].tolist()])
print("means", [[round(v, 3) for v in row] for row in mu[order].tolist()])
mvn = MultivariateNormal(mu, covariance_matrix=cov)
ref = mvn.log_prob(X.unsqueeze(1)).T                                 # K, N
print("matches MultivariateNormal", torch.allclose(ref, log_gauss(X, mu, cov), atol=1e-9))
hard = resp.argmax(0)
print("agreement with kmeans", round((hard.unsqueeze(1) == labels.unsqueeze(1)).float().mean().item(), 3) >= 0.0,
      "unique", torch.unique(hard).numel())

# ---- silhouette score
Dm = torch.cdist(X, X)
a = torch.stack([Dm[i, labels == labels[i]].sum() / (counts[labels[i]] - 1) for i in range(N)])
b = torch.stack([min(Dm[i, labels == j].mean() for j in range(K) if j != labels[i]) for i in range(N)])
sil = ((b - a) / torch.maximum(a, b)).mean()
print("silhouette", round(sil.item(), 4))
