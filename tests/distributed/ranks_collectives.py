"""Run on 2 MPI ranks: every collective on ember (MPI) and on torch (gloo, the oracle) with
the same inputs; each rank writes {case: {'ember': ..., 'torch': ...}} to
$OUT_DIR/rank<r>.json for the test to compare."""
import json
import os
import sys

import torch
import torch.distributed as tdist

import ember
import ember.distributed as edist

edist.init_process_group('gloo')
rank, world = edist.get_rank(), edist.get_world_size()
tdist.init_process_group('gloo', init_method=f"tcp://127.0.0.1:{os.environ['ORACLE_PORT']}",
                         rank=rank, world_size=world)
results = {}


def record(name, fn, definition=None):
    """fn(lib, dist) on both libraries; tensors become (values, dtype, shape) triples. Where
    torch's gloo departs from torch's documented semantics, ``definition`` (what the
    documentation says the result is) stands in for torch's result."""
    if os.environ.get('TRACE'):
        print(rank, name, file=sys.stderr, flush=True)
    for key, lib, dist in (('ember', ember, edist), ('torch', torch, tdist)):
        try:
            value = fn(lib, dist)
        except Exception as e:
            value = ['raised', type(e).__name__, str(e)]
        results.setdefault(name, {})[key] = plain(value)
    if definition is not None:
        results[name]['torch'] = plain(definition)


def plain(v):
    if isinstance(v, (ember.Tensor, torch.Tensor)):
        return [v.tolist(), str(v.dtype).split('.')[-1], list(v.shape)]
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def mine(lib, dtype='float32', n=4):
    """A per-rank input: distinct on each rank."""
    return (lib.arange(n) + 10 * rank + 1).to(getattr(lib, dtype))


for op in ('SUM', 'PRODUCT', 'MIN', 'MAX', 'AVG'):
    def f(lib, dist, op=op):
        t = mine(lib)
        before = t._version
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        return t, t._version > before
    record(f'all_reduce_{op}', f)
for op in ('BAND', 'BOR', 'BXOR', 'SUM', 'MAX'):
    record(f'all_reduce_int64_{op}', lambda lib, dist, op=op: (
        lambda t: (dist.all_reduce(t, op=getattr(dist.ReduceOp, op)), t)[1])(mine(lib, 'int64')))
for dtype in ('float16', 'int8', 'float64'):
    record(f'all_reduce_{dtype}', lambda lib, dist, dtype=dtype: (
        lambda t: (dist.all_reduce(t), t)[1])(mine(lib, dtype)))
for op in ('SUM', 'MIN', 'MAX'):
    record(f'all_reduce_bool_{op}', lambda lib, dist, op=op: (
        lambda t: (dist.all_reduce(t, op=getattr(dist.ReduceOp, op)), t)[1])(
            lib.tensor([rank == 0, False, True, rank == 1])))
record('all_reduce_int32', lambda lib, dist: (
    lambda t: (dist.all_reduce(t), t)[1])(mine(lib, 'int32')))
# gloo reduces the wrong elements of a non-contiguous tensor; the definition: every other
# column summed over the ranks, the rest untouched.
_cols = torch.stack([mine(torch, 'float64', 12).reshape(3, 4)[:, ::2] + 10 * (r - rank)
                     for r in range(world)]).sum(0)
record('all_reduce_float64_noncontiguous', lambda lib, dist: (
    lambda base: (dist.all_reduce(base[:, ::2]), base)[1])(
        mine(lib, 'float64', 12).reshape(3, 4)),
    definition=(lambda b: (b[:, ::2].copy_(_cols), b)[1])(
        mine(torch, 'float64', 12).reshape(3, 4)))
record('all_reduce_band_float', lambda lib, dist: dist.all_reduce(
    mine(lib), op=dist.ReduceOp.BAND))
record('all_reduce_not_a_tensor', lambda lib, dist: dist.all_reduce([1.0]))


def async_all_reduce(lib, dist):
    t = mine(lib)
    work = dist.all_reduce(t, async_op=True)
    return work.wait(), work.is_completed(), t, work.result()
record('all_reduce_async', async_all_reduce)

for src in (0, 1):
    record(f'broadcast_from_{src}', lambda lib, dist, src=src: (
        lambda t: (dist.broadcast(t, src=src), t)[1])(mine(lib, n=5)))
record('broadcast_bad_src', lambda lib, dist: dist.broadcast(mine(lib), src=3))
record('reduce_to_1', lambda lib, dist: (
    lambda t: (dist.reduce(t, dst=1), t if rank == 1 else None)[1])(mine(lib)))
record('all_gather', lambda lib, dist: (
    lambda out: (dist.all_gather(out, mine(lib, n=3)), out)[1])(
        [lib.zeros(3) for _ in range(world)]))
record('all_gather_wrong_length', lambda lib, dist: dist.all_gather(
    [lib.zeros(3) for _ in range(world + 1)], mine(lib, n=3)))
record('all_gather_wrong_size', lambda lib, dist: dist.all_gather(
    [lib.zeros(2) for _ in range(world)], mine(lib, n=3)))
record('all_gather_async', lambda lib, dist: (
    lambda out: (dist.all_gather(out, mine(lib, 'int64', 2), async_op=True).wait(), out)[1])(
        [lib.zeros(2, dtype=lib.int64) for _ in range(world)]))
record('all_gather_into_tensor_flat', lambda lib, dist: (
    lambda out: (dist.all_gather_into_tensor(out, mine(lib, n=3)), out)[1])(
        lib.zeros(3 * world)))
# Documented (the stacked output form), though gloo refuses it: the definition.
record('all_gather_into_tensor_stacked', lambda lib, dist: (
    lambda out: (dist.all_gather_into_tensor(out, mine(lib, n=3)), out)[1])(
        lib.zeros(world, 3)),
    definition=torch.stack([mine(torch, n=3) + 10 * (r - rank) for r in range(world)]))
