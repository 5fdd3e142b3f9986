"""ember.utils.data: datasets, samplers, collation and the DataLoader, as torch.utils.data.

>>> from ember.utils.data import DataLoader, TensorDataset
>>> loader = DataLoader(TensorDataset(ember.arange(6.0)), batch_size=4, shuffle=True)
>>> [tuple(x.shape) for (x,) in loader]
[(4,), (2,)]
"""
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
# (torch imports it here too: DDP scripts reach it as torch.utils.data.distributed after a
# bare ``import torch``, or import it from torch.utils.data)
from .distributed import DistributedSampler
from . import _utils  # noqa: F401  (torch.utils.data._utils.collate, as torch has it)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ['BatchSampler', 'ChainDataset', 'ConcatDataset', 'DataLoader', 'Dataset',
           'DistributedSampler',
           'IterableDataset', 'RandomSampler', 'Sampler', 'SequentialSampler', 'StackDataset',
           'Subset', 'SubsetRandomSampler', 'TensorDataset', 'WeightedRandomSampler',
           'default_collate', 'default_convert', 'get_worker_info', 'random_split']
