"""gradcheck / gradgradcheck: compare autograd's gradients with finite differences.

Slow mode builds both Jacobians in full (rows: input elements, columns: output elements, as
torch prints them). Fast mode compares one random projection ``v^T J u`` per (output, input)
pair, and only on a mismatch rebuilds the full Jacobians for the message.

Complex numbers follow torch's convention for gradients: for a real ``L``, the gradient of
``z = x + iy`` is ``dL/dx + i dL/dy``. A complex input is perturbed along its real and its
imaginary axis; a complex output is probed twice, with output gradient ``1j`` (its
imaginary part, checked first as torch does) and ``1`` (its real part).

Inputs are reached through the public tensor API at the points torch reaches them
(``requires_grad``, ``dtype``, ``is_sparse``, ``layout``, ``stride()``, ``size()``, ``data``,
``numel()``, ``is_floating_point()``, ``new_zeros()``, in fast mode ``is_complex()`` and
``device``, in gradgradcheck ``requires_grad_()``), so a tensor-like that is not an ember Tensor
(a ``__torch_function__`` wrapper) works as it does in torch; only NumPy does the arithmetic.
"""
import warnings

import numpy as np

from .._dtype import float64, complex128
from .._layout import strided
from .._tensor import Tensor, make
from ..overrides import is_tensor_like
from .grad_mode import STATE
from . import _gradcheck_sparse as _sparse

__all__ = ['gradcheck', 'gradgradcheck', 'GradcheckError', 'get_numerical_jacobian',
           'get_analytical_jacobian']


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when a check fails (a RuntimeError, as in torch)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(outputs):
    return [o for o in outputs if is_tensor_like(o) and o.requires_grad]


def _tensor_outputs(outputs):
    return [o for o in outputs if is_tensor_like(o)]


def _array(t):
    """The NumPy array behind tensor ``t``, shared (a write lands in ``t``). A tensor-like that
    is not an ember Tensor is reached through its public ``detach().numpy()``."""
    return t._data if isinstance(t, Tensor) else t.detach().numpy()


def _grad_array(g):
    """A gradient's array (a sparse one written out densely); as in torch only a Tensor
    counts, anything else (None, a tensor-like's wrapped gradient) is an undefined gradient:
    None."""
    return _sparse.dense(g) if isinstance(g, Tensor) else None


def _check_inputs(inputs):
    """torch's checks of the inputs, through their public API: the ones requiring grad (there
    must be one) should be double precision and must not overlap themselves in memory (a
    stride 0 along a dimension of size > 1). Returns them."""
    diff = []
    for i, t in enumerate(inputs):
        if not (is_tensor_like(t) and t.requires_grad):
            continue
        if t.dtype not in (float64, complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ")
        # (a sparse tensor's own elements)
        content = t._values() if t.is_sparse else t.values() if _sparse.is_sparse(t) else t
        # (strides exist in the strided layout; an empty ember tensor's would be torch's
        # row-major ones, never 0, where NumPy's are all 0)
        empty = isinstance(content, Tensor) and not content._data.size
        if content.layout == strided and not empty and any(
                st == 0 and sz > 1 for st, sz in zip(content.stride(), content.size())):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck.")
        diff.append(t)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    return diff


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True if the gradients of ``func`` at ``inputs`` match finite differences.

    Inputs should be float64 tensors with ``requires_grad=True``; on a mismatch this raises
    ``GradcheckError`` showing both Jacobians (or returns False with
    ``raise_exception=False``).
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad "
                             "to be True")
    inputs = _as_tuple(inputs)
    diff = _check_inputs(inputs)
    try:
        outputs = _as_tuple(func(*inputs))
        _sparse.check_outputs(_differentiable_outputs(outputs))
        # (torch's order: backward mode's Jacobian first, then forward mode's)
        if check_backward_ad:
            # (fast mode's random direction has the sparse input's pattern even on the
            # densified copy, as torch draws it: its check is masked either way)
            numerical = _numerical_inputs(inputs, masked or fast_mode)
            if fast_mode:
                _fast_check(func, inputs, diff, outputs, eps, atol, rtol, nondet_tol,
                            numerical)
            else:
                _slow_check(func, inputs, diff, outputs, eps, atol, rtol, nondet_tol,
                            numerical)
        if check_forward_ad:
            _check_forward_ad(func, inputs, outputs, eps, atol, rtol)
            if check_undefined_grad:
                # (torch runs it for the real and the imaginary part of complex inputs)
                for _ in range(2 if any(t.dtype.is_complex for t in diff) else 1):
                    _check_undefined_forward(func, inputs)
            if check_batched_forward_grad:
                _check_batched_forward(func, inputs)
        if check_backward_ad:
            if check_batched_grad:
                for j, o in enumerate(_differentiable_outputs(outputs)):
                    _check_batched_backward(inputs, o, j)
            _check_multiplied_by_grad_output(outputs, diff, check_grad_dtypes, masked)
            if check_undefined_grad:
                _check_undefined_grad(func, inputs, diff)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _numerical_inputs(inputs, masked):
    """The inputs the finite differences run on: ``inputs`` themselves, except that without
    ``masked`` a sparse input gets every element specified (so each is perturbed)."""
    if masked or not any(_sparse.is_sparse(t) for t in inputs):
        return None
    return tuple(_sparse.densified(t) if _sparse.is_sparse(t) else t for t in inputs)


