"""torch functions whose kernels exist only for a GPU backend: CUDA's synchronised
batch-norm statistics (the pieces of SyncBatchNorm), ROCm's MIOpen convolutions, batch norm
and RNN, and the sparse-only ``native_norm``. A CPU build of torch has the names and raises
for every call; ember is a CPU build, so it does the same, with the error torch's CPU build
gives (NotImplementedError, "Could not run 'aten::<name>' with arguments from the 'CPU'
backend", built by ``_sparse.unsupported_message``). Nothing here computes anything.
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
# the backends each kind has kernels for in torch's CPU build, as its message lists them
_KERNELS = {'CUDA': ('Meta',), 'ROCm (MIOpen)': ('Meta',), 'sparse': ('Meta', 'SparseCPU')}
# overloads torch picks by the arguments given: (parameters only the overload takes, its name)
_OVERLOADS = {'native_norm': (('dim', 'keepdim', 'dtype'), 'ScalarOpt_dim_dtype')}


# arguments torch's autograd refuses to see requiring grad, by position and name: it looks
# at them before the dispatcher finds no CPU kernel
_NOT_DIFFERENTIABLE = {'miopen_batch_norm': ((3, 'running_mean'), (4, 'running_var'))}


def not_differentiable(op, named):
    """Raises torch's autograd error for the first of ``named`` ((name, tensor or None)
    pairs: arguments ``op`` has no derivative for) that requires grad."""
    for name, t in named:
        if getattr(t, 'requires_grad', False):
            raise RuntimeError(f"The function '{op}' is not differentiable with respect to "
                               f"argument '{name}'. This input cannot have requires_grad "
                               "True.")


def _overload(name, args, kwargs):
    """aten's name of the overload of ``name`` the call reaches (torch's message names it)."""
    if name not in _OVERLOADS:  # (``out=`` reaches the out overload)
        return f'{name}.out' if kwargs.get('out') is not None else name
    params, overload = _OVERLOADS[name]
    # (the base overload takes (input, p) only: anything past them is the other's)
    if len(args) > 2 or any(k in kwargs for k in params):
        return f'{name}.{overload}'
    return name


def _refusal(name, backend):
    def op(*args, out=None, **kwargs):  # (it writes nothing: it refuses, out= or not)
        not_differentiable(name, [(n, args[i] if i < len(args) else kwargs.get(n))
                                  for i, n in _NOT_DIFFERENTIABLE.get(name, ())])
        from .._sparse import unsupported_message
        raise NotImplementedError(unsupported_message(
            _overload(name, args, dict(kwargs, out=out)), 'CPU', _KERNELS[backend]))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Refused, as in torch's CPU build: ``{name}`` runs on {backend} tensors "
                  "only.")
    return op


for _backend, _names in _ONLY_ON.items():
    for _name in _names:
        register(_refusal(_name, _backend), method=False)
