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
    """Backward = the VJP of ``self.compose(*saved inputs)``; subclasses give the name. A
    composition may return a tuple (None for an output it does not compute)."""

    def backward(self, *gs):
        from ...autograd import grad
        saved = iter(self.saved_tensors)
        inputs = [next(saved) if here else None for here in self.present]
        # (forward AD derives its jvp from this backward with the saved inputs detached:
        # the composition still needs leaves to differentiate along)
        inputs = [t.detach().requires_grad_() if t is not None and fn is not None and
                  not t.requires_grad and t.is_floating_point() else t
                  for t, (fn, _) in zip(inputs, self.next_functions)]
        create = STATE.enabled
        with enable_grad():
            # each input through a node of its own: the VJP is the partial derivative along
            # that input alone, not along history it shares with another input (an output
            # gradient that depends on the input, in a second derivative)
            inputs = [t.view_as(t) if t is not None and fn is not None and t.requires_grad
                      else t for t, (fn, _) in zip(inputs, self.next_functions)]
            want = [t for t, (fn, _) in zip(inputs, self.next_functions)
                    if t is not None and fn is not None]
            out = self.compose(*inputs)
        # (an output the composition leaves unconnected -- an empty grid, the nearest
        # pixel -- has no gradient to ask for: zeros below)
        pairs = [(o, g) for o, g in zip(out if isinstance(out, tuple) else (out,), gs)
                 if o is not None and g is not None and o.requires_grad]
        grads = iter(grad([o for o, _ in pairs], want, [g for _, g in pairs],
                          create_graph=create, allow_unused=True)
                     if pairs else [None] * len(want))
        # an input the composition does not depend on (grid_sample's grid, for the nearest
        # pixel) gets zeros, as torch's own kernels give
        return tuple(_or_zeros(next(grads), t) if t is not None and fn is not None else None
                     for t, (fn, _) in zip(inputs, self.next_functions))


def _or_zeros(g, t):
    return g if g is not None else make(np.zeros(t.shape, t._data.dtype))


def recomputed(node_cls, compose, inputs, value=None):
    """``compose(*inputs)`` (ember ops) as the output of one ``node_cls`` node (a
    ``RecomputedBackward``) over ``inputs`` (tensors, or None for absent ones); a tuple of
    outputs (None where absent) if the composition returns one. ``value``: the result's
    array when the caller has a faster way to it than the composition."""
    if value is None:
        with no_grad():
            value = compose(*inputs)
        value = tuple(None if o is None else o._data for o in value) \
            if isinstance(value, tuple) else value._data
    node = _core.track(node_cls, inputs)
    out = tuple(_core.results(value, node)) if isinstance(value, tuple) \
        else _core.result(value, node)
    if node is not None:
        node.present = [t is not None for t in inputs]
        node.save(*[t for t in inputs if t is not None])
        node.compose = compose
    return out