def _diff_of(inputs, numerical):
    """The inputs requiring grad among ``numerical`` (or ``inputs``, when None)."""
    src = inputs if numerical is None else numerical
    return [t for t in src if is_tensor_like(t) and t.requires_grad]


# -- Jacobians ---------------------------------------------------------------------------
def _directions(t):
    """The axes an input is perturbed along: the real one, and the imaginary one if complex."""
    return (1, 1j) if t.dtype.is_complex else (1,)


def _seeds(out):
    """The output gradients an output is probed with: 1, and first 1j if it is complex."""
    return (1j, 1) if out.dtype.is_complex else (1,)


def _expected(num, seed):
    """What the vjp rows seeded with ``seed`` must equal, from the numerical derivatives
    ``num`` (one array per direction of the input): the derivatives of
    ``L = Re(conj(seed) * out)`` along the real axis, plus ``1j`` times those along the
    imaginary axis."""
    parts = [np.real(np.conj(seed) * n) for n in num]
    return parts[0] if len(parts) == 1 else parts[0] + 1j * parts[1]


def _part(out, seed):
    """torch's prefix naming the part of a complex output a mismatch was found in."""
    if not out.dtype.is_complex:
        return ''
    return (f"While considering the {'imaginary' if seed == 1j else 'real'} part of complex "
            "outputs only, ")


def _evaluate(func, inputs, dtypes=None):
    # Grad mode stays as it is: gradgradcheck's function itself calls autograd.grad.
    outs = _tensor_outputs(_as_tuple(func(*inputs)))
    if dtypes is not None:
        dtypes.append([o.dtype for o in outs])
    arrays = [_array(o) for o in outs]
    return [np.array(a, dtype=np.result_type(a.dtype, np.float64)) for a in arrays]


def _check_same_outputs(minus, plus, dtypes, idx, eps):
    """As torch: perturbing an input must change neither the outputs' shapes nor dtypes
    (``idx``: the element perturbed; None in fast mode, which moves them all)."""
    where = f"on index {idx} " if idx is not None else ''
    for m, p, dm, dp in zip(minus, plus, dtypes[0], dtypes[1]):
        if m.shape != p.shape:
            raise AssertionError(
                "Expected `func` to return outputs with the same shape when inputs are "
                f"perturbed {where}by {eps}, but got: shapes "
                f"torch.Size({list(m.shape)}) and torch.Size({list(p.shape)}).")
        if dm != dp:
            raise AssertionError(
                "Expected `func` to return outputs with the same dtype when inputs are "
                f"perturbed {where}by {eps}, but got: dtypes {dm} and {dp}.")


