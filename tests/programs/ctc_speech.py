"""A tiny speech recogniser: log-mel-like features through a Conv1d front end and a
bidirectional LSTM, trained with nn.CTCLoss on variable-length targets (concatenated 1-D
targets with target_lengths, and the padded 2-D form), greedy CTC decoding with argmax +
unique_consecutive, and an edit distance for the error rate; nn.utils.rnn.pad_sequence and
a LambdaLR warm-up."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

rng = np.random.default_rng(101)
BLANK, VOCAB, FEATS = 0, 6, 8

# each "phone" k is a feature template; an utterance repeats each phone 3-4 frames
templates = rng.normal(0, 1.0, size=(VOCAB, FEATS)).astype(np.float32)
utts, labels = [], []
for _ in range(6):
    n = int(rng.integers(2, 5))
    phones = rng.integers(1, VOCAB, size=n)
    frames = np.concatenate([np.repeat(templates[p][None], rng.integers(3, 5), 0) for p in phones])
    utts.append(torch.from_numpy(frames + rng.normal(0, 0.3, size=frames.shape).astype(np.float32)))
    labels.append(torch.from_numpy(phones))
input_lengths = torch.tensor([u.size(0) for u in utts])
target_lengths = torch.tensor([len(l) for l in labels])
feats = pad_sequence(utts, batch_first=True)                     # (B, T, F)
targets_1d = torch.cat(labels)
targets_2d = pad_sequence(labels, batch_first=True, padding_value=BLANK)
print("batch", tuple(feats.shape), "input_lengths", input_lengths.tolist(),
      "target_lengths", target_lengths.tolist())


class Recogniser(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = nn.Conv1d(FEATS, 12, kernel_size=3, padding=1)
        self.lstm = nn.LSTM(12, 10, num_layers=2, batch_first=True, bidirectional=True,
                            dropout=0.0)
        self.out = nn.Linear(20, VOCAB)

    def forward(self, x):
        h = F.gelu(self.front(x.transpose(1, 2))).transpose(1, 2)
        h, _ = self.lstm(h)
        return self.out(h).log_softmax(-1)                        # (B, T, V)


model = Recogniser()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, size=p.shape)))
ctc = nn.CTCLoss(blank=BLANK, reduction='mean', zero_infinity=True)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 3))

for step in range(8):
    log_probs = model(feats).transpose(0, 1)                      # CTC wants (T, B, V)
    loss = ctc(log_probs, targets_1d, input_lengths, target_lengths)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    scheduler.step()
    print(f"step {step} ctc {loss.item():.4f}")

with torch.no_grad():
    log_probs = model(feats).transpose(0, 1)
    padded = F.ctc_loss(log_probs, targets_2d, input_lengths, target_lengths, blank=BLANK,
                        reduction='none')
    summed = F.ctc_loss(log_probs, targets_1d, input_lengths, target_lengths, reduction='sum')
print("per utterance", [round(v, 3) for v in padded.tolist()], "sum", f"{summed.item():.3f}")


def greedy_decode(log_probs, lengths):
    best = log_probs.argmax(-1).T                                  # (B, T)
    out = []
    for seq, n in zip(best, lengths):
        collapsed = torch.unique_consecutive(seq[:n])
        out.append(collapsed[collapsed != BLANK].tolist())
    return out


def edit_distance(a, b):
    d = torch.arange(len(b) + 1)
    for i, x in enumerate(a, 1):
        prev, d = d, torch.empty_like(d)
        d[0] = i
        for j, y in enumerate(b, 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (x != y))
    return int(d[-1])


hyps = greedy_decode(log_probs, input_lengths)
errors = sum(edit_distance(h, l.tolist()) for h, l in zip(hyps, labels))
print("hyp lengths", [len(h) for h in hyps], "PER", f"{errors / int(target_lengths.sum()):.3f}")
vals, inverse, counts = torch.unique_consecutive(torch.tensor([1, 1, 0, 0, 2, 2, 2, 1]),
                                                 return_inverse=True, return_counts=True)
print("unique_consecutive", vals.tolist(), inverse.tolist(), counts.tolist())
