"""word2vec (skip-gram with negative sampling) as tutorials write it: a vocabulary with
collections.Counter, subsampling-free (context, target) pairs, nn.Embedding(sparse=True)
for the input and output vectors trained with optim.SparseAdam (the gradients are sparse
COO tensors, coalesced), F.logsigmoid losses, then a CBOW variant with nn.EmbeddingBag
(mode='mean', offsets, and per_sample_weights with mode='sum'), and nearest neighbours by
cosine similarity. Negatives come from NumPy, so the run is the same everywhere."""
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(2)
corpus = ("the king rules the kingdom . the queen rules the kingdom . "
          "a dog chases a cat . a cat chases a mouse . the king and the queen . "
          "a dog and a cat .").split() * 3
counts = Counter(corpus)
vocab = sorted(counts, key=lambda w: (-counts[w], w))
w2i = {w: i for i, w in enumerate(vocab)}
ids = [w2i[w] for w in corpus]
V, D, WINDOW, K = len(vocab), 8, 2, 3
print("vocab", V, vocab[:5])

pairs = [(ids[i], ids[j]) for i in range(len(ids))
         for j in range(max(0, i - WINDOW), min(len(ids), i + WINDOW + 1)) if i != j]
pairs = torch.tensor(pairs)
freq = np.array([counts[w] for w in vocab], dtype=np.float64) ** 0.75
noise = freq / freq.sum()


class SkipGram(nn.Module):
    def __init__(self):
        super().__init__()
        self.in_embed = nn.Embedding(V, D, sparse=True)
        self.out_embed = nn.Embedding(V, D, sparse=True)
        with torch.no_grad():
            self.in_embed.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, (V, D)) / D))
            self.out_embed.weight.zero_()

    def forward(self, center, context, negatives):
        v = self.in_embed(center)                      # B, D
        u = self.out_embed(context)                    # B, D
        n = self.out_embed(negatives)                  # B, K, D
        pos = F.logsigmoid((v * u).sum(-1))
        neg = F.logsigmoid(-torch.bmm(n, v.unsqueeze(2)).squeeze(2)).sum(-1)
        return -(pos + neg).mean()


model = SkipGram()
optimizer = torch.optim.SparseAdam(list(model.parameters()), lr=0.05)
for epoch in range(6):
    total = 0.0
    for i in range(0, len(pairs), 64):
        batch = pairs[i:i + 64]
        negatives = torch.from_numpy(rng.choice(V, size=(len(batch), K), p=noise))
        loss = model(batch[:, 0], batch[:, 1], negatives)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch)
    if epoch % 2 == 1:
        print(f"epoch {epoch} loss {total / len(pairs):.4f}")

g = model.in_embed.weight.grad
print("sparse grad", g.is_sparse, g.layout, tuple(g.shape), g.coalesce().indices().shape[0] == 1)
print("state", sorted(optimizer.state[model.in_embed.weight].keys()))

E = F.normalize(model.in_embed.weight.detach(), dim=1)


def neighbours(word, k=3):
    sims = E @ E[w2i[word]]
    sims[w2i[word]] = -2
    top = torch.topk(sims, k)
    return [vocab[i] for i in top.indices.tolist()]


print("king ~", neighbours("king"))
print("cat ~", neighbours("cat"))
print("cos(king, queen) > cos(king, mouse)",
      bool(F.cosine_similarity(E[w2i['king']], E[w2i['queen']], dim=0)
           > F.cosine_similarity(E[w2i['king']], E[w2i['mouse']], dim=0)))

# CBOW: the mean of the context embeddings predicts the centre word
bag = nn.EmbeddingBag(V, D, mode='mean')
head = nn.Linear(D, V)
with torch.no_grad():
    bag.weight.copy_(torch.from_numpy(rng.normal(0, 0.3, (V, D))))
    head.weight.copy_(torch.from_numpy(rng.normal(0, 0.3, (V, D))))
    head.bias.zero_()
contexts, targets, offsets = [], [], []
for i in range(WINDOW, len(ids) - WINDOW):
    offsets.append(len(contexts))
    contexts.extend(ids[i - WINDOW:i] + ids[i + 1:i + WINDOW + 1])
    targets.append(ids[i])
flat, offsets, targets = torch.tensor(contexts), torch.tensor(offsets), torch.tensor(targets)
opt = torch.optim.Adagrad(list(bag.parameters()) + list(head.parameters()), lr=0.3)
for step in range(30):
    logits = head(bag(flat, offsets))
    loss = F.cross_entropy(logits, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"cbow loss {loss.item():.4f} acc {(logits.argmax(1) == targets).float().mean().item():.3f}")
weights = torch.tensor([1.0, 0.5, 0.5, 1.0] * len(offsets))
weighted = nn.EmbeddingBag.from_pretrained(bag.weight.detach(), mode='sum')
out = weighted(flat, offsets, per_sample_weights=weights)
print("weighted bag", tuple(out.shape), [round(v, 4) for v in out[0, :3].tolist()])
print("2-d input", tuple(bag(flat.view(-1, 4)[:5]).shape),
      torch.allclose(bag(flat.view(-1, 4)[:5]), bag(flat[:20], offsets[:5]), atol=1e-6))
