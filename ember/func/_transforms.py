"""torch.func's autograd transforms -- grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian
-- on ember's autograd.

Reverse mode: the differentiated arguments enter as fresh tensors that require grad (an
argument that already requires grad enters as a view, so the result stays differentiable
back to it: transforms nest, and compose with ordinary autograd), the function runs with
grad enabled, and ``ember.autograd.grad`` differentiates it. The graph of the result is kept
only when something outside can still differentiate it (an argument required grad, or an
enclosing transform is running); otherwise results come back detached, as torch's do.
Forward mode (jvp, jacfwd) uses ``ember.autograd.forward_ad``, which does not nest.
"""
import functools

from .._tensor import Tensor
from ..utils._pytree import tree_flatten, tree_unflatten
from ._levels import running

__all__ = ['grad', 'grad_and_value', 'vjp', 'jvp', 'jacrev', 'jacfwd', 'hessian', 'linearize',
           'functionalize', 'debug_unwrap']

_DEPTH = [0]  # reverse-mode transforms running now


# -- arguments -------------------------------------------------------------------------------
def _wrapped_argnums(argnums, n):
    """``argnums`` checked against ``n`` positional arguments, negatives wrapped (torch's
    errors)."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")

    def one(a):
        if not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if -n <= a < n:
            return a % n
        raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    if isinstance(argnums, int):
        return one(argnums)
    if not argnums:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(one(a) for a in argnums)


def _entered(x):
    """An argument as a transform differentiates it: a view when it already requires grad
    (to keep its history), else a new leaf that requires grad."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    return x.view_as(x) if x.requires_grad else x.detach().requires_grad_()


def _keeps_graph(leaves):
    # (called inside the transform's own _Nesting: an enclosing one makes the depth > 1)
    return _DEPTH[0] > 1 or any(t.requires_grad for t in leaves)


def _out(t, keep):
    return t if keep or not isinstance(t, Tensor) else t.detach()


class _Nesting:
    """Counts a running reverse-mode transform (closures over its tensors must keep their
    graph for the enclosing one) and enables grad, which the transforms need."""

    def __enter__(self):
        import ember
        _DEPTH[0] += 1
        self._mode = ember.enable_grad()
        self._mode.__enter__()
        self._level = running('grad')
        self._level.__enter__()

    def __exit__(self, *exc):
        _DEPTH[0] -= 1
        self._level.__exit__(*exc)
        self._mode.__exit__(*exc)
        return False


def _differentiated(args, argnums):
    """(args with the differentiated ones entered, their flat leaves, the spec of
    ``args[argnums]``)."""
    argnums = _wrapped_argnums(argnums, len(args))
    picked = args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)
    leaves, spec = tree_flatten(picked)
    was = [t for t in leaves if isinstance(t, Tensor)]
    keep = _keeps_graph(was)
    fresh = [_entered(t) for t in leaves]
    new = tree_unflatten(fresh, spec)
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new
    else:
        for i, v in zip(argnums, new):
            args[i] = v
    return tuple(args), fresh, spec, keep


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return output


def _grads(outputs, inputs, seeds, keep, retain=False):
    """Gradients of ``outputs`` (seeded) for ``inputs``; zeros for an input they ignore."""
    import ember
    pairs = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
    if pairs:
        gs = ember.autograd.grad([o for o, _ in pairs], inputs, [s for _, s in pairs],
                                 retain_graph=keep or retain, create_graph=keep,
                                 allow_unused=True)
    else:
        gs = (None,) * len(inputs)
    return [_out(g, keep) if g is not None else ember.zeros_like(t).requires_grad_(False)
            for g, t in zip(gs, inputs)]


