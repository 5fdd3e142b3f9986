"""The backward engine: runs graph nodes in dependency order from the roots.

Gradients flowing into one node output are summed; a gradient whose shape differs from the
input it belongs to (broadcasting) is summed down to that shape here, in one place, so no
derivative formula has to undo broadcasting itself. With ``create_graph`` the formulas run
with grad mode on, so the gradients themselves have a graph (double backward).
"""
import numpy as np

from .grad_mode import STATE
from .graph import AccumulateGrad

__all__ = ['run_backward']


def run_backward(roots, grads, retain_graph, create_graph, inputs=None, accumulate=True,
                 allow_unused=False):
    """Runs backward from ``roots`` (tensors) seeded with ``grads``.

    ``accumulate=True``: adds into ``.grad`` of leaves (all, or only ``inputs``).
    ``accumulate=False``: returns the gradients w.r.t. ``inputs`` (autograd.grad).
    """
    from .._tensor import make  # noqa: deferred, the tensor module imports this package

    # Seed edges. A root that is itself an input is captured directly.
    targets = None
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            fn = t._grad_fn
            key = (fn, t._output_nr) if fn is not None else (t._accumulator(), 0)
            targets.setdefault(key, []).append(i)
    captured = [None] * len(inputs) if inputs is not None else None

    buffers = {}
    deps = {}
    stack = []
    for t, g in zip(roots, grads):
        fn = t._grad_fn
        if fn is None:
            fn = t._accumulator()
            nr = 0
        else:
            nr = t._output_nr
        buf = buffers.get(fn)
        if buf is None:
            buf = buffers[fn] = [None] * fn.n_outputs
            deps[fn] = 0
            stack.append(fn)
        buf[nr] = g if buf[nr] is None else buf[nr] + g

    # Count, for each node, how many edges from reachable nodes point at it.
    todo = list(stack)
    while todo:
        node = todo.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            c = deps.get(nxt)
            if c is None:
                deps[nxt] = 1
                todo.append(nxt)
            else:
                deps[nxt] = c + 1

    needed = _needed_nodes(deps, targets) if targets is not None else None

    prev = STATE.enabled
    STATE.enabled = create_graph
    stolen = set()
    try:
        ready = [n for n in stack if deps[n] == 0]
        while ready:
            node = ready.pop()
            grads_out = buffers.pop(node, None)
            if grads_out is not None and any(g is not None for g in grads_out):
                grads_out = _call_pre_hooks(node, grads_out)
                if targets is not None:
                    idx = targets.get
                    for nr, g in enumerate(grads_out):
                        hit = idx((node, nr))
                        if hit is not None:
                            for i in hit:
                                captured[i] = g
                run = needed is None or node in needed
                if type(node) is AccumulateGrad:
                    if run and accumulate and (targets is None or (node, 0) in targets):
                        _accumulate(node.variable, grads_out[0], create_graph, stolen, make)
                    grads_in = ()
                elif run:
                    grads_in = _call(node, grads_out)
                    if not retain_graph:
                        node.release()
                else:
                    grads_in = ()
            else:
                grads_in = ()
            nexts = node.next_functions
            metas = node._meta
            for i, (nxt, nr) in enumerate(nexts):
                if nxt is None:
                    continue
                g = grads_in[i] if i < len(grads_in) else None
                if g is not None:
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt.n_outputs
                    meta = metas[i] if metas is not None else None
                    if meta is not None and (g._data.shape != meta[0] or
                                             g._data.dtype != meta[1]):
                        g = _conform(g, meta, node, i)
                    old = buf[nr]
                    buf[nr] = g if old is None else old + g
                c = deps[nxt] - 1
                deps[nxt] = c
                if c == 0:
                    ready.append(nxt)
    finally:
        STATE.enabled = prev

    if captured is not None:
        return captured
    return None


