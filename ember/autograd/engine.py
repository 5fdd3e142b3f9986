"""The backward engine: runs graph nodes in dependency order from the roots.

Gradients flowing into one node output are summed; a gradient whose shape differs from the
input it belongs to (broadcasting) is summed down to that shape here, in one place, so no
derivative formula has to undo broadcasting itself. With ``create_graph`` the formulas run
with grad mode on, so the gradients themselves have a graph (double backward).
"""
import copy
import sys
import threading
from heapq import heappush, heappop

import numpy as np

from .._layout import STORAGE as _STORAGE

from .._memory_format import copy_obeying, obeys_layout

from .grad_mode import STATE
from .anomaly_mode import ANOMALY, check_call
from .graph import (AccumulateGrad, CopyBackwards, GradientEdge, _RELEASED, _HOOK_STACK,
                    hook_stack, restore_hook_stack, next_seq)

make = None  # ember._tensor.make, bound by ember._tensor once it is defined
refresh_view = None  # ember._tensor.refresh_view, bound the same way

__all__ = ['run_backward', 'GraphTask', 'current_graph_task', 'queue_callback']


class GraphTask:
    """One run of the engine (one ``backward()`` or ``autograd.grad()``): its id, the
    callbacks queued to run when it ends, whether a reentrant checkpoint may recompute in it
    (not when the run stops at given ``inputs``: the recomputed graph could not reach them),
    and whether it keeps the saved tensors of the nodes it runs (``retain_graph``)."""
    __slots__ = ('id', 'callbacks', 'checkpoint_valid', 'keep_graph')

    def __init__(self, id_, checkpoint_valid, keep_graph):
        self.id = id_
        self.callbacks = []
        self.checkpoint_valid = checkpoint_valid
        self.keep_graph = keep_graph


# Each thread runs its own backward; a reentrant backward (one started inside a node)
# nests a task on its thread's stack.
_LOCAL = threading.local()
_IDS = [0]


def _tasks():
    stack = getattr(_LOCAL, 'tasks', None)
    if stack is None:
        stack = _LOCAL.tasks = []
    return stack


def current_graph_task():
    """The graph task running on this thread (the innermost one), or None outside backward."""
    stack = _tasks()
    return stack[-1] if stack else None


def queue_callback(callback):
    """Runs ``callback()`` when the current backward ends (after all its nodes ran); a
    callback may queue more."""
    task = current_graph_task()
    if task is None:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    task.callbacks.append(callback)

_LOGGER = []  # the 'ember.autograd.graph' logger, once the logging module is in use


def _debug_logger():
    """That logger if it logs DEBUG records, else None. ember does not import logging: until
    something else has, no logger can have been configured, and nothing is looked up."""
    if not _LOGGER:
        logging = sys.modules.get('logging')
        if logging is None:
            return None
        _LOGGER.append(logging.getLogger('ember.autograd.graph'))
    log = _LOGGER[0]
    return log if log.isEnabledFor(10) else None  # (10: logging.DEBUG)


def _log_node(log, node, grads):
    """torch's DEBUG record of one node about to run, with the gradients it receives."""
    def fmt(g):
        if g is None:
            return 'None'
        d = g._data.dtype
        kind = 'bf' if d.kind == 'V' else d.kind
        return f"{kind}{d.itemsize * 8}[{', '.join(map(str, g._data.shape))}]"
    log.debug(f"Executing: {node} with grad_outputs: [{','.join(fmt(g) for g in grads)}]")


def run_backward(roots, grads, retain_graph, create_graph, inputs=None, accumulate=True):
    """Runs backward from ``roots`` as one graph task: see ``_run``; then the callbacks
    queued during it (only if it succeeded, as torch). A reentrant backward (one started by a
    node of another) that finds this thread's Python stack half used runs on a new thread,
    as torch hands deep reentrant backwards to a worker: nesting has no depth limit then."""
    stack = _tasks()
    outer = stack[-1].checkpoint_valid if stack else True
    _IDS[0] += 1
    task = GraphTask(_IDS[0], outer and inputs is None, bool(retain_graph))
    args = (task, roots, grads, retain_graph, create_graph, inputs, accumulate)
    if stack and _stack_half_used():
        return _on_new_thread(_run_task, args)
    return _run_task(*args)


