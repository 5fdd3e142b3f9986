"""Data loading in worker processes (issue "Beyond one process"): an epoch of a DataLoader
with 2 workers over a dataset whose samples each cost 1 ms of CPU, in ember and torch."""
import time

import numpy as np

from workloads import workload

SAMPLES, COST_S = 96, 1e-3


class _CostlySamples:
    """Sample i: a 3x32x32 float32 image and its label, after 1 ms of CPU work (decoding,
    augmentation); the same numbers in both libraries."""

    def __init__(self, lib):
        self.lib = lib
        rng = np.random.default_rng(0)
        self.images = rng.standard_normal((SAMPLES, 3, 32, 32), dtype=np.float32)

    def __len__(self):
        return SAMPLES

    def __getitem__(self, i):
        end = time.perf_counter() + COST_S
        while time.perf_counter() < end:
            pass
        return self.lib.from_numpy(self.images[i]), i % 10


def _epoch(lib, workers):
    loader = lib.utils.data.DataLoader(_CostlySamples(lib), batch_size=8,
                                       num_workers=workers, persistent_workers=workers > 0)

    def run():
        total = 0.0
        for images, labels in loader:
            total += float(images.sum()) + float(labels.sum())
        return lib.tensor(total)
    return run


@workload(target=1.2)
def dataloader_2_workers(lib):
    """One epoch of 96 samples of 1 ms each, batches of 8, 2 persistent worker processes
    (fork), the batches summed in the main process."""
    return _epoch(lib, 2)


@workload(target=None)
def dataloader_main_process(lib):
    """The same epoch with num_workers=0 (the baseline the workers should beat)."""
    return _epoch(lib, 0)
