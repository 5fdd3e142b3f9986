"""Forward-mode AD: dual_level, make_dual, unpack_dual.

A tensor carries its tangent in ``_fw = (level, tangent)``. An op whose input has a tangent
records a node as for backward (without ``requires_grad``, a forward-only one), and its
output's tangent is computed when first needed: by the node's ``jvp`` when the op defines
one, otherwise derived from its ``backward`` formula -- which is linear in the output
gradient ``g`` (``J^T g``), so differentiating ``<J^T g, t>`` with respect to ``g`` gives
``J t``. Every op therefore has forward AD from its one definition.
"""
import collections

import numpy as np

__all__ = ['dual_level', 'enter_dual_level', 'exit_dual_level', 'make_dual', 'unpack_dual',
           'UnpackedDualTensor']


class _State:
    level = None      # the active dual level (an int), or None
    counter = 0       # levels get fresh numbers, so tangents of an exited level go stale
    pending = []      # outputs whose tangent is not computed yet (see flush)


FWD = _State()


class UnpackedDualTensor(collections.namedtuple('UnpackedDualTensor', ['primal', 'tangent'])):
    """``unpack_dual``'s result: the primal (a view without tangent) and the tangent."""
    __slots__ = ()


def enter_dual_level():
    """Starts a dual level; returns its number. Nesting is not supported (as in torch)."""
    if FWD.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    FWD.counter += 1
    FWD.level = FWD.counter
    return 0


def exit_dual_level(*, level=None):
    """Ends the current dual level; every tangent made in it disappears."""
    if FWD.level is None:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    FWD.level = None
    FWD.pending = []


class dual_level:
    """Context manager for forward AD: tangents exist only inside it.

    >>> with dual_level():
    ...     x = make_dual(ember.ones(2), ember.full((2,), 3.))
    ...     unpack_dual(x * x).tangent
    tensor([6., 6.])
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent`` (same shape) at the current dual level."""
    from .._tensor import Tensor
    if FWD.level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not isinstance(tangent, Tensor) or not (tangent.is_floating_point() or
                                               tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{getattr(tangent, 'dtype', type(tangent).__name__)}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}.")
    if tangent_of(tangent) is not None:  # (nested levels would be needed for that)
        raise RuntimeError("Setting a forward grad that itself has a forward gradient at the "
                           "same level0 is not supported.")  # (the number users see)
    from .._ops.shape import _alias_view
    from .grad_mode import is_inference_mode_enabled
    # A vmapped tangent (one element of a batch) is used as given when its strides match:
    # its offset and memory are the batch's, as torch skips those checks for batched ones.
    batched = tangent.__dict__.get('_batch_shift') is not None
    if (not _same_layout(tensor, tangent, batched) or tangent.is_conj() != tensor.is_conj()
            or tangent.is_neg() != tensor.is_neg()):
        # (torch copies a tangent whose layout or conj/neg bits differ from its primal's)
        tangent = _laid_out_like(tensor, tangent)
    if is_inference_mode_enabled():
        # (inference mode tracks no views: the dual shares the memory without being one)
        from .._tensor import make
        dual = make(tensor._data.view())
        dual._vc = tensor._vc
    else:
        dual = _alias_view(tensor)
    dual._fw = (FWD.level, tangent)
    return dual


def _storage_numel(t):
    from ..storage import _root
    return _root(t._data).size * _root(t._data).itemsize // t._data.itemsize


def _same_layout(primal, tangent, strides_only=False):
    """Whether ``tangent`` is laid out in memory as ``primal`` is (strides, offset, size of
    the memory, or only strides), so view ops can replay on both alike; an empty tensor
    always is."""
    if primal._data.size == 0:
        return True
    if strides_only:
        return primal.stride() == tangent.stride()
    return (primal.stride() == tangent.stride()
            and primal.storage_offset() == tangent.storage_offset()
            and _storage_numel(primal) == _storage_numel(tangent))


