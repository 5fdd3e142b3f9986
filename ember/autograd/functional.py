"""ember.autograd.functional: Jacobians, Hessians and their products for whole functions.

Every function here takes a user function ``func`` and the point ``inputs`` (a Tensor or a
tuple of Tensors) at which to differentiate it, and builds its answer from reverse-mode
``ember.autograd.grad`` calls, as torch does:

* ``vjp``  ``v^T J``: one backward pass.
* ``jvp``  ``J v``: the double-backward trick. The backward pass is linear in its seed ``u``
  (``g(u) = J^T u``), so differentiating ``g`` with respect to ``u`` in the direction ``v``
  gives ``J v`` without forward-mode AD.
* ``jacobian``: one backward pass per output element (reverse mode), or one forward-AD
  pass per input element (``strategy='forward-mode'``).
* ``hessian``: the Jacobian of the gradient; ``vhp`` / ``hvp`` the products with it.

Results mirror the structure of what was given: a lone Tensor gives a lone Tensor, a tuple a
tuple (a tuple of tuples for Jacobians of tuple-to-tuple functions). They are detached
unless ``create_graph=True``, and are always new Tensor objects, never the caller's inputs.
"""
import ember

from .._tensor import Tensor
from .grad_mode import enable_grad, set_grad_enabled, is_grad_enabled
from . import forward_ad as _fwad

__all__ = ['vjp', 'jvp', 'jacobian', 'hessian', 'hvp', 'vhp']


# ---------------------------------------------------------------------------------------
# Helpers shared by the public functions


def _tupled(value, what, fn_name):
    """``(was_a_tuple, value as a tuple of Tensors)``, or torch's TypeError naming ``what``.
    Only a real tuple counts as a tuple: a list is refused, as in torch."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"value at index {i}" if was_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple "
                            f"of Tensors but the {where} has type {type(item)}.")
    return was_tuple, items


def _untuple(res, was_tuple):
    """Undoes ``_tupled``: a lone Tensor comes back alone."""
    return res if was_tuple else res[0]


def _untuple2(res, outputs_tuple, inputs_tuple):
    """Undoes ``_tupled`` on both levels of a (per output, per input) nested result."""
    if not inputs_tuple:
        res = tuple(row[0] for row in res)
    return res if outputs_tuple else res[0]


def _fresh(tensors, create_graph, need_graph):
    """New Tensor objects standing for ``tensors`` inside the computation.

    They are always new objects, so that the function's use of the *given* inputs (say,
    captured in a closure) is told apart from its use of the arguments it is called with.
    With ``create_graph`` an input that requires grad stays connected to its history (a
    view), so the results can be differentiated back to it; otherwise it is cut off and
    made a leaf that requires grad only if ``need_graph``.
    """
    return tuple(t.view_as(t) if create_graph and t.requires_grad
                 else t.detach().requires_grad_(need_graph) for t in tensors)


def _finish(tensors, create_graph):
    """Results as handed back: without history unless ``create_graph`` (nested tuples too)."""
    if not tensors:
        # No inputs (or no outputs) at all: torch fails here, looking at the first result.
        raise IndexError("tuple index out of range")
    if create_graph:
        return tensors
    return tuple(t.detach() if isinstance(t, Tensor) else _finish(t, create_graph)
                 for t in tensors)


def _check_v(v, refs, refs_tuple):
    """``v`` must have one entry per reference tensor, each of its shape."""
    if len(v) != len(refs):
        if refs_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, ref) in enumerate(zip(v, refs)):
        if a.size() != ref.size():
            entry = f"Entry {i} in " if refs_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {ref.size()} but got "
                               f"{a.size()}.")


def _prepare_v(v, refs, refs_tuple, fn_name, create_graph):
    """The checked, tupled ``v`` (a given ``v`` is a constant unless ``create_graph``)."""
    _, v = _tupled(v, 'v', fn_name)
    v = _fresh(v, create_graph, need_graph=False)
    _check_v(v, refs, refs_tuple)
    return v


_NOT_DIFFERENTIABLE = {
    'outputs': lambda i: (f"Output {i} of the user-provided function does not require "
                          "gradients. The outputs must be computed in a differentiable manner "
                          "from the input when running in strict mode."),
    'grad_inputs': lambda i: (f"The gradient with respect to input {i} is independent of the "
                              "inputs of the user-provided function. This is not allowed in "
                              "strict mode."),
    'jacobian': lambda i: ("While computing the hessian, found that the jacobian of the "
                           f"user-provided function with respect to input {i} is independent "
                           "of the input. This is not allowed in strict mode. You should "
                           "ensure that your function is twice differentiable and that the "
                           "jacobian depends on the inputs (this would be violated by a "
                           "linear function for example)."),
    'hessian': lambda i: (f"The hessian of the user-provided function with respect to input "
                          f"{i} is independent of the input. This is not allowed in strict "
                          "mode. You should ensure that your function is thrice "
                          "differentiable and that the hessian depends on the inputs."),
}


def _strict_requires_grad(tensors, kind, strict):
    """In strict mode, every tensor of ``tensors`` (a ``kind`` of intermediate result) must
    carry a graph back to the inputs; a missing one (None) means the outputs ignore it."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NOT_DIFFERENTIABLE[kind](i))