def _numerical_jacobians(func, inputs, diff, n_outputs, eps):
    """[output][input] -> one array (input numel, output numel) of central differences per
    direction of the input (``_directions``)."""
    jac = [[[] for _ in diff] for _ in range(n_outputs)]
    for i, t in enumerate(diff):
        # (as torch: the input's ``.data`` is perturbed, which bypasses autograd's checks; a
        # sparse input's stored values, each the row of the element it is)
        sparse = _sparse.is_sparse(t)
        data = t._data.values if sparse else _array(t.data)
        for d in _directions(t):
            cols = _difference_columns(func, inputs, data, d, eps)
            for j in range(n_outputs):
                col = cols[j] if cols is not None else np.zeros((0, 0))
                if sparse:
                    full = np.zeros((t.numel(), col.shape[1] if cols is not None else 0),
                                    col.dtype)
                    if cols is not None:
                        full[_sparse.positions(t).reshape(-1)] = col
                    col = full
                jac[j][i].append(col)
    return jac


def _difference_columns(func, inputs, data, d, eps):
    """Per output, the central differences of ``func`` as each element of ``data`` (an
    input's array) moves by ``eps * d``: an array (data size, output numel); None if ``data``
    is empty."""
    flat = data.reshape(-1) if data.flags.c_contiguous else None
    n = data.size
    cols = None
    for k in range(n):
        idx = np.unravel_index(k, data.shape) if flat is None else k
        target = flat if flat is not None else data
        orig = target[idx]
        dtypes = []
        target[idx] = orig - eps * d
        minus = _evaluate(func, inputs, dtypes)
        target[idx] = orig + eps * d
        plus = _evaluate(func, inputs, dtypes)
        target[idx] = orig
        _check_same_outputs(minus, plus, dtypes, tuple(
            int(v) for v in np.unravel_index(k, data.shape)), eps)
        if cols is None:
            cols = [np.zeros((n, p.size), p.dtype) for p in plus]
        for j, (p, m) in enumerate(zip(plus, minus)):
            cols[j][k] = ((p - m) / (2 * eps)).reshape(-1)
    return cols


def _jacobian_blocks(inputs, n_out):
    """Zero Jacobian blocks (input numel, ``n_out``), one per floating or complex input that
    requires grad, made as torch makes them: by the input's own ``new_zeros``."""
    return [np.zeros((t.numel(), n_out), t._data.dtype) if _sparse.is_sparse(t)
            else _array(t.new_zeros((t.numel(), n_out))) for t in inputs
            if is_tensor_like(t) and (t.is_floating_point() or t.is_complex())
            and t.requires_grad]


def _vjp_rows(out, inputs, diff, seed=1):
    """Analytical Jacobian of one output with respect to ``diff`` (the differentiable ones of
    ``inputs``): one backward per output element, each seeded with ``seed`` there."""
    from . import grad
    o = _array(out)
    rows = _jacobian_blocks(inputs, o.size)
    for j in range(o.size):
        v = np.zeros(o.shape, o.dtype)
        v.reshape(-1)[j] = seed
        gs = grad(out, diff, make(v), retain_graph=True, allow_unused=True)
        for i, g in enumerate(gs):
            g = _grad_array(g)
            if g is not None:
                rows[i][:, j] = g.reshape(-1)
    return rows


def _slow_check(func, inputs, diff, outputs, eps, atol, rtol, nondet_tol, numerical=None):
    all_outs = _tensor_outputs(outputs)
    num = _numerical_jacobians(func, numerical or inputs, _diff_of(inputs, numerical),
                               len(all_outs), eps)
    for j, o in enumerate(all_outs):
        if not o.requires_grad:
            for i in range(len(diff)):
                if any(np.abs(n).max(initial=0) > atol for n in num[j][i]):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
            continue
        for seed in _seeds(o):
            ana = _vjp_rows(o, inputs, diff, seed)
            again = _vjp_rows(o, inputs, diff, seed)
            for i in range(len(diff)):
                if ana[i].size == 0:    # (an empty input: no derivative to compare)
                    continue
                a, n = ana[i], _expected(num[j][i], seed)
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    raise GradcheckError(_part(o, seed) + _mismatch(j, i, n, a))
                if np.abs(a - again[i]).max(initial=0) > nondet_tol:
                    raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))


