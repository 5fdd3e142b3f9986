"""torch functions whose kernels exist only for a GPU backend: CUDA's synchronised
batch-norm statistics (the pieces of SyncBatchNorm), ROCm's MIOpen convolutions, batch norm
and RNN, and the sparse-only ``native_norm``. A CPU build of torch has the names and raises
for every call; ember is a CPU build, so it does the same, with the error torch's CPU build
gives (NotImplementedError, "Could not run 'aten::<name>' with arguments from the 'CPU'
backend"). Nothing here computes anything.
"""
from ._core import register

_ONLY_ON = {
    'CUDA': ('batch_norm_stats', 'batch_norm_elemt', 'batch_norm_gather_stats',
             'batch_norm_gather_stats_with_counts', 'batch_norm_backward_reduce',
             'batch_norm_backward_elemt'),
    'ROCm (MIOpen)': ('miopen_batch_norm', 'miopen_convolution', 'miopen_convolution_add_relu',
                      'miopen_convolution_relu', 'miopen_convolution_transpose',
                      'miopen_depthwise_convolution', 'miopen_rnn'),
    'sparse': ('native_norm',),
}


def _refusal(name, backend):
    def op(*args, **kwargs):
        raise NotImplementedError(
            f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. This could "
            f"be because the operator doesn't exist for this backend: ember is a CPU build, "
            f"and '{name}' has {backend} kernels only.")
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Refused, as in torch's CPU build: ``{name}`` runs on {backend} tensors "
                  "only.")
    return op


for _backend, _names in _ONLY_ON.items():
    for _name in _names:
        register(_refusal(_name, _backend), method=False)