# -- grad, vjp ---------------------------------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux=False):
    """Like ``grad``, but the wrapped function returns ``(gradient, value)`` (``value`` is
    ``(output, aux)`` with ``has_aux``)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        api = "grad_and_value(f)(*args)"
        with _Nesting():
            args, fresh, spec, keep = _differentiated(args, argnums)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
            if not isinstance(output, Tensor):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use "
                                   "the vjp or jacrev APIs instead?")
            import ember
            gs = _grads([output], fresh, [ember.ones_like(output)], keep)
        gradient = tree_unflatten(gs, spec)
        value = _out(output, keep)
        if has_aux:
            aux = _map_tensors(aux, lambda t: _out(t, keep))
            return gradient, (value, aux)
        return gradient, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``grad(f)(*args)``: the gradient of the scalar ``f(*args)`` with respect to the
    argument(s) ``argnums`` (pytrees of tensors), shaped like them. ``has_aux``: ``f``
    returns ``(output, aux)`` and the result is ``(gradient, aux)``."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradient, value = gv(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient
    return wrapper


def _map_tensors(tree, fn):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(t) if isinstance(t, Tensor) else t for t in leaves], spec)


def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)`` (plus ``aux``): ``vjp_fn(cotangents)`` gives the
    vector-Jacobian products for every primal, as a tuple shaped like ``primals``; it may be
    called many times."""
    with _Nesting():
        args, fresh, spec, keep = _differentiated(primals, tuple(range(len(primals))))
        output, aux = _split_aux(func(*args), has_aux, "vjp(f, *primals)")
    outs, out_spec = tree_flatten(output)
    for o in outs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): expected f(*primals) to return only tensors, "
                               f"got unsupported type {type(o)}")

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        seeds, seed_spec = tree_flatten(cotangents)
        if seed_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{seed_spec}, primal output: {out_spec}")
        with _Nesting():
            gs = _grads(outs, fresh, seeds, keep or bool(create_graph), retain=retain_graph)
        return tree_unflatten(gs, spec)
    result = (_map_tensors(output, lambda t: _out(t, keep)), vjp_fn)
    if has_aux:
        return result + (_map_tensors(aux, lambda t: _out(t, keep)),)
    return result


# -- Jacobians -----------------------------------------------------------------------------------
def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to the argument(s) ``argnums`` by reverse mode:
    as torch does, the vector-Jacobian product vmapped over the standard basis of the
    outputs (one backward pass per output element). For each output (a pytree), the
    Jacobian of output ``o`` and argument ``x`` has shape ``o.shape + x.shape``."""
    from ._vmap import _vmap_call
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        import ember
        with _Nesting():
            args, fresh, spec, keep = _differentiated(args, argnums)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "jacrev(f, ...)(*args)")
            outs, out_spec = tree_flatten(output)
            for o in outs:
                if not isinstance(o, Tensor):
                    raise RuntimeError("jacrev(f, ...)(*args): expected f(*primals) to return "
                                       f"only tensors, got unsupported type {type(o)}")
            sizes = [o.numel() for o in outs]
            total = sum(sizes)
            starts = [sum(sizes[:j]) for j in range(len(outs))]
            basis = [ember.eye(total, dtype=o.dtype)[:, a:a + n].reshape((total,) + tuple(o.shape))
                     for o, a, n in zip(outs, starts, sizes)]

            def pull(*seeds):
                return tuple(_grads(outs, fresh, seeds, keep, retain=True))
            rows = _vmap_call(pull, 0, 0, 'error', tuple(basis), {})
        jacs = [tree_unflatten([r[a:a + n].reshape(tuple(o.shape) + tuple(t.shape))
                                for r, t in zip(rows, fresh)], spec)
                for o, a, n in zip(outs, starts, sizes)]
        result = tree_unflatten(jacs, out_spec)
        if has_aux:
            return result, _map_tensors(aux, lambda t: _out(t, keep))
        return result
    return wrapper


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)`` by forward-mode AD; ``primals`` and ``tangents``
    are tuples of the same structure (``aux`` too with ``has_aux``)."""
    from ..autograd import forward_ad as fwAD
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    with fwAD.dual_level(), running('jvp'):
        duals = [fwAD.make_dual(p, t) for p, t in zip(flat_p, flat_t)]
        output, aux = _split_aux(func(*tree_unflatten(duals, p_spec)), has_aux, api)
        outs, out_spec = tree_flatten(output)
        primal_outs, tangent_outs = [], []
        for o in outs:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"{api}: expected f(*args) to return only tensors, got "
                                   f"unsupported type {type(o)}")
            p, t = fwAD.unpack_dual(o)
            primal_outs.append(p)
            tangent_outs.append(t if t is not None else p.new_zeros(p.shape))
    result = (tree_unflatten(primal_outs, out_spec), tree_unflatten(tangent_outs, out_spec))
    return result + (aux,) if has_aux else result