_NOT_REENTRANT = ("Backward is not reentrant, i.e., running backward with same input and "
                  "grad_output multiple times gives different values, although analytical "
                  "gradient matches numerical gradient.The tolerance for nondeterminism was "
                  "{}.")


def _mismatch(j, i, numerical, analytical):
    return (f"Jacobian mismatch for output {j} with respect to input {i},\n"
            f"numerical:{make(numerical)!r}\nanalytical:{make(analytical)!r}\n")


def _fast_check(func, inputs, diff, outputs, eps, atol, rtol, nondet_tol=0.0, numerical=None):
    from . import grad
    rng = np.random.default_rng(0)
    all_outs = _tensor_outputs(outputs)
    out_arrays = [_array(o) for o in all_outs]
    perturbed = _diff_of(inputs, numerical)
    # (the real parts of every u first, then the imaginary ones: the draws stay in that order;
    # a sparse input's u runs over its stored values, each at the element it is)
    us = [_random_vector(t, rng) for t in perturbed]
    vs = [rng.standard_normal(o.shape) for o in out_arrays]
    us = [u + 1j * rng.standard_normal(u.shape) if t.is_complex() else u
          for u, t in zip(us, diff)]
    where = [_sparse.positions(t).reshape(-1) if _sparse.is_sparse(t) else None
             for t in perturbed]

    def along_u(g, i):  # the derivative along u_i of the loss whose gradient is g
        g = _grad_array(g)
        if g is None:
            return 0.0
        g = g.reshape(-1) if where[i] is None else g.reshape(-1)[where[i]]
        return float(np.sum(np.real(np.conj(g) * us[i])))

    # numerical: directional derivative along u_i, projected on seed * v_j
    for i, (t, p) in enumerate(zip(diff, perturbed)):
        # (as torch: the input's ``.data`` is perturbed; a sparse one's stored values)
        data = p._data.values if where[i] is not None else _array(p.data)
        u = us[i].reshape(data.shape)
        orig = data.copy()
        dtypes = []
        data[...] = orig - eps * u
        minus = _evaluate(func, numerical or inputs, dtypes)
        data[...] = orig + eps * u
        plus = _evaluate(func, numerical or inputs, dtypes)
        data[...] = orig
        _check_same_outputs(minus, plus, dtypes, None, eps)
        for j, o in enumerate(all_outs):
            for seed in _seeds(o):
                v = seed * vs[j]
                n = float(np.sum(np.real(np.conj(v) * (plus[j] - minus[j]) / (2 * eps))))
                if o.requires_grad:
                    v = make(v.astype(out_arrays[j].dtype))
                    a = along_u(grad(o, [t], v, retain_graph=True, allow_unused=True)[0], i)
                    a2 = along_u(grad(o, [t], v, retain_graph=True, allow_unused=True)[0], i)
                    if abs(a - a2) > nondet_tol:
                        raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))
                else:
                    a = 0.0
                if not np.isclose(a, n, rtol=rtol, atol=atol):
                    _fast_mismatch(func, inputs, diff, all_outs, eps, j, i, seed, n, a,
                                   numerical)


def _random_vector(t, rng):
    """The real part of a random direction for input ``t``: ``numel()`` draws (a sparse
    input's: one per stored value), made on the input's ``device`` as torch makes its own."""
    from .. import tensor
    n = t._data.values.size if _sparse.is_sparse(t) else t.numel()
    return tensor(rng.standard_normal(n), device=t.device).numpy()


