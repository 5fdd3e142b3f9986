"""Variable-length sequences through a GRU: pad_sequence, pack_padded_sequence
(enforce_sorted=False), pad_packed_sequence, and a per-token tagging loss that ignores
padding (ignore_index)."""
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence

rng = np.random.default_rng(8)
lengths = [5, 2, 4, 3]
seqs = [torch.from_numpy(rng.normal(size=(n, 3)).astype(np.float32)) for n in lengths]
tags = [torch.from_numpy(rng.integers(0, 4, size=n)) for n in lengths]
padded = pad_sequence(seqs, batch_first=True)
padded_tags = pad_sequence(tags, batch_first=True, padding_value=-100)

gru = nn.GRU(3, 6, batch_first=True)
head = nn.Linear(6, 4)
with torch.no_grad():
    for p in list(gru.parameters()) + list(head.parameters()):
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, size=tuple(p.shape))))
optimizer = torch.optim.Adam(list(gru.parameters()) + list(head.parameters()), lr=0.02)
criterion = nn.CrossEntropyLoss(ignore_index=-100)

for step in range(5):
    packed = pack_padded_sequence(padded, torch.tensor(lengths), batch_first=True,
                                  enforce_sorted=False)
    out, h_n = gru(packed)
    out, out_lengths = pad_packed_sequence(out, batch_first=True)
    loss = criterion(head(out).reshape(-1, 4), padded_tags.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.5f}")
print("padded", tuple(padded.shape), "lengths", out_lengths.tolist(), "h_n", tuple(h_n.shape))
