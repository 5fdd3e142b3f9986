"""DistributedDataParallel: each process holds a replica of the module and trains it on its
own part of the batch; gradients are averaged over the process group during backward, so
every replica takes the same optimizer step.

How: the replicas start equal (rank 0's parameters and buffers are broadcast). Parameters
are grouped into buckets of about ``bucket_cap_mb``, in reverse registration order (roughly
the order backward produces their gradients). A post-accumulate-grad hook on each parameter
marks it ready; when all of a bucket's parameters are, the bucket's gradients are flattened
and a non-blocking all-reduce (MPI's Iallreduce) starts on them while backward goes on.
Buckets are launched strictly in bucket order, so every rank issues the same collectives in
the same order. When the last bucket is launched, the reductions are waited for and the
averaged gradients written back into ``.grad``.
"""
import contextlib
import itertools

import numpy as np

from ... import distributed as dist
from ...distributed.distributed_c10d import _group
from ..modules.module import Module

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by "
    "making sure all `forward` function outputs participate in calculating loss.")


def _tensors_in(value):
    """The tensors in a (possibly nested) forward output."""
    from ..._tensor import Tensor
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_in(v)


def _used_leaves(outputs):
    """ids of the leaf tensors the autograd graph of ``outputs`` reaches."""
    seen, used = set(), set()
    stack = [t.grad_fn for t in _tensors_in(outputs) if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, 'variable', None)
        if var is not None:
            used.add(id(var))
        stack.extend(f for f, _ in node.next_functions if f is not None)
    return used


class _Bucket:
    """Parameters whose gradients are all-reduced together, as one flat array."""

    def __init__(self, params):
        self.params = params
        self.sizes = [p.numel() for p in params]
        self.flat = np.empty(sum(self.sizes), params[0]._data.dtype)
        self.ready = set()
        self.work = None