def _fast_mismatch(func, inputs, diff, all_outs, eps, j, i, seed, n, a, numerical=None):
    """Raises fast mode's error, with the full Jacobians recomputed in slow mode."""
    o = all_outs[j]
    num = _expected(_numerical_jacobians(func, numerical or inputs, _diff_of(inputs, numerical),
                                         len(all_outs), eps)[j][i], seed)
    ana = _vjp_rows(o, inputs, diff, seed)[i] if o.requires_grad else np.zeros_like(num)
    raise GradcheckError(
        _part(o, seed) +
        f"Jacobian mismatch for output {j} with respect to input {i},\n"
        f"numerical:{n}\nanalytical:{a}\n\n"
        "The above quantities relating the numerical and analytical jacobians are "
        "computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/"
        "53876 for more background \nabout fast mode. Below, we recompute numerical "
        "and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {make(num)!r}\nAnalytical:\n{make(ana)!r}\n\n"
        "The max per-element difference (slow mode) is: "
        f"{float(np.abs(num - ana).max(initial=0))}.\n")


def _check_multiplied_by_grad_output(outputs, diff, check_grad_dtypes, masked=False):
    """Backward seeded with zeros must give zeros (a formula that ignores grad_output), in
    the input's layout (a sparse gradient of its sparse and dense dims) or a strided one."""
    from . import grad
    outs = _differentiable_outputs(outputs)
    if not outs:
        return
    zeros = [make(np.zeros_like(_array(o))) for o in outs]
    gs = grad(outs, diff, zeros, retain_graph=True, allow_unused=True)
    for t, g in zip(diff, gs):
        if isinstance(g, Tensor) and g.layout is not strided:
            _check_sparse_grad_layout(g, t)
        g = _grad_array(g)
        if g is None:
            continue
        if (not np.allclose(g, 0)) if masked else np.any(g != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if check_grad_dtypes and make(g).dtype != t.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != tuple(t.size()):
            raise GradcheckError("grad is incorrect size")


def _check_sparse_grad_layout(g, t):
    """torch's checks of a gradient that is not strided: the input's layout, and for a
    sparse one its numbers of sparse and dense dims."""
    if g.layout != t.layout:
        raise GradcheckError(f"grad is incorrect layout ({g.layout} is not {t.layout})")
    kind = str(g.layout).replace('torch.', '').replace('_coo', '')
    for what in ('sparse_dim', 'dense_dim'):
        got, want = getattr(g, what)(), getattr(t, what)()
        if got != want:
            raise GradcheckError(f"grad is {kind} tensor, but has incorrect {what} {got}, "
                                 f"expected {want}")


_UNDEFINED_NOTE = ('Please look at "Notes about undefined output gradients" in '
                   '"tools/autograd/derivatives.yaml"')


def _check_undefined_grad(func, inputs, diff):
    """A custom Function's backward must cope with undefined output gradients -- all of them
    undefined, and (with several outputs) each one alone -- and then give undefined or zero
    input gradients. Built-in nodes never see undefined gradients (the engine skips them),
    so each output's Function node is called directly, as the engine would call it."""
    outs = [o for o in _differentiable_outputs(_as_tuple(func(*inputs)))
            if isinstance(o, Tensor)]  # (the nodes of a tensor-like's outputs are its own)
    # The engine hands an undefined gradient to the tensor hooks of an output first (as
    # torch's check does through its UndefinedGrad node): they must cope with None.
    for o in outs:
        fn = o._gfn
        hooks = fn._tensor_hooks.get(o._output_nr, ()) if fn is not None and \
            fn._tensor_hooks else ()
        for hook in list(hooks):
            try:
                hook(None)
            except RuntimeError as e:
                _warn_undefined()
                raise GradcheckError("Expected backward function to handle undefined output "
                                     f"grads. {_UNDEFINED_NOTE}") from e
    nodes = {}
    for o in outs:
        fn = o._gfn
        if fn is not None and hasattr(fn, '_forward_cls'):
            nodes.setdefault(fn, {})[o._output_nr] = (o._data.shape, o._data.dtype)
    for node, present in nodes.items():
        n = node.n_outputs
        metas = node._outs if n > 1 else [present[0]]
        cases = [set(range(n))] + ([{k} for k in present] if len(present) > 1 else [])
        for undefined in cases:
            # (an output that is not a tensor -- dtype None -- always gets None)
            grads = [None if k in undefined or d is None else make(np.zeros(s, d))
                     for k, (s, d) in enumerate(metas)]
            if node.materialize_grads:
                grads = [make(np.zeros(s, d)) if g is None and d is not None else g
                         for g, (s, d) in zip(grads, metas)]
            prev, STATE.enabled = STATE.enabled, False  # (a first-order backward)
            try:
                results = node.apply(grads)
            except RuntimeError as e:
                _warn_undefined()
                raise GradcheckError("Expected backward function to handle undefined output "
                                     f"grads. {_UNDEFINED_NOTE}") from e
            finally:
                STATE.enabled = prev
            if any(g is not None and np.any(g._data != 0) for g in results):
                _warn_undefined()
                raise GradcheckError("Expected all input grads to be undefined or zero when all "
                                     "output grads are undefined or zero. " + _UNDEFINED_NOTE)


def _warn_undefined():
    warnings.warn("Backwards compatibility: New undefined gradient support checking feature is "
                  "enabled by default, but it may break existing callers of this function. If "
                  "this is true for you, you can call this function with "
                  "\"check_undefined_grad=False\" to disable the feature")


def _check_forward_ad(func, inputs, outputs, eps, atol, rtol):
    """Jacobian by forward AD (one unit tangent per input element) against finite
    differences."""
    pos = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]
    diff = [inputs[k] for k in pos]
    all_outs = [o for o in outputs if isinstance(o, Tensor)]
    num = _numerical_jacobians(func, inputs, diff, len(all_outs), eps)
    for i, k in enumerate(pos):
        for nd, d in enumerate(_directions(inputs[k])):
            jac = _forward_jacobians(func, inputs, pos, k, d, all_outs)
            for j in range(len(all_outs)):
                if not np.allclose(jac[j], num[j][i][nd], rtol=rtol, atol=atol):
                    raise GradcheckError(
                        f"Jacobian computed with forward mode mismatch for output {j} with "
                        f"respect to input {i},\nnumerical:{make(num[j][i][nd])!r}\n"
                        f"analytical:{make(jac[j])!r}\n")