def _grads(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs which are None or carry no graph (a function
    may return constants) and gives None for inputs nothing depends on."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        # Nothing differentiable: the engine has no work, every gradient is absent.
        return (None,) * len(inputs)
    outs, seeds = zip(*pairs)
    return ember.autograd.grad(outs, inputs, seeds, retain_graph=retain_graph,
                               create_graph=create_graph, allow_unused=True)


_MISSING = {
    'back': lambda i: ("The output of the user-provided function is independent of "
                       f"input {i}. This is not allowed in strict mode."),
    'back_trick': lambda i: (f"The gradient with respect to the input is independent of entry "
                             f"{i} in the grad_outputs when using the double backward trick to "
                             "compute forward mode gradients. This is not allowed in strict "
                             "mode."),
    'double_back': lambda i: ("The jacobian of the user-provided function is independent of "
                              f"input {i}. This is not allowed in strict mode."),
    'double_back_trick': lambda i: ("The hessian of the user-provided function is independent "
                                    f"of entry {i} in the grad_jacobian. This is not allowed in "
                                    "strict mode as it prevents from using the double backward "
                                    "trick to replace forward mode AD."),
}


def _zeros_for_missing(grads, refs, strict, create_graph, stage):
    """Absent gradients become zeros shaped like ``refs`` (the mathematically right value),
    unless ``strict``; with ``strict`` and ``create_graph`` a gradient without a graph is an
    error too, as it could not be differentiated further."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING[stage](i))
            g = ember.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = 'hessian' if 'double' in stage else 'jacobian'
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _second_stage_grad_mode(create_graph):
    # The last backward pass records a graph only when asked to; otherwise the caller's
    # grad mode stands (as in torch).
    return set_grad_enabled(True if create_graph else is_grad_enabled())


def _scalar_function_output(outputs, outputs_tuple, fn_name):
    """``vhp``, ``hvp`` and ``hessian`` need ``func`` to return one one-element Tensor."""
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")


# ---------------------------------------------------------------------------------------
# Public API


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Computes ``func(inputs)`` and the vector-Jacobian product ``v^T J`` at ``inputs``.

    ``v`` has the structure and shapes of ``func``'s output; it may be omitted when that is
    a single one-element Tensor. Returns ``(func_output, vjp)``, ``vjp`` shaped like
    ``inputs``. ``strict=True`` refuses outputs independent of an input instead of giving
    zeros; ``create_graph=True`` keeps both results differentiable.
    """
    with enable_grad():
        inputs_tuple, inputs = _tupled(inputs, 'inputs', 'vjp')
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _tupled(func(*inputs), 'outputs of the user-provided function',
                                         'vjp')
        _strict_requires_grad(outputs, 'outputs', strict)
        if v is not None:
            v = _prepare_v(v, outputs, outputs_tuple, 'vjp', create_graph)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    with _second_stage_grad_mode(create_graph):
        res = _grads(outputs, inputs, v, create_graph=create_graph)
        res = _zeros_for_missing(res, inputs, strict, create_graph, 'back')
    return (_untuple(_finish(outputs, create_graph), outputs_tuple),
            _untuple(_finish(res, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Computes ``func(inputs)`` and the Jacobian-vector product ``J v`` at ``inputs``.

    ``v`` has the structure and shapes of ``inputs``; it may be omitted when that is a
    single one-element Tensor. Returns ``(func_output, jvp)``, ``jvp`` shaped like the
    output. Computed, as in torch, by the double-backward trick (differentiating the
    backward pass with respect to its seed), not by forward-mode AD.
    """
    with enable_grad():
        inputs_tuple, inputs = _tupled(inputs, 'inputs', 'jvp')
        inputs = _fresh(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _prepare_v(v, inputs, inputs_tuple, 'jvp', create_graph)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element.")
        outputs_tuple, outputs = _tupled(func(*inputs), 'outputs of the user-provided function',
                                         'jvp')
        _strict_requires_grad(outputs, 'outputs', strict)
        # The seeds' values never reach the result (the backward is linear in them); zeros
        # keep inf/nan out of the intermediate graph.
        seeds = tuple(ember.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grads(outputs, inputs, seeds, create_graph=True)
        _strict_requires_grad(grad_inputs, 'grad_inputs', strict)
    with _second_stage_grad_mode(create_graph):
        res = _grads(grad_inputs, seeds, v, create_graph=create_graph)
        res = _zeros_for_missing(res, outputs, strict, create_graph, 'back_trick')
    return (_untuple(_finish(outputs, create_graph), outputs_tuple),
            _untuple(_finish(res, create_graph), outputs_tuple))


_STRATEGY_MSG = ('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If '
                 'your function has more outputs than inputs, "forward-mode" tends to be more '
                 'performant. Otherwise, prefer to use "reverse-mode".')


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy='reverse-mode'):
    """Computes the Jacobian of ``func`` at ``inputs``.

    For one input and one output it is a Tensor of shape ``output.shape + input.shape``;
    if either is a tuple, a tuple over the other; if both are, ``J[i][j]`` is the Jacobian
    of output ``i`` with respect to input ``j``. ``vectorize`` (a speed hint in torch)
    gives the same values here, computed row by row; ``strategy='forward-mode'`` builds it
    with forward-mode AD and, as in torch, needs ``vectorize=True``.
    """
    if strategy not in ('forward-mode', 'reverse-mode'):
        raise AssertionError(_STRATEGY_MSG)
    if strategy == 'forward-mode':
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and `strategy='
                '"forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacobian_forward(func, inputs, strict, vectorize)

    with enable_grad():
        inputs_tuple, inputs = _tupled(inputs, 'inputs', 'jacobian')
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _tupled(func(*inputs), 'outputs of the user-provided function',
                                         'jacobian')
        _strict_requires_grad(outputs, 'outputs', strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    'torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` '
                    'are not supported together. Please either set `strict=False` or '
                    '`vectorize=False`.')
            jac = _jacobian_rows_all_outputs(outputs, inputs, create_graph)
        else:
            jac = tuple(_jacobian_of_output(i, out, inputs, create_graph, strict)
                        for i, out in enumerate(outputs))
        return _untuple2(_finish(jac, create_graph), outputs_tuple, inputs_tuple)


def _jacobian_of_output(i, out, inputs, create_graph, strict):
    """The Jacobians of output ``i`` with respect to each input: one backward pass per
    element of ``out``, the rows stacked and shaped ``out.shape + input.shape``."""
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(out.nelement()):
        grads = _grads((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode.")
                g = ember.zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                # (torch names the output's index here, in the words "input {i}")
                raise RuntimeError(f"The jacobian of the user-provided function is "
                                   f"independent of input {i}. This is not allowed in strict "
                                   "mode when create_graph=True.")
            rows[j].append(g)
    return tuple(ember.stack(r, dim=0).view(out.size() + inp.size())
                 for r, inp in zip(rows, inputs))


def _construct_standard_basis_for(tensors, tensor_numels):
    """The ``N x N`` identity (``N`` the sum of ``tensor_numels``) split by columns into one
    ``N x numel`` block per tensor, each of that tensor's dtype (torch's helper of the same
    name: row ``k`` of the blocks together is the ``k``-th unit vector)."""
    total = sum(tensor_numels)
    blocks, off = [], 0
    for t, n in zip(tensors, tensor_numels):
        block = ember.zeros(total, n, dtype=t.dtype)
        block.narrow(0, off, n).copy_(ember.eye(n, dtype=t.dtype))
        blocks.append(block)
        off += n
    return tuple(blocks)


def _unit_chunks(tensors):
    """The rows of the standard basis for ``tensors``, each row split into one chunk per
    tensor, shaped like it: row ``k`` is the ``k``-th unit vector."""
    blocks = _construct_standard_basis_for(tensors, [t.nelement() for t in tensors])
    for k in range(blocks[0].shape[0] if blocks else 0):
        yield tuple(b[k].view(t.size()) for b, t in zip(blocks, tensors))


def _jacobian_rows_all_outputs(outputs, inputs, create_graph):
    """The Jacobian as torch's vectorized path lays it out: one backward pass per element of
    all outputs together (seeded with a unit vector across them), per input the rows stacked
    and then split by output. Same values as the per-output path."""
    numels = [o.nelement() for o in outputs]
    total = sum(numels)
    if total == 0:
        # torch's vectorized path indexes the first of zero basis rows
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    per_input = [[] for _ in inputs]
    for seeds in _unit_chunks(outputs):
        grads = _grads(outputs, inputs, seeds, retain_graph=True, create_graph=create_graph)
        for j, g in enumerate(grads):
            per_input[j].append(g)
    jac_by_input = []
    for rows, inp in zip(per_input, inputs):
        if all(g is None for g in rows):
            # An input no output depends on: a zero block, as torch fills it.
            stacked = ember.zeros_like(inp).expand((total,) + tuple(inp.shape))
        else:
            stacked = ember.stack([ember.zeros_like(inp) if g is None else g for g in rows],
                                  dim=0)
        parts = ember.split(stacked, numels, dim=0) if len(numels) > 1 else (stacked,)
        jac_by_input.append([p.view(o.size() + inp.size()) for p, o in zip(parts, outputs)])
    return tuple(zip(*jac_by_input))


def _jacobian_forward(func, inputs, strict, vectorize):
    """The Jacobian by forward-mode AD: one pass per input element, with that unit vector as
    the inputs' tangents; each pass gives one column (for every output)."""
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
            'are not supported together (yet). Please either set `strict=False` or '
            '`strategy="reverse-mode"`.')
    inputs_tuple, inputs = _tupled(inputs, 'inputs', 'jacobian')
    if not vectorize:
        # torch's own words (including its missing space), as its error is what users see
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    numels = [t.nelement() for t in inputs]
    columns, primals, outputs_tuple = [], None, False
    # With no input elements there is no pass to make, but the outputs' shapes are still
    # needed: one pass with (empty) zero tangents gives them.
    passes = list(_unit_chunks(inputs)) or [tuple(ember.zeros_like(t) for t in inputs)]
    for tangents in passes:
        with _fwad.dual_level():
            duals = tuple(_fwad.make_dual(t, d) for t, d in zip(inputs, tangents))
            # (torch's check here names no function: its message says "given to None")
            outputs_tuple, outs = _tupled(func(*duals), 'outputs', None)
            col, primals = [], []
            for o in outs:
                primal, tangent = _fwad.unpack_dual(o)
                primals.append(primal)
                col.append(ember.zeros_like(primal) if tangent is None else tangent)
            columns.append(col)
    if not sum(numels):
        columns = []
    jac = []
    for i, primal in enumerate(primals):
        stacked = (ember.stack([col[i] for col in columns], dim=0) if columns else
                   ember.zeros((0,) + tuple(primal.shape), dtype=primal.dtype))
        parts = ember.split(stacked, numels, dim=0) if len(numels) > 1 else (stacked,)
        # The pass index runs over input elements: move it behind the output's dimensions.
        jac.append([p.permute(*range(1, p.dim()), 0).reshape(primal.size() + inp.size())
                    for p, inp in zip(parts, inputs)])
    # Lists, not tuples, where a level is kept: what torch's forward-mode path returns.
    return _untuple2(jac, outputs_tuple, inputs_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy='reverse-mode'):
    """Computes the Hessian of the scalar function ``func`` at ``inputs``: the Jacobian of
    its gradient.

    For one input, a Tensor of shape ``input.shape + input.shape``; for a tuple, a tuple of
    tuples where ``H[i][j]`` holds the second derivatives with respect to inputs ``i`` and
    ``j``. The inner Jacobian is always reverse mode; ``outer_jacobian_strategy`` picks
    the outer one.
    """
    inputs_tuple, inputs = _tupled(inputs, 'inputs', 'hessian')
    if outer_jacobian_strategy not in ('forward-mode', 'reverse-mode'):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_output(*args):
        out = func(*args)
        out_tuple, outs = _tupled(out, 'outputs of the user-provided function', 'hessian')
        _strict_requires_grad(outs, 'outputs', strict)
        _scalar_function_output(outs, out_tuple, 'hessian')
        return out.squeeze()

    def gradient(*args):
        if outer_jacobian_strategy == 'forward-mode':
            # The inner jacobian keeps the graph only of inputs that require grad.
            args = tuple(a.requires_grad_(True) for a in args)
        grads = jacobian(scalar_output, args, create_graph=True)
        _strict_requires_grad(grads, 'jacobian', strict)
        return grads

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _untuple2(res, inputs_tuple, inputs_tuple)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Computes ``func(inputs)`` and the vector-Hessian product ``v^T H`` of the scalar
    function ``func`` at ``inputs``.

    ``v`` has the structure and shapes of ``inputs`` (optional for a single one-element
    input). Returns ``(func_output, vhp)``, ``vhp`` shaped like ``inputs``.
    """
    with enable_grad():
        inputs_tuple, inputs, outputs = _hessian_setup(func, inputs, v, create_graph, strict,
                                                       'vhp')
        inputs, v = inputs
        jac = _grads(outputs, inputs, create_graph=True)
        _strict_requires_grad(jac, 'jacobian', strict)
    with _second_stage_grad_mode(create_graph):
        res = _grads(jac, inputs, v, create_graph=create_graph)
        res = _zeros_for_missing(res, inputs, strict, create_graph, 'double_back')
    return (_untuple(_finish(outputs, create_graph), False),
            _untuple(_finish(res, create_graph), inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Computes ``func(inputs)`` and the Hessian-vector product ``H v`` of the scalar
    function ``func`` at ``inputs``.

    ``v`` has the structure and shapes of ``inputs`` (optional for a single one-element
    input). Returns ``(func_output, hvp)``, ``hvp`` shaped like ``inputs``. As in torch it
    uses the double-backward trick on the gradient, which makes it slower than ``vhp``
    (equal to it for twice continuously differentiable functions).
    """
    with enable_grad():
        inputs_tuple, inputs, outputs = _hessian_setup(func, inputs, v, create_graph, strict,
                                                       'hvp')
        inputs, v = inputs
        jac = _grads(outputs, inputs, create_graph=True)
        _strict_requires_grad(jac, 'jacobian', strict)
        seeds = tuple(ember.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grads(jac, inputs, seeds, create_graph=True)
        _strict_requires_grad(jac, 'hessian', strict)
    with _second_stage_grad_mode(create_graph):
        res = _grads(double_back, seeds, v, create_graph=create_graph)
        res = _zeros_for_missing(res, inputs, strict, create_graph, 'double_back_trick')
    return (_untuple(_finish(outputs, create_graph), False),
            _untuple(_finish(res, create_graph), inputs_tuple))


def _hessian_setup(func, inputs, v, create_graph, strict, fn_name):
    """What ``vhp`` and ``hvp`` share: checked inputs and ``v``, and ``func``'s single
    one-element output. Returns ``(inputs_tuple, (inputs, v), outputs)``."""
    inputs_tuple, inputs = _tupled(inputs, 'inputs', fn_name)
    inputs = _fresh(inputs, create_graph, need_graph=True)
    if v is not None:
        v = _prepare_v(v, inputs, inputs_tuple, fn_name, create_graph)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    outputs_tuple, outputs = _tupled(func(*inputs), 'outputs of the user-provided function',
                                     fn_name)
    _strict_requires_grad(outputs, 'outputs', strict)
    _scalar_function_output(outputs, outputs_tuple, fn_name)
    return inputs_tuple, (inputs, v), outputs
