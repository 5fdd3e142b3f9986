"""ember.autograd: reverse-mode automatic differentiation (backward, grad, grad modes)."""
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                        is_grad_enabled, is_inference_mode_enabled)
from .engine import run_backward
from . import graph  # noqa: F401

__all__ = ['backward', 'grad', 'no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode',
           'is_grad_enabled']


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _seed_grads(outputs, grad_outputs, op):
    """The starting gradients: given ones checked for shape, or ones for scalar outputs."""
    from .._tensor import Tensor, make
    import numpy as np
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise TypeError(f"{op}(): argument 'tensors' must be tuple of Tensors, not "
                            f"{type(out).__name__}")
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype.kind not in 'fc':
                raise RuntimeError("grad can be implicitly created only for real scalar "
                                   "outputs but got " + repr(out.dtype))
            g = make(np.ones(out._data.shape, out._data.dtype))
        else:
            if not isinstance(g, Tensor):
                g = make(np.asarray(g, dtype=out._data.dtype))
            if g._data.shape != out._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{_size(g._data.shape)} and output[{i}] has a shape of "
                                   f"{_size(out._data.shape)}.")
            if g._data.dtype.kind != out._data.dtype.kind and not (
                    g._data.dtype.kind in 'fc' and out._data.dtype.kind in 'fc'):
                raise RuntimeError(f"For complex Tensors, both grad_output and output are "
                                   f"required to have the same dtype. Mismatch in dtype: "
                                   f"grad_output[{i}] has a dtype of {g.dtype} and output[{i}]"
                                   f" has a dtype of {out.dtype}.")
            # The engine may keep a seed as a leaf's .grad; it must not alias the caller's.
            g = make(np.array(g._data)) if not g._requires_grad else g
        seeds.append(g)
    return seeds


def _size(shape):
    return f'torch.Size({list(shape)})'


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulates into ``.grad`` of the leaves the gradient of ``tensors`` (seeded with
    ``grad_tensors``; omitted for scalars). ``inputs`` restricts which leaves accumulate."""
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _seed_grads(tensors, grad_tensors, 'backward')
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    captured = run_backward(tensors, seeds, retain_graph, create_graph, inputs=inputs,
                            accumulate=True)
    if inputs is not None:
        # Non-leaf inputs named explicitly get their .grad filled too, as in torch.
        for t, g in zip(inputs, captured):
            if t._grad_fn is not None and g is not None:
                t._grad = g if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Returns the gradients of ``outputs`` w.r.t. ``inputs`` without touching ``.grad``."""
    from .._tensor import Tensor, make
    import numpy as np
    outputs = _as_tuple(outputs)
    single = isinstance(inputs, Tensor)
    inputs = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): argument 'inputs' must be tuple of Tensors, not "
                            f"{type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _seed_grads(outputs, _as_tuple(grad_outputs), 'grad')
    res = run_backward(outputs, seeds, retain_graph, create_graph, inputs=inputs,
                       accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs, res)):
        if g is None:
            if materialize_grads:
                g = make(np.zeros_like(t._data))
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        elif not create_graph and g._requires_grad:
            g = g.detach()
        out.append(g)
    return tuple(out)
