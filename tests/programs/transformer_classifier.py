"""A Transformer encoder classifier: nn.TransformerEncoder of nn.TransformerEncoderLayer
(batch_first, GELU, norm_first, dropout 0), a learned [CLS] token and positional embedding,
a key padding mask, label smoothing in nn.CrossEntropyLoss, AdamW with a LambdaLR warmup."""
import numpy as np
import torch
import torch.nn as nn

D_MODEL, VOCAB, SEQ, PAD = 16, 10, 8, 0


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL, padding_idx=PAD)
        self.cls = nn.Parameter(torch.zeros(1, 1, D_MODEL))
        self.pos = nn.Parameter(torch.zeros(1, SEQ + 1, D_MODEL))
        layer = nn.TransformerEncoderLayer(d_model=D_MODEL, nhead=4, dim_feedforward=32,
                                           dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(D_MODEL, 3)

    def forward(self, tokens):
        pad_mask = tokens == PAD
        x = self.tok(tokens)
        x = torch.cat([self.cls.expand(x.size(0), -1, -1), x], dim=1) + self.pos
        pad_mask = torch.cat([torch.zeros(x.size(0), 1, dtype=torch.bool), pad_mask], dim=1)
        x = self.encoder(x, src_key_padding_mask=pad_mask)
        return self.head(x[:, 0])


rng = np.random.default_rng(21)
lengths = rng.integers(3, SEQ + 1, size=48)
tokens = np.zeros((48, SEQ), dtype=np.int64)
for i, n in enumerate(lengths):
    tokens[i, :n] = rng.integers(1, VOCAB, size=n)
labels = torch.from_numpy(tokens.max(1) % 3)
tokens = torch.from_numpy(tokens)

model = Classifier()
with torch.no_grad():
    for name, p in model.named_parameters():
        if 'norm' in name:
            p.fill_(1.0 if name.endswith('weight') else 0.0)
        else:
            p.copy_(torch.from_numpy(rng.normal(0, 0.2, size=p.shape)))
    model.tok.weight[PAD].zero_()

optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 4))
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
for step in range(10):
    batch = slice((step % 3) * 16, (step % 3) * 16 + 16)
    logits = model(tokens[batch])
    loss = criterion(logits, labels[batch])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")

model.eval()
with torch.no_grad():
    probs = model(tokens[:4]).softmax(-1)
print("probs", [[round(v, 4) for v in row] for row in probs.tolist()])