def _run_task(task, roots, grads, retain_graph, create_graph, inputs, accumulate):
    stack = _tasks()
    stack.append(task)
    try:
        captured = _run(roots, grads, retain_graph, create_graph, inputs, accumulate)
        callbacks = task.callbacks
        i = 0
        while i < len(callbacks):  # (a callback may queue another)
            callbacks[i]()
            i += 1
    finally:
        stack.pop()
    return captured


def _stack_half_used():
    """Whether this thread runs more than half of ``sys.getrecursionlimit()`` frames deep
    (counted only up to there: a reentrant backward pays for this, no other)."""
    n = sys.getrecursionlimit() // 2
    f = sys._getframe(1)
    while f is not None:
        n -= 1
        if n <= 0:
            return True
        f = f.f_back
    return False


def _on_new_thread(fn, args):
    """``fn(*args)`` on a new thread that starts with this thread's grad mode and
    ``__torch_function__`` state (as torch's workers take the caller's thread-local state);
    waits for it and returns its result or raises its exception here."""
    from ..overrides import THREAD
    grad_state = dict(STATE.__dict__)
    flags = THREAD.flags
    out = []

    def work():
        STATE.__dict__.update(grad_state)
        mine = THREAD.flags
        for name in type(flags).__slots__:
            setattr(mine, name, getattr(flags, name))
        mine.modes = list(flags.modes)
        try:
            out.append((True, fn(*args)))
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread as is
            out.append((False, e))

    worker = threading.Thread(target=work, name='ember-reentrant-backward')
    worker.start()
    worker.join()
    ok, value = out[0]
    if not ok:
        raise value
    return value


