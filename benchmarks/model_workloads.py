"""Workloads shaped like real models (issue 20, "Real models train at torch's speed"), and the
elementwise ops those models spend their time in, each written once against ``lib``.

The models are small versions of the usual suspects: a GPT-2 block and a nanoGPT training
step (pre-LN, GELU MLP, causal ``scaled_dot_product_attention``, weight-tied embedding and
``cross_entropy`` over a vocabulary, AdamW), an LSTM language model, a ViT, a ResNet-style
CNN with BatchNorm, an embedding backward with repeated indices. The elementwise rows time
one op forward and backward on 1M float32 elements.
"""
import numpy as np

from workloads import workload, _seeded_weights

MODEL_TARGET = 1.3      # every model workload: at most 1.3x torch's time
ELEMENTWISE_TARGET = 2.0


# -- GPT-2 style ----------------------------------------------------------------------------
def _gpt(lib, vocab, d, heads, layers, seq):
    """A nanoGPT-style decoder: token + position embeddings, pre-LN blocks (causal attention
    through ``scaled_dot_product_attention``, a GELU MLP), a final LayerNorm and an output
    layer tied to the token embedding; ``model(idx, targets)`` returns the loss."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.c_fc, self.mlp_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.h = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f = nn.LayerNorm(d)
            self.lm_head = nn.Linear(d, vocab, bias=False)
            self.lm_head.weight = self.wte.weight       # weight tying, as GPT-2

        def forward(self, idx, targets):
            pos = lib.arange(idx.shape[1])
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, vocab), targets.view(-1))

    model = _seeded_weights(GPT(), lib)
    with lib.no_grad():       # LayerNorm gains near one, as trained models have them
        for name, p in model.named_parameters():
            if name.endswith(('ln_1.weight', 'ln_2.weight', 'ln_f.weight')):
                p.add_(1.0)
    return model


def _tokens(lib, batch, seq, vocab, seed=5):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, vocab, (batch, seq + 1))
    return lib.tensor(idx[:, :-1]), lib.tensor(idx[:, 1:])


@workload(target=MODEL_TARGET)
def gpt2_block(lib):
    """One pre-LN GPT-2 block (d=128, 4 heads, causal SDPA, GELU MLP) between a tied
    embedding (vocab 512) and cross_entropy, seq 64 x batch 16: forward + backward."""
    model = _gpt(lib, vocab=512, d=128, heads=4, layers=1, seq=64)
    idx, targets = _tokens(lib, 16, 64, 512)

    def run():
        model.zero_grad()
        loss = model(idx, targets)
        loss.backward()
        return loss
    return run


@workload(target=MODEL_TARGET)
def nanogpt_step(lib):
    """A nanoGPT training step: 4 layers, d=128, 4 heads, vocab 512, seq 64 x batch 12,
    AdamW (weight decay 0.1): zero_grad, forward, backward, step."""
    model = _gpt(lib, vocab=512, d=128, heads=4, layers=4, seq=64)
    idx, targets = _tokens(lib, 12, 64, 512)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)

    def run():
        opt.zero_grad(set_to_none=True)
        loss = model(idx, targets)
        loss.backward()
        opt.step()
        return loss
    return run


# -- LSTM language model ------------------------------------------------------------------
@workload(target=MODEL_TARGET)
def lstm_lm_step(lib):
    """PyTorch's word_language_model: Embedding(2000, 128), 2-layer LSTM(128, 128) with
    dropout 0.2, Linear decoder, seq 35 x batch 20, cross_entropy, SGD: one training step
    (dropout masks differ between the libraries, so the results are not compared)."""
    nn, F = lib.nn, lib.nn.functional
    vocab, d = 2000, 128

    class RNNModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.2)
            self.encoder = nn.Embedding(vocab, d)
            self.rnn = nn.LSTM(d, d, 2, dropout=0.2)
            self.decoder = nn.Linear(d, vocab)

        def forward(self, idx, hidden):
            out, hidden = self.rnn(self.drop(self.encoder(idx)), hidden)
            return self.decoder(self.drop(out)), hidden

    model = _seeded_weights(RNNModel(), lib)
    idx, targets = _tokens(lib, 20, 35, vocab)
    idx, targets = idx.t().contiguous(), targets.t().contiguous()    # (seq, batch)
    hidden = (lib.zeros(2, 20, d), lib.zeros(2, 20, d))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)

    def run():
        opt.zero_grad()
        logits, _ = model(idx, hidden)
        loss = F.cross_entropy(logits.view(-1, vocab), targets.view(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
    return run


# -- ViT ----------------------------------------------------------------------------------
@workload(target=MODEL_TARGET)
def vit_step(lib):
    """A small ViT: 4x4 patches of 32x32x3 images (Conv2d stem), class token, 4 pre-LN
    TransformerEncoderLayers (d=128, 4 heads, GELU, batch_first), batch 16, cross_entropy,
    AdamW: one training step."""
    nn, F = lib.nn, lib.nn.functional
    d = 128

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch = nn.Conv2d(3, d, 4, stride=4)
            self.cls = nn.Parameter(lib.zeros(1, 1, d))
            self.pos = nn.Parameter(lib.zeros(1, 65, d))
            layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, activation='gelu',
                                               batch_first=True, norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, 10)

        def forward(self, x):
            x = self.patch(x).flatten(2).transpose(1, 2)
            x = lib.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
            return self.head(self.norm(self.encoder(x))[:, 0])

    model = _seeded_weights(ViT(), lib)
    with lib.no_grad():
        for name, p in model.named_parameters():
            if 'norm' in name and name.endswith('weight'):
                p.add_(1.0)
    rng = np.random.default_rng(6)
    x = lib.tensor(rng.standard_normal((16, 3, 32, 32), dtype=np.float32))
    y = lib.tensor(rng.integers(0, 10, 16))
    opt = lib.optim.AdamW(model.parameters(), lr=1e-4)

    def run():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return run


# -- CNN with BatchNorm --------------------------------------------------------------------
@workload(target=MODEL_TARGET)
def resnet_cnn_step(lib):
    """A ResNet-style CNN on 32x32x3, batch 32: Conv-BN-ReLU stem (16 ch), a residual block,
    MaxPool, Conv-BN-ReLU (32 ch), a residual block, global average pool, Linear(32, 10);
    cross_entropy, SGD momentum: one training step (BatchNorm in training mode)."""
    nn, F = lib.nn, lib.nn.functional

    def conv_bn(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                             nn.BatchNorm2d(cout))

    class Residual(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.a, self.b = conv_bn(c, c), conv_bn(c, c)

        def forward(self, x):
            return F.relu(x + self.b(F.relu(self.a(x))))

    model = _seeded_weights(nn.Sequential(
        conv_bn(3, 16), nn.ReLU(), Residual(16), nn.MaxPool2d(2),
        conv_bn(16, 32), nn.ReLU(), Residual(32),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)), lib)
    rng = np.random.default_rng(7)
    x = lib.tensor(rng.standard_normal((32, 3, 32, 32), dtype=np.float32))
    y = lib.tensor(rng.integers(0, 10, 32))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def run():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return run


# -- embedding backward --------------------------------------------------------------------
@workload(target=MODEL_TARGET)
def embedding_bwd(lib):
    """Embedding(1000, 128) looked up with 64x64 indices drawn from 1000 (each row about
    four times), forward + backward of a weighted sum."""
    emb = _seeded_weights(lib.nn.Embedding(1000, 128), lib)
    rng = np.random.default_rng(8)
    idx = lib.tensor(rng.integers(0, 1000, (64, 64)))
    g = lib.tensor(rng.standard_normal((64, 64, 128), dtype=np.float32))

    def run():
        emb.weight.grad = None
        emb(idx).backward(g)
        return emb.weight.grad
    return run


# -- elementwise ops at 1M elements ----------------------------------------------------------
_ROWS, _COLS = 4096, 256     # 1M float32 elements; rows of 256 for the normalisations


def _elementwise(name, fn, doc):
    """Registers ``fn(lib, x)`` forward + backward (a fixed random output gradient) on a
    4096x256 float32 tensor."""
    def setup(lib):
        rng = np.random.default_rng(9)
        x = lib.tensor(rng.standard_normal((_ROWS, _COLS), dtype=np.float32) * 2,
                       requires_grad=True)
        g = lib.tensor(rng.standard_normal((_ROWS, _COLS), dtype=np.float32))
        args = fn(lib, None)

        def run():
            x.grad = None
            args(x).backward(g)
            return x.grad
        return run
    setup.__name__ = name
    setup.__doc__ = doc
    workload(target=ELEMENTWISE_TARGET, name=name)(setup)


def _layer_norm(lib, _):
    w = lib.tensor(np.linspace(0.5, 1.5, _COLS, dtype=np.float32), requires_grad=True)
    b = lib.tensor(np.linspace(-0.1, 0.1, _COLS, dtype=np.float32), requires_grad=True)
    return lambda x: lib.nn.functional.layer_norm(x, (_COLS,), w, b)


for _name, _fn, _doc in [
        ('gelu', lambda lib, _: lib.nn.functional.gelu, 'F.gelu (erf form)'),
        ('gelu_tanh', lambda lib, _: lambda x: lib.nn.functional.gelu(x, approximate='tanh'),
         "F.gelu(approximate='tanh')"),
        ('silu', lambda lib, _: lib.nn.functional.silu, 'F.silu'),
        ('erf', lambda lib, _: lib.erf, 'torch.erf'),
        ('softplus', lambda lib, _: lib.nn.functional.softplus, 'F.softplus'),
        ('layer_norm', _layer_norm, 'F.layer_norm over rows of 256, with weight and bias'),
        ('softmax', lambda lib, _: lambda x: lib.softmax(x, -1), 'softmax over rows of 256'),
        ('log_softmax', lambda lib, _: lambda x: lib.log_softmax(x, -1),
         'log_softmax over rows of 256')]:
    _elementwise('ew_' + _name, _fn, f'{_doc}: 1M float32 elements, forward + backward.')
