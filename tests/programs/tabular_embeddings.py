"""A tabular model of the kind written for Kaggle: categorical columns through nn.Embedding in
an nn.ModuleDict, numeric columns standardised and bucketized on torch.quantile edges,
missing values filled with torch.where / nan_to_num, a BCE loss with pos_weight, a
ReduceLROnPlateau scheduler, early stopping on validation AUC computed with argsort, and
the best model's state_dict kept with copy.deepcopy."""
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split

rng = np.random.default_rng(2024)
N = 160
cat_cards = {'city': 5, 'device': 3, 'plan': 4}
cats = {k: rng.integers(0, c, size=N) for k, c in cat_cards.items()}
age = rng.normal(40, 12, size=N)
income = rng.lognormal(10, 0.5, size=N)
income[rng.random(N) < 0.1] = np.nan                       # missing values
logit = 0.05 * (age - 40) + 0.8 * (cats['plan'] == 2) - 0.6 * (cats['device'] == 0) + \
    0.4 * np.nan_to_num(np.log(income) - 10)
label = (rng.random(N) < 1 / (1 + np.exp(-logit))).astype(np.float32)

num = torch.tensor(np.stack([age, income], 1), dtype=torch.float32)
missing = torch.isnan(num)
col_median = torch.nanmedian(num, dim=0).values
num = torch.where(missing, col_median, num)
num[:, 1] = torch.log1p(num[:, 1])
mean, std = num.mean(0), num.std(0, unbiased=True)
num = (num - mean) / std
edges = torch.quantile(num[:, 0], torch.tensor([0.25, 0.5, 0.75]))
age_bucket = torch.bucketize(num[:, 0].contiguous(), edges, right=False)
print("median", [round(v, 3) for v in col_median.tolist()], "missing", int(missing.sum()))
print("edges", [round(v, 4) for v in edges.tolist()], "bucket counts",
      torch.bincount(age_bucket, minlength=4).tolist())
print("searchsorted", torch.searchsorted(edges, torch.tensor([-1.0, 0.0, 2.0]), right=True).tolist(),
      "quantile methods", [round(torch.quantile(num[:, 1], 0.3, interpolation=m).item(), 4)
                           for m in ['linear', 'lower', 'higher', 'midpoint', 'nearest']])

cat_tensor = torch.stack([torch.from_numpy(cats[k]) for k in cat_cards] + [age_bucket], 1)
dataset = TensorDataset(cat_tensor, num, torch.from_numpy(label))
train_set, val_set = random_split(dataset, [120, 40], generator=torch.Generator().manual_seed(0))
print("split", len(train_set), len(val_set))
# the split itself follows torch's RNG: train and validate on a fixed split instead
train_idx, val_idx = np.arange(120), np.arange(120, 160)


class TabularNet(nn.Module):
    def __init__(self):
        super().__init__()
        cards = dict(cat_cards, age_bucket=4)
        self.embeds = nn.ModuleDict({k: nn.Embedding(c, min(4, (c + 1) // 2)) for k, c in cards.items()})
        emb_dim = sum(e.embedding_dim for e in self.embeds.values())
        self.bn_num = nn.BatchNorm1d(2)
        self.mlp = nn.Sequential(nn.Linear(emb_dim + 2, 16), nn.ReLU(), nn.Dropout(0.0),
                                 nn.Linear(16, 1))

    def forward(self, cat, num):
        embs = [emb(cat[:, i]) for i, emb in enumerate(self.embeds.values())]
        return self.mlp(torch.cat(embs + [self.bn_num(num)], dim=1)).squeeze(-1)


def auc(scores, labels):
    order = torch.argsort(scores, stable=True)
    ranks = torch.empty_like(order, dtype=torch.float32)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=torch.float32)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return ((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


model = TabularNet()
with torch.no_grad():
    for name, p in model.named_parameters():
        if 'bn' not in name:
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape)))
pos_weight = torch.tensor((label[:120] == 0).sum() / max(1, (label[:120] == 1).sum()))
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode='max', factor=0.5, patience=1)
c_tr, n_tr, y_tr = cat_tensor[train_idx], num[train_idx], torch.from_numpy(label[train_idx])
c_va, n_va, y_va = cat_tensor[val_idx], num[val_idx], torch.from_numpy(label[val_idx])

best_auc, best_state, bad, patience = -1.0, None, 0, 3
for epoch in range(20):
    model.train()
    for i in range(0, 120, 40):
        loss = criterion(model(c_tr[i:i + 40], n_tr[i:i + 40]), y_tr[i:i + 40])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_auc = auc(model(c_va, n_va), y_va)
    scheduler.step(val_auc)
    print(f"epoch {epoch} loss {loss.item():.4f} val_auc {val_auc:.4f} lr {optimizer.param_groups[0]['lr']:.4f}")
    if val_auc > best_auc + 1e-4:
        best_auc, best_state, bad = val_auc, copy.deepcopy(model.state_dict()), 0
    else:
        bad += 1
        if bad >= patience:
            print("early stop at epoch", epoch)
            break
model.load_state_dict(best_state)
model.eval()
with torch.no_grad():
    probs = torch.sigmoid(model(c_va, n_va))
print("best auc", f"{best_auc:.4f}", "restored", f"{auc(probs, y_va):.4f}")
print("embedding dims", {k: tuple(e.weight.shape) for k, e in model.embeds.items()})
print("clamped", torch.clamp(probs, 0.2, 0.8).min().item() >= 0.2, "nan_to_num",
      torch.nan_to_num(torch.tensor([float('nan'), float('inf'), -1.0]), nan=0.0, posinf=9.0).tolist())