def _laid_out_like(primal, tangent):
    """A copy of ``tangent``'s values in fresh memory laid out as ``primal``, with its
    conj/neg bits."""
    from .._tensor import make
    d = tangent._data.dtype
    memory = np.zeros(_storage_numel(primal), d)
    item = d.itemsize
    arr = np.lib.stride_tricks.as_strided(
        memory[primal.storage_offset():], primal._data.shape,
        tuple(s * item for s in primal.stride()))
    values = tangent.resolve_conj().resolve_neg()._data
    # the copy carries the primal's conj/neg bits (as torch's does), over memory that reads
    # as the tangent's values through them
    if primal.is_neg():
        values = -values
    if primal.is_conj():
        values = np.conj(values)
    arr[...] = values
    out = make(arr)
    if primal.is_neg():
        out = out._neg_view()
    if primal.is_conj():
        out = out.conj()
    return out


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: the primal as a view without tangent, and the tangent (None
    outside a dual level or when the tensor has none)."""
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    from .._ops.shape import _alias_view
    return UnpackedDualTensor(_alias_view(tensor), tangent)


def flush():
    """Computes every pending tangent. An op's tangent is computed after the op has saved
    what it needs, but before anything can modify those values in place: at the start of
    the next op, in-place write or unpack."""
    pending, FWD.pending = FWD.pending, []
    for t in pending:
        tangent_of(t)


def tangent_of(t):
    """The live tangent of tensor ``t`` at the current level, computing it if pending."""
    if FWD.pending:
        flush()
    fw = t._fw
    if fw is None or fw[0] != FWD.level:
        return None
    value = fw[1]
    if type(value) is Pending:
        value = value.resolve()
        t._fw = (fw[0], value)
    return value


class Pending:
    """The tangent of output ``index`` of ``node``, not computed yet; it is computed in the
    grad mode the op ran in (under no_grad, a tangent records no backward graph)."""
    __slots__ = ('node', 'index', 'shape', 'dtype', 'grad_mode')

    def __init__(self, node, index, shape, dtype):
        from .grad_mode import STATE
        self.node, self.index, self.shape, self.dtype = node, index, shape, dtype
        self.grad_mode = STATE.enabled

    def resolve(self):
        from .grad_mode import STATE
        node = self.node
        outs = node.__dict__.get('_fw_out')
        if outs is None:
            prev = STATE.enabled
            STATE.enabled = self.grad_mode
            try:
                outs = node.__dict__['_fw_out'] = _node_jvp(node, self)
            finally:
                STATE.enabled = prev
        return outs[self.index]


_FW_EDGE = (object(), 0)  # stands for "this input has a tangent" in a forward-only node


def _node_jvp(node, pending):
    """Output tangents of ``node`` from its input tangents (``node._fw_in``)."""
    from .._tensor import make
    tangents = node._fw_in
    jvp = getattr(node, 'jvp', None)
    if jvp is not None:
        out = jvp(*tangents)
        return out if isinstance(out, tuple) else (out,)
    metas = node.__dict__.get('_outs') or ((pending.shape, pending.dtype),)
    return _jvp_from_backward(node, tangents, metas, make)


def _jvp_from_backward(node, tangents, metas, make):
    from .grad_mode import STATE
    from . import grad
    from .graph import _DETACH_SAVED
    edges = node.next_functions
    # Formulas skip inputs whose edge is empty; an input with a tangent needs its term.
    node.next_functions = tuple(_FW_EDGE if (e[0] is None and t is not None) else e
                                for e, t in zip(edges, tangents))
    prev, prev_detach, prev_deriving = STATE.enabled, _DETACH_SAVED[0], STATE.deriving_jvp
    create = prev and any(t is not None and t._requires_grad for t in tangents)
    STATE.enabled = STATE.deriving_jvp = True
    _DETACH_SAVED[0] = True  # saved values are constants here: no walk through history
    try:
        # integer outputs (pivots, info) have no tangent: their seeds stay constants
        us = [make(np.zeros(s, d)).requires_grad_(np.dtype(d).kind in 'fcV')
              for s, d in metas]
        grads = node.apply(us)
        total = None
        for g, t in zip(grads, tangents):
            if g is not None and t is not None and g._requires_grad:
                # <J^H u, t> = <u, J t> in the real inner product Re(sum(conj(a) * b)),
                # which for real tensors is the plain sum of products.
                term = ((g.conj() if g.is_complex() else g) * t).sum()
                if term.is_complex():
                    term = term.real
                total = term if total is None else total + term
    finally:
        node.next_functions = edges
        STATE.enabled = prev
        STATE.deriving_jvp = prev_deriving
        _DETACH_SAVED[0] = prev_detach
    if total is None:
        return tuple(make(np.zeros(s, d)) for s, d in metas)
    live = iter(grad(total, [u for u in us if u._requires_grad], allow_unused=True,
                     create_graph=create))
    # (a tangent is plain memory: the conjugations inside the formula leave no conj bit)
    outs = [next(live) if u._requires_grad else None for u in us]
    return tuple(make(np.zeros(s, d)) if o is None else o.resolve_conj()
                 for o, (s, d) in zip(outs, metas))


def __getattr__(name):
    # ``_current_level``: torch's module global, 0 inside a dual level and -1 outside
    # (code tests ``_current_level >= 0`` to know whether forward AD is running)
    if name == '_current_level':
        return -1 if FWD.level is None else 0
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
