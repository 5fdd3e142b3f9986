"""The machinery every op uses: registration, graph recording, operands, views, in-place.

An op is a plain function over Tensors. Its forward computes on ``t._data`` (NumPy arrays),
wraps the result with ``make``, and -- only if grad mode is on and an input requires grad --
attaches a Node (its grad_fn) built by ``track``. The Node's ``backward`` is written with
ember ops next to the forward, so double backward needs nothing more.

``register`` puts each public op in ``OPS`` (the ember namespace) and/or ``METHODS`` (Tensor
methods); ``ember.overrides`` derives its lists from these tables.
"""
import builtins
import os
import re
import sys

import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, make, wrap_dim, refresh_view, torch_empty_strides
from ..autograd.graph import Node, next_seq
from .._layout import strided
from ..autograd.grad_mode import STATE, INFERENCE_VC, SPECIAL_VC_OPEN, new_version_counter
from ..autograd.anomaly_mode import ANOMALY, record
from ..overrides import overridable
from ..autograd.forward_ad import FWD, Pending, tangent_of, flush, _FW_EDGE

__all__ = ['register', 'OPS', 'METHODS', 'track', 'Node', 'make', 'Tensor', 'wrap_dim']

OPS = {}
METHODS = {}
_new = object.__new__
_NO_EDGE = (None, 0)
_FROM_NP = _dtype.FROM_NP


def register(fn=None, *, method=True, function=True, name=None, methods=(), dispatch=True):
    """Registers ``fn`` as ``ember.<name>`` (if ``function``) and ``Tensor.<name>`` (if
    ``method``), plus any extra method aliases in ``methods``."""
    def deco(f):
        n = name or f.__name__
        # The public objects dispatch through __torch_function__; the module-level name
        # stays the implementation, so ops calling ops pay for the protocol only once.
        if function:
            OPS[n] = overridable(f, 'ember.' + n) if dispatch else f
        if method:
            METHODS[n] = overridable(f, 'ember.Tensor.' + n)
        for m in methods:
            METHODS[m] = overridable(f, 'ember.Tensor.' + m)
        return f
    return deco(fn) if fn is not None else deco


def edge(t):
    """The (node, output_nr) edge through which a gradient reaches tensor ``t``."""
    base = t._base
    if base is not None and base._rebased != t._seen:
        refresh_view(t)
    fn = t._gfn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (t._accumulator(), 0)
    return _NO_EDGE


def track(cls, inputs):
    """A new ``cls`` node for an op on ``inputs`` if grad mode is on and one requires grad,
    else None. Non-tensor inputs (Python scalars) get an empty edge."""
    if not STATE.enabled:
        return None if FWD.level is None else forward_only(cls, inputs)
    for t in inputs:
        if isinstance(t, Tensor) and t._requires_grad:
            break
    else:
        return None if FWD.level is None else forward_only(cls, inputs)
    node = _new(cls)
    node.next_functions = tuple([edge(t) if isinstance(t, Tensor) else _NO_EDGE
                                 for t in inputs])
    node._meta = tuple([(t._data.shape, t._data.dtype) if isinstance(t, Tensor) else None
                        for t in inputs])
    node._saved = None
    node._seq = next_seq()
    if FWD.level is not None:
        _add_tangents(node, inputs)
    if ANOMALY.enabled:
        record(node)
    return node


def forward_only(cls, inputs):
    """A node recorded only because an input carries a forward-AD tangent (None if none
    does): it gives its outputs tangents, never a grad_fn."""
    tangents = tuple(tangent_of(t) if isinstance(t, Tensor) else None for t in inputs)
    if all(t is None for t in tangents):
        return None
    node = _new(cls)
    node.next_functions = tuple(_FW_EDGE if t is not None else _NO_EDGE for t in tangents)
    node._meta = tuple([(t._data.shape, t._data.dtype) if isinstance(t, Tensor) else None
                        for t in inputs])
    node._saved = None
    node._seq = next_seq()
    node._fw_in = tangents
    node._fw_only = True
    return node


def _add_tangents(node, inputs):
    tangents = tuple(tangent_of(t) if isinstance(t, Tensor) else None for t in inputs)
    if any(t is not None for t in tangents):
        node._fw_in = tangents


def _pend(t, node, index):
    """Gives output ``t`` of ``node`` the tangent of that output, computed at the next
    flush (see ``forward_ad.flush``)."""
    t._fw = (FWD.level, Pending(node, index, t._data.shape, t._data.dtype))
    FWD.pending.append(t)


