"""DistributedSampler: each of ``num_replicas`` processes visits its own share of a dataset.

The index sequence (shuffled with a generator seeded ``seed + epoch``, or in order) is
padded by repeating its start up to a multiple of ``num_replicas`` (or, with ``drop_last``,
cut down to one), and rank r takes every ``num_replicas``-th index from position r -- the
rule torch's sampler follows, so with ``shuffle=False`` the shares are torch's exactly (the
shuffled orders differ: ember's random generator is not torch's).
"""
import math

from ... import Generator, randperm
from .sampler import Sampler

__all__ = ['DistributedSampler']


def _from_group(value, getter):
    """``value``, or when None what the default process group says (``getter``)."""
    if value is not None:
        return value
    from ... import distributed as dist
    if not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return getter()


class DistributedSampler(Sampler):
    """Yields the indices of ``dataset`` that rank ``rank`` of ``num_replicas`` handles
    (both from the default process group when None). Every rank gets the same number,
    ``ceil(len / num_replicas)`` (``drop_last``: rounded down instead). With ``shuffle``, call
    ``set_epoch(epoch)`` before each epoch so the order changes while staying the same on
    every rank.

    >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
    [1, 3, 0]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        from ... import distributed as dist
        num_replicas = _from_group(num_replicas, dist.get_world_size)
        rank = _from_group(rank, dist.get_rank)
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            # Whole rounds only: the last, partial round of indices is dropped.
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            short = self.total_size - len(indices)
            # Pad by repeating the sequence from its start (more than once if it is short).
            indices += (indices * math.ceil(short / len(indices)))[:short] if short else []
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch, which (with ``seed``) seeds the shuffle: call it before each
        epoch so every rank draws the same new order."""
        self.epoch = epoch
