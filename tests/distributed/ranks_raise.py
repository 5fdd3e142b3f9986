"""Run on 2 MPI ranks: rank 1 raises while rank 0 waits in a collective for it; the job must
end (with rank 1's traceback), not hang."""
import ember
import ember.distributed as dist

dist.init_process_group('mpi')
if dist.get_rank() == 1:
    raise ValueError('boom on rank 1')
dist.all_reduce(ember.ones(3))
dist.barrier()
