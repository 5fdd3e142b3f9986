"""A training script written for GPUs (the prelude of nanoGPT-style scripts: device probing,
TF32 and cuDNN flags, autocast, a GradScaler, torch.compile, checkpointing) runs unchanged
on ember and takes the same steps as on torch's CPU build."""
from contextlib import nullcontext

import numpy as np

from .compare import same


def train(torch):
    device = 'cuda' if torch.cuda.is_available() else \
        'mps' if torch.backends.mps.is_available() else 'cpu'
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32,
             torch.backends.cudnn.benchmark)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    try:
        dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() \
            else 'float16'
        ctx = nullcontext() if device == 'cpu' else torch.amp.autocast(device_type=device)
        scaler = torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))
        model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.GELU(), torch.nn.Linear(8, 3))
        with torch.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(torch.tensor(np.linspace(-1, 1, p.numel(), dtype=np.float32)
                                     .reshape(tuple(p.shape)) * (0.5 + i / 4)))
        model = model.to(device)
        compiled = torch.compile(model)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        x = torch.tensor(np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6), device=device)
        y = torch.tensor([0, 2, 1, 2], device=device)
        losses = []
        for step in range(4):
            with ctx:
                h = torch.utils.checkpoint.checkpoint(compiled, x, use_reentrant=False)
                loss = torch.nn.functional.cross_entropy(h, y)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            losses.append(loss.item())
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return device, dtype, scaler.is_enabled(), losses, list(compiled.state_dict())
    finally:
        (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32,
         torch.backends.cudnn.benchmark) = saved


def test_gpu_script_prelude_runs_and_trains_as_torch():
    import torch.utils.checkpoint  # noqa: F401  (torch loads it only when imported)
    e = same(train, internal=('script_method',))  # torch's compiler importing itself
    assert e[0][0] == 'ok' and e[0][1][0] == 'cpu'