def _needed_nodes(deps, targets):
    """Nodes from which some target can be reached (the rest need not run)."""
    target_nodes = {n for n, _ in targets}
    needed = set()
    # Iterative post-order DFS over the reachable graph.
    state = {}
    for root in deps:
        if root in state:
            continue
        stack = [(root, iter(root.next_functions))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            advanced = False
            for nxt, _ in it:
                if nxt is not None and nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(nxt.next_functions)))
                    advanced = True
                    break
            if advanced:
                continue
            stack.pop()
            if node in target_nodes or any(n in needed for n, _ in node.next_functions
                                           if n is not None):
                needed.add(node)
    return needed


def _call_pre_hooks(node, grads):
    th = node._tensor_hooks
    if th:
        for nr, hooks in th.items():
            for h in list(hooks):
                g = grads[nr]
                if g is None:
                    continue
                r = h(g)
                if r is not None:
                    grads[nr] = r
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            g = grads[nr]
            if t is not None and g is not None:
                if t._grad is None:
                    t._grad = g.detach() if not STATE.enabled else g
                    if t._grad._data is g._data and not STATE.enabled:
                        from .._tensor import make
                        t._grad = make(np.array(g._data))
                else:
                    t._grad = t._grad + g
    if type(node) is AccumulateGrad:
        hooks = node.variable._hooks
        if hooks:
            for h in list(hooks):
                r = h(grads[0])
                if r is not None:
                    grads[0] = r
    if node._pre_hooks:
        for h in list(node._pre_hooks):
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
    return grads


def _call(node, grads_out):
    if any(g is None for g in grads_out):
        grads_out = _materialize(node, grads_out)
    grads_in = node.apply(grads_out)
    if node._hooks:
        for h in list(node._hooks):
            r = h(grads_in, tuple(grads_out))
            if r is not None:
                grads_in = tuple(r)
    return grads_in


def _materialize(node, grads):
    """Missing output gradients become zeros, unless the node takes None (custom Functions
    with ``set_materialize_grads(False)``)."""
    if not getattr(node, 'materialize_grads', True):
        return grads
    shapes = node._out_meta()
    from .._tensor import make
    return [make(np.zeros(s, d)) if g is None else g for g, (s, d) in zip(grads, shapes)]


def _conform(g, meta, node, i):
    """Reduces a broadcast gradient to its input's shape and casts it to the input's dtype."""
    shape, dt = meta
    if g._data.shape != shape:
        g = sum_to(g, shape, node, i)
    if g._data.dtype != dt:
        if dt.kind not in 'fc':
            return None
        g = g.to(_np_to_ember(dt))
    return g


def _np_to_ember(dt):
    from .._dtype import FROM_NP
    return FROM_NP[dt]


def sum_to(g, shape, node=None, i=0):
    """Sums ``g`` over the leading and size-1 dims that broadcasting added to ``shape``."""
    gshape = g._data.shape
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != gs for s, gs in zip(shape, gshape[lead:])):
        who = f"Function {node.name()}" if node is not None else "backward"
        raise RuntimeError(f"{who} returned an invalid gradient at index {i} - got "
                           f"{list(gshape)} but expected shape compatible with {list(shape)}")
    dims = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(shape)
                                      if s == 1 and gshape[lead + k] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    elif g._data.shape != shape:
        g = g.reshape(shape)
    return g


def _accumulate(var, g, create_graph, stolen, make):
    old = var._grad
    if old is None:
        data = g._data
        # Take the engine's fresh array as .grad when nobody else can see it; otherwise copy,
        # so .grad never aliases a view, a user's tensor, or another leaf's .grad.
        if create_graph:
            var._grad = g if g._grad_fn is not None else _own(g, stolen, make)
        else:
            var._grad = _own(g.detach() if g._requires_grad else g, stolen, make)
        return
    if create_graph:
        var._grad = old + g
    elif old._requires_grad:
        var._grad = old + g.detach()
    else:
        np.add(old._data, g._data, out=old._data, casting='unsafe')


def _own(g, stolen, make):
    data = g._data
    if (data.base is None and data.flags.writeable and data.flags.c_contiguous
            and id(data) not in stolen and g._grad_fn is None):
        stolen.add(id(data))
        return g if g._version[0] == 0 and not g.__dict__ else make(data)
    return make(np.array(data, order='C'))
