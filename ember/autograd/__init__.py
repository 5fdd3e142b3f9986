"""ember.autograd: reverse-mode automatic differentiation (backward, grad, grad modes)."""
import warnings

import numpy as np

from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                        is_grad_enabled, is_inference_mode_enabled, set_multithreading_enabled,
                        is_multithreading_enabled, is_view_replay_enabled,
                        _force_original_view_tracking)
from .engine import run_backward
from ..overrides import is_tensor_like, has_torch_function, handle_torch_function
from . import graph  # noqa: F401
from .graph import SavedTensor  # noqa: F401
from .anomaly_mode import (detect_anomaly, set_detect_anomaly, is_anomaly_enabled,  # noqa
                           is_anomaly_check_nan_enabled)

__all__ = ['Function', 'backward', 'grad', 'no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode',
           'is_grad_enabled']


def _as_tuple(x):
    """``x`` as a tuple: a lone tensor, GradientEdge (itself a tuple) or None is wrapped;
    any other iterable is listed (a non-iterable raises Python's own TypeError, as in
    torch)."""
    from .._tensor import Tensor
    if x is None or isinstance(x, (Tensor, graph.GradientEdge)):
        return (x,)
    return tuple(x)


def _as_tuple_like(x):
    """``x`` as a tuple of its items, a lone tensor-like or GradientEdge wrapped."""
    if is_tensor_like(x) or isinstance(x, graph.GradientEdge):
        return (x,)
    return tuple(x)


def _seed_grads(outputs, grad_outputs):
    """The starting gradients, checked as torch checks them: given ones must match their
    output's shape (and complexness; they are cast to its dtype); None means ones, allowed
    only for real scalar outputs. Outputs that need no gradient are refused afterwards."""
    from .._tensor import Tensor, make
    if len(grad_outputs) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(out, graph.GradientEdge):
            out = _EdgeOutput(out)
        elif not isinstance(out, Tensor):
            raise AssertionError("Expected output to be a torch.Tensor")
        elif out._base is not None:
            out.grad_fn  # (a view whose base changed in place: its history, brought up to date)
        od = out._data
        if isinstance(g, Tensor):
            gd = g._data
            if gd.shape != od.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{_size(gd.shape)} and output[{i}] has a shape of "
                                   f"{_size(od.shape)}.")
            if (gd.dtype.kind == 'c') != (od.dtype.kind == 'c'):
                raise RuntimeError(f"For complex Tensors, both grad_output and output are "
                                   f"required to have the same dtype. Mismatch in dtype: "
                                   f"grad_output[{i}] has a dtype of {g.dtype} and output[{i}]"
                                   f" has a dtype of {out.dtype}.")
            if g._requires_grad:
                # A seed with history (create_graph) is used as is, to keep its graph.
                if gd.dtype != od.dtype:
                    g = g.to(out.dtype)
            else:
                # The engine may keep a seed as a leaf's .grad: it must not alias the caller's.
                dt = od.dtype if od.dtype.kind in 'fcV' else gd.dtype
                g = make(np.array(gd, dtype=dt) if isinstance(gd, np.ndarray)
                         else gd.astype(dt))  # (a sparse seed: its storage, copied)
        elif g is None:
            if out._requires_grad:
                if od.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if od.dtype.kind not in 'fV':
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                g = make(np.ones(od.shape, od.dtype))
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        seeds.append(g)
    for i, out in enumerate(outputs):
        if not isinstance(out, graph.GradientEdge) and not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
    return seeds


class _EdgeOutput:
    """What _seed_grads reads of an output, for a GradientEdge differentiated as one: an
    array of its gradient's shape and dtype (never filled), its dtype, and requires_grad."""
    _requires_grad = True

    def __init__(self, edge):
        shape, dt = graph.edge_output_meta(edge)
        self._data = np.empty(shape, dt) if dt is not None else np.empty(shape)
        from .._dtype import FROM_NP
        self.dtype = FROM_NP[self._data.dtype]


def _size(shape):
    return f'torch.Size({list(shape)})'