def track1(cls, t):
    """``track`` for the common one-tensor case, without the generic loops."""
    if not (t._requires_grad and STATE.enabled):
        return None if FWD.level is None else forward_only(cls, (t,))
    node = _new(cls)
    base = t._base
    if base is not None and base._rebased != t._seen:
        refresh_view(t)
    fn = t._gfn
    node.next_functions = ((fn, t._output_nr) if fn is not None else (t._accumulator(), 0),)
    node._meta = ((t._data.shape, t._data.dtype),)
    node._saved = None
    node._seq = next_seq()
    if FWD.level is not None:
        _add_tangents(node, (t,))
    if ANOMALY.enabled:
        record(node)
    return node


def refuse_complex_grad(op, t):
    """torch's autograd error for an op with no complex derivative (``cummin``, ``median``)
    reached by a complex tensor that requires grad -- where the op's kernel, which would
    refuse the dtype first, does not run (an empty or 0-d input)."""
    if t._data.dtype.kind == 'c' and t._requires_grad and STATE.enabled:
        raise RuntimeError(f"{op} does not support automatic differentiation for outputs "
                           "with complex dtype.")


def track_scalar(cls, t):
    """``track`` for a tensor combined with a Python number (the number gets an empty edge)."""
    if not (t._requires_grad and STATE.enabled):
        return None if FWD.level is None else forward_only(cls, (t, None))
    node = _new(cls)
    base = t._base
    if base is not None and base._rebased != t._seen:
        refresh_view(t)
    fn = t._gfn
    node.next_functions = ((fn, t._output_nr) if fn is not None else (t._accumulator(), 0),
                           _NO_EDGE)
    node._meta = ((t._data.shape, t._data.dtype), None)
    node._saved = None
    node._seq = next_seq()
    if FWD.level is not None:
        _add_tangents(node, (t, None))
    if ANOMALY.enabled:
        record(node)
    return node


def attach(out, node):
    """Makes ``out`` (a new Tensor) an output of ``node``."""
    out._gfn = node
    out._requires_grad = True
    return out


def result(arr, node, cls=Tensor):
    """Wraps ``arr`` as the single output of ``node`` (None: no graph), a ``cls``."""
    if type(arr) is np.ndarray and not arr.size:
        arr = torch_empty_strides(arr)
    t = _new(cls)
    t._data = arr
    t._vc = [0] if not SPECIAL_VC_OPEN[0] else new_version_counter()
    if node is None:
        t._requires_grad = False
        t._gfn = None
    elif node._fw_in is None:
        t._requires_grad = True
        t._gfn = node
    else:
        _fw_output(t, node, 0)
    return t


def _fw_output(t, node, index):
    """Wires output ``index`` of a node that carries tangents."""
    if node._fw_only:
        t._requires_grad = False
        t._gfn = None
    else:
        t._requires_grad = True
        t._gfn = node
        if index:
            t._output_nr = index
    _pend(t, node, index)


def results(arrs, node, differentiable=None):
    """Wraps several arrays as outputs 0..n-1 of ``node``; the node remembers their shapes so
    missing output gradients can be filled with zeros. A None array is an output the op did
    not compute (torch's undefined tensor): None, and no gradient for it."""
    outs = []
    for i, a in enumerate(arrs):
        if a is None:
            outs.append(None)
            continue
        t = make(a)
        if node is not None and (differentiable is None or differentiable[i]):
            if node._fw_in is not None:
                _fw_output(t, node, i)
            else:
                t._gfn = node
                t._requires_grad = True
                if i:
                    t._output_nr = i
        outs.append(t)
    if node is not None:
        node.n_outputs = len(arrs)
        node._outs = tuple(((), None) if a is None else (a.shape, a.dtype) for a in arrs)
    return outs


def _out_meta(self):
    return self._outs


Node._out_meta = _out_meta


# -- operands --------------------------------------------------------------------------
_SCALARS = (int, float, bool, complex)


def is_scalar(x):
    """True for Python numbers (and NumPy scalars), which ops treat as weak-typed."""
    return type(x) in _SCALARS or isinstance(x, (np.number, np.bool_))


def to_tensor(x, op='op', arg='other'):
    """A Tensor for ``x``: tensors pass through, numbers/arrays/lists become tensors."""
    if isinstance(x, Tensor):
        return x
    from .._tensor import to_array
    if isinstance(x, (list, tuple, np.ndarray)) or is_scalar(x):
        return make(to_array(x))
    pos = {'input': 1, 'other': 2}.get(arg)
    where = f" (position {pos})" if pos else ''
    raise TypeError(f"{op}(): argument '{arg}'{where} must be Tensor, not {type(x).__name__}")


