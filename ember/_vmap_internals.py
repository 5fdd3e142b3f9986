"""torch._vmap_internals: the older, private vmap that autograd.grad(is_grads_batched=True)
and gradcheck's batched checks use (tests call it directly too). In ember it is the same
loop as ``ember.func.vmap`` (see ember/func/_vmap.py), with the older vmap's refusal of
random operations and, for ``_vmap``, None outputs let through on request."""
import functools
import warnings

__all__ = ['vmap']


def vmap(func, in_dims=0, out_dims=0):
    """Deprecated: ``ember.vmap`` without its randomness and chunking options."""
    warnings.warn("Please use `torch.vmap` instead of `torch._vmap_internals.vmap`.",
                  FutureWarning, stacklevel=2)
    return _vmap(func, in_dims, out_dims)


def _vmap(func, in_dims=0, out_dims=0, allow_none_pass_through=False):
    """The older vmap, as autograd uses it: random operations inside are refused, and with
    ``allow_none_pass_through`` an output that is None for every element stays None."""
    from .func._vmap import _vmap_call

    @functools.wraps(func)
    def wrapped(*args):
        return _vmap_call(func, in_dims, out_dims, 'unsupported', args, {},
                          none_passes=allow_none_pass_through)
    return wrapped
