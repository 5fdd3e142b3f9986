"""A DDP script reaches DistributedSampler as ``torch.utils.data.distributed.DistributedSampler``
after a bare ``import torch``, or imports it from torch.utils.data: both work on ember as on
torch (checked in fresh processes, since an import that already ran would hide a missing
one), with the same shares."""
from ..oracle.oracle import torch  # noqa: F401  (skips without the oracle)
from ..run_python import run

SCRIPT = """
import {lib}
sampler = {lib}.utils.data.distributed.DistributedSampler(range(10), num_replicas=3, rank=1,
                                                           shuffle=False)
from {lib}.utils.data import DistributedSampler
print(list(sampler), len(sampler), DistributedSampler is type(sampler),
      'DistributedSampler' in {lib}.utils.data.__all__)
"""


def test_reached_from_torch_utils_data(tmp_path):
    outs = []
    for lib in ('ember', 'torch'):
        rc, out, err = run(['-c', SCRIPT.format(lib=lib)], tmp_path)
        assert rc == 0, err
        outs.append(out)
    assert outs[0] == outs[1]
