"""The skeleton of a DistributedDataParallel training script, run as a single process (world
size 1, the gloo backend over a local TCP store): init_process_group from MASTER_ADDR /
MASTER_PORT environment variables, DistributedSampler with set_epoch, a model wrapped in
DDP (model.module for saving), all_reduce of the loss for logging, barrier, rank-0-only
checkpointing with the 'module.' prefix stripped by consume_prefix_in_state_dict_if_present,
and destroy_process_group. A custom convolution reads its sizes with _pair as layer code does."""
import io
import os
import socket

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.utils import _pair, consume_prefix_in_state_dict_if_present
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

rng = np.random.default_rng(5)


class StdConv2d(nn.Conv2d):
    """Weight-standardised convolution (as BiT/ResNet-v2 code defines it)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, eps=1e-5):
        super().__init__(in_channels, out_channels, _pair(kernel_size), stride=_pair(stride),
                         padding=_pair(padding), bias=False)
        self.eps = eps

    def forward(self, x):
        w = self.weight
        mean = w.mean(dim=(1, 2, 3), keepdim=True)
        var = w.var(dim=(1, 2, 3), keepdim=True, unbiased=False)
        w = (w - mean) / torch.sqrt(var + self.eps)
        return F.conv2d(x, w, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = StdConv2d(1, 4, 3, padding=1)
        self.gn = nn.GroupNorm(2, 4)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        x = F.relu(self.gn(self.conv(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def setup(rank, world_size):
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = str(free_port())
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def main(rank=0, world_size=1):
    setup(rank, world_size)
    print("initialized", dist.is_initialized(), "rank", dist.get_rank(), "world", dist.get_world_size(),
          "backend", dist.get_backend())
    X = torch.from_numpy(rng.normal(size=(40, 1, 6, 6)).astype(np.float32))
    y = (X[:, 0, :3].mean((1, 2)) > X[:, 0, 3:].mean((1, 2))).long()
    dataset = TensorDataset(X, y)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=False)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    print("sampler", len(sampler), "batches", len(loader), "conv sizes", StdConv2d(1, 1, 3).kernel_size)

    model = Net()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.5, size=p.shape).astype(np.float32)))
    ddp_model = DDP(model)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        running = torch.zeros(2)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(ddp_model(xb), yb)
            loss.backward()
            optimizer.step()
            running += torch.tensor([loss.item() * len(xb), len(xb)])
        dist.all_reduce(running, op=dist.ReduceOp.SUM)
        print(f"epoch {epoch} loss {(running[0] / running[1]).item():.4f}")
    dist.barrier()
    if rank == 0:
        buf = io.BytesIO()
        torch.save(ddp_model.state_dict(), buf)
        buf.seek(0)
        state = torch.load(buf)
        print("saved keys", list(state.keys())[:2])
        consume_prefix_in_state_dict_if_present(state, 'module.')
        fresh = Net()
        print("load", fresh.load_state_dict(state))
        with torch.no_grad():
            print("same outputs", torch.allclose(fresh(X), ddp_model.module(X)))
    t = torch.tensor([float(rank + 1)])
    dist.broadcast(t, src=0)
    gathered = [torch.zeros(1) for _ in range(world_size)]
    dist.all_gather(gathered, t)
    print("collectives", t.item(), [g.item() for g in gathered])
    dist.destroy_process_group()
    print("destroyed", dist.is_initialized())


if __name__ == "__main__":
    main()