def jacfwd(func, argnums=0, has_aux=False, *, randomness='error'):
    """The Jacobian of ``func`` with respect to the argument(s) ``argnums`` by forward mode:
    as torch does, ``jvp`` vmapped over the standard basis of the inputs (one forward-AD
    pass per input element, under vmap's ``randomness``); shaped as ``jacrev``'s."""
    from ._vmap import _check_randomness, _vmap_call
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        import ember
        argn = _wrapped_argnums(argnums, len(args))
        picked = args[argn] if isinstance(argn, int) else tuple(args[i] for i in argn)
        leaves, spec = tree_flatten(picked)
        for t in leaves:
            if not isinstance(t, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
        sizes = [t.numel() for t in leaves]
        total = sum(sizes)
        # the standard basis: element e of the batch is the one-hot tangent of input element e
        starts = [sum(sizes[:k]) for k in range(len(leaves))]
        basis = [ember.eye(total, dtype=t.dtype)[:, a:a + n].reshape((total,) + tuple(t.shape))
                 for t, a, n in zip(leaves, starts, sizes)]
        first = []  # the output (and aux) of the first pass: every pass computes the same

        def push(*tangents):
            def f(*diff):
                new = list(args)
                tree = tree_unflatten(list(diff), spec)
                if isinstance(argn, int):
                    new[argn] = tree
                else:
                    for i, v in zip(argn, tree):
                        new[i] = v
                return func(*new, **kwargs)
            res = jvp(f, tuple(leaves), tangents, has_aux=has_aux)
            if not first:
                first.append(res)
            return res[1]
        tangent_outs = _vmap_call(push, 0, 0, randomness, tuple(basis), {})
        output = first[0][0]
        outs, out_spec = tree_flatten(output)
        jacs = []
        for o, rows in zip(outs, tree_flatten(tangent_outs)[0]):
            per_input = [rows[a:a + n].movedim(0, -1).reshape(tuple(o.shape) + tuple(t.shape))
                         for t, a, n in zip(leaves, starts, sizes)]
            jacs.append(tree_unflatten(per_input, spec))
        result = tree_unflatten(jacs, out_spec)
        return (result, first[0][2]) if has_aux else result
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of the scalar ``func`` with respect to the argument(s) ``argnums``: the
    Jacobian of its gradient (reverse over reverse in ember, as its forward mode does not
    nest; torch uses forward over reverse -- the values agree)."""
    return jacrev(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` gives the Jacobian-vector product
    at ``primals`` (ember recomputes it by forward AD at each call; torch traces it once)."""
    output = func(*primals)
    flat_p, p_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the "
                               f"primals {p_spec}")
        for i, (p, t) in enumerate(zip(flat_p, flat_t)):
            for what in ('shape', 'device', 'dtype'):
                if getattr(t, what) != getattr(p, what):
                    raise RuntimeError(f"tangent:{i} with {what} {getattr(t, what)} in flattened "
                                       f"pytree doesn't match the {what} {getattr(p, what)} of "
                                       "the corresponding primal.")
        return jvp(func, tuple(primals), tuple(tangents))[1]
    return output, jvp_fn


def functionalize(func, *, remove='mutations'):
    """``func`` itself: torch's functionalize rewrites mutations into out-of-place ops for
    its tracers; ember runs eagerly, and the results (mutated inputs included) are the same."""
    if remove not in ('mutations', 'mutations_and_views'):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under a transform's wrapper: ember's transforms wrap nothing, so
    ``tensor`` itself."""
    return tensor
