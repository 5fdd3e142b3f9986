"""Run by ``python -m ember.distributed.run``: each rank writes the torchrun environment it
sees, its rank and world size from ember.distributed, and its argv to $OUT_DIR."""
import json
import os
import sys

import ember.distributed as dist

dist.init_process_group('gloo')   # env:// -- RANK and WORLD_SIZE must agree with MPI's
seen = {name: os.environ.get(name) for name in ('RANK', 'LOCAL_RANK', 'WORLD_SIZE',
                                                'LOCAL_WORLD_SIZE', 'MASTER_ADDR')}
seen.update(rank=dist.get_rank(), world_size=dist.get_world_size(), argv=sys.argv,
            main=__name__, elastic=dist.is_torchelastic_launched())
with open(os.path.join(os.environ['OUT_DIR'], f'rank{dist.get_rank()}.json'), 'w') as f:
    json.dump(seen, f)
dist.destroy_process_group()