def dtype_of(x):
    """The ember dtype of a tensor's data."""
    return _FROM_NP[x._data.dtype]


def binary_arrays(a, b, op):
    """The two operand arrays of a binary op, cast to the promoted dtype by torch's rules.
    ``b`` may be a Python number (it stays a weak-typed scalar for NumPy)."""
    x = a._data
    if type(b) is float:  # the most common scalar, checked first
        k = x.dtype.kind
        if k in 'fc':
            return x, b
        if k == 'V':
            # (NumPy makes bfloat16 with a Python float float32; the op builders pass the
            # float itself to opmath_call instead, keeping its float32 precision; complex32
            # computes in complex64, which takes the number as it is)
            return x, (np.asarray(b, x.dtype) if x.dtype.names is None else b)
        return x.astype(_dtype.DEFAULT.np_float), b
    if type(b) is Tensor or isinstance(b, Tensor):
        y = b._data
        xd = x.dtype
        yd = y.dtype
        if xd is yd:
            return x, y
        dt = _dtype.promote_tensors(_FROM_NP[xd], x.ndim, _FROM_NP[yd], y.ndim).np
        if xd != dt:
            x = _dtype.cast(x, dt)
        if yd != dt:
            y = _dtype.cast(y, dt)
        return x, y
    t = type(b)
    if t is int:
        k = x.dtype.kind
        if k == 'b':
            return x.astype(np.int64), b
        if k == 'V':   # bfloat16: the scalar as bfloat16 (NumPy 2.0 would make a Python int
            # with a bfloat16 array float32)
            return x, (np.asarray(b, x.dtype) if x.dtype.names is None else b)
        if k in 'iu' and not _fits(b, x.dtype):
            return x, np.array(b).astype(x.dtype)  # wraps as torch does
        return x, b
    if t is bool:
        return x, b
    if t is complex:
        dt = _dtype.result_type(_FROM_NP[x.dtype], b).np
        return (x if x.dtype == dt else _dtype.cast(x, dt)), b
    if isinstance(b, (np.number, np.bool_)):
        return binary_arrays(a, b.item(), op)
    return binary_arrays(a, to_tensor(b, op), op)


def opmath_call(kernel, *args):
    """``kernel(*args)`` as torch computes a bfloat16 op: bfloat16 arrays in float32 (its
    "opmath" type), float32 results rounded back to bfloat16 once. The op builders
    (``pointwise._unary``/``_binary``), the reductions and the matrix products call this for
    bfloat16 operands, so no kernel needs to know about bfloat16. complex32 arrays are
    computed in complex64, the results rounded back to complex32 (complex) or float16 (real:
    ``abs``)."""
    f32 = _dtype.FLOAT32_NP
    chalf = False
    wide = []
    for a in args:
        if type(a) is np.ndarray and a.dtype.kind == 'V':
            if a.dtype.names is not None:
                chalf = True
                a = _dtype.chalf_to_complex64(a)
            else:
                a = a.astype(f32)
        wide.append(a)
    r = kernel(*wide)
    return round_chalf(r) if chalf else round_opmath(r)


def round_chalf(r):
    """A complex32 op's opmath result (or tuple of them) rounded back: complex to complex32,
    float32 to float16; others unchanged."""
    if type(r) is tuple:
        return tuple(round_chalf(a) for a in r)
    r = np.asarray(r)
    if r.dtype.kind == 'c':
        return _dtype.cast(r, _dtype.CHALF_NP)
    return r.astype(np.float16) if r.dtype.kind == 'f' else r


def round_opmath(r):
    """A float32 opmath result (or tuple of them) rounded to bfloat16; others unchanged."""
    if type(r) is tuple:
        return tuple(round_opmath(a) for a in r)
    r = np.asarray(r)
    return r.astype(_dtype.bfloat16.np) if r.dtype == _dtype.FLOAT32_NP else r


def _fits(v, dt):
    info = np.iinfo(dt)
    return info.min <= v <= info.max


def float_array(x):
    """``x._data``, promoted to the default float dtype if it is integral or bool."""
    a = x._data
    if a.dtype.kind in 'fcV':
        return a
    return a.astype(_dtype.DEFAULT.np_float)


def as_array(x):
    """ndarray result of a NumPy call, turning NumPy scalars (0-d results) back into arrays."""
    return x if type(x) is np.ndarray else np.asarray(x)


