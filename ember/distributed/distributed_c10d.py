"""torch.distributed's process groups and collectives, on MPI (mpi4py).

The default group is MPI's COMM_WORLD: under ``mpirun -np N`` each process learns its rank
and the world size from MPI, so ``init_process_group()`` needs no address or port.
``new_group(ranks)`` splits the world communicator. Every collective hands the tensors'
NumPy buffers to MPI's buffer API (zero-copy), results are written in place (as in torch,
without bumping version counters), and ``async_op=True`` returns a ``Work`` over MPI's
non-blocking call.
"""
import enum
import os
import warnings
from datetime import timedelta

import numpy as np

from ._mpi import Buffer, Work, abort_on_uncaught_exception, finished, load_mpi, mpi_op

__all__ = ['Backend', 'ReduceOp', 'ProcessGroup', 'GroupMember', 'group', 'Work',
           'init_process_group', 'is_initialized', 'destroy_process_group', 'get_rank',
           'get_world_size', 'get_backend', 'new_group', 'get_process_group_ranks',
           'get_global_rank', 'get_group_rank', 'barrier', 'all_reduce', 'reduce',
           'broadcast', 'all_gather', 'all_gather_into_tensor', 'gather', 'scatter',
           'reduce_scatter', 'reduce_scatter_tensor', 'send', 'recv', 'isend', 'irecv',
           'all_gather_object', 'broadcast_object_list', 'gather_object',
           'scatter_object_list', 'default_pg_timeout', 'all_to_all_single', 'all_to_all',
           'P2POp', 'batch_isend_irecv', 'monitored_barrier', 'send_object_list',
           'recv_object_list', 'get_node_local_rank', 'is_backend_available',
           'get_default_backend_for_device', 'supports_complex', 'DistError',
           'DistBackendError', 'DistNetworkError', 'DistStoreError', 'QueueEmptyError']

default_pg_timeout = timedelta(minutes=30)
_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to "
                    "call init_process_group.")


class Backend(str):
    """A backend's name, lower-cased: 'mpi', or 'gloo' (which ember also runs on MPI)."""
    MPI = 'mpi'
    GLOO = 'gloo'
    NCCL = 'nccl'
    UNDEFINED = 'undefined'

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: "
                             f"{type(name)}")
        return super().__new__(cls, name.lower())


class ReduceOp(enum.Enum):
    """How a reduction combines values: SUM, AVG (SUM divided by the group's size), PRODUCT,
    MIN, MAX, and the bitwise BAND/BOR/BXOR (integral and bool tensors only)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __repr__(self):
        return f'<RedOpType.{self.name}: {self.value}>'


class ProcessGroup:
    """A set of ranks that run collectives together, over one MPI communicator.
    ``ranks`` are the members' global ranks, in group-rank order."""

    def __init__(self, comm, ranks, backend):
        self._comm = comm
        self._ranks = list(ranks)
        self._backend = Backend(backend)
        self._pg_name = 'ProcessGroupGloo' if backend == 'gloo' else 'ProcessGroupMPI'

    def rank(self):
        """This process's rank in the group."""
        return self._comm.Get_rank()

    def size(self):
        """How many processes the group has."""
        return len(self._ranks)

    def name(self):
        """The backend's name."""
        return str(self._backend)

    def __repr__(self):
        return f'<ember.distributed.ProcessGroup {self._backend} ranks={self._ranks}>'


class GroupMember:
    """torch's markers: ``WORLD`` (the default group, None before init) and
    ``NON_GROUP_MEMBER`` (what ``new_group`` returns on ranks outside the group)."""
    NON_GROUP_MEMBER = -100
    WORLD = None


class _GroupMeta(type):
    @property
    def WORLD(cls):
        return GroupMember.WORLD


class group(metaclass=_GroupMeta):
    """``group.WORLD``: the default process group (None before ``init_process_group``)."""


# -- the default group -------------------------------------------------------------------
def is_initialized():
    """Whether the default process group has been made."""
    return GroupMember.WORLD is not None


