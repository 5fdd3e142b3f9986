"""The torch.utils.data toolbox a training script leans on: a map-style Dataset returning
dicts (default_collate stacks them per key, nested tuples too), an IterableDataset split
across workers with get_worker_info, ConcatDataset/Subset/random_split, WeightedRandomSampler
and SubsetRandomSampler, BatchSampler(drop_last), a collate_fn padding variable-length
items, DataLoader(drop_last, pin_memory off the GPU), and a chained iterator. Shuffled order
follows each framework's RNG, so the program prints what does not depend on it."""
import numpy as np
import torch
from torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset,
                              IterableDataset, SequentialSampler, Subset, SubsetRandomSampler,
                              TensorDataset, WeightedRandomSampler, default_collate,
                              get_worker_info, random_split)

rng = np.random.default_rng(12)


class Records(Dataset):
    def __init__(self, n):
        self.x = rng.normal(size=(n, 3)).astype(np.float32)
        self.y = rng.integers(0, 3, size=n)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {'features': torch.from_numpy(self.x[i]), 'label': int(self.y[i]),
                'meta': (i, f"id{i}")}


ds = Records(10)
batch = next(iter(DataLoader(ds, batch_size=4)))
print("dict batch", sorted(batch), tuple(batch['features'].shape), batch['label'].dtype,
      batch['meta'][0].tolist(), batch['meta'][1])
print("default_collate", default_collate([(1, 2.0), (3, 4.0)]),
      default_collate([np.array([1, 2]), np.array([3, 4])]).dtype)


class Stream(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lo, hi = self.start, self.end
        else:
            per = (self.end - self.start + info.num_workers - 1) // info.num_workers
            lo = self.start + info.id * per
            hi = min(lo + per, self.end)
        return iter(range(lo, hi))


print("iterable", [b.tolist() for b in DataLoader(Stream(3, 10), batch_size=3)])
print("iterable drop_last", [b.tolist() for b in DataLoader(Stream(3, 10), batch_size=3, drop_last=True)])

a = TensorDataset(torch.arange(5), torch.arange(5) * 10)
b = TensorDataset(torch.arange(5, 8), torch.arange(5, 8) * 10)
cat = ConcatDataset([a, b])
print("concat", len(cat), cat[6], cat.cumulative_sizes)
sub = Subset(cat, [7, 0, 3])
print("subset", [int(sub[i][0]) for i in range(len(sub))])
train, val = random_split(cat, [0.75, 0.25], generator=torch.Generator().manual_seed(1))
print("random_split", len(train), len(val), sorted(train.indices + val.indices) == list(range(8)))
train, val, test = random_split(range(10), [5, 3, 2])
print("random_split ints", len(train), len(val), len(test))

weights = torch.tensor([0.0, 0.0, 1.0, 1.0, 0.0])
drawn = list(WeightedRandomSampler(weights, num_samples=20, replacement=True))
print("weighted", len(drawn), sorted(set(drawn)))
drawn = list(WeightedRandomSampler(torch.tensor([0.1, 5.0, 0.2, 3.0]), num_samples=4, replacement=False))
print("weighted no replacement", sorted(drawn))
print("subset random", sorted(SubsetRandomSampler([4, 1, 9])))
print("batch sampler", list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)),
      len(BatchSampler(range(7), 3, drop_last=True)))


def pad_collate(items):
    seqs, labels = zip(*items)
    lengths = torch.tensor([len(s) for s in seqs])
    out = torch.zeros(len(seqs), int(lengths.max()), dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = torch.as_tensor(s)
    return out, lengths, torch.tensor(labels)


items = [(list(range(1, n + 1)), n % 2) for n in [3, 1, 4, 2, 5]]
loader = DataLoader(items, batch_size=2, collate_fn=pad_collate, pin_memory=torch.cuda.is_available())
for padded, lengths, labels in loader:
    print("padded", padded.tolist(), lengths.tolist(), labels.tolist())
shuffled = DataLoader(a, batch_size=2, shuffle=True, drop_last=True)
seen = torch.cat([x for x, _ in shuffled])
print("shuffled", len(shuffled), "unique", len(set(seen.tolist())), "subset", set(seen.tolist()) <= set(range(5)))
print("loader attrs", shuffled.batch_size, shuffled.drop_last, type(shuffled.sampler).__name__,
      type(shuffled.batch_sampler).__name__, shuffled.num_workers)