def broadcast_shape(a, b):
    """The broadcast shape of ``a`` and ``b``, or torch's RuntimeError naming the clash."""
    n = builtins.max(len(a), len(b))
    a1 = (1,) * (n - len(a)) + tuple(a)
    b1 = (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):  # (torch reports the last clash)
        x, y = a1[i], b1[i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
    return tuple(y if x == 1 else x for x, y in zip(a1, b1))


def no_grad_of(g):
    """The zero gradient of an input a function does not vary with: zeros shaped as ``g``
    (not ``g * 0``, which keeps an inf or NaN of ``g`` as NaN), as torch's zeros_like."""
    return make(np.zeros(g._data.shape, g._data.dtype))


def check_nonnegative_sizes(sizes):
    """Raises torch's RuntimeError for a tensor shape ``sizes`` with a negative size (the
    first one, with the whole shape)."""
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(sizes)}")


def check_broadcast(*shapes):
    """Raises torch's RuntimeError if ``shapes`` do not broadcast together (used where NumPy
    would raise its own ValueError)."""
    out = ()
    for s in shapes:
        out = broadcast_shape(out, s)
    return out


def check_written_shape(out, *shapes):
    """Raises torch's RuntimeError when the ``shapes`` an in-place op reads do not broadcast
    with its output's shape ``out`` (the first clash), or broadcast to a larger shape."""
    shape = check_broadcast(out, *shapes)
    if shape != tuple(out):
        raise RuntimeError(f"output with shape {list(out)} doesn't match the broadcast shape "
                           f"{list(shape)}")


def check_no_partial_overlap(dst, src):
    """torch's refusal to copy between partly overlapping memory (judged, as torch does, only
    when both sides are dense; writing a tensor onto itself is fine)."""
    if not np.may_share_memory(dst, src):
        return
    dense = [a.flags.c_contiguous or a.flags.f_contiguous for a in (dst, src)]
    if all(dense) and (dst.ctypes.data, dst.nbytes) != (src.ctypes.data, src.nbytes):
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please "
                           "clone() the tensor before performing the operation.")


# -- in-place --------------------------------------------------------------------------
def _no_grad_view_message(what, mode, happened="is being modified inplace"):
    """torch's refusal to rewrite the history of a view made under no_grad or in inference
    mode (``mode``): ``what`` names the view, ``happened`` what was done to it."""
    if mode == 'inference':
        mode, block, happened = "inference mode", "inference_mode", happened + " in normal mode"
    else:
        mode, block, happened = "no_grad mode", "no_grad", happened + " with grad mode enabled"
    return (f"{what} in {mode} and {happened}. Given that this use case is ambiguous and "
            "error-prone, it is forbidden. You can clarify your code by moving both the view "
            f"and the inplace either both inside the {block} block (if you don't want the "
            "inplace to be tracked) or both outside (if you want the inplace to be tracked).")


def check_inplace(t, op):
    """torch's errors for in-place ops on leaves that require grad (or views of them), and
    on inference tensors outside inference mode."""
    vc = t._vc
    if vc.__class__ is not list:  # (an inference tensor, or one watched by a context)
        vc.before_write()
    if not STATE.enabled:
        return
    base = t._base
    if (not t._requires_grad and base is not None and base._requires_grad
            and base._gfn is None):  # (a view made before its base required grad)
        check_view_rewritable(t)  # (torch's refusals of such views come first)
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if t._requires_grad:
        ngv = t._no_grad_view
        if t._gfn is None:
            if ngv and type(ngv) is not tuple:
                raise RuntimeError(_no_grad_view_message("A view was created", ngv))
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        if type(ngv) is tuple:
            name = re.sub(r'Backward\d*$', '', type(t._gfn).__name__)
            raise RuntimeError(_no_grad_view_message(
                f"Output {t._output_nr} of {name} is a view of a view which was created", ngv[1]))
        base = t._base
        if base is not None and base._gfn is None and base._requires_grad:
            check_view_rewritable(t)
            raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                               "in an in-place operation.")


# ``_made_by_function`` of the output of a custom Function that set ``ctx._is_pure_view``:
# PURE_VIEW when it views the Function's input (an in-place op on it replays the view from
# the input, bypassing the Function's backward, as torch), PURE_VIEW_OF_TEMP when it views a
# temporary of its forward (refused in place, as a view of a leaf).
PURE_VIEW = '<a pure view>'
PURE_VIEW_OF_TEMP = '<a temporary>'


