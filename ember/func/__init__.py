"""ember.func (torch.func): function transforms.

- ``vmap``: maps a function over a batch dimension. ember loops over the batch (see
  ``_vmap``): the results are torch's, the speed a Python loop's; what torch's batched
  tensors refuse inside the function is refused (``_batched``).
- ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``: built
  on ember's autograd (``_transforms``).
- ``linearize``, ``functionalize`` (the function itself: ember runs eagerly), ``debug_unwrap``.
- ``functional_call``, ``stack_module_state``, ``replace_all_batch_norm_modules_``: modules
  as functions of their state (``_functional_call``).
"""
from ._vmap import vmap
from ._transforms import (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, linearize,
                          functionalize, debug_unwrap)
from ._functional_call import functional_call, stack_module_state, replace_all_batch_norm_modules_

__all__ = ['vmap', 'grad', 'grad_and_value', 'vjp', 'jvp', 'jacrev', 'jacfwd', 'hessian',
           'linearize', 'functionalize', 'debug_unwrap', 'functional_call', 'stack_module_state',
           'replace_all_batch_norm_modules_']
