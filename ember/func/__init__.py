"""ember.func (torch.func): function transforms.

- ``vmap``: maps a function over a batch dimension. ember loops over the batch (see
  ``_vmap``): the results are torch's, the speed a Python loop's.
- ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``: built
  on ember's autograd (``_transforms``).
- ``functional_call``: a module run with replacement parameters and buffers.
"""
from ._vmap import vmap
from ._transforms import grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian
from ._functional_call import functional_call

__all__ = ['vmap', 'grad', 'grad_and_value', 'vjp', 'jvp', 'jacrev', 'jacfwd', 'hessian',
           'functional_call']
