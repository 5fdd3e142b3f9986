"""Data-parallel training across processes with ember.distributed (the README's example).

    python -m ember.distributed.run --nproc-per-node 2 examples/ddp_train.py --epochs 3
    mpirun -np 2 python examples/ddp_train.py --epochs 3          # the same, by hand

Each process trains a replica of the model on its share of the data (DistributedSampler);
DistributedDataParallel averages the gradients, so the replicas stay identical. Rank 0
prints the loss and saves the model.
"""
import argparse

import ember as torch
import ember.distributed as dist
from ember import nn
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.utils.data import DataLoader, TensorDataset
from ember.utils.data.distributed import DistributedSampler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--save', default=None, help="where rank 0 saves the state_dict")
    args = parser.parse_args()

    dist.init_process_group(backend='gloo')      # rank and world size come from mpirun
    rank, world = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)                          # the same data on every rank
    x = torch.randn(512, 20)
    y = (x[:, :5].sum(1) > 0).long()
    dataset = TensorDataset(x, y)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)

    model = DDP(nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)                  # a new shuffle, the same on every rank
        total = torch.zeros(2)
        for xb, yb in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()                       # gradients averaged over the ranks here
            opt.step()
            total += torch.tensor([loss.item() * len(yb), len(yb)])
        dist.all_reduce(total)                    # the epoch's loss over all ranks
        if rank == 0:
            print(f"epoch {epoch}: loss {total[0].item() / total[1].item():.4f}")
    if rank == 0 and args.save:
        torch.save(model.module.state_dict(), args.save)
    dist.destroy_process_group()


if __name__ == '__main__':
    main()