def check_view_rewritable(t):
    """torch's refusals to modify in place a view whose history cannot be rewritten: one
    made by a custom Function, or one of several views a single op returned. (A pure view's
    history is first rebuilt as the replay of its view of the base.)"""
    made = t._made_by_function
    if made is PURE_VIEW:
        from .._tensor import refresh_view
        refresh_view(t)
        return
    if made is PURE_VIEW_OF_TEMP:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if made is not None and t._multi_view_of is None:
        raise RuntimeError(
            f"Output {t._output_nr} of {t._made_by_function} is a view and is being modified "
            "inplace. This view was created inside a custom Function (or because an input was "
            "returned as-is) and the autograd logic to handle view+inplace would override the "
            "custom backward associated with the custom Function, leading to incorrect "
            "gradients. This behavior is forbidden. You can fix this by cloning the output of "
            "the custom Function.")
    if t._multi_view_of is not None:
        name, nr = t._multi_view_of
        raise RuntimeError(
            f"Output {nr} of {name} is a view and is being modified "
            "inplace. This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. You should "
            "replace the inplace operation by an out-of-place one.")


def _alias(t):
    """A copy of ``t``'s current value that keeps ``t``'s place in the graph, so an
    out-of-place op on it records the same edges an in-place op on ``t`` would."""
    a = _new(Tensor)
    a._data = t._data.copy()
    a._vc = [0]
    a._requires_grad = t._requires_grad
    a._gfn = t._gfn
    # (A leaf that requires grad never gets here: check_inplace refuses it.)
    if t._fw is not None:
        a._fw = t._fw
    nr = t._output_nr
    if nr:
        a._output_nr = nr
    return a


def inplace(t, outplace, args, op):
    """Runs ``outplace(t, *args)`` and writes the result into ``t``: the in-place variant of
    any op. With autograd, ``t`` takes over the result's history (through CopySlices if ``t``
    is a view); the original value is kept for the backward formula."""
    check_inplace(t, op)
    # An integer tensor never joins the graph, whatever was written into it.
    tracking = STATE.enabled and t._data.dtype.kind in 'fcV' and (t._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args))
    if not tracking:
        r = outplace(t, *args)
        write_into(t, r._data, op)
        if r._fw is not None:
            _take_tangent(t, r)
        return t
    check_view_rewritable(t)
    base = t._base
    if base is not None and base._rebased != t._seen:
        refresh_view(t)  # (the op must see its current place in the graph, not a stale one)
    r = outplace(_alias(t), *args)
    write_into(t, r._data, op)
    if r._fw is not None:
        _take_tangent(t, r)
    if r._gfn is None:
        return t
    rebase(t, r)
    return t


def _take_tangent(t, r):
    """After an in-place op wrote result ``r`` into ``t``: ``t``'s tangent becomes ``r``'s.
    A tangent ``t`` already had is updated in place, as torch does (the tensor given to
    make_dual, and views of it, see the change)."""
    old = t._fw
    target = None
    if old is not None and old[0] == FWD.level and type(old[1]) is Tensor:
        target = old[1]
    new = tangent_of(r)
    if new is None:
        t._fw = r._fw
        return
    if target is None and t._base is not None:
        # A view without a tangent: its base gets one (zeros), and the view's is the same
        # view of it, so the base sees the change, as in torch.
        base = t._base
        target_base = tangent_of(base)
        if target_base is None:
            target_base = make(np.zeros_like(base._data))
            base._fw = (FWD.level, target_base)
        # (a view laid out as its base shares the base's tangent itself, as in torch)
        target = target_base if _same_meta(t, base) else replay_view(target_base, view_chain(t))
        t._fw = (FWD.level, target)
    if target is None:
        t._fw = r._fw
        return
    target._data[...] = new._data  # (write_into would record the copy for autograd)
    target._vc[0] += 1


def _same_meta(a, b):
    """Whether tensors ``a`` and ``b`` have the same sizes, strides and storage offset."""
    return (a._data.shape == b._data.shape and a._data.strides == b._data.strides
            and a.storage_offset() == b.storage_offset())


