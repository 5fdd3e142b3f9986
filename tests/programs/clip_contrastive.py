"""A CLIP-style contrastive model: an image encoder (Conv2d + AdaptiveAvgPool2d) and a text
encoder (Embedding + TransformerEncoderLayer, the end-of-text token's feature taken with
argmax indexing), projections to a joint space, F.normalize, a learned temperature
logit_scale = log(1/0.07) clamped to 100, the symmetric cross-entropy over logits and
logits.T, then zero-shot classification with prompts and a top-k retrieval."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(314)
N_CLASSES, EMB, VOCAB, CTX = 4, 16, 12, 6
EOT = VOCAB - 1


class ImageEncoder(nn.Module):
    def __init__(self, width=8, out=EMB):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d((1, 1)))
        self.proj = nn.Linear(width, out, bias=False)

    def forward(self, x):
        return self.proj(torch.flatten(self.conv(x), 1))


class TextEncoder(nn.Module):
    def __init__(self, width=16, out=EMB):
        super().__init__()
        self.token_embedding = nn.Embedding(VOCAB, width)
        self.positional_embedding = nn.Parameter(torch.empty(CTX, width))
        self.layer = nn.TransformerEncoderLayer(width, 2, dim_feedforward=32, dropout=0.0,
                                                batch_first=True, norm_first=True)
        self.ln_final = nn.LayerNorm(width)
        self.text_projection = nn.Parameter(torch.empty(width, out))
        mask = torch.empty(CTX, CTX).fill_(float("-inf")).triu_(1)
        self.register_buffer("attn_mask", mask, persistent=False)

    def forward(self, text):
        x = self.token_embedding(text) + self.positional_embedding
        x = self.layer(x, src_mask=self.attn_mask)
        x = self.ln_final(x)
        return x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection


class CLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.visual = ImageEncoder()
        self.text = TextEncoder()
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def forward(self, image, text):
        image_features = F.normalize(self.visual(image), dim=-1)
        text_features = F.normalize(self.text(text), dim=-1)
        logit_scale = self.logit_scale.exp().clamp(max=100)
        logits_per_image = logit_scale * image_features @ text_features.t()
        return logits_per_image, logits_per_image.T


model = CLIP()
with torch.no_grad():
    for name, p in model.named_parameters():
        if name != 'logit_scale':
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape).astype(np.float32)))
print("logit_scale", round(model.logit_scale.exp().item(), 4), model.text.attn_mask[0].tolist())

colours = rng.normal(0, 1, size=(N_CLASSES, 3)).astype(np.float32)


def make_batch(classes):
    imgs = rng.normal(0, 0.3, size=(len(classes), 3, 8, 8)).astype(np.float32)
    imgs += colours[classes][:, :, None, None]
    toks = np.zeros((len(classes), CTX), dtype=np.int64)
    toks[:, 0] = 1                       # "a photo of"
    toks[:, 1] = 2 + np.asarray(classes)  # the class word
    toks[:, 2] = EOT
    return torch.from_numpy(imgs), torch.from_numpy(toks)


optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, betas=(0.9, 0.98), eps=1e-6,
                              weight_decay=0.2)
for step in range(25):
    classes = rng.permutation(8) % N_CLASSES
    images, texts = make_batch(classes)
    logits_per_image, logits_per_text = model(images, texts)
    # duplicate classes in a batch: soft targets over matching captions
    same = torch.from_numpy((classes[:, None] == classes[None, :]).astype(np.float32))
    targets = same / same.sum(1, keepdim=True)
    loss = (F.cross_entropy(logits_per_image, targets) + F.cross_entropy(logits_per_text, targets)) / 2
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 6 == 0:
        print(f"step {step} loss {loss.item():.4f} scale {model.logit_scale.exp().item():.3f}")

# the hard-label form, with labels = arange
images, texts = make_batch(np.arange(N_CLASSES))
with torch.no_grad():
    lpi, lpt = model(images, texts)
    labels = torch.arange(len(lpi), dtype=torch.long)
    print("eval loss", round(((F.cross_entropy(lpi, labels) + F.cross_entropy(lpt, labels)) / 2).item(), 4))

    # zero-shot: one prompt per class, images from a fresh draw
    test_classes = rng.integers(0, N_CLASSES, size=12)
    timgs, _ = make_batch(test_classes)
    _, prompts = make_batch(np.arange(N_CLASSES))
    image_features = model.visual(timgs)
    text_features = model.text(prompts)
    image_features /= image_features.norm(dim=-1, keepdim=True)
    text_features /= text_features.norm(dim=-1, keepdim=True)
    similarity = (100.0 * image_features @ text_features.T).softmax(dim=-1)
    values, indices = similarity[0].topk(3)
    print("top3", indices.tolist(), [round(v, 3) for v in values.tolist()])
    acc = (similarity.argmax(-1) == torch.from_numpy(test_classes)).float().mean()
    print("zero-shot acc", round(acc.item(), 4))