def _run(roots, grads, retain_graph, create_graph, inputs, accumulate):
    """Runs backward from ``roots`` (tensors or GradientEdges) seeded with ``grads``.

    ``accumulate=True``: adds into ``.grad`` of leaves (all, or only ``inputs``).
    ``accumulate=False``: returns the gradients w.r.t. ``inputs`` (autograd.grad).

    At each node, in torch's order: the tensor hooks of the tensor whose gradient arrives
    there (then its ``retain_grad``), the capture of that gradient if it is one of
    ``inputs``, the node's pre-hooks, the node itself, its post-hooks.
    """
    # Each input becomes a (node, output_nr) key: the place its gradient passes through.
    targets = None
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            targets.setdefault(_edge(t), []).append(i)
    captured = [None] * len(inputs) if inputs is not None else None

    buffers = {}
    deps = {}
    stack = []
    for t, g in zip(roots, grads):
        fn, nr = _edge(t)
        buf = buffers.get(fn)
        if buf is None:
            buf = buffers[fn] = [None] * fn.n_outputs
            deps[fn] = 0
            stack.append(fn)
        buf[nr] = g if buf[nr] is None else _buffer_sum(buf[nr], g)

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

    # With ``inputs``, only nodes that lead to one of them run; the inputs' own nodes are
    # visited for their hooks and the capture, and run only if they lead to another input.
    needed = visit = None
    if targets is not None:
        needed = _needed_nodes(deps, targets)
        if accumulate:
            # backward(inputs=[...]): the inputs' own nodes run too (a leaf's accumulator;
            # a non-leaf's grad_fn with its hooks, as in torch, though nothing after it)
            needed.update(n for n, _ in targets)
        visit = needed.union(n for n, _ in targets)

    log = _debug_logger()
    prof = _active_profile()
    prev = STATE.enabled
    STATE.enabled = create_graph
    hooks = hook_stack()
    stolen = set()
    try:
        # Ready nodes wait in a heap, highest sequence number first (see ``_wait``); a node
        # that becomes ready while none waits is run next without the heap (``carried``).
        heap = []
        waiting = {}
        evaluating = None  # with a profile: (the node being handled, when that began)
        carried = None  # (node, its output gradients): the node to run next
        if len(stack) == 1:
            carried = (stack[0], buffers.pop(stack[0]))
        else:
            for n in _root_order(stack, roots):
                if deps[n] == 0:
                    _wait(heap, waiting, n)
        while True:
            if carried is not None:
                node, grads_out = carried
                carried = None
            elif heap:
                node = waiting.pop(id(heappop(heap)))
                grads_out = buffers.pop(node, None)
            else:
                break
            if prof is not None:
                evaluating = _profile_evaluation(prof, evaluating, node)
            grads_in = ()
            if visit is not None and node not in visit:
                pass
            elif grads_out is not None:
                is_acc = type(node) is AccumulateGrad
                hooked = node._hooked  # one test for the four kinds of node hooks
                if hooked or (is_acc and node.variable._hooks):
                    grads_out = _tensor_pre_hooks(node, grads_out, is_acc)
                if targets is not None:
                    for nr, g in enumerate(grads_out):
                        hit = targets.get((node, nr))
                        if hit is not None:
                            for i in hit:
                                captured[i] = g
                if needed is None or node in needed:
                    if hooked and node._pre_hooks:
                        grads_out = _node_pre_hooks(node, grads_out)
                    if log is not None:
                        _log_node(log, node, grads_out)
                    if is_acc:
                        var = node.variable
                        g = grads_out[0]
                        # A leaf whose requires_grad was switched off since takes nothing.
                        if accumulate and g is not None and var._requires_grad:
                            if prof is None:
                                _accumulate(var, g, create_graph, stolen, make)
                            else:
                                start = prof.now()
                                _accumulate(var, g, create_graph, stolen, make)
                                prof._add_node(node, start, prof.now())
                        if hooked and node._hooks:
                            _node_post_hooks(node, (), grads_out)
                    else:
                        if (not hooked and len(grads_out) == 1 and grads_out[0] is not None
                                and not ANOMALY.enabled and prof is None):
                            grads_in = node.apply(grads_out)  # the common case, inlined
                        else:
                            grads_in = _call(node, grads_out, prof)
                        if not retain_graph and node._saved is not None:
                            node._saved = _RELEASED
            elif node._hooked or (type(node) is AccumulateGrad and node.variable._hooks):
                # Reached, but no gradient flowed here: torch still shows hooks the None.
                _tensor_pre_hooks(node, [None] * node.n_outputs, type(node) is AccumulateGrad)
            metas = node._meta
            n_in = len(grads_in)
            nexts = node.next_functions
            if n_in and (len(nexts) == 1 or (len(nexts) == 2 and nexts[1][0] is None)):
                # A linear stretch of the graph (one edge out, or one plus the empty edge of a
                # Python-number operand): when the next node waits for nothing else, its
                # gradient goes to it directly, without the buffer and the ready heap (unless
                # a waiting node comes first).
                nxt, nr = nexts[0]
                g = grads_in[0]
                if (nxt is not None and g is not None and deps[nxt] == 1 and nr == 0
                        and nxt.n_outputs == 1 and nxt not in buffers
                        and (not heap or nxt._seq > -heap[0])):
                    meta = metas[0] if metas is not None else None
                    if meta is not None and (g._data.shape != meta[0] or (
                            g._data.dtype is not meta[1] and g._data.dtype != meta[1])):
                        g = _conform(g, meta, node, 0)
                    deps[nxt] = 0
                    carried = (nxt, [g])
                    continue
            first = None  # the first node this one made ready, while no other waits
            for i, (nxt, nr) in enumerate(nexts):
                if nxt is None:
                    continue
                g = grads_in[i] if i < n_in else None
                if g is not None:
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt.n_outputs
                    meta = metas[i] if metas is not None else None
                    # (dtypes compared by identity first: NumPy's builtin dtypes are
                    # singletons, and `!=` on them is ten times slower)
                    if meta is not None and (g._data.shape != meta[0] or (
                            g._data.dtype is not meta[1] and g._data.dtype != meta[1])):
                        g = _conform(g, meta, node, i)
                    old = buf[nr]
                    buf[nr] = g if old is None else _buffer_sum(old, g)
                c = deps[nxt] - 1
                deps[nxt] = c
                if c == 0:
                    if first is None and not heap:
                        first = nxt
                    else:
                        if first is not None:
                            _wait(heap, waiting, first)
                            first = None
                        _wait(heap, waiting, nxt)
            if first is not None:
                carried = (first, buffers.pop(first, None))
    finally:
        if evaluating is not None:
            _profile_evaluation(prof, evaluating, None)
        STATE.enabled = prev
        if _HOOK_STACK != (hooks or []):  # (a hook entered or left a context)
            restore_hook_stack(hooks)
    return captured