def write_into(t, arr, op):
    """Copies ``arr`` into ``t``'s memory (same shape, castable dtype) and bumps the version."""
    vc = t._vc
    if vc.__class__ is not list:
        vc.before_write()
    if FWD.pending:
        flush()
    dst = t._data
    if arr.shape != dst.shape:
        raise RuntimeError(f"output with shape {list(dst.shape)} doesn't match the broadcast "
                           f"shape {list(np.broadcast_shapes(arr.shape, dst.shape))}"
                           if _broadcastable(arr.shape, dst.shape) else
                           f"{op}: the size of the result {list(arr.shape)} does not match "
                           f"the tensor's size {list(dst.shape)}")
    if arr.dtype != dst.dtype:
        if not _dtype.can_cast(_FROM_NP[arr.dtype], _FROM_NP[dst.dtype]):
            raise RuntimeError(f"result type {_FROM_NP[arr.dtype].kernel_name} can't be cast "
                               f"to the desired output type {_FROM_NP[dst.dtype].kernel_name}")
        if dst.dtype.names is not None or arr.dtype.names is not None:
            # (complex32: NumPy would copy a real value into both parts of its structured
            # dtype, or refuse it as a source)
            arr = _dtype.cast(arr, dst.dtype)
    if arr is not dst:
        if not dst.flags.writeable:
            partial = op in PARTIAL_WRITES
            alias = writable_alias(dst, overlap=partial or op in ONE_VALUE_WRITES)
            if alias is None:
                raise RuntimeError(
                    "unsupported operation: more than one element of the written-to "
                    "tensor refers to a single memory location. Please clone() the tensor "
                    "before performing the operation.")
            if partial:  # (only the filled elements: one memory location any alias fills
                # holds the value, as torch's kernel leaves it; compared bit for bit)
                if any(st == 0 and n > 1 for st, n in zip(dst.strides, dst.shape)):
                    warn_expanded_write(op)
                new, old = (np.ascontiguousarray(a, dst.dtype).view(np.uint8)
                            .reshape(dst.shape + (-1,)) for a in (arr, dst))
                np.copyto(alias, arr, casting='unsafe', where=(new != old).any(-1))
                t._vc[0] += 1
                return
            dst = alias
        np.copyto(dst, arr, casting='unsafe')
    t._vc[0] += 1


def warn_expanded_write(op):
    """torch's deprecation warning for a write through an expanded tensor's shared memory
    (``index_put_``, ``masked_fill_``, ``index_fill_``), pointing at the caller's line."""
    example = 'tensor[indices] = tensor' if op == 'index_put_' else 'tensor[mask] = scalar'
    frame, level = sys._getframe(1), 2  # (stacklevel 2: this function's caller)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor "
                  "before performing this operation. This also applies to advanced indexing "
                  f"e.g. {example}", UserWarning, stacklevel=level)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# In-place ops torch lets write a tensor whose elements share memory (an expanded one),
# where other in-place ops refuse: those writing one value everywhere, and threshold_ (its
# kernel skips the check; elements sharing memory share their value, so agree on the result).
ONE_VALUE_WRITES = frozenset({'fill_', 'zero_', 'threshold_'})
# ... and those filling some elements with one value (torch warns that masked_fill_ of an
# expanded tensor is deprecated): only the filled elements are written through the alias.
PARTIAL_WRITES = frozenset({'index_fill_', 'masked_fill_'})


def writable_alias(arr, overlap=False):
    """A writeable array over the memory of the read-only view ``arr``, or None when two of
    its elements share memory (unless ``overlap``) or its memory is read-only itself. NumPy
    makes every view of an expanded (broadcast) array read-only; torch refuses a write only
    if the written-to tensor overlaps itself, so one element of an expanded tensor can be
    written."""
    span = arr.itemsize  # the memory the dims seen so far cover, innermost first
    for st, n in sorted((abs(st), n) for st, n in zip(arr.strides, arr.shape) if n > 1):
        if st < span and not overlap:
            return None
        span += st * (n - 1)
    from ..storage import _root  # (through as_strided's wrappers too: an expand's view)
    root = _root(arr)
    if not (root.flags.writeable and root.flags.c_contiguous):
        return None
    offset = arr.__array_interface__['data'][0] - root.__array_interface__['data'][0]
    return np.ndarray(arr.shape, arr.dtype, buffer=root, offset=offset, strides=arr.strides)


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def rebase(t, r):
    """Gives ``t`` (just overwritten in place with ``r``'s value) ``r``'s history. A view
    passes the change on to its base through a CopySlices node."""
    old_fn, old_nr = t._gfn, t._output_nr
    base = t._base
    if base is None:
        t._gfn = r._gfn
        t._requires_grad = True
        if t._output_nr:
            t._output_nr = 0
        t._rebased += 1  # views of t built against its old history are now stale
        _move_retain(t, old_fn, old_nr)
        return
    chain = view_chain(t)
    node = track(CopySlices, (base, r))
    node.view_fn = chain
    # (the view's place in its base's memory, where the base is laid out row-major from its
    # start: the region backward writes, even where replaying the views would give a
    # read-only one -- a view of an expanded tensor)
    node.geometry = (t._data.shape, t.stride(), t.storage_offset()) if (
        base._data.flags.c_contiguous and base.storage_offset() == 0 and
        t._data.dtype == base._data.dtype and '_bits' not in t.__dict__) else None
    fn = r._gfn
    if (fn.n_outputs == 1 and fn.next_functions and r._output_nr == 0
            and fn.next_functions[0][0] is old_fn and fn.next_functions[0][1] == old_nr):
        # As torch's CopySlices: the op's node runs inside this one and its gradient for
        # the view's old value is written into the base's gradient, so the view's old node
        # (and hooks registered there) is bypassed; the op's other inputs are this node's.
        node.fn = fn
        node.next_functions = node.next_functions[:1] + fn.next_functions[1:]
        node._meta = node._meta[:1] + fn._meta[1:]
        if node._fw_in is not None:
            rest = fn._fw_in[1:] if fn._fw_in is not None else (None,) * (len(fn._meta) - 1)
            node._fw_in = node._fw_in[:1] + tuple(rest)
    base._gfn = node
    base._requires_grad = True
    if base._output_nr:
        base._output_nr = 0
    base._rebased += 1
    # The view's own history now goes through its base's new history.
    with_history = rebuild_view(t, base, chain)
    t._gfn = with_history._gfn
    t._requires_grad = True
    t._output_nr = with_history._output_nr
    t._seen = base._rebased
    _move_retain(t, old_fn, old_nr)


