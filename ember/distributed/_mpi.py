"""The MPI engine under ember.distributed: loading mpi4py (only when a process group is made),
mapping tensors' dtypes and torch's reduce ops onto MPI's, and the work handles that
non-blocking MPI requests come back as."""
import sys
import time

import numpy as np

_MPI = None


def load_mpi():
    """mpi4py's MPI module, imported (and MPI initialised) on first use; ImportError with the
    install hint when mpi4py is missing."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError("ember.distributed runs on MPI through mpi4py, which is not "
                              "installed: pip install 'ember[distributed]' (and an MPI such "
                              "as OpenMPI from the system's packages)") from e
        _MPI = MPI
    return _MPI


def mpi4py_importable():
    """Whether mpi4py can be imported, without importing it (nor initialising MPI)."""
    import importlib.util
    return importlib.util.find_spec('mpi4py') is not None


def abort_on_uncaught_exception(comm):
    """Makes an uncaught exception print its traceback and then abort the whole MPI job, so
    the other ranks (perhaps waiting in a collective for this one) end too instead of
    hanging: what torchrun does when one worker fails."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        sys.stdout.flush()
        time.sleep(0.5)   # lets mpirun forward the traceback before it kills the job
        comm.Abort(1)

    sys.excepthook = hook
    return previous


# -- dtypes ------------------------------------------------------------------------------
# NumPy kinds MPI reduces natively (through mpi4py's buffer typecodes). float16 has no
# standard MPI type and bool no arithmetic, so those travel through a staging copy.
_NATIVE = {np.dtype(t) for t in ('float32', 'float64', 'complex64', 'complex128', 'int8',
                                 'int16', 'int32', 'int64', 'uint8')}


def staging_dtype(dtype):
    """The dtype MPI works on for tensors of ``dtype`` (the same when MPI has it)."""
    if dtype in _NATIVE:
        return dtype
    if dtype == np.float16 or dtype.kind == 'V' or dtype.name == 'bfloat16':
        return np.dtype(np.float32)
    if dtype == np.bool_:
        return np.dtype(np.uint8)
    return dtype


def mpi_op(op, dtype):
    """The MPI reduction for torch's ``op`` on ``dtype`` (bool: SUM/MAX are OR, PRODUCT/MIN
    are AND, as torch's results on bool tensors)."""
    MPI = load_mpi()
    name = op.name
    if dtype == np.bool_:
        name = {'SUM': 'BOR', 'MAX': 'BOR', 'PRODUCT': 'BAND', 'MIN': 'BAND'}.get(name, name)
    return {'SUM': MPI.SUM, 'AVG': MPI.SUM, 'PRODUCT': MPI.PROD, 'MIN': MPI.MIN,
            'MAX': MPI.MAX, 'BAND': MPI.BAND, 'BOR': MPI.BOR, 'BXOR': MPI.BXOR}[name]


class Buffer:
    """A tensor's memory as MPI sees it: the tensor's own NumPy array when MPI can use it as
    it is (contiguous, a native dtype) -- zero-copy -- else a staging copy that ``commit``
    writes back. As in torch, a collective's result does not count as an in-place change
    of the tensor (its version counter stays), except AVG's division, which does."""

    def __init__(self, tensor, fill=True):
        self.tensor = tensor
        data = tensor._data
        dtype = staging_dtype(data.dtype)
        if data.flags.c_contiguous and dtype == data.dtype:
            self.array = data
        elif fill:
            self.array = np.ascontiguousarray(data, dtype=dtype)
        else:
            self.array = np.empty(data.shape, dtype)

    @property
    def flat(self):
        """The buffer as one flat array (a view)."""
        return self.array.reshape(-1)

    def commit(self, scale=None):
        """Writes the buffer back into the tensor (when staged), divided by ``scale`` if given
        (ReduceOp.AVG, which bumps the version counter as torch's in-place division)."""
        data = self.tensor._data
        if scale is not None:
            if data.dtype.kind in 'iub':
                np.floor_divide(self.array, scale, out=self.array)
            else:
                np.divide(self.array, scale, out=self.array)
            self.tensor._vc[0] += 1
        if self.array is not data:
            np.copyto(data, self.array, casting='unsafe')


def wait_all(requests, statuses=None):
    """Waits for MPI ``requests`` without hogging a core: MPI's own wait spins, which on a
    machine with more runnable processes than cores takes CPU time from the very rank
    being waited for. So: poll (each poll also drives MPI's progress), yielding the CPU
    between polls once the first few found the operation unfinished. (Sleeping instead
    made a DDP step several times slower: a non-blocking all-reduce advances only as
    often as it is polled.)"""
    Request = load_mpi().Request
    polls = 0
    while not Request.Testall(requests, statuses):
        polls += 1
        if polls > 50:
            time.sleep(0)   # sched_yield


class Work:
    """A collective in flight (``async_op=True``), as torch's ``Work``: ``wait()`` blocks until
    it is done and its results are written; ``is_completed()`` polls."""

    def __init__(self, requests, finish=None, outputs=(), source=None, status=None):
        self._requests = list(requests)
        self._statuses = None if status is None else [status]
        self._finish = finish
        self._outputs = list(outputs)
        self._source = source
        self._done = False

    def _complete(self):
        if not self._done:
            self._done = True
            if self._finish is not None:
                self._finish()

    def wait(self, timeout=None):
        """Blocks until the operation has finished and its outputs are written; True."""
        if not self._done:
            wait_all(self._requests, self._statuses)
            self._complete()
        return True

    def is_completed(self):
        """Whether the operation has finished (finishing it when MPI says it has)."""
        if not self._done and load_mpi().Request.Testall(self._requests, self._statuses):
            self._complete()
        return self._done

    def is_success(self):
        """Whether the operation finished without error (MPI aborts on errors)."""
        return self.is_completed()

    def result(self):
        """The output tensors of the operation."""
        self.wait()
        return list(self._outputs)

    def source_rank(self):
        """For a receive from any source: the rank the message came from."""
        self.wait()
        if self._source is None:
            raise RuntimeError("source_rank() is only available for recv or irecv")
        return self._source()

    def exception(self):
        """None: MPI reports failures by aborting the job."""
        return None


def finished(work, async_op):
    """``work`` for ``async_op=True``; else waits for it and returns None (torch's rule)."""
    if async_op:
        return work
    work.wait()
    return None