def _check_inputs(inputs, op):
    """``inputs`` as a non-empty tuple of tensors, or torch's error."""
    from .._tensor import Tensor
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{op}()` cannot be empty.")
    for t in inputs:
        if not isinstance(t, (Tensor, graph.GradientEdge)):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
    return inputs


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulates into ``.grad`` of the leaves the gradient of ``tensors`` (seeded with
    ``grad_tensors``; omitted for scalars). ``inputs`` restricts which tensors accumulate:
    leaves, or non-leaves, which then retain their grad."""
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments "
                               "both passed to `backward()`. Please only use `grad_tensors`.")
    if inputs is not None:
        inputs = _check_inputs(inputs, 'backward')
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn("Using backward() with create_graph=True will create a reference cycle "
                      "between the parameter and its gradient which can cause a memory leak. "
                      "We recommend using autograd.grad when creating the graph to avoid this. "
                      "If you have to use this function, make sure to reset the .grad fields of "
                      "your parameters to None after use to break the cycle and avoid the leak.",
                      stacklevel=3)
    seeds = _seed_grads(tensors, grad_tensors)
    if inputs is not None:
        for t in inputs:
            # As torch: a non-leaf named in ``inputs`` gets its .grad by retaining it (and a
            # leaf that does not require grad is refused with retain_grad's message).
            if not isinstance(t, graph.GradientEdge):
                t.retain_grad()
    run_backward(tensors, seeds, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Returns the gradients of ``outputs`` w.r.t. ``inputs`` without touching ``.grad``
    of the leaves (hooks and ``retain_grad`` still run). An input the outputs do not depend
    on is an error, unless ``allow_unused`` (its gradient is None) or ``materialize_grads``
    (zeros)."""
    from .._tensor import make
    # As torch: it dispatches on the outputs and the inputs, handing __torch_function__ both
    # as tuples and every other argument by keyword.
    a_outputs, a_inputs = _as_tuple_like(outputs), _as_tuple_like(inputs)
    overridable = tuple(t for t in a_outputs + a_inputs if is_tensor_like(t))
    if has_torch_function(overridable):
        return handle_torch_function(
            grad, overridable, a_outputs, a_inputs, grad_outputs=grad_outputs,
            retain_graph=retain_graph, create_graph=create_graph, only_inputs=only_inputs,
            allow_unused=allow_unused, is_grads_batched=is_grads_batched,
            materialize_grads=materialize_grads)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    outputs = _as_tuple(outputs)
    inputs = _check_inputs(inputs, 'grad')
    grad_outputs = (_as_tuple(grad_outputs) if grad_outputs is not None
                    else (None,) * len(outputs))
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        res = _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph,
                            allow_unused)
        if materialize_grads:  # (as torch: the zeros stand unbatched, shaped like the input)
            res = tuple(make(np.zeros_like(t._data), None, create_graph) if g is None else g
                        for t, g in zip(inputs, res))
        return res
    seeds = _seed_grads(outputs, grad_outputs)
    for t in inputs:
        if not isinstance(t, graph.GradientEdge) and not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    res = run_backward(outputs, seeds, retain_graph, create_graph, inputs=inputs,
                       accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs, res)):
        if g is None:
            if materialize_grads and isinstance(t, graph.GradientEdge):
                raise RuntimeError("materialize_grads cannot be used when the given input is "
                                   "a GradientEdge")
            if materialize_grads:
                g = make(np.zeros_like(t._data), None, create_graph)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        elif not create_graph and g._requires_grad:
            g = g.detach()
        out.append(g)
    return tuple(out)


def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    """``grad(..., is_grads_batched=True)``: dimension 0 of every grad_output is a batch;
    vmap (a loop in ember) runs one backward per batch element and stacks the gradients."""
    from .._tensor import Tensor
    from .._vmap_internals import _vmap
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(g, Tensor) and isinstance(out, Tensor) and g[0].shape != out.shape:
            # (torch prints the first element's shape less its first size: kept as torch has it)
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                f"expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {g[0].shape[1:]} and output[{i}] has "
                f"a shape of {out.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")
    size = next((g.shape[0] for g in grad_outputs if isinstance(g, Tensor)), 1)
    done = [0]

    def one(gos):
        done[0] += 1  # the graph must outlive every backward but the last
        return grad(outputs, inputs, gos, retain_graph=retain_graph or done[0] < size,
                    create_graph=create_graph, allow_unused=allow_unused)
    return _vmap(one, 0, 0, allow_none_pass_through=True)(tuple(grad_outputs))


grad._ember_name = 'ember.autograd.grad'  # (how __torch_function__ messages name it)


def kineto_available():
    """False: ember's profiler is its own, not Kineto."""
    return False


def _profiler_enabled():
    """True while an ``autograd.profiler.profile`` is recording."""
    import sys
    prof = sys.modules.get(__name__ + '.profiler')
    return prof is not None and prof._profiler_enabled()


# name -> (submodule, attribute or None for the module itself)
_LAZY = {'Function': ('function', 'Function'), 'function': ('function', None),
         'gradcheck': ('gradcheck', 'gradcheck'), 'gradgradcheck': ('gradcheck', 'gradgradcheck'),
         'forward_ad': ('forward_ad', None), 'functional': ('functional', None),
         'check_function': ('check', 'check_function'), 'Variable': ('variable', 'Variable'),
         'variable': ('variable', None), 'profiler': ('profiler', None),
         'profiler_util': ('profiler_util', None)}


def __getattr__(name):
    # Function lives in a module that needs Tensor, which itself imports this package:
    # loading it on first use breaks the cycle and keeps `import ember` fast.
    lazy = _LAZY.get(name)
    if lazy is not None:
        import importlib
        module = importlib.import_module(f'{__name__}.{lazy[0]}')
        value = getattr(module, lazy[1]) if lazy[1] else module
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")
