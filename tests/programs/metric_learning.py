"""Metric learning with triplets: a Sampler subclass that yields class-balanced batches, a
DataLoader with a collate_fn building (anchor, positive, negative) triplets, an embedding net
with F.normalize, TripletMarginLoss, then retrieval: torch.cdist, topk and recall@k."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

rng = np.random.default_rng(29)
CLASSES, PER_CLASS, DIM = 4, 8, 6

centers = rng.normal(0, 1.0, size=(CLASSES, DIM))
features = np.concatenate([c + rng.normal(0, 0.8, size=(PER_CLASS, DIM)) for c in centers])
labels = np.repeat(np.arange(CLASSES), PER_CLASS)


class PointSet(Dataset):
    def __init__(self, x, y):
        self.x = torch.tensor(x, dtype=torch.float32)
        self.y = torch.as_tensor(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class BalancedBatchSampler(Sampler):
    """Yields batches of `k` samples from each of `p` classes, deterministically."""

    def __init__(self, labels, p, k, batches):
        self.by_class = {int(c): np.flatnonzero(labels == c) for c in np.unique(labels)}
        self.p, self.k, self.batches = p, k, batches
        self.rng = np.random.default_rng(0)

    def __iter__(self):
        for _ in range(self.batches):
            classes = self.rng.choice(sorted(self.by_class), self.p, replace=False)
            yield [int(i) for c in classes
                   for i in self.rng.choice(self.by_class[int(c)], self.k, replace=False)]

    def __len__(self):
        return self.batches


def triplet_collate(batch):
    x = torch.stack([b[0] for b in batch])
    y = torch.stack([b[1] for b in batch])
    same = y[:, None] == y[None, :]
    eye = torch.eye(len(y), dtype=torch.bool)
    pos_idx = (same & ~eye).float().argmax(dim=1)        # first other sample of the class
    neg_idx = (~same).float().argmax(dim=1)               # first sample of another class
    return x, x[pos_idx], x[neg_idx], y


class EmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, 16), nn.PReLU(), nn.Linear(16, 4))

    def forward(self, x):
        return F.normalize(self.net(x), p=2, dim=1)


dataset = PointSet(features, labels)
loader = DataLoader(dataset, batch_sampler=BalancedBatchSampler(labels, p=2, k=3, batches=6),
                    collate_fn=triplet_collate)
model = EmbeddingNet()
with torch.no_grad():
    for name, p in model.named_parameters():
        if 'net.1' not in name:  # (PReLU keeps its 0.25)
            p.copy_(torch.from_numpy(rng.normal(0, 0.4, size=p.shape)))
criterion = nn.TripletMarginLoss(margin=0.5, p=2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)


def recall_at_k(emb, y, k):
    d = torch.cdist(emb, emb)
    d.fill_diagonal_(float('inf'))
    _, idx = d.topk(k, dim=1, largest=False)
    return (y[idx] == y[:, None]).any(dim=1).float().mean().item()


with torch.no_grad():
    emb = model(dataset.x)
print("before recall@1", f"{recall_at_k(emb, dataset.y, 1):.3f}", "recall@3",
      f"{recall_at_k(emb, dataset.y, 3):.3f}")
for epoch in range(3):
    for step, (a, p, n, y) in enumerate(loader):
        loss = criterion(model(a), model(p), model(n))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} last loss {loss.item():.4f} batch {tuple(a.shape)} classes {sorted(set(y.tolist()))}")

with torch.no_grad():
    emb = model(dataset.x)
print("after recall@1", f"{recall_at_k(emb, dataset.y, 1):.3f}", "recall@3",
      f"{recall_at_k(emb, dataset.y, 3):.3f}")
print("unit norm", torch.allclose(emb.norm(dim=1), torch.ones(len(emb))))
d1 = torch.cdist(emb[:5], emb[5:9], p=1)
d2 = (emb[:5, None] - emb[None, 5:9]).abs().sum(-1)
print("cdist p=1", torch.allclose(d1, d2, atol=1e-6), "cosine", [round(v, 4) for v in
      F.cosine_similarity(emb[:3], emb[3:6]).tolist()])
# (distinct values: which of tied elements topk returns first is up to the implementation)
vals, idx = torch.topk(torch.tensor([3.0, 1.0, 4.0, 2.0, 5.0]), 3, sorted=True)
print("topk", vals.tolist(), idx.tolist(), "prelu", round(model.net[1].weight.item(), 4))
