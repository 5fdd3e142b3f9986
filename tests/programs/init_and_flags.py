"""The set-up lines at the top of a training script: seeding (torch.manual_seed,
use_deterministic_algorithms, cudnn flags, set_float32_matmul_precision, set_num_threads),
model.apply() with nn.init (xavier/kaiming/orthogonal/trunc_normal/constant/eye, with
calculate_gain), channels_last memory format, parameter counting and freezing, named_modules
filtering, and a parameter-group optimizer. Initial values come from torch's RNG, so the
program prints their properties, not the values."""
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(1234)
np.random.seed(1234)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.use_deterministic_algorithms(True)
torch.set_float32_matmul_precision('high')
torch.set_num_threads(1)
print("deterministic", torch.are_deterministic_algorithms_enabled(), torch.get_float32_matmul_precision(),
      torch.get_num_threads(), torch.backends.cudnn.deterministic)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.ident = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.rnn = nn.GRU(8, 8, batch_first=True)
        self.fc = nn.Linear(8, 4)
        self.square = nn.Linear(8, 8, bias=False)

    def forward(self, x):
        h = torch.relu(self.bn(self.ident(self.conv(x))))
        h = h.mean(dim=(2, 3))
        return self.fc(self.square(h))


def init_weights(m):
    if isinstance(m, nn.Conv2d) and m.bias is not None:
        nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Conv2d):  # identity kernel (what nn.init.dirac_ fills)
        with torch.no_grad():
            m.weight.zero_()
            k = m.weight.size(2) // 2
            m.weight[torch.arange(8), torch.arange(8), k, k] = 1.0
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.constant_(m.weight, 1)
        nn.init.constant_(m.bias, 0)
    elif isinstance(m, nn.GRU):
        for name, p in m.named_parameters():
            if 'weight_hh' in name:
                for chunk in p.chunk(3, 0):
                    nn.init.orthogonal_(chunk)
            elif 'weight_ih' in name:
                nn.init.xavier_uniform_(p, gain=nn.init.calculate_gain('tanh'))
            else:
                nn.init.zeros_(p)
    elif isinstance(m, nn.Linear) and m.bias is not None:
        nn.init.trunc_normal_(m.weight, std=0.02, a=-0.04, b=0.04)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Linear):
        nn.init.eye_(m.weight)


model = Net()
model.apply(init_weights)
print("gains", [round(nn.init.calculate_gain(n, p), 4) for n, p in
                [('relu', None), ('tanh', None), ('leaky_relu', 0.2), ('selu', None), ('linear', None)]])
w = model.conv.weight
fan_out = w.size(0) * w[0, 0].numel()
print("kaiming std ~", round(math.sqrt(2.0 / fan_out), 4), "within 40%",
      abs(w.std().item() / math.sqrt(2.0 / fan_out) - 1) < 0.4)
x = torch.from_numpy(np.random.default_rng(0).normal(size=(2, 8, 5, 5)).astype(np.float32))
print("dirac is identity", torch.allclose(model.ident(x), x, atol=1e-6), "eye", torch.equal(model.square.weight, torch.eye(8)))
hh = model.rnn.weight_hh_l0
print("orthogonal chunks", all(torch.allclose(c @ c.T, torch.eye(8), atol=1e-5) for c in hh.chunk(3, 0)))
print("trunc_normal bounded", bool((model.fc.weight.abs() <= 0.04).all()), "bn", model.bn.weight.unique().tolist())

model = model.to(memory_format=torch.channels_last)
print("channels_last", model.conv.weight.is_contiguous(memory_format=torch.channels_last),
      model.conv.weight.stride())
img = torch.from_numpy(np.random.default_rng(1).normal(size=(2, 3, 6, 6)).astype(np.float32))
img = img.contiguous(memory_format=torch.channels_last)
out = model(img)
print("out", tuple(out.shape), "img strides", img.stride())

total = sum(p.numel() for p in model.parameters())
for p in model.conv.parameters():
    p.requires_grad_(False)
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("params", total, "trainable", trainable)
convs = [n for n, m in model.named_modules() if isinstance(m, nn.Conv2d)]
print("convs", convs, "children", [n for n, _ in model.named_children()])
decay, no_decay = [], []
for n, p in model.named_parameters():
    if not p.requires_grad:
        continue
    (no_decay if p.ndim <= 1 or n.endswith('.bias') else decay).append(p)
opt = torch.optim.SGD([{'params': decay, 'weight_decay': 5e-4}, {'params': no_decay, 'weight_decay': 0.0}],
                      lr=0.1, momentum=0.9)
print("groups", [len(g['params']) for g in opt.param_groups], [g['weight_decay'] for g in opt.param_groups],
      sorted(opt.defaults)[:4])