def _move_retain(t, old_fn, old_nr):
    """A tensor that retains its grad keeps doing so through its new history."""
    if t._retains_grad and old_fn is not None and old_fn._retain:
        ref = old_fn._retain.pop(old_nr, None)
        new = t._gfn
        if new._retain is None:
            new._retain = {}
            new._hooked = True
        new._retain[t._output_nr] = ref


class CopySlices(Node):
    """History of a base tensor after an in-place op on one of its views: the gradient of
    the overwritten region goes to the op's result, the rest to the base's old history."""

    geometry = None  # (the view's shape, strides and offset in its base, when known)

    def name(self):
        """``'torch::autograd::CopySlices'``, torch's name for this node."""
        return 'torch::autograd::CopySlices'

    fn = None  # the in-place op's node, when it runs inside this one (see rebase)

    def backward(self, g):
        if self.fn is not None:
            return self._through_fn(g)
        complex_ = g._data.dtype.kind == 'c'
        # (complex: 1 + 1j, so that a view of the real or imaginary parts -- view_as_real --
        # zeroes just that part; the mask then applies part by part)
        mask = make(np.full(g._data.shape, 1 + 1j if complex_ else 1, g._data.dtype))
        self._region(mask)._data[...] = 0
        if complex_:
            rest = g.real * mask.real + (g.imag * mask.imag) * 1j
        else:
            rest = g * mask
        # The view is replayed on the incoming gradient, which may have any layout (a
        # transpose after the in-place op makes it non-contiguous, where a ``view`` step
        # cannot be replayed): a contiguous one, as torch's copy of it.
        return rest, self._region(g.contiguous())

    def _region(self, grad):
        """The view's region of ``grad`` (a row-major gradient of the base)."""
        if self.geometry is None:
            return replay_view(grad, self.view_fn)
        from .arrange import as_strided
        return as_strided(grad, *self.geometry)

    def _through_fn(self, g):
        """The base's gradient is ``g`` with the view's region replaced by the op's
        gradient for the view's old value; the op's other gradients pass on."""
        from ..autograd.engine import _call, _conform, current_graph_task
        fn = self.fn
        # (a contiguous copy: the view is replayed on it, and it is written below)
        result = g.contiguous()
        if result is g:
            result = g.clone()
        region = self._region(result)
        grads = _call(fn, [region.clone()])
        task = current_graph_task()
        if task is not None and not task.keep_graph:
            fn.release()
        first = grads[0] if grads else None
        if first is not None and fn._meta[0] is not None:
            first = _conform(first, fn._meta[0], fn, 0)
        if first is None:
            region.zero_()
        else:
            region.copy_(first)
        rest = tuple(grads[1:])
        return (result,) + rest + (None,) * (len(self.next_functions) - 1 - len(rest))


