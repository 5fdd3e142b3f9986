"""A bag-of-embeddings text classifier (fastText style, without EmbeddingBag): a vocabulary
built from raw sentences, padding with padding_idx, a masked mean of the embeddings,
log_softmax + nll_loss, plain SGD, and predictions for new sentences (an unknown word
included)."""
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

train = [("the movie was great and fun", 1), ("a wonderful great film", 1),
         ("i loved the acting", 1), ("fun and wonderful story", 1),
         ("the movie was terrible", 0), ("awful boring film", 0),
         ("i hated the plot", 0), ("boring and terrible acting", 0)]
counter = Counter(word for sentence, _ in train for word in sentence.split())
vocab = {"<pad>": 0, "<unk>": 1}
for word, _ in counter.most_common():
    vocab[word] = len(vocab)


def encode(sentences, max_len=6):
    ids = torch.zeros(len(sentences), max_len, dtype=torch.long)
    for i, s in enumerate(sentences):
        tokens = [vocab.get(w, vocab["<unk>"]) for w in s.split()][:max_len]
        ids[i, :len(tokens)] = torch.tensor(tokens)
    return ids


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab_size, dim, classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.fc = nn.Linear(dim, classes)

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).float()
        summed = (self.embedding(ids) * mask).sum(dim=1)
        mean = summed / mask.sum(dim=1).clamp(min=1.0)
        return F.log_softmax(self.fc(mean), dim=1)


X = encode([s for s, _ in train])
y = torch.tensor([label for _, label in train])
model = BagOfEmbeddings(len(vocab), 8, 2)
rng = np.random.default_rng(2)
model.embedding.weight.data = torch.from_numpy(rng.normal(0, 1, (len(vocab), 8))).float()
model.embedding.weight.data[0] = 0
model.fc.weight.data = torch.from_numpy(rng.normal(0, 0.3, (2, 8))).float()
model.fc.bias.data.zero_()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

for epoch in range(20):
    model.zero_grad()
    loss = F.nll_loss(model(X), y)
    loss.backward()
    optimizer.step()
    if epoch % 5 == 4:
        accuracy = (model(X).argmax(dim=1) == y).float().mean()
        print(f"epoch {epoch + 1} loss {loss.item():.5f} accuracy {accuracy.item():.2f}")

print("vocabulary size", len(vocab), "padding row stays zero",
      bool((model.embedding.weight[0] == 0).all()))
with torch.no_grad():
    probs = model(encode(["great fun movie", "boring terrible plot", "unknown words"])).exp()
print("probabilities", [[round(p, 4) for p in row] for row in probs.tolist()])