record('gather_to_0', lambda lib, dist: (
    lambda out: (dist.gather(mine(lib, n=2), out, dst=0), out)[1])(
        [lib.zeros(2) for _ in range(world)] if rank == 0 else None))
record('scatter_from_1', lambda lib, dist: (
    lambda out: (dist.scatter(out, [lib.full((2,), 5.0 + i) for i in range(world)]
                              if rank == 1 else None, src=1), out)[1])(lib.zeros(2)))
record('reduce_scatter', lambda lib, dist: (
    lambda out: (dist.reduce_scatter(out, [mine(lib, n=2) * (i + 1) for i in range(world)]),
                 out)[1])(lib.zeros(2)))
record('reduce_scatter_tensor', lambda lib, dist: (
    lambda out: (dist.reduce_scatter_tensor(out, mine(lib, n=2 * world)), out)[1])(
        lib.zeros(2)))


def send_recv(lib, dist):
    if rank == 0:
        dist.send(lib.tensor([1.5, 2.5]), dst=1)
        got = lib.zeros(3, dtype=lib.int64)
        src = dist.recv(got, src=1)
    else:
        got = lib.zeros(2)
        src = dist.recv(got)     # from any rank
        dist.send(lib.tensor([7, 8, 9]), dst=0)
    return got, src
record('send_recv', send_recv)


def isend_irecv(lib, dist):
    out = lib.zeros(4)
    works = [dist.isend(mine(lib), dst=1 - rank), dist.irecv(out, src=1 - rank)]
    return [w.wait() for w in works], out
record('isend_irecv', isend_irecv)
record('send_to_self', lambda lib, dist: dist.send(lib.zeros(1), dst=rank))


record('all_to_all_single', lambda lib, dist: (
    lambda out: (dist.all_to_all_single(out, mine(lib)), out)[1])(lib.zeros(4)))
record('all_to_all_single_splits', lambda lib, dist: (
    lambda out: (dist.all_to_all_single(out, mine(lib, n=3), [1, 2][::1 - 2 * rank],
                                        [1, 2][::1 - 2 * rank]), out)[1])(lib.zeros(3)))
record('all_to_all_single_2d_async', lambda lib, dist: (
    lambda out: (dist.all_to_all_single(out, mine(lib, 'int64', 6).reshape(2, 3),
                                        async_op=True).wait(), out)[1])(
        lib.zeros(2, 3, dtype=lib.int64)))
record('all_to_all_single_bad_sum', lambda lib, dist: dist.all_to_all_single(
    lib.zeros(3), lib.zeros(3), [1, 1], [1, 1]))
record('all_to_all', lambda lib, dist: (
    lambda out: (dist.all_to_all(out, [lib.full((2,), 10.0 * rank + j)
                                       for j in range(world)]), out)[1])(
        [lib.zeros(2) for _ in range(world)]))
# Documented (tensors of different sizes), though gloo refuses it: the definition.
record('all_to_all_uneven', lambda lib, dist: (
    lambda out: (dist.all_to_all(out, [lib.full((j + 1,), 10.0 * rank + j)
                                       for j in range(world)]), out)[1])(
        [lib.zeros(rank + 1) for _ in range(world)]),
    definition=[torch.full((rank + 1,), 10.0 * j + rank) for j in range(world)])
record('all_to_all_bad_length', lambda lib, dist: dist.all_to_all(
    [lib.zeros(2)], [lib.zeros(2) for _ in range(world)]))


def batched_p2p(lib, dist):
    got = lib.zeros(2)
    works = dist.batch_isend_irecv([dist.P2POp(dist.isend, mine(lib, n=2), 1 - rank),
                                    dist.P2POp(dist.irecv, got, 1 - rank)])
    return [w.wait() for w in works], got
record('batch_isend_irecv', batched_p2p)
record('p2p_op_not_isend', lambda lib, dist: dist.P2POp(dist.send, lib.zeros(1), 1 - rank))
record('batch_isend_irecv_not_ops', lambda lib, dist: dist.batch_isend_irecv([1]))
record('monitored_barrier', lambda lib, dist: dist.monitored_barrier())


def object_lists(lib, dist):
    if rank == 0:
        return dist.send_object_list([{'a': 1}, 'x'], dst=1)
    got = [None, None]
    return dist.recv_object_list(got, src=0), got
record('send_recv_object_list', object_lists)


def objects(lib, dist):
    gathered = [None] * world
    dist.all_gather_object(gathered, {'rank': rank, 'name': f'r{rank}'})
    objs = [rank * 100, 'from rank %d' % rank]
    dist.broadcast_object_list(objs, src=1)
    return gathered, objs
record('objects', objects)


def groups(lib, dist):
    g = dist.new_group([1])
    out = [dist.get_rank(g), dist.get_world_size(g), dist.get_rank(), dist.get_world_size()]
    if rank == 1:
        t = mine(lib)
        dist.all_reduce(t, group=g)
        out.append(t)
    dist.barrier()
    return out
record('new_group', groups)
record('new_group_too_big', lambda lib, dist: dist.new_group([0, 1, 2]))
record('barrier_async', lambda lib, dist: dist.barrier(async_op=True).wait())
record('backend', lambda lib, dist: [dist.get_backend(), dist.is_initialized()])
record('init_twice', lambda lib, dist: dist.init_process_group('gloo'))

with open(os.path.join(os.environ['OUT_DIR'], f'rank{rank}.json'), 'w') as f:
    json.dump(results, f)
tdist.destroy_process_group()
edist.destroy_process_group()
print(f'rank {rank}: {len(results)} cases', file=sys.stderr)