def _forward_jacobians(func, inputs, pos, k, d, all_outs):
    """Per output, its tangents (rows) as each element of input ``k`` gets tangent ``d``."""
    from . import forward_ad as fwAD
    n = inputs[k]._data.size
    jac = [np.zeros((n, o._data.size), np.result_type(o._data.dtype, np.float64))
           for o in all_outs]
    for e in range(n):
        with fwAD.dual_level():
            args = list(inputs)
            for kk in pos:
                tan = np.zeros(inputs[kk]._data.shape, inputs[kk]._data.dtype)
                if kk == k:
                    tan.reshape(-1)[e] = d
                args[kk] = fwAD.make_dual(inputs[kk].detach(), make(tan))
            outs = [o for o in _as_tuple(func(*args)) if isinstance(o, Tensor)]
            for j, o in enumerate(outs):
                tangent = fwAD.unpack_dual(o).tangent
                if tangent is not None:
                    jac[j][e] = tangent._data.reshape(-1)
    return jac


def _check_undefined_forward(func, inputs):
    """Forward mode: an input whose tangent is undefined (a plain tensor) must give the same
    output tangents as one whose tangent is zeros, the other inputs carrying random ones."""
    from . import forward_ad as fwAD
    rng = np.random.default_rng(0)
    pos = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]
    with fwAD.dual_level():
        duals = list(inputs)
        for k in pos:
            u = rng.standard_normal(inputs[k]._data.shape).astype(inputs[k]._data.dtype)
            duals[k] = fwAD.make_dual(inputs[k].detach(), make(u))
        for k in pos:
            kept = duals[k]
            duals[k] = fwAD.make_dual(inputs[k].detach(), make(np.zeros_like(inputs[k]._data)))
            zero = _float_outputs(func(*duals))
            duals[k] = inputs[k].detach()
            undefined = _float_outputs(func(*duals))
            duals[k] = kept
            for j, (a, b) in enumerate(zip(zero, undefined)):
                ta, tb = fwAD.unpack_dual(a).tangent, fwAD.unpack_dual(b).tangent
                if ta is not None and tb is not None and not np.allclose(ta._data, tb._data):
                    # (torch's error holds these pieces as its arguments)
                    raise GradcheckError("Mismatch in tangent values for output with index: ", j,
                                         " when input: ", inputs[k], " has an undefined "
                                         "tangent value. ", " Got: ", ta, " but expected: ", tb)


