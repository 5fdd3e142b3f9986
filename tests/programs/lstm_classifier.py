"""A sequence classifier: Embedding, a 2-layer bidirectional LSTM (batch_first), the last
hidden states of both directions concatenated, a Linear head; Adam, cross-entropy,
gradient-norm clipping, accuracy on a held-out split. Task: does the sequence contain
token 1 more often than token 2?"""
import numpy as np
import torch
import torch.nn as nn

VOCAB, EMB, HIDDEN, SEQ = 6, 8, 12, 10


class LSTMClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.lstm = nn.LSTM(EMB, HIDDEN, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * HIDDEN, 2)

    def forward(self, x):
        emb = self.embedding(x)
        output, (h_n, c_n) = self.lstm(emb)
        hidden = torch.cat((h_n[-2], h_n[-1]), dim=1)
        return self.fc(hidden)


rng = np.random.default_rng(7)
tokens = rng.integers(0, VOCAB, size=(80, SEQ))
targets = ((tokens == 1).sum(1) > (tokens == 2).sum(1)).astype(np.int64)
x_train, y_train = torch.from_numpy(tokens[:64]), torch.from_numpy(targets[:64])
x_test, y_test = torch.from_numpy(tokens[64:]), torch.from_numpy(targets[64:])

model = LSTMClassifier()
with torch.no_grad():
    for name, param in model.named_parameters():
        param.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, size=param.shape)).float())

optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
for epoch in range(5):
    model.train()
    epoch_loss = 0.0
    for i in range(0, 64, 16):
        optimizer.zero_grad()
        logits = model(x_train[i:i + 16])
        loss = criterion(logits, y_train[i:i + 16])
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        optimizer.step()
        epoch_loss += loss.item()
    model.eval()
    with torch.no_grad():
        acc = (model(x_test).argmax(1) == y_test).float().mean().item()
    print(f"epoch {epoch}: loss={epoch_loss / 4:.4f} test_acc={acc:.3f}")

out, (h, c) = model.lstm(model.embedding(x_test[:2]))
print("shapes", tuple(out.shape), tuple(h.shape), tuple(c.shape))
print("h mean", round(h.mean().item(), 5))