def _check_env_agrees(what, given, actual):
    if given not in (-1, None) and int(given) != actual:
        raise ValueError(f"init_process_group: {what}={given} but MPI launched this process "
                         f"with {what}={actual}; ember's process groups run on MPI, so start "
                         "the job with mpirun -np N (or python -m ember.distributed.run)")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name='', pg_options=None, device_id=None):
    """Makes the default process group over MPI's world: rank and world size are MPI's.

    ``backend`` 'mpi' (torch's semantics: ``world_size``/``rank`` given are ignored with a
    warning), or 'gloo' (or None), which ember also runs on MPI: there a ``world_size``/
    ``rank`` given, or set as WORLD_SIZE/RANK in the environment (``env://``), must agree
    with MPI's. ``init_method``, ``store`` and ``timeout`` are accepted; MPI's launcher does
    the rendezvous. An uncaught exception in any rank aborts the whole job.
    """
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend or 'gloo')
    if ':' in name:   # 'cpu:gloo,cuda:nccl': the CPU entry is what runs here
        name = dict(part.split(':', 1) for part in name.split(',')).get('cpu', name)
    if name == 'nccl':
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if name not in ('mpi', 'gloo'):
        # torch's class for it (raised by an assert in torch).
        raise AssertionError(f"Unknown backend type {backend}")
    MPI = load_mpi()
    comm = MPI.COMM_WORLD
    size, me = comm.Get_size(), comm.Get_rank()
    if name == 'mpi':
        if world_size != -1 or rank != -1:
            warnings.warn(f"For MPI backend, world_size ({world_size}) and rank ({rank}) are "
                          "ignored since they are assigned by the MPI runtime.")
    else:
        env = init_method in (None, 'env://')
        _check_env_agrees('world_size', world_size if world_size != -1 or not env
                          else os.environ.get('WORLD_SIZE', -1), size)
        _check_env_agrees('rank', rank if rank != -1 or not env
                          else os.environ.get('RANK', -1), me)
    GroupMember.WORLD = ProcessGroup(comm.Dup(), range(size), name)
    abort_on_uncaught_exception(comm)


def destroy_process_group(group=None):
    """Frees ``group`` (by default the default group, after which the module is as before
    ``init_process_group``)."""
    pg = _default() if group is None or group is GroupMember.WORLD else group
    if pg is GroupMember.NON_GROUP_MEMBER:
        return
    pg._comm.Free()
    if pg is GroupMember.WORLD:
        GroupMember.WORLD = None


def _default():
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD


def _group(group):
    """The ProcessGroup a collective runs on (None: the default one)."""
    if group is None or group is GroupMember.WORLD:
        return _default()
    _default()
    return group


def get_rank(group=None):
    """This process's rank in ``group`` (the default group if None); -1 outside it."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).rank()


def get_world_size(group=None):
    """How many processes ``group`` has (the default group if None); -1 outside it."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).size()


def get_backend(group=None):
    """The backend's name: 'mpi' or 'gloo' as the group was made with."""
    return str(_group(group)._backend)


def get_process_group_ranks(group):
    """The global ranks of ``group``'s members, in group-rank order."""
    return list(_group(group)._ranks)