def _float_outputs(outputs):
    return [o for o in _as_tuple(outputs)
            if isinstance(o, Tensor) and o._data.dtype.kind in 'fc']


# The batched-gradient checks. torch vmaps the backward (or forward) pass over two random
# seeds and compares with the passes run one seed at a time, which tests its batching rules.
# ember's vmap is a loop over those very passes, so what can go wrong is running under vmap
# at all (a random op, an error of vmap's own) or passes that disagree run to run: it runs
# the batched pass and compares its first element with the same pass run alone (the same
# number of calls of the function as torch's check).
_BATCHED_HELP = (
    "gradcheck or gradgradcheck failed while testing batched gradient computation.\n"
    "ember's vmap runs the backward (or forward-mode) pass once per batch element; this check "
    "ran it under vmap and compared with a plain run. Pass check_batched_grad=False (and/or "
    "check_batched_forward_grad=False) to gradcheck/gradgradcheck to skip it.")


def _batched_failure(j, i, got, expected):
    return GradcheckError(f"For output {j} and input {i}:\n\n{_BATCHED_HELP}\n\nGot:\n{got!r}"
                          f"\n\nExpected:\n{expected!r}")


def _run_batched(pass_, seeds):
    """``pass_`` vmapped over the stacked ``seeds``, refusing random ops as torch does."""
    import ember
    from .._vmap_internals import _vmap
    try:
        return _vmap(pass_)(ember.stack(seeds))
    except RuntimeError as e:
        raise GradcheckError(f"While computing batched gradients, got: {e}\n\n"
                             f"{_BATCHED_HELP}") from e


def _compare_batched(batched, alone, j):
    for i, (res, exp) in enumerate(zip(batched, alone)):
        if not np.allclose(res._data[0], exp._data):
            raise _batched_failure(j, i, res[0], exp)


def _check_batched_backward(inputs, output, j):
    """check_batched_grad for one output: backward passes batched over two random seeds."""
    from . import grad
    diff = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]

    def vjp(v):
        gs = grad(output, diff, v, retain_graph=True, allow_unused=True)
        return tuple(g if g is not None else make(np.zeros_like(t._data))
                     for g, t in zip(gs, diff))
    rng = np.random.default_rng(0)
    seeds = [make(rng.standard_normal(output._data.shape).astype(output._data.dtype))
             for _ in range(2)]
    batched = _run_batched(vjp, seeds)
    _compare_batched(batched, vjp(seeds[0]), j)