class DistributedDataParallel(Module):
    """Data-parallel training over ``ember.distributed``: wrap the model on every rank, run
    forward and backward on each rank's share of the batch, and the gradients come out
    averaged over the ranks.

    ``bucket_cap_mb`` (default 25) sizes the gradient buckets; ``find_unused_parameters``
    lets some parameters take no part in a forward (their gradients are reduced as zeros, and
    left as they were when no rank used them); ``broadcast_buffers`` re-sends rank 0's
    buffers before each forward; ``no_sync()`` skips the reduction (gradients accumulate
    locally until the next synchronised backward). ``device_ids``/``output_device`` are
    accepted for the CPU (None).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None):
        super().__init__()
        pg = _group(process_group)
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self.module = module
        self.process_group = pg
        self.dim = dim
        self.device_ids = None
        self.output_device = None
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 2**20)
        self._world = pg.size()
        self._sync_module_states()
        self._buckets = self._make_buckets(params)
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}
        self._next = 0          # the next bucket to launch
        self._armed = False     # a forward with grad sync is waiting for its backward
        self._used = None       # with find_unused_parameters: ids of params used locally
        self._handles = [p.register_post_accumulate_grad_hook(self._grad_ready)
                         for p in params]

    # -- setup ---------------------------------------------------------------------------
    def _sync_module_states(self):
        """Makes every replica start as rank 0's: its parameters and buffers broadcast."""
        from ...autograd.grad_mode import no_grad
        with no_grad():
            for t in itertools.chain(self.module.parameters(), self.module.buffers()):
                dist.broadcast(t, src=self.process_group._ranks[0], group=self.process_group)

    def _make_buckets(self, params):
        """Buckets of at most ``bucket_bytes_cap`` bytes (one dtype each), filled in reverse
        parameter order."""
        buckets, current, size = [], [], 0
        for p in reversed(params):
            nbytes = p.numel() * p.element_size()
            if current and (size + nbytes > self.bucket_bytes_cap
                            or p.dtype != current[0].dtype):
                buckets.append(_Bucket(current))
                current, size = [], 0
            current.append(p)
            size += nbytes
        buckets.append(_Bucket(current))
        return buckets

    # -- forward -------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        """The wrapped module's forward, after syncing buffers from rank 0 (when
        ``broadcast_buffers``), preparing the gradient reduction of the coming backward."""
        from ...autograd.grad_mode import is_grad_enabled, no_grad
        if self._armed and self.require_backward_grad_sync and is_grad_enabled():
            raise RuntimeError(_UNFINISHED)
        if self.broadcast_buffers and self.require_forward_param_sync:
            with no_grad():
                for b in self.module.buffers():
                    dist.broadcast(b, src=self.process_group._ranks[0],
                                   group=self.process_group)
        out = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self._arm(out)
        return out

    def _arm(self, out):
        """Resets the buckets for the backward of ``out``; with find_unused_parameters the
        parameters ``out`` does not depend on are ready from the start (as zeros)."""
        self._armed = True
        self._next = 0
        self._used = None
        for b in self._buckets:
            b.ready.clear()
            b.work = None
        if self.find_unused_parameters:
            used = _used_leaves(out)
            self._used = used
            for b in self._buckets:
                b.ready.update(id(p) for p in b.params if id(p) not in used)
            self._launch_ready()

    # -- backward ------------------------------------------------------------------------
    def _grad_ready(self, param):
        """Post-accumulate-grad hook: ``param.grad`` is final for this backward."""
        if not self._armed or not self.require_backward_grad_sync:
            return
        self._bucket_of[id(param)].ready.add(id(param))
        self._launch_ready()

    def _launch_ready(self):
        """Starts the all-reduce of each complete bucket, in bucket order; after the last,
        finishes the reduction."""
        while self._next < len(self._buckets):
            b = self._buckets[self._next]
            if len(b.ready) < len(b.params):
                return
            self._launch(b)
            self._next += 1
        self._finish()

    def _launch(self, bucket):
        from ...distributed._mpi import load_mpi, mpi_op
        offset = 0
        for p, n in zip(bucket.params, bucket.sizes):
            g = p.grad
            bucket.flat[offset:offset + n] = 0 if g is None else g._data.reshape(-1)
            offset += n
        bucket.flat /= self._world
        MPI = load_mpi()
        bucket.work = self.process_group._comm.Iallreduce(
            MPI.IN_PLACE, bucket.flat, op=mpi_op(dist.ReduceOp.SUM, bucket.flat.dtype))

    def _finish(self):
        """Waits for every bucket and writes the averaged gradients into ``.grad``."""
        from ... import from_numpy
        from ...distributed._mpi import wait_all
        wait_all([b.work for b in self._buckets])
        self._armed = False
        used = self._globally_used()
        for b in self._buckets:
            offset = 0
            for p, n in zip(b.params, b.sizes):
                avg = b.flat[offset:offset + n].reshape(p._data.shape)
                offset += n
                if used is not None and id(p) not in used:
                    continue
                if p.grad is None:
                    p.grad = from_numpy(avg.copy())
                else:
                    np.copyto(p.grad._data, avg)
                    p.grad._vc[0] += 1

    def _globally_used(self):
        """With find_unused_parameters: ids of the parameters some rank used (one small
        all-reduce of a bitmap); else None (all are)."""
        if self._used is None:
            return None
        params = [p for b in self._buckets for p in b.params]
        bitmap = np.array([id(p) in self._used for p in params], np.uint8)
        from ...distributed._mpi import load_mpi
        self.process_group._comm.Allreduce(load_mpi().IN_PLACE, bitmap, op=load_mpi().BOR)
        return {id(p) for p, u in zip(params, bitmap) if u}

    # -- user controls -------------------------------------------------------------------
    @contextlib.contextmanager
    def no_sync(self):
        """Within it, backward does not reduce gradients: they accumulate locally, and the
        first backward after it reduces the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