def get_global_rank(group, group_rank):
    """The global rank of ``group``'s member number ``group_rank``."""
    ranks = _group(group)._ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank in ``group`` of the process with global rank ``global_rank``."""
    ranks = _group(group)._ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """A process group of the global ranks ``ranks`` (all if None). Every rank of the default
    group must call it (as in torch); ranks outside get ``GroupMember.NON_GROUP_MEMBER``."""
    world = _default()
    size = world.size()
    ranks = sorted(range(size) if ranks is None else ranks)
    if len(ranks) > size:
        raise ValueError("the new group's world size should be less or equal to the world "
                         "size set by init_process_group")
    for r in ranks:
        if not 0 <= r < size:
            raise ValueError("The new group's rank should be within the world_size set by "
                             "init_process_group")
    MPI = load_mpi()
    me = world.rank()
    color = 0 if me in ranks else MPI.UNDEFINED
    comm = world._comm.Split(color, ranks.index(me) if me in ranks else 0)
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(comm, ranks, backend or world._backend)


# -- argument checks ---------------------------------------------------------------------
def _tensor_arg(name, value):
    from .._tensor import Tensor
    if not isinstance(value, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor\n             but got {type(value)} instead.")


def _tensor_list_arg(name, value):
    from .._tensor import Tensor
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, Tensor) for t in value):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        "List[torch.Tensor]\n             but got "
                        f"{type(value)} instead.")


def _root(pg, rank, what, group_rank=None):
    """The group rank of the global rank ``rank`` (or ``group_rank`` as given)."""
    if group_rank is not None:
        root = group_rank
    elif rank in pg._ranks:
        root = pg._ranks.index(rank)
    else:
        root = rank if pg is GroupMember.WORLD else -1
    if not 0 <= root < pg.size():
        raise RuntimeError(f"{pg._pg_name}::{what}: invalid root rank: {rank}")
    return root


def _check_op(op, tensor):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op should be a ReduceOp, but got {type(op).__name__}")
    if op.name in ('BAND', 'BOR', 'BXOR') and tensor._data.dtype.kind not in 'iub':
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")


def _check_sizes(pg, what, tensors, like, word='output tensor list'):
    if len(tensors) != pg.size():
        raise RuntimeError(f"{pg._pg_name}::{what}: invalid {word} at index 0 (expected "
                           f"length {pg.size()}, got {len(tensors)})")
    for i, t in enumerate(tensors):
        if t.shape != like.shape:
            raise RuntimeError(f"{pg._pg_name}::{what}: invalid tensor size at index {i} "
                               f"(expected ({', '.join(map(str, like.shape))}), got "
                               f"({', '.join(map(str, t.shape))}))")


def _scale(op, pg):
    return pg.size() if op is ReduceOp.AVG else None


# -- collectives -------------------------------------------------------------------------
def barrier(group=None, async_op=False, device_ids=None):
    """Waits until every rank of ``group`` has reached it."""
    pg = _group(group)
    return finished(Work([pg._comm.Ibarrier()]), async_op)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` over the group with ``op``; every rank gets the result in place."""
    _tensor_arg('tensor', tensor)
    _check_op(op, tensor)
    pg = _group(group)
    MPI = load_mpi()
    buf = Buffer(tensor)
    req = pg._comm.Iallreduce(MPI.IN_PLACE, buf.flat, op=mpi_op(op, buf.array.dtype))
    return finished(Work([req], lambda: buf.commit(_scale(op, pg)), [tensor]), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces ``tensor`` over the group with ``op`` into rank ``dst``'s ``tensor``."""
    _tensor_arg('tensor', tensor)
    _check_op(op, tensor)
    pg = _group(group)
    root = _root(pg, dst, 'reduce', group_dst)
    MPI = load_mpi()
    buf = Buffer(tensor)
    mine = pg.rank() == root
    send = MPI.IN_PLACE if mine else buf.flat
    req = pg._comm.Ireduce(send, buf.flat if mine else None,
                           op=mpi_op(op, buf.array.dtype), root=root)
    finish = (lambda: buf.commit(_scale(op, pg))) if mine else None
    return finished(Work([req], finish, [tensor]), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies rank ``src``'s ``tensor`` into ``tensor`` on every rank."""
    _tensor_arg('tensor', tensor)
    pg = _group(group)
    root = _root(pg, src, 'broadcast', group_src)
    buf = Buffer(tensor)
    req = pg._comm.Ibcast(buf.flat, root=root)
    finish = None if pg.rank() == root else buf.commit
    return finished(Work([req], finish, [tensor]), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Writes every rank's ``input_tensor``, in rank order, into ``output_tensor`` (of size
    world_size * input's, stacked or concatenated along the first dimension)."""
    _tensor_arg('output_tensor', output_tensor)
    _tensor_arg('input_tensor', input_tensor)
    pg = _group(group)
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor "
                         "size")
    out, inp = Buffer(output_tensor, fill=False), Buffer(input_tensor)
    req = pg._comm.Iallgather(inp.flat, out.flat)
    return finished(Work([req], out.commit, [output_tensor]), async_op)


def _stacked(tensors, like, fill):
    """A staging array for a list of same-shaped tensors (filled from them when ``fill``)."""
    arr = np.empty((len(tensors),) + tuple(like.shape), Buffer(like, fill=False).array.dtype)
    if fill:
        for row, t in zip(arr, tensors):
            row[...] = t._data
    return arr


def _unstack(arr, tensors):
    for row, t in zip(arr, tensors):
        np.copyto(t._data, row, casting='unsafe')


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills ``tensor_list[i]`` with rank i's ``tensor``, on every rank."""
    _tensor_list_arg('tensor_list', tensor_list)
    _tensor_arg('tensor', tensor)
    pg = _group(group)
    _check_sizes(pg, 'allgather', tensor_list, tensor)
    arr = _stacked(tensor_list, tensor, False)
    req = pg._comm.Iallgather(Buffer(tensor).flat, arr.reshape(-1))
    return finished(Work([req], lambda: _unstack(arr, tensor_list), tensor_list), async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Rank ``dst`` gets every rank's ``tensor`` in ``gather_list`` (others pass None)."""
    _tensor_arg('tensor', tensor)
    pg = _group(group)
    root = _root(pg, 0 if dst is None else dst, 'gather', group_dst)
    arr = None
    if pg.rank() == root:
        _tensor_list_arg('gather_list', gather_list or [])
        if len(gather_list or []) != pg.size():
            raise RuntimeError(f"{pg._pg_name}::gather: Incorrect output list size "
                               f"{len(gather_list or [])}. Output list size should be "
                               f"{pg.size()}, same as size of the process group.")
        _check_sizes(pg, 'gather', gather_list, tensor)
        arr = _stacked(gather_list, tensor, False)
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    req = pg._comm.Igather(Buffer(tensor).flat, None if arr is None else arr.reshape(-1),
                           root=root)
    finish = None if arr is None else (lambda: _unstack(arr, gather_list))
    return finished(Work([req], finish, gather_list or []), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank ``src`` sends ``scatter_list[i]`` to rank i, which receives it in ``tensor``."""
    _tensor_arg('tensor', tensor)
    pg = _group(group)
    root = _root(pg, 0 if src is None else src, 'scatter', group_src)
    arr = None
    if pg.rank() == root:
        _tensor_list_arg('scatter_list', scatter_list or [])
        if len(scatter_list or []) != pg.size():
            raise RuntimeError(f"{pg._pg_name}::scatter: Incorrect input list size "
                               f"{len(scatter_list or [])}. Input list size should be "
                               f"{pg.size()}, same as size of the process group.")
        _check_sizes(pg, 'scatter', scatter_list, tensor, 'input tensor list')
        arr = _stacked(scatter_list, tensor, True)
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source "
                         "ranks.")
    out = Buffer(tensor, fill=False)
    req = pg._comm.Iscatter(None if arr is None else arr.reshape(-1), out.flat, root=root)
    return finished(Work([req], out.commit, [tensor]), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``input`` (world_size blocks along the first dimension) over the group; rank i
    gets block i of the result in ``output``."""
    _tensor_arg('output', output)
    _tensor_arg('input', input)
    _check_op(op, input)
    pg = _group(group)
    if input.numel() != output.numel() * pg.size():
        raise ValueError("input tensor must be the same size as output size times world "
                         "size")
    out, inp = Buffer(output, fill=False), Buffer(input)
    req = pg._comm.Ireduce_scatter_block(inp.flat, out.flat, op=mpi_op(op, inp.array.dtype))
    return finished(Work([req], lambda: out.commit(_scale(op, pg)), [output]), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``input_list`` elementwise over the group; rank i gets entry i's result."""
    _tensor_arg('output', output)
    _tensor_list_arg('input_list', input_list)
    _check_op(op, output)
    pg = _group(group)
    _check_sizes(pg, 'reduce_scatter', input_list, output, 'input tensor list')
    arr = _stacked(input_list, output, True)
    out = Buffer(output, fill=False)
    req = pg._comm.Ireduce_scatter_block(arr.reshape(-1), out.flat,
                                         op=mpi_op(op, arr.dtype))
    return finished(Work([req], lambda: out.commit(_scale(op, pg)), [output]), async_op)


def _split_counts(pg, tensor, sizes, word):
    """(element counts, element offsets) of ``tensor``'s blocks along dim 0, one per rank:
    ``sizes`` rows each, or equal blocks when None."""
    rows = tensor.shape[0] if tensor.dim() else 1
    row = tensor.numel() // rows if rows else 0
    if sizes is None or len(sizes) == 0:
        if rows % pg.size():
            raise RuntimeError(f"Tensor's dim 0 does not divide equally across group size "
                               f"({word} has {rows} rows for {pg.size()} ranks)")
        sizes = [rows // pg.size()] * pg.size()
    sizes = [int(n) for n in sizes]
    if len(sizes) != pg.size():
        raise RuntimeError(f"Number of tensor splits not equal to group size ({word}: "
                           f"{len(sizes)} splits for {pg.size()} ranks)")
    if sum(sizes) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    counts = [n * row for n in sizes]
    return counts, list(np.cumsum([0] + counts[:-1]))


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Rank i sends block j of ``input`` (split along dim 0 by ``input_split_sizes``, or in
    equal blocks) to rank j, which writes it as block i of ``output``."""
    _tensor_arg('output', output)
    _tensor_arg('input', input)
    pg = _group(group)
    send = _split_counts(pg, input, input_split_sizes, 'input')
    recv = _split_counts(pg, output, output_split_sizes, 'output')
    out, inp = Buffer(output, fill=False), Buffer(input)
    req = pg._comm.Ialltoallv([inp.flat, send], [out.flat, recv])
    return finished(Work([req], out.commit, [output]), async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank i sends ``input_tensor_list[j]`` to rank j, which receives it in its
    ``output_tensor_list[i]`` (the tensors may differ in size)."""
    _tensor_list_arg('output_tensor_list', output_tensor_list)
    _tensor_list_arg('input_tensor_list', input_tensor_list)
    pg = _group(group)
    for word, tensors in (('output', output_tensor_list), ('input', input_tensor_list)):
        if len(tensors) != pg.size():
            raise RuntimeError(f"{pg._pg_name}::alltoall: {word} tensor list size "
                               f"{len(tensors)} does not match world size {pg.size()}")
    dtype = Buffer(input_tensor_list[0], fill=False).array.dtype
    send = np.concatenate([np.asarray(t._data, dtype).reshape(-1) for t in input_tensor_list])
    recv_counts = [t.numel() for t in output_tensor_list]
    recv = np.empty(sum(recv_counts), dtype)
    send_counts = [t.numel() for t in input_tensor_list]

    def unpack():
        for t, piece in zip(output_tensor_list, np.split(recv, np.cumsum(recv_counts)[:-1])):
            np.copyto(t._data, piece.reshape(t._data.shape), casting='unsafe')
    req = pg._comm.Ialltoallv(
        [send, (send_counts, list(np.cumsum([0] + send_counts[:-1])))],
        [recv, (recv_counts, list(np.cumsum([0] + recv_counts[:-1])))])
    return finished(Work([req], unpack, output_tensor_list), async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier (torch's reports which ranks failed to reach it in time; under MPI a rank
    that fails ends the whole job instead)."""
    barrier(group)


# -- point to point ----------------------------------------------------------------------
def _peer(pg, rank, what):
    if rank == get_rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the "
                         "rank of the current process.")
    return _root(pg, rank, 'send' if what == 'destination' else 'recv')


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending ``tensor`` to rank ``dst``; returns a Work."""
    _tensor_arg('tensor', tensor)
    pg = _group(group)
    peer = group_dst if group_dst is not None else _peer(pg, dst, 'destination')
    return Work([pg._comm.Isend(Buffer(tensor).flat, dest=peer, tag=tag)])


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends ``tensor`` to rank ``dst`` (returns once the data has left ``tensor``)."""
    isend(tensor, dst, group, tag, group_dst).wait()


def _source(pg, src, group_src):
    """The group rank to receive from: ``group_src`` as given, ``src``'s group rank, or any
    rank when both are None."""
    if group_src is not None:
        return group_src
    return load_mpi().ANY_SOURCE if src is None else _peer(pg, src, 'source')


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving into ``tensor`` from rank ``src`` (any rank if None); returns a
    Work (``source_rank()`` says who sent)."""
    _tensor_arg('tensor', tensor)
    pg = _group(group)
    MPI = load_mpi()
    peer = _source(pg, src, group_src)
    buf = Buffer(tensor, fill=False)
    status = MPI.Status()
    req = pg._comm.Irecv(buf.flat, source=peer, tag=tag)
    return Work([req], buf.commit, [tensor], status=status,
                source=lambda: pg._ranks[status.Get_source()])


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into ``tensor`` from rank ``src`` (any if None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work.source_rank()


class P2POp:
    """One point-to-point operation for ``batch_isend_irecv``: ``op`` is ``isend`` or
    ``irecv``, with its tensor, peer rank, group and tag."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        _tensor_arg('tensor', tensor)
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer

    def __repr__(self):
        return (f"P2POp(op={self.op.__name__}, tensor={tuple(self.tensor.shape)}, "
                f"peer={self.peer}, tag={self.tag})")


def batch_isend_irecv(p2p_op_list):
    """Starts every operation of ``p2p_op_list`` (P2POps) at once; returns their Works."""
    if not p2p_op_list:
        raise IndexError("batch_isend_irecv(): p2p_op_list is empty")
    if not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


# -- Python objects ----------------------------------------------------------------------
def all_gather_object(object_list, obj, group=None):
    """Fills ``object_list[i]`` with rank i's ``obj`` (pickled), on every rank."""
    pg = _group(group)
    if len(object_list) != pg.size():
        raise RuntimeError(f"{pg._pg_name}::allgather: invalid output list at index 0 "
                           f"(expected length {pg.size()}, got {len(object_list)})")
    object_list[:] = pg._comm.allgather(obj)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Rank ``dst`` gets every rank's ``obj`` in ``object_gather_list``."""
    pg = _group(group)
    root = _root(pg, 0 if dst is None else dst, 'gather', group_dst)
    got = pg._comm.gather(obj, root=root)
    if pg.rank() == root:
        object_gather_list[:] = got


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces ``object_list``'s items with rank ``src``'s, on every rank."""
    pg = _group(group)
    root = _root(pg, 0 if src is None else src, 'broadcast', group_src)
    object_list[:] = pg._comm.bcast(list(object_list) if pg.rank() == root else None,
                                    root=root)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None,
                        src=None, group=None, group_src=None):
    """Rank i gets ``scatter_object_input_list[i]`` of rank ``src`` as its output's first
    item."""
    pg = _group(group)
    root = _root(pg, 0 if src is None else src, 'scatter', group_src)
    scatter_object_output_list[0] = pg._comm.scatter(
        scatter_object_input_list if pg.rank() == root else None, root=root)


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None,
                     use_batch=False):
    """Sends the (picklable) objects of ``object_list`` to rank ``dst``."""
    pg = _group(group)
    peer = group_dst if group_dst is not None else _peer(pg, dst, 'destination')
    pg._comm.send(list(object_list), dest=peer)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None,
                     use_batch=False):
    """Fills ``object_list`` with the objects rank ``src`` (any rank if None) sent; returns
    the sender's rank."""
    pg = _group(group)
    status = load_mpi().Status()
    got = pg._comm.recv(source=_source(pg, src, group_src), status=status)
    object_list[:len(got)] = got
    return pg._ranks[status.Get_source()]


# -- environment and backends ----------------------------------------------------------------
def get_node_local_rank(fallback_rank=None):
    """This process's rank on its node: LOCAL_RANK (set by the launcher), else
    ``fallback_rank``."""
    if 'LOCAL_RANK' in os.environ:
        return int(os.environ['LOCAL_RANK'])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank "
                       "to allow `get_node_local_rank` to work, assuming you are not running "
                       "in a multi-device context and want the code to run locally instead.")


def is_backend_available(backend):
    """Whether ``backend`` can make a process group here: 'gloo' and 'mpi' run on MPI (so
    need mpi4py); nothing else is available."""
    from ._mpi import mpi4py_importable
    return str(backend).lower() in ('gloo', 'mpi') and mpi4py_importable()


def get_default_backend_for_device(device):
    """The backend torch picks for ``device``'s type: 'gloo' for the CPU, 'nccl' for CUDA."""
    kind = getattr(device, 'type', str(device)).split(':')[0]
    if kind not in ('cpu', 'cuda'):
        raise ValueError(f"Default backend not registered for device : {kind}")
    return 'gloo' if kind == 'cpu' else 'nccl'


def supports_complex(reduceOp):
    """Whether ``reduceOp`` is defined on complex tensors (MAX, MIN, PRODUCT and the bitwise
    ops are not)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND,
                            ReduceOp.BOR, ReduceOp.BXOR)


class DistError(RuntimeError):
    """A torch.distributed failure."""


class DistBackendError(DistError):
    """A failure in a collective backend."""


class DistNetworkError(DistError):
    """A network failure."""


class DistStoreError(DistError):
    """A key-value store failure."""


class QueueEmptyError(DistStoreError):
    """A store queue had nothing to take."""