# -- views -----------------------------------------------------------------------------
def view_of(base, arr, node, fn, args):
    """A tensor over ``arr`` (a NumPy view of ``base._data``) sharing ``base``'s version
    counter; remembers how to recreate itself from the root base (``fn(base, *args)``)."""
    t = _new(Tensor)
    t._data = arr
    t._vc = base._vc
    watched = False
    if t._vc is INFERENCE_VC:
        # A view of an inference tensor is a plain inference tensor: no history, no view
        # relation (torch tracks neither).
        t._requires_grad = False
        t._gfn = None
        return t
    if node is None:
        t._requires_grad = False
        t._gfn = None
        if not STATE.enabled:
            # As in torch: a view made without grad mode may not be modified in place once
            # it requires grad, grad mode being back on (check_inplace). A view of a tensor
            # that requires grad requires grad itself (a leaf of its own).
            t._no_grad_view = 'inference' if STATE.inference else 'no_grad'
            if base._requires_grad:
                t._requires_grad = True
                watched = True
    elif node._fw_in is None:
        t._requires_grad = True
        t._gfn = node
    else:
        _fw_output(t, node, 0)
        tangent = node._fw_in[0]
        if tangent is not None:
            # A view's tangent is the same view of its base's tangent (torch's forward-AD
            # views), so an in-place change through either reaches the other.
            t._fw = (FWD.level, fn(tangent, *args))
    ngv = base._no_grad_view
    if ngv and STATE.enabled and base._base is not None:
        # a view of such a view inherits the refusal (torch's "view of a view" message)
        t._no_grad_view = ngv if type(ngv) is tuple else ('view', ngv)
        watched = t._requires_grad
    link_view(t, base, fn, args)
    if watched:
        watch_version(t)
    if base._multi_view_of is not None:  # a view of such a view is refused in-place too
        t._multi_view_of = base._multi_view_of
    if base._bits is not None:  # (a view of a conjugated or negated view is one too)
        t._bits = base._bits
    return t


# The ``_seen`` of a view whose grad_fn is checked at every read: one made under no_grad or
# in inference mode from a tensor that requires grad. As in torch, once anything has written
# to its memory (the view, its base or another view, in whatever grad mode) reading its
# grad_fn is refused; before that its history stands.
WATCHED = -1


def watch_version(t):
    """Makes view ``t`` (just linked to its base) a watched one (see ``WATCHED``)."""
    t._made_at = (t._vc[0], t._seen)
    t._seen = WATCHED


def link_view(t, base, fn, args):
    """Records that ``t`` is ``fn(base, *args)``: its root base and the steps to replay."""
    root = base._base
    step = ((fn, args),)
    if root is None:
        t._base = base
        t._view_fn = step
    else:
        t._base = root
        t._view_fn = (base._view_fn if not RELAID else view_chain(base)) + step
        base = root
    if base._rebased:
        t._seen = base._rebased


# Set once any tensor that is no view has been laid out anew by an in-place view op
# (transpose_, t_, squeeze_, unsqueeze_): from then on, making a view of a view checks that
# the chain it extends is up to date (views made before pay nothing until then).
RELAID = False


def relaid(root, inverse):
    """Records that in-place view op just gave ``root`` (no view) a new layout, ``inverse``
    (a view step) turning the new one back into the old. Its existing views, whose steps
    start from the old layout, get ``inverse`` put before them when next used
    (``view_chain``), and their grad_fns are rebuilt (as torch regenerates them)."""
    global RELAID
    RELAID = True
    root._rebased += 1
    changes = root.__dict__.get('_relaid')
    if changes is None:
        changes = root._relaid = []
    changes.append((root._rebased, inverse))


def view_chain(t):
    """View ``t``'s steps from its root as the root is laid out now (see ``relaid``)."""
    chain = t._view_fn
    changes = t._base.__dict__.get('_relaid')
    if changes is None:
        return chain
    since = t._seen if t._seen != WATCHED else t._made_at[1]
    since = max(since, t._chain_at)
    earlier = tuple(step for stamp, step in reversed(changes) if stamp > since)
    if earlier:
        chain = t._view_fn = earlier + chain
    t._chain_at = changes[-1][0]
    return chain


def rebuild_view(view, base, chain):
    """``view`` made again from ``base``'s current history (after an in-place op changed
    it): as torch does, one ``as_strided`` of the base (``AsStridedBackward0``) for a plain
    strided view of the base's dtype; the view ops of ``chain`` replayed for the others
    (another dtype, lazy conjugate or negative bits, a sparse base) or when view replay is on
    (``autograd._force_original_view_tracking(True)``)."""
    if not STATE.view_replay and view._data.dtype == base._data.dtype and \
            '_bits' not in view.__dict__ and '_bits' not in base.__dict__ and \
            base.layout is strided:
        from .arrange import as_strided
        return as_strided(base, view._data.shape, view.stride(), view.storage_offset())
    return replay_view(base, chain)


def replay_view(t, chain):
    """Applies a chain of view steps (as recorded by ``view_of``) to tensor ``t``."""
    for fn, args in chain:
        t = fn(t, *args)
    return t
