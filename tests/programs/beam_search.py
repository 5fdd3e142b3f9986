"""Beam search decoding from a small GRU language model, the way seq2seq codebases write it:
log-probabilities with log_softmax, scores of every beam expanded over the vocabulary and
flattened, topk over beam*vocab, the beam and token recovered with // and %, hidden states
reordered with index_select, finished hypotheses masked with masked_fill(-inf), a length
penalty, and a comparison with greedy decoding; then top-k / top-p filtering of logits."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(77)
V, H, BOS, EOS = 8, 16, 0, 1


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, H)
        self.gru = nn.GRU(H, H, batch_first=True)
        self.out = nn.Linear(H, V)

    def forward(self, tokens, h=None):
        o, h = self.gru(self.embed(tokens), h)
        return self.out(o), h


model = LM()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, size=p.shape).astype(np.float32)))

# train briefly on sequences "0 a b c ... 1" that count upward mod 6 (tokens 2-7)
seqs = []
for s in range(6):
    body = [2 + (s + i) % 6 for i in range(4)]
    seqs.append([BOS] + body + [EOS])
data = torch.tensor(seqs)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(60):
    logits, _ = model(data[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, V), data[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"lm loss {loss.item():.4f}")


@torch.no_grad()
def beam_search(prefix, beam_size=3, max_len=8, alpha=0.7):
    tokens = torch.tensor([prefix])
    logits, h = model(tokens)
    logp = F.log_softmax(logits[:, -1], dim=-1)               # 1, V
    scores, first = logp.topk(beam_size, dim=-1)              # 1, B
    beams = torch.cat([tokens.repeat(beam_size, 1), first.T], dim=1)
    scores = scores.squeeze(0)
    h = h.repeat(1, beam_size, 1)
    finished = beams[:, -1] == EOS
    for _ in range(max_len - 1):
        if finished.all():
            break
        logits, h_new = model(beams[:, -1:], h)
        logp = F.log_softmax(logits[:, -1], dim=-1)           # B, V
        # a finished beam can only extend with EOS at no cost
        logp = logp.masked_fill(finished.unsqueeze(1), float('-inf'))
        logp[:, EOS] = torch.where(finished, torch.zeros_like(logp[:, EOS]), logp[:, EOS])
        cand = (scores.unsqueeze(1) + logp).view(-1)
        scores, flat = cand.topk(beam_size)
        beam_idx = torch.div(flat, V, rounding_mode='floor')
        token_idx = flat % V
        beams = torch.cat([beams.index_select(0, beam_idx), token_idx.unsqueeze(1)], dim=1)
        h = h_new.index_select(1, beam_idx)
        finished = finished.gather(0, beam_idx) | (token_idx == EOS)
    lengths = ((beams != EOS).cumsum(1) == torch.arange(1, beams.shape[1] + 1)).sum(1).float()
    normed = scores / (((5 + lengths) / 6) ** alpha)
    order = normed.argsort(descending=True)
    return beams[order], normed[order]


@torch.no_grad()
def greedy(prefix, max_len=8):
    tokens = torch.tensor([prefix])
    h = None
    logits, h = model(tokens, h)
    out = list(prefix)
    for _ in range(max_len):
        nxt = logits[0, -1].argmax().item()
        out.append(nxt)
        if nxt == EOS:
            break
        logits, h = model(torch.tensor([[nxt]]), h)
    return out


beams, scores = beam_search([BOS, 4])
for b, s in zip(beams.tolist(), scores.tolist()):
    print("beam", b, f"{s:.4f}")
print("greedy", greedy([BOS, 4]))
print("greedy equals best beam (up to EOS)", greedy([BOS, 4]) == [t for t in beams[0].tolist()][:len(greedy([BOS, 4]))])


def top_k_top_p_filtering(logits, top_k=0, top_p=1.0, filter_value=-float("Inf")):
    if top_k > 0:
        indices_to_remove = logits < torch.topk(logits, top_k)[0][..., -1, None]
        logits = logits.masked_fill(indices_to_remove, filter_value)
    if top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        sorted_indices_to_remove = cumulative_probs > top_p
        sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
        sorted_indices_to_remove[..., 0] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
        logits = logits.masked_fill(indices_to_remove, filter_value)
    return logits


with torch.no_grad():
    logits, _ = model(torch.tensor([[BOS, 2], [BOS, 5]]))
    last = logits[:, -1]
    print("top-k kept", torch.isfinite(top_k_top_p_filtering(last, top_k=3)).sum(1).tolist())
    filtered = top_k_top_p_filtering(last, top_p=0.9)
    print("top-p kept", torch.isfinite(filtered).sum(1).tolist(),
          [round(v, 4) for v in F.softmax(filtered, -1).max(1).values.tolist()])
    gen = torch.Generator().manual_seed(0)
    sample = torch.multinomial(F.softmax(filtered, -1), 1, generator=gen)
    print("sample in kept", bool(torch.isfinite(filtered.gather(1, sample)).all()))
