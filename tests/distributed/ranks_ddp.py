"""Run on 2 MPI ranks: the same training with ember's DistributedDataParallel (on MPI) and
torch's (on gloo, the oracle), from the same initial weights, each rank on its half of each
batch; and, as the definition, single-process ember training on the whole batch. Each rank
writes its final parameters and gradients to $OUT_DIR/<case>_rank<r>.json."""
import json
import os

import numpy as np
import torch
import torch.distributed as tdist

import ember
import ember.distributed as edist

edist.init_process_group('gloo')
rank, world = edist.get_rank(), edist.get_world_size()
tdist.init_process_group('gloo', init_method=f"tcp://127.0.0.1:{os.environ['ORACLE_PORT']}",
                         rank=rank, world_size=world)


class Net:
    """An MLP with a branch (``extra``) that forward uses only when asked, on either
    library."""

    def __init__(self, lib):
        nn = lib.nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(6, 16)
                self.bn = nn.BatchNorm1d(16)
                self.fc2 = nn.Linear(16, 3)
                self.extra = nn.Linear(16, 3)

            def forward(self, x, use_extra=False):
                h = lib.tanh(self.bn(self.fc1(x)))
                return self.fc2(h) + (self.extra(h) if use_extra else 0)
        self.cls = M


def build(lib, seed_state):
    model = Net(lib).cls()
    with lib.no_grad():
        for (name, p), value in zip(model.state_dict().items(), seed_state):
            p.copy_(lib.from_numpy(value.copy()))
    return model


rng = np.random.default_rng(0)
# Rank 0's initial state differs from rank 1's: DDP must broadcast rank 0's.
initial = [np.asarray(v) for v in build(ember, [
    np.random.default_rng(rank).standard_normal(v.shape).astype(v.dtype) * 0.3
    if v.dtype.kind == 'f' else np.zeros(v.shape, v.dtype)
    for v in (lambda m: [t.numpy() for t in m.state_dict().values()])(
        Net(ember).cls())]).state_dict().values()]
rank0_initial = [np.asarray(v) for v in build(ember, [
    np.random.default_rng(0).standard_normal(v.shape).astype(v.dtype) * 0.3
    if v.dtype.kind == 'f' else np.zeros(v.shape, v.dtype)
    for v in (lambda m: [t.numpy() for t in m.state_dict().values()])(
        Net(ember).cls())]).state_dict().values()]
batches = [(rng.standard_normal((8, 6)).astype(np.float32), rng.integers(0, 3, 8))
           for _ in range(4)]
# The mlp cases have no BatchNorm (whose batch statistics are per rank under DDP), so
# single-process training on the whole batch is their definition too.
CASES = {'plain': {}, 'small_buckets': {'bucket_cap_mb': 0.0002},
         'unused': {'find_unused_parameters': True}, 'no_sync': {}, 'mlp': {},
         'mlp_no_sync': {'bucket_cap_mb': 0.0002}}


def train(lib, wrap, case, whole=False):
    """Trains a model from ``initial`` (rank 0's when ``whole``: the single-process
    definition on the whole batch); returns the final parameters and gradients."""
    model = build(lib, rank0_initial if whole else initial)
    if case.startswith('mlp'):
        model.bn = lib.nn.Identity()
    if wrap is not None:
        model = wrap(model, **CASES[case])
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    half = slice(None) if whole else slice(4 * rank, 4 * rank + 4)
    steps = [batches[:2], batches[2:]] if case.endswith('no_sync') else [[b] for b in batches]
    for step in steps:
        opt.zero_grad()
        for i, (x, y) in enumerate(step):
            x, y = lib.from_numpy(x[half]), lib.from_numpy(y[half])
            last = i == len(step) - 1
            ctx = model.no_sync() if (wrap is not None and not last) else _nothing()
            with ctx:
                out = model(x, use_extra=case != "unused")
                loss = lib.nn.functional.cross_entropy(out, y) / len(step)
                loss.backward()
        opt.step()
    return {name.removeprefix('module.'): {'value': p.detach().numpy().tolist(),
                   'grad': None if p.grad is None else p.grad.numpy().tolist()}
            for name, p in model.named_parameters()} | {
        'keys': list(model.state_dict())}


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


for case in CASES:
    result = {'ember': train(ember, ember.nn.parallel.DistributedDataParallel, case),
              'torch': train(torch, torch.nn.parallel.DistributedDataParallel, case)}
    if case.startswith('mlp'):
        result['single'] = train(ember, None, case, whole=True)
    with open(os.path.join(os.environ['OUT_DIR'], f'{case}_rank{rank}.json'), 'w') as f:
        json.dump(result, f)
tdist.destroy_process_group()
edist.destroy_process_group()
