"""ember.nn.parallel: DistributedDataParallel (one model replica per process, gradients
averaged over ember.distributed) and DataParallel (as on a CPU-only torch: it runs the
module as it is)."""
from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ['DataParallel', 'DistributedDataParallel']