def _wait(heap, waiting, node):
    """Puts ready ``node`` in the heap. The heap holds keys only -- a new float object per
    node, minus its sequence number -- and ``waiting`` maps each key object (by id) to its
    node: equal numbers (the accumulators') compare equal and nothing else, so they leave
    the heap in the order torch's binary heap gives them (``heapq`` sifts as
    ``std::priority_queue`` does), and every comparison runs at C speed. (Floats order
    numbers exactly below 2**53; set numbers beyond that may tie.)"""
    key = 0.0 - node._seq  # (a new object: the result of arithmetic, never a constant)
    waiting[id(key)] = node
    heappush(heap, key)


def _root_order(nodes, roots):
    """The root nodes in the order torch's engine makes them ready: each when its last
    gradient arrives, i.e. by its last place among ``roots``."""
    if len(roots) == len(nodes):
        return nodes
    last = {}
    for t in roots:
        node = _edge(t)[0]
        last.pop(node, None)
        last[node] = True
    return list(last)


def _active_profile():
    """The autograd profile being recorded, or None (then the profiler is not even
    imported: nothing is looked up in it)."""
    profiler = sys.modules.get('ember.autograd.profiler')
    return profiler.active_profile() if profiler is not None else None


def _profile_evaluation(prof, evaluating, node):
    """Records the end of the engine's handling of the previous node (``evaluating``) and
    returns the start of ``node``'s (None: no node follows)."""
    now = prof.now()
    if evaluating is not None:
        prof._add_node(evaluating[0], evaluating[1], now, evaluate=True)
    return (node, now) if node is not None else None


def _edge(t):
    """(node, output_nr): where the gradient of ``t`` -- a tensor or a GradientEdge --
    arrives in the graph (a leaf's is its accumulator's)."""
    if isinstance(t, GradientEdge):
        return t.node, t.output_nr
    fn = t.grad_fn  # (the property: a stale view's history is rebuilt first)
    if fn is None:
        return t._accumulator(), 0
    return fn, t._output_nr


