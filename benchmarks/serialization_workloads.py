"""Checkpoint workloads (issue 17): loading a 100 MB state_dict written by torch.save, with
and without ``mmap=True``, and saving one; ember and torch read the same file."""
import atexit
import os
import shutil
import tempfile

import numpy as np

from workloads import workload

_DIR = tempfile.mkdtemp(prefix='ember-bench-ckpt-')
atexit.register(shutil.rmtree, _DIR, True)
_LAYERS = 25          # 25 float32 weights of 1024 x 1024 (4 MiB each) and their biases


def _state_dict(lib):
    rng = np.random.default_rng(0)
    sd = {}
    for k in range(_LAYERS):
        sd[f'layer{k}.weight'] = lib.tensor(rng.standard_normal((1024, 1024), np.float32))
        sd[f'layer{k}.bias'] = lib.tensor(rng.standard_normal(1024, np.float32))
    return sd


def _checkpoint():
    """The 100 MB checkpoint, written once by torch.save (ember writes the same format)."""
    path = os.path.join(_DIR, 'state_dict.pt')
    if not os.path.exists(path):
        import torch
        torch.save(_state_dict(torch), path)
    return path


@workload(target=1.5)
def load_100mb_mmap(lib):
    """load(path, mmap=True) of a 100 MB state_dict (50 tensors) torch.save wrote."""
    path = _checkpoint()
    return lambda: lib.load(path, mmap=True)['layer7.weight'][3, :4]


@workload(target=2.0)
def load_100mb(lib):
    """load(path) of a 100 MB state_dict (50 tensors) torch.save wrote, read into memory."""
    path = _checkpoint()
    return lambda: lib.load(path)['layer7.weight'][3, :4]


@workload(target=None)
def save_100mb(lib):
    """save(state_dict, path) of a 100 MB state_dict (50 tensors)."""
    sd = _state_dict(lib)
    path = os.path.join(_DIR, f'saved_by_{lib.__name__}.pt')
    return lambda: lib.save(sd, path)