def _check_batched_forward(func, inputs):
    """check_batched_forward_grad: per input requiring grad, forward-mode passes batched
    over two random tangents."""
    from . import forward_ad as fwAD
    rng = np.random.default_rng(0)
    for k, current in enumerate(inputs):
        if not (isinstance(current, Tensor) and current._requires_grad) or \
                current._data.dtype.kind not in 'fc':
            continue

        def jvp(tangent, k=k, current=current):
            with fwAD.dual_level():
                args = [fwAD.make_dual(current.detach(), tangent) if n == k else
                        (a.detach() if isinstance(a, Tensor) else a)
                        for n, a in enumerate(inputs)]
                outs = []
                for o in _as_tuple(func(*args)):
                    if o is None:
                        continue
                    primal, tangent_out = fwAD.unpack_dual(o)
                    outs.append(tangent_out if tangent_out is not None else
                                make(np.zeros(primal._data.shape, primal._data.dtype)))
                return tuple(outs)
        tangents = [make(rng.standard_normal(current._data.shape).astype(current._data.dtype))
                    for _ in range(2)]
        batched = _run_batched(jvp, tangents)
        _compare_batched(batched, jvp(tangents[0]), k)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the gradients: checks second derivatives of ``func`` by differentiating
    its backward (random ``grad_outputs`` when not given)."""
    from . import grad
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be "
                             "True")
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(make(rng.standard_normal(a.shape).astype(a.dtype)).requires_grad_()
                             for a in map(_array, outputs))
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    # (which arguments require grad is noted now: a check may hand the function detached
    # copies, and first_derivatives sets requires_grad on them again, as torch does)
    diff_pos = {k for k, t in enumerate(inputs) if is_tensor_like(t) and t.requires_grad}
    diff_gos = {k for k, t in enumerate(grad_outputs) if t.requires_grad}

    def first_derivatives(*args):
        ins = tuple(x.requires_grad_() if k in diff_pos else x
                    for k, x in enumerate(args[:n_in]))
        outs = _differentiable_outputs(_as_tuple(func(*ins)))
        gos = tuple(x.requires_grad_() if k in diff_gos else x
                    for k, x in enumerate(args[n_in:]))
        d = [x for k, x in enumerate(ins) if k in diff_pos]
        gs = grad(outs, d, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    if not check_rev_over_rev:
        return True
    return gradcheck(first_derivatives, inputs + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode,
                     check_batched_grad=check_batched_grad)


# `ember.autograd.gradcheck` is this function, yet `ember.autograd.gradcheck.gradcheck` (the
# module path torch users also write) must keep working: the function carries the names too.
gradcheck.gradcheck = gradcheck
gradcheck.gradgradcheck = gradgradcheck
gradcheck.GradcheckError = GradcheckError


# -- the deprecated Jacobian helpers torch still exposes ---------------------------------
def _deprecated(name, grad_out):
    warnings.warn(f"`{name}` was part of PyTorch's private API and not meant to be exposed. "
                  "We are deprecating it and it will be removed in a future version of "
                  "PyTorch. If you have a specific use for this or feature request for this to "
                  "be a stable API, please file us an issue at "
                  "https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=3)
    if grad_out != 1.0:
        raise ValueError(f"Expected grad_out to be 1.0. {name} no longer supports values of "
                         "grad_out != 1.0.")


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated: the finite-difference Jacobians of ``fn(inputs)``'s first output, one
    (input numel, output numel) tensor per input requiring grad (or per ``target``)."""
    _deprecated('get_numerical_jacobian', grad_out)
    inputs = _as_tuple(inputs)
    targets = _as_tuple(target) if target is not None else inputs
    diff = [t for t in targets if is_tensor_like(t) and t.requires_grad]
    num = _numerical_jacobians(lambda *a: fn(a), inputs, diff, 1, eps)[0]
    return tuple(make(n[0] if len(n) == 1 else n[0] + 1j * n[1]) for n in num)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated: ``(jacobians, reentrant, correct_grad_sizes, correct_grad_types)`` of
    ``output`` with respect to the inputs requiring grad, by backward passes."""
    _deprecated('get_analytical_jacobian', grad_out)
    inputs = _as_tuple(inputs)
    diff = [t for t in inputs if is_tensor_like(t) and t.requires_grad]
    rows, again = _vjp_rows(output, inputs, diff), _vjp_rows(output, inputs, diff)
    reentrant = all(np.abs(a - b).max(initial=0) <= nondet_tol for a, b in zip(rows, again))
    return tuple(make(r) for r in rows), reentrant, True, True
