"""Full backward hooks of nn.Module: gradients with respect to a module's inputs and outputs.

A module is a piece of Python, not a node, so there is no single place in the graph where
"the module's backward" happens. As torch does, ember brackets the module's forward with two
identity Functions: one over the outputs sees the gradients flowing in (``grad_output``, where
pre-hooks may replace them), one over the inputs sees the gradients flowing out
(``grad_input``, where hooks may replace them). Both keep one slot per positional argument /
output, with None for what is not a tensor.
"""
import warnings

from ..._tensor import Tensor
from ... import zeros_like
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled


class BackwardHookFunction(Function):
    """Identity on tensors; its backward hands the incoming gradients to ``on_grads``."""

    @staticmethod
    def forward(ctx, on_grads, materialize, *tensors):
        ctx.on_grads = on_grads
        ctx.set_materialize_grads(materialize)
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, None) + tuple(ctx.on_grads(grads))


class BackwardHook:
    """The state one module call shares between its output-side and input-side identities."""

    def __init__(self, module, args, pre_hooks, hooks):
        self.module = module
        self.pre_hooks, self.hooks = pre_hooks, hooks  # the global ones, then the module's
        self.n_inputs = len(args)
        self.input_positions = None     # set when some input takes part in the graph
        self.grad_outputs = None

    def wrap_inputs(self, args):
        """Routes the tensor arguments through the input-side identity (when any of them
        requires grad)."""
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not is_grad_enabled() or not positions:
            return args
        self.input_positions = positions
        # tensor inputs that take no part in the graph show up as zeros in grad_input, as in
        # torch (whose hook Function materializes their undefined gradients)
        self.zero_inputs = {i: a for i, a in enumerate(args)
                            if isinstance(a, Tensor) and not a.requires_grad}
        wrapped = BackwardHookFunction.apply(self._on_input_grads, True,
                                             *[args[i] for i in positions])
        args = list(args)
        for i, t in zip(positions, wrapped):
            args[i] = t
        return tuple(args)

    def wrap_outputs(self, output):
        """Routes the tensor outputs through the output-side identity."""
        single = isinstance(output, Tensor)
        outputs = (output,) if single else output
        if not isinstance(outputs, tuple):
            return output
        positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)]
        if not is_grad_enabled() or not any(outputs[i].requires_grad for i in positions):
            return output
        self.n_outputs, self.output_positions = len(outputs), positions
        # unused outputs stay None in grad_output (no materialized zeros), as in torch
        wrapped = BackwardHookFunction.apply(self._on_output_grads, False,
                                             *[outputs[i] for i in positions])
        outputs = list(outputs)
        for i, t in zip(positions, wrapped):
            outputs[i] = t
        if single:
            return outputs[0]
        # a tuple subclass (a namedtuple) keeps its type, as in torch
        return tuple(outputs) if type(output) is tuple else type(output)(*outputs)

    # -- backward side ----------------------------------------------------------------------
    def _on_output_grads(self, grads):
        grad_outputs = _pack(self.output_positions, grads, self.n_outputs)
        for hook in self.pre_hooks:
            result = hook(self.module, grad_outputs)
            if result is not None:
                grad_outputs = _checked(result, self.n_outputs, 'pre hook', 'grad_output')
        self.grad_outputs = grad_outputs
        if self.input_positions is None and self.hooks:
            # no input takes part: the hooks fire now, and may not change anything
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients.")
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                result = hook(self.module, grad_inputs, grad_outputs)
                if result is not None and any(g is not None for g in result):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return [grad_outputs[i] for i in self.output_positions]

    def _on_input_grads(self, grads):
        if self.grad_outputs is None:
            # The gradient reached the inputs without passing through the outputs in this
            # backward (a double backward through the module's saved inputs): as in torch,
            # the hooks wait for a backward that passes through both.
            return grads
        grad_inputs = list(_pack(self.input_positions, grads, self.n_inputs))
        for i, a in self.zero_inputs.items():
            grad_inputs[i] = zeros_like(a)
        grad_inputs = tuple(grad_inputs)
        for hook in self.hooks:
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None:
                grad_inputs = _checked(result, self.n_inputs, 'hook', 'grad_input')
        self.grad_outputs = None  # (each backward through the module pairs its own two sides)
        return [grad_inputs[i] for i in self.input_positions]


def _pack(positions, values, n):
    """One slot per argument: the values at ``positions``, None elsewhere."""
    out = [None] * n
    for i, v in zip(positions, values):
        out[i] = v
    return tuple(out)


def _checked(result, n, kind, what):
    result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if len(result) != n:
        raise RuntimeError(f"Backward {kind} returned an invalid number of {what}, got "
                           f"{len(result)}, but expected {n}")
    return result