def _needed_nodes(deps, targets):
    """Nodes with a path of one or more edges to some target node: the ones that must run."""
    target_nodes = {n for n, _ in targets}
    needed = set()
    done = set()
    # Iterative post-order DFS over the reachable graph (graphs can be deeper than Python's
    # recursion limit).
    for root in deps:
        if root in done:
            continue
        done.add(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, it = stack[-1]
            for nxt, _ in it:
                if nxt is not None and nxt not in done:
                    done.add(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                stack.pop()
                for n, _ in node.next_functions:
                    if n is not None and (n in target_nodes or n in needed):
                        needed.add(node)
                        break
    return needed


def _hook_name(hook):
    return getattr(hook, '__name__', '<unknown>')


def _check_hook_value(hook, old, new):
    """torch's checks on a gradient a hook returned in place of ``old``."""
    from .._tensor import Tensor
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._data.dtype != old._data.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"torch.{old.dtype._legacy} got torch.{new.dtype._legacy})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return new


def _check_hook_tuple(hook, old, new):
    """torch's checks on the tuple a Node pre- or post-hook returned in place of ``old``."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(new)}, but expected {len(old)})")
    # A None in the returned tuple drops that gradient, as in torch.
    return [n if n is None else _check_hook_value(hook, o, n) for o, n in zip(old, new)]


def _tensor_pre_hooks(node, grads, is_acc):
    """Hooks registered on the tensors whose gradients arrive at ``node``, then their
    ``retain_grad`` (always last, whatever the registration order, as in torch)."""
    th = node._tensor_hooks
    if th:
        for nr, hooks in th.items():
            for h in list(hooks):
                r = h(grads[nr])
                if r is not None:
                    grads[nr] = _check_hook_value(h, grads[nr], r)
    if is_acc:
        hooks = node.variable._hooks
        if hooks:
            for h in list(hooks):
                r = h(grads[0])
                if r is not None:
                    grads[0] = _check_hook_value(h, grads[0], r)
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            g = grads[nr]
            # (After an in-place op the tensor's gradient is no longer this node's output.)
            if t is not None and g is not None and t._gfn is node:
                if t._grad is None:
                    # .grad must not alias the gradient flowing on through the graph.
                    t._grad = g.clone() if STATE.enabled else make(np.array(g._data))
                else:
                    t._grad = t._grad + g
    return grads


def _node_pre_hooks(node, grads):
    for h in list(node._pre_hooks):
        r = h(tuple(grads))
        if r is not None:
            grads = _check_hook_tuple(h, grads, r)
    return grads


def _node_post_hooks(node, grads_in, grads_out):
    grads_out = tuple(grads_out)
    for h in list(node._hooks):
        r = h(grads_in, grads_out)
        if r is not None:
            grads_in = tuple(_check_hook_tuple(h, grads_in, r))
    return grads_in


def _call(node, grads_out, prof=None):
    """Runs ``node`` on its output gradients as the engine does when it has hooks or a
    missing gradient: materialized zeros, anomaly checks, post-hooks; with ``prof`` (the
    active profile) recorded there."""
    if any(g is None for g in grads_out):
        if all(g is None for g in grads_out):
            # Every output gradient was dropped (by a hook): nothing flows on.
            return ()
        grads_out = _materialize(node, grads_out)
    if prof is None:
        grads_in = check_call(node, grads_out) if ANOMALY.enabled else node.apply(grads_out)
    else:
        start = prof.now()
        try:
            grads_in = check_call(node, grads_out) if ANOMALY.enabled else node.apply(grads_out)
        finally:
            prof._add_node(node, start, prof.now())
    if node._hooks:
        n = len(node.next_functions)
        if len(grads_in) < n:
            grads_in = tuple(grads_in) + (None,) * (n - len(grads_in))
        grads_in = _node_post_hooks(node, grads_in, grads_out)
    return grads_in


def _materialize(node, grads):
    """Missing output gradients become zeros, unless the node takes None (custom Functions
    with ``set_materialize_grads(False)``)."""
    if not getattr(node, 'materialize_grads', True):
        return grads
    shapes = node._out_meta()
    # outputs that were not tensors (dtype None) get None, as in torch; so do outputs
    # marked non-differentiable when the Function set ``_materialize_non_diff_grads`` False
    skip = () if getattr(node, '_materialize_non_diff_grads', True) else node._non_diff_nrs
    return [make(np.zeros(s, d)) if g is None and d is not None and k not in skip else g
            for k, (g, (s, d)) in enumerate(zip(grads, shapes))]


def _conform(g, meta, node, i):
    """Reduces a broadcast gradient to its input's shape and casts it to the input's dtype."""
    shape, dt = meta
    if g._data.shape != shape:
        g = sum_to(g, shape, node, i)
    if g._data.dtype != dt:
        nxt = node.next_functions[i][0]
        if type(nxt) is AccumulateGrad and nxt.variable._grad_dtype is not False:
            return g  # a leaf with its own grad_dtype: _accumulate casts (or not)
        if dt.kind not in 'fcV':
            return None
        if dt.kind in 'fV' and g._data.dtype.kind == 'c':
            g = g.real  # a real input gets the real part of a complex gradient, as in torch
        g = g.to(_np_to_ember(dt))
    return g


def _buffer_sum(old, g):
    """Two gradients of one node output added (a new tensor: neither is written). A sparse
    one is added into a dense one, as torch's input buffer does (sparse + dense is refused)."""
    if type(old._data) in _STORAGE and type(g._data) not in _STORAGE:
        return g + old
    return old + g


def _np_to_ember(dt):
    from .._dtype import FROM_NP
    return FROM_NP[dt]


def sum_to(g, shape, node=None, i=0):
    """Sums ``g`` over the leading and size-1 dims that broadcasting added to ``shape``."""
    gshape = g._data.shape
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != gs for s, gs in zip(shape, gshape[lead:])):
        who = f"Function {node.name()}" if node is not None else "backward"
        msg = (f"{who} returned an invalid gradient at index {i} - got {list(gshape)} but "
               f"expected shape compatible with {list(shape)}")
        explain = getattr(node, 'explain_gradient', None)  # custom Functions say more
        if explain is not None:
            msg += explain(i, gshape, shape)
        raise RuntimeError(msg)
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
    """Adds ``g`` into ``var.grad`` as torch's AccumulateGrad does: the first gradient is
    taken over (copied if anybody else could see it); later ones are added in place, or out
    of place when the graph of the gradient is being built (``create_graph``) or the old
    ``.grad`` itself has history."""
    old = var._grad
    want = var._grad_dtype
    if want is not False:
        # The leaf's grad_dtype: None keeps the gradient's dtype (an existing .grad keeps
        # its own), a dtype casts to it.
        want = want if want is not None else (old.dtype if old is not None else None)
        if want is not None and g.dtype != want:
            g = g.to(want)
    if type(g._data) in _STORAGE or type(var._data) in _STORAGE or (
            old is not None and type(old._data) in _STORAGE):
        _accumulate_sparse(var, old, g, create_graph, stolen)
    elif old is None:
        if create_graph and g._gfn is not None:
            # A copy that stays differentiable, named as torch names it.
            node = CopyBackwards.__new__(CopyBackwards)
            node.next_functions = ((None, 0), (g._gfn, g._output_nr))
            node._meta = (None, None)
            node._saved = None
            node._seq = next_seq()
            var._grad = make(np.array(g._data, order='C'), node, True)
        else:
            var._grad = _own(g.detach() if g._requires_grad else g, stolen, make, var._data)
    elif create_graph:
        var._grad = old + g
    elif old._data.flags.writeable:
        # In place, as torch does outside create_graph (even if the old .grad has history).
        np.add(old._data, g._data, out=old._data, casting='unsafe')
        old._vc[0] += 1
    else:
        var._grad = old + g.detach()
    hooks = getattr(var, '_post_acc_hooks', None)
    if hooks:
        for h in list(hooks):
            if h(var) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _accumulate_sparse(var, old, g, create_graph, stolen):
    """``_accumulate`` when the gradient, the leaf or the old ``.grad`` is sparse, as torch's
    AccumulateGrad: the first gradient is taken (its storage shared when nothing else took it
    and its values are contiguous, else copied), later ones are
    added in place -- a sparse one into a dense or sparse ``.grad`` -- except that a dense
    gradient replaces a sparse ``.grad`` with their (dense) sum, and ``create_graph`` always
    makes a new ``.grad``."""
    if old is None:
        data = g._data
        if create_graph and g._gfn is not None:
            var._grad = g.clone()
        elif (type(data) in _STORAGE and g._gfn is None and id(data.values) not in stolen
              and data.values.flags.c_contiguous and data.indices.flags.c_contiguous):
            stolen.add(id(data.values))
            var._grad = make(copy.copy(data))  # (a new tensor over the same arrays)
        else:
            var._grad = make(data.copy())
        return
    old_sparse = type(old._data) in _STORAGE
    new_sparse = type(g._data) in _STORAGE
    if create_graph:
        var._grad = g + old if old_sparse and not new_sparse else old + g
    elif old_sparse and not new_sparse:
        var._grad = g.detach() + old
    elif old_sparse:
        old._data = (old + g.detach())._data  # (sparse storage is rebuilt, not written)
        old._vc[0] += 1
    elif old._data.flags.writeable:
        added = g._data
        np.add.at(old._data, tuple(added.indices), added.values.astype(old._data.dtype))
        old._vc[0] += 1
    else:
        var._grad = old + g.detach()


def _own(g, stolen, make, leaf):
    """``g`` itself as a new ``.grad`` when nothing else holds its array and it has the
    layout torch promises (the leaf's strides when the leaf's memory is dense, else
    row-major), else a copy in that layout. A contiguous view covering all of its fresh
    base in the same layout -- e.g. a gradient transposed twice on its way here -- is taken
    over as that base."""
    data = g._data
    owner = data if data.base is None else _whole_base(data)
    if (owner is not None and data.flags.writeable and g._gfn is None
            and (data.flags.c_contiguous if leaf.flags.c_contiguous
                 else obeys_layout(data, leaf))
            and (owner is data or owner.strides == data.strides) and id(owner) not in stolen):
        stolen.add(id(owner))
        if owner is data and g._vc[0] == 0 and not g.__dict__:
            return g
        return make(owner)
    if leaf.flags.c_contiguous:
        return make(np.array(data, order='C'))
    return make(copy_obeying(data, leaf))


def _whole_base(view):
    """The base of ``view`` when ``view`` is all of it, element for element (else None)."""
    base = view.base
    if (base.base is None and base.flags.c_contiguous and base.shape == view.shape
            and base.ctypes.data == view.ctypes.data):
        return base
    return None
