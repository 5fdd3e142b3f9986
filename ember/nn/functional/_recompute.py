"""Nodes whose backward is the vector-Jacobian product of a composition of ember ops.

Some ops show torch a node of their own (``ConvTbcBackward0``, ``EmbeddingBagBackward0``,
``AffineGridGeneratorBackward0``...) though their math is a composition of ops ember already
differentiates. Such an op runs its composition once without a graph for the value, and its
node keeps the inputs; the node's backward runs the composition again with a graph from
those inputs and asks autograd for its gradients -- with a graph of them too when the outer
backward wants one (``create_graph``), so higher derivatives come for free.
"""
import numpy as np

from ..._ops import _core
from ..._ops._core import make
from ...autograd.grad_mode import STATE, enable_grad, no_grad


class RecomputedBackward(_core.Node):
    """Backward = the VJP of ``self.compose(*saved inputs)``; subclasses give the name."""

    def backward(self, g):
        from ...autograd import grad
        saved = iter(self.saved_tensors)
        inputs = [next(saved) if here else None for here in self.present]
        # (forward AD derives its jvp from this backward with the saved inputs detached:
        # the composition still needs leaves to differentiate along)
        inputs = [t.detach().requires_grad_() if t is not None and fn is not None and
                  not t.requires_grad and t.is_floating_point() else t
                  for t, (fn, _) in zip(inputs, self.next_functions)]
        want = [t for t, (fn, _) in zip(inputs, self.next_functions)
                if t is not None and fn is not None]
        create = STATE.enabled
        with enable_grad():
            out = self.compose(*inputs)
        # (an output the composition leaves unconnected -- an empty grid, the nearest
        # pixel -- has no gradient to ask for: zeros below)
        grads = iter(grad(out, want, g, create_graph=create, allow_unused=True)
                     if out.requires_grad else [None] * len(want))
        # an input the composition does not depend on (grid_sample's grid, for the nearest
        # pixel) gets zeros, as torch's own kernels give
        return tuple(_or_zeros(next(grads), t) if t is not None and fn is not None else None
                     for t, (fn, _) in zip(inputs, self.next_functions))


def _or_zeros(g, t):
    return g if g is not None else make(np.zeros(t.shape, t._data.dtype))


def recomputed(node_cls, compose, inputs, value=None):
    """``compose(*inputs)`` (ember ops) as the output of one ``node_cls`` node (a
    ``RecomputedBackward``) over ``inputs`` (tensors, or None for absent ones). ``value``:
    the result's array when the caller has a faster way to it than the composition."""
    if value is None:
        with no_grad():
            value = compose(*inputs)._data
    node = _core.track(node_cls, inputs)
    out = _core.result(value, node)
    if node is not None:
        node.present = [t is not None for t in inputs]
        node.save(*[t for t in inputs if t is not None])
        node.compose = compose
    return out
