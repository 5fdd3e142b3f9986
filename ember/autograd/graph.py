"""The backward graph: Node (a tensor's grad_fn), saved tensors, and the leaf accumulator.

A Node holds ``next_functions`` -- one ``(node, output_nr)`` edge per input of the op that
made it -- the tensors its backward needs (with their version numbers, so an in-place change
before backward is caught), and the shape/dtype of each input so the engine can reduce a
broadcast gradient to the input's shape. ``backward`` formulas are written with ember ops, so
running them with grad mode on builds the graph of the backward itself (double backward).
"""
import operator
import re
import weakref
from itertools import count
from typing import NamedTuple, Optional

from .forward_ad import FWD, Pending

__all__ = ['Node', 'saved_tensors_hooks', 'disable_saved_tensors_hooks', 'save_on_cpu',
           'register_multi_grad_hook', 'SavedTensor', 'increment_version',
           'allow_mutation_on_saved_tensors', 'GradientEdge', 'get_gradient_edge']

_RELEASED = object()
# Sequence numbers: each node takes the next one when it is created, so a node's number is
# larger than those of the nodes its inputs came from. The engine runs ready nodes highest
# number first, as torch does. (torch counts per thread; one process-wide counter gives the
# same order within a thread, which is all the engine compares.)
next_seq = count().__next__
# An accumulator's number, the largest torch's 64-bit counter holds: leaves take their
# gradient as soon as it is complete.
ACCUMULATE_SEQ = 2 ** 64 - 1
# While forward AD derives a jvp from a backward formula, saved tensors are used as constants
# (detached), so no history is walked. A one-element list: cheap to read, shared by modules.
# Once a tensor with history has been detached in place, it holds CHECK_DETACHED (when not
# True) so that unpacking also looks for saved tensors detached since (``detached_in_place``).
_DETACH_SAVED = [False]
CHECK_DETACHED = 'check detached'
make = None  # ember._tensor.make, bound by ember._tensor once it is defined
_TWICE = ("Trying to backward through the graph a second time (or directly access saved "
          "tensors after they have already been freed). Saved intermediate values of the graph "
          "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
          "you need to backward through the graph a second time or if you need to access saved "
          "tensors after calling backward.")


class Node:
    """A step of the backward graph; ``tensor.grad_fn`` is one. Subclasses define
    ``backward(self, *grad_outputs)`` returning one gradient (or None) per input edge."""
    __slots__ = ('next_functions', '_saved', '_meta', '_seq', '__dict__', '__weakref__')
    n_outputs = 1
    _hooks = None       # post-hooks: fn(grad_inputs, grad_outputs)
    _pre_hooks = None   # pre-hooks: fn(grad_outputs)
    _tensor_hooks = None  # {output_nr: [fn]} registered through Tensor.register_hook
    _retain = None        # {output_nr: weakref to a tensor that retains its grad}
    _hooked = False       # True once any of the four above is set (one test in the engine)
    _fw_in = None         # forward AD: the tangents of the inputs (None: no forward AD)
    _fw_only = False      # forward AD: recorded only for tangents, not part of backward

    def name(self):
        """The node's name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def __repr__(self):
        return f'<{type(self).__name__} object at {hex(id(self))}>'

    @property
    def metadata(self):
        """A dict for the user's own annotations (as ``grad_fn.metadata`` in torch)."""
        d = self.__dict__.get('_metadata')
        if d is None:
            d = self.__dict__['_metadata'] = {}
        return d

    def _sequence_nr(self):
        """The number this node took when it was created (see ``next_seq``); the engine runs
        a ready node with a larger number first."""
        return self._seq

    def _set_sequence_nr(self, sequence_nr):
        """Overrides the number the engine orders this node by (an unsigned 64-bit int)."""
        try:
            n = operator.index(sequence_nr)
        except TypeError:
            raise TypeError("an integer is required") from None
        if n < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if n >= 1 << 64:
            raise OverflowError("int too big to convert")
        self._seq = n

    def __call__(self, *grads):
        """Runs this node's backward directly on the given output gradients."""
        if len(grads) != self.n_outputs:
            raise TypeError(f"expected {self.n_outputs} arguments, got {len(grads)} instead")
        out = self.apply(list(grads))
        return out[0] if len(out) == 1 else out

    def apply(self, grads):
        """Runs ``backward`` on the gradients of the outputs; returns a tuple, one per edge."""
        r = self.backward(*grads)
        return r if type(r) is tuple else (r,)

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooked = True
        return _Handle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._hooked = True
        return _Handle(self._pre_hooks, fn)

    def _register_tensor_hook(self, output_nr, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        self._hooked = True
        return _Handle(self._tensor_hooks.setdefault(output_nr, []), fn)

    # -- saved tensors ------------------------------------------------------------------
    def save(self, *tensors):
        """Saves input tensors for backward, remembering their versions."""
        self._saved = tuple((t, t._vc[0]) for t in tensors)

    def save_output(self, out):
        """Saves this node's own output (without a reference cycle through the tensor)."""
        self._saved = ((_SavedOutput(out), out._vc[0]),)

    @property
    def saved_tensors(self):
        """The saved tensors, checked against in-place modification since they were saved."""
        saved = self._saved
        if saved is _RELEASED:
            raise RuntimeError(_TWICE)
        out = []
        for t, version in saved:
            if t is None:
                out.append(None)
                continue
            if type(t) is _Packed:
                out.append(t.unpack(self))
                continue
            if type(t) is _SavedOutput:
                t = t.unpack(self)
            if t._vc[0] != version:
                raise RuntimeError(_version_error(t, version))
            if _DETACH_SAVED[0]:
                if _DETACH_SAVED[0] is True:
                    t = make(t._data)
                elif t._gfn is None:
                    _refuse_detached(self, t)
            out.append(t)
        return out

    def release(self):
        """Frees the saved tensors (after a backward without ``retain_graph``)."""
        if self._saved is not None:
            self._saved = _RELEASED


def detached_in_place(t):
    """Notes that ``t``, which had history, was just detached in place (``detach_``): the
    nodes that saved it may no longer use it (``_refuse_detached``). Only a weak reference
    to its old node is kept, so the history it leaves is freed as before."""
    t._detached_from = weakref.ref(t._gfn)
    if not _DETACH_SAVED[0]:
        _DETACH_SAVED[0] = CHECK_DETACHED


def _refuse_detached(node, t):
    """torch's refusal to use a saved input that was detached in place since it was saved:
    ``node`` took it as an input (its edge is ``t``'s old node)."""
    ref = t.__dict__.get('_detached_from')
    old = ref() if ref is not None else None
    if old is not None and any(fn is old for fn, _ in node.next_functions):
        raise RuntimeError("Trying to use a saved tensor that has been detached in-place, i.e. "
                           "with .detach_().This is not supported, please use out-of-place "
                           "`.detach()` instead")


def name_saved_values(cls, names=(), inputs=(), sizes=(), attrs=None):
    """Gives node class ``cls`` torch's ``_saved_<name>`` attributes. ``names``: torch's
    names of the tensors the op saves, in the order it saves them (a name past their end
    reads the node's attribute of that name). ``sizes``: names torch derives from an input's
    shape -- ``<input>_sym_sizes``, ``_sym_sizes_opt`` (``(0,)`` for an absent input),
    ``_sym_numel``, ``_sym_argsize_<k>``, ``_sym_argsize_minus_<k>`` -- answered from the
    shapes the node recorded, ``inputs`` naming its inputs in edge order. ``attrs``: {torch's
    name: the node attribute holding that value, or a function of the node}. Properties on the class, not a
    ``Node.__getattr__``: defining that would route every attribute read of every node
    through Python."""
    def saved_value(i, key):
        def get(self):
            saved = self._saved
            if saved is not None and saved is not _RELEASED and i < len(saved):
                return self.saved_tensors[i]
            if key in self.__dict__:  # (a number, which outlives backward, as in torch)
                return self.__dict__[key]
            if saved is _RELEASED:
                raise RuntimeError(_TWICE)
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"'_saved_{key}'")
        return property(get, doc=f"The value torch calls ``{key}`` that this op saved.")
    def raw_value(i, key):
        def get(self):
            saved = self._saved
            if saved is _RELEASED or (saved is not None and i < len(saved)):
                return SavedTensor._of(self, i)  # (once freed, using it raises torch's error)
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"'_raw_saved_{key}'")
        return property(get, doc=f"torch's SavedTensor handle on ``{key}``.")
    for i, key in enumerate(names):
        if key is not None:  # (None: a value torch's node does not keep)
            setattr(cls, f'_saved_{key}', saved_value(i, key))
            setattr(cls, f'_raw_saved_{key}', raw_value(i, key))
    for key in sizes:
        setattr(cls, f'_saved_{key}', _size_value(key, inputs))
    for key, attr in (attrs or {}).items():
        get = attr if callable(attr) else (lambda self, attr=attr: getattr(self, attr))
        setattr(cls, f'_saved_{key}', property(
            get, doc=f"The value torch calls ``{key}`` that this op saved."))


def saved_int(value):
    """An int64 value as torch's ``_saved_<name>`` reads it back: a negative one wraps to
    its unsigned form (``dim=-1`` reads 18446744073709551615)."""
    return value + (1 << 64) if value < 0 else value


_SIZE_NAME = re.compile(r'(\w+?)_sym_(sizes_opt|sizes|numel|argsize_(minus_)?(\d+))')


def _size_value(key, inputs):
    """The property of ``key`` (e.g. ``batch1_sym_argsize_0``), read from the shape the node
    recorded for that input."""
    m = _SIZE_NAME.fullmatch(key)
    index = inputs.index(m.group(1))
    kind = m.group(2)

    def get(self):
        meta = self._meta[index]
        if meta is None:
            if kind == 'sizes_opt':
                return (0,)
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"'_saved_{key}'")
        shape = tuple(meta[0])
        if kind in ('sizes', 'sizes_opt'):
            return shape
        if kind == 'numel':
            n = 1
            for s in shape:
                n *= s
            return n
        k = int(m.group(4))
        return shape[-k] if m.group(3) else shape[k]
    return property(get, doc=f"``{key}``: from the shape of the op's input "
                             f"``{m.group(1)}``.")


class _SavedOutput:
    """A node's output kept as data + version counter; unpacked into a tensor whose grad_fn is
    the node again, so a formula using the result stays differentiable."""
    __slots__ = ('data', 'version', 'output_nr', 'cls', 'level')

    def __init__(self, t):
        self.data = t._data
        self.version = t._vc
        self.output_nr = t._output_nr
        self.cls = type(t)
        self.level = FWD.level

    def unpack(self, node):
        t = make(self.data, node, True)
        t._vc = self.version
        if self.output_nr:
            t._output_nr = self.output_nr
        if node._fw_in is not None and self.level is not None and self.level == FWD.level:
            # forward-over-reverse: the saved output keeps the tangent its node gave it
            t._fw = (self.level, Pending(node, self.output_nr, self.data.shape,
                                         self.data.dtype))
        return t


def _version_error(t, expected):
    vc = t._vc
    if len(vc) > 1 and expected < vc[1]:
        # saved before ``utils.swap_tensors`` moved the content of t (or of its base) away
        from ..utils._swap import POISONED
        return POISONED
    fn = t._gfn
    where = ''
    if fn is not None:
        # torch names the op without its "Backward<N>" suffix, and only for non-leaves.
        op = re.sub(r"Backward[0-9]*$", "", fn.name())
        where = f', which is output {t._output_nr} of {op},'
    shape = ', '.join(str(s) for s in t._data.shape)
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{t.dtype._legacy} [{shape}]]{where} is at version "
            f"{t._vc[0]}; expected version {expected} instead. Hint: enable anomaly "
            "detection to find the operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True, check_nan=False).")


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient into ``variable.grad``."""
    next_functions = ()

    def __init__(self, variable):
        self.variable = variable
        self._saved = None
        self._seq = ACCUMULATE_SEQ
        self._meta = ((variable._data.shape, variable._data.dtype),)

    def name(self):
        """``'torch::autograd::AccumulateGrad'``, torch's name for this node."""
        return 'torch::autograd::AccumulateGrad'


class CopyBackwards(Node):
    """A copy into a tensor (``copy_``, and a ``.grad`` first set by
    ``backward(create_graph=True)``): nothing flows to the overwritten value (edge 0), the
    gradient goes to the source (edge 1; the engine casts it to the source's dtype)."""

    def name(self):
        """``'torch::autograd::CopyBackwards'``, torch's name for this node."""
        return 'torch::autograd::CopyBackwards'

    def backward(self, g):
        return (g * 0 if self.next_functions[0][0] is not None else None), g


class _Handle:
    """Returned by ``register_*hook``; ``remove()`` unregisters the hook."""
    __slots__ = ('_list', '_fn')

    def __init__(self, hooks, fn):
        hooks.append(fn)
        self._list = hooks
        self._fn = fn

    def remove(self):
        """Unregisters the hook; removing twice is harmless."""
        try:
            self._list.remove(self._fn)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


RemovableHandle = _Handle


class SavedTensor:
    """torch's handle on one tensor a node saved (``grad_fn._raw_saved_<name>``); only the
    graph makes them."""
    __slots__ = ('_node', '_index')

    def __init__(self):
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")

    @classmethod
    def _of(cls, node, index):
        self = object.__new__(cls)
        self._node, self._index = node, index
        return self

    def _entry(self):
        saved = self._node._saved
        if saved is _RELEASED:
            return None  # (freed: torch's handle reads None)
        return saved[self._index][0]

    @property
    def data(self):
        """What is stored: the packed object as the pack hook returned it, the tensor saved
        when an input was saved, or a detached alias of an output that was saved."""
        t = self._entry()
        if type(t) is _Packed:
            return t.obj
        if type(t) is _SavedOutput:
            out = make(t.data)
            out._vc = t.version
            return out
        return t

    @property
    def unpack_hook(self):
        """The unpack hook registered for this saved tensor, or None."""
        t = self._entry()
        return t.unpack_hook if type(t) is _Packed else None

    def register_hooks(self, *args, **kwargs):
        """``register_hooks(pack_hook, unpack_hook)`` (positional only, as torch's binding):
        packs the saved tensor now with ``pack_hook``; ``unpack_hook`` turns it back into a
        tensor each time it is read (``_saved_<name>``, backward). One pair per tensor."""
        if kwargs or len(args) != 2 or not all(callable(a) for a in args):
            given = ', '.join([repr(self)] + [repr(a) for a in args])
            if kwargs:
                given += '; kwargs: ' + ', '.join(f'{k}={v!r}' for k, v in kwargs.items())
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {given}")
        pack_hook, unpack_hook = args
        node = self._node
        saved = node._saved
        if saved is _RELEASED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        t, version = saved[self._index]
        if t is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if type(t) is _Packed:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at a "
                               "time.")
        entries = list(saved)
        entries[self._index] = (_pack_entry(t, pack_hook, unpack_hook, detached=True),
                                version)
        _SLOT.__set__(node, tuple(entries))


class _MultiHandle:
    """The handle of ``register_multi_grad_hook``: removes the hook from every tensor."""
    __slots__ = ('_handles',)

    def __init__(self, handles):
        self._handles = handles

    def remove(self):
        """Unregisters the hook from all the tensors."""
        for h in self._handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Calls ``fn`` once per backward that reaches ``tensors``: with mode ``"all"``, with the
    tuple of their gradients (None where none was computed) when that backward ends; with
    ``"any"``, with the first of their gradients as soon as it is computed. Returns a handle
    whose ``remove()`` unregisters it."""
    from .engine import current_graph_task
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    seen = set()  # ids of the graph tasks the hook already answered (or is waiting on)

    if mode == "any":
        def hook(grad):
            task = current_graph_task()
            if task.id not in seen:
                seen.add(task.id)
                task.callbacks.append(lambda: seen.discard(task.id))
                fn(grad)
        handles = [t.register_hook(hook) for t in tensors if t.requires_grad]
        return _MultiHandle(handles)

    grads = {}  # graph task id -> the gradients so far

    def make_hook(i):
        def hook(grad):
            task = current_graph_task()
            got = grads.get(task.id)
            if got is None:
                got = grads[task.id] = [None] * len(tensors)

                def finish(tid=task.id):
                    fn(tuple(grads.pop(tid)))
                task.callbacks.append(finish)
            got[i] = grad
        return hook

    handles = [t.register_hook(make_hook(i)) for i, t in enumerate(tensors) if t.requires_grad]
    return _MultiHandle(handles)


# -- gradient edges ------------------------------------------------------------------------
class GradientEdge(NamedTuple):
    """A place in the backward graph where a gradient is computed: output ``output_nr`` of
    ``node``. ``autograd.grad`` and ``autograd.backward`` take one wherever they take a
    tensor, as outputs or inputs (``get_gradient_edge(t)`` is where ``t``'s gradient
    arrives, so it stays valid after ``t`` is modified in place)."""
    node: Node
    output_nr: int
    # torch keeps a C++ graph alive through it; ember's edge holds ``node`` itself, which
    # holds the rest of the graph, so it is always None here.
    ownership_token: Optional[Node] = None


def get_gradient_edge(tensor):
    """The GradientEdge where the gradient of ``tensor`` is computed: its grad_fn (a
    leaf's gradient accumulator) and output number."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    node = tensor.grad_fn
    if node is None:
        node = tensor._accumulator()
    elif getattr(node, '_outs', None) is None:
        # A single-output op records no output metadata; the edge needs it when it is
        # differentiated as an output (its seed's shape), so note it now.
        node._outs = ((tensor._data.shape, tensor._data.dtype),)
    return GradientEdge(node, tensor.output_nr)


def edge_output_meta(edge):
    """(shape, NumPy dtype) of the gradient that flows into ``edge``."""
    node, nr = edge.node, edge.output_nr
    if type(node) is AccumulateGrad:
        return node._meta[0]
    outs = getattr(node, '_outs', None)
    if outs is None:
        raise RuntimeError(f"ember cannot tell the shape of output {nr} of {node.name()}: "
                           "make the GradientEdge with autograd.graph.get_gradient_edge() to "
                           "differentiate it as an output")
    return outs[nr]


# -- saved_tensors_hooks -------------------------------------------------------------------
class _Packed:
    """A saved tensor handed to a pack hook; the unpack hook turns it back into a tensor.

    As in torch, the unpacked tensor takes the saved one's place in the graph, whatever
    graph the hook's result has: a node's own output comes back as that node's output,
    another saved tensor that required grad comes back with its grad_fn (a leaf: feeding
    its gradient accumulator), so a gradient taken through the formulas that use it with
    ``create_graph=True`` reaches the forward graph (checkpoint's recomputed tensors
    depend on this)."""
    __slots__ = ('obj', 'unpack_hook', 'is_output', 'edge', 'output_nr')

    def __init__(self, obj, unpack_hook, is_output, edge=None, output_nr=0):
        self.obj, self.unpack_hook, self.is_output = obj, unpack_hook, is_output
        self.edge, self.output_nr = edge, output_nr

    def unpack(self, node):
        t = self.unpack_hook(self.obj)
        if type(t) not in _TENSOR_TYPES:
            _check_unpacked(t)
        if self.is_output:
            return _with_edge(t, node, self.output_nr)
        edge = self.edge
        if edge is None:
            return t
        if type(edge) is AccumulateGrad:  # a leaf: a leaf again, feeding the same sink
            r = make(t._data, None, True)
            r._vc = t._vc
            r._grad_acc = weakref.ref(edge)
            return r
        return _with_edge(t, edge, self.output_nr)


_TENSOR_TYPES = set()  # the tensor classes unpack hooks have returned (checked once each)


def _check_unpacked(t):
    """torch's TypeError unless an unpack hook's result ``t`` is a tensor."""
    from .._tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(t).__name__}")
    _TENSOR_TYPES.add(type(t))


def _with_edge(t, node, output_nr):
    """A tensor with ``t``'s data (and version counter), output ``output_nr`` of ``node``."""
    r = make(t._data, node, True)
    r._vc = t._vc
    if output_nr:
        r._output_nr = output_nr
    return r


def _pack(pack, unpack, t, detached=False):
    """``t`` packed by ``pack``, with what ``_Packed.unpack`` needs to put it back in its
    place in the graph. ``detached``: ``pack`` sees a detached alias of ``t`` (as torch's
    ``SavedTensor.register_hooks`` hands it), not ``t`` itself."""
    given = t.detach() if detached else t
    if not t.requires_grad:
        return _Packed(_pack_unmodified(pack, given), unpack, False)
    fn = t.grad_fn  # (the property: a view's grad_fn may be regenerated)
    edge = t._accumulator() if fn is None else fn
    return _Packed(_pack_unmodified(pack, given), unpack, False, edge, t._output_nr)


_HOOK_STACK = []
_SLOT = Node.__dict__['_saved']  # the slot every op's saves are written to


def _get_saved(node):
    return _SLOT.__get__(node, Node)


def _set_saved(node, saved):
    if saved is not None and saved is not _RELEASED and _HOOK_STACK:
        pack, unpack = _HOOK_STACK[-1]
        saved = tuple((_pack_entry(t, pack, unpack), version) for t, version in saved)
    _SLOT.__set__(node, saved)


def _pack_entry(t, pack, unpack, detached=False):
    """One saved entry handed to ``pack`` (None and entries packed already stay);
    ``detached`` as for ``_pack``."""
    if t is None or type(t) is _Packed:
        return t
    if type(t) is _SavedOutput:
        out = make(t.data)
        out._vc = t.version  # (the output's own counter: in-place changes show)
        return _Packed(_pack_unmodified(pack, out), unpack, True, None, t.output_nr)
    return _pack(pack, unpack, t, detached)


_PACKING = property(_get_saved, _set_saved)


def _pack_unmodified(pack, t):
    """``pack(t)``, refusing (as torch) a pack hook that modifies ``t`` in place."""
    from .grad_mode import no_grad
    version = t._vc[0]
    with no_grad():  # (torch runs pack hooks with grad mode off)
        packed = pack(t)
    if t._vc[0] != version:
        raise RuntimeError("A saved tensor pack hook is modifying its input in place. Tensors "
                           "provided as input to pack hook cannot be modified by in-place "
                           "operations as this can lead to unexpected side-effects. Please "
                           "open an issue if you need to perform in-place operations on the "
                           "input to a pack hook.")
    return packed


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor)`` runs on every tensor saved for backward inside
    it (its result is stored instead), ``unpack_hook(packed)`` turns it back into a tensor
    when backward needs it.

    >>> with saved_tensors_hooks(lambda t: t.numpy().copy(), ember.from_numpy):
    ...     y = x * x  # doctest: +SKIP
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        # Every op writes its saves into Node._saved; while hooks are active that slot is
        # wrapped by a property that packs, so ops pay nothing when no hook is in use.
        if not _HOOK_STACK:
            Node._saved = _PACKING
        _HOOK_STACK.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        if _HOOK_STACK:  # (an unbalanced extra exit is ignored, as torch does not crash)
            _HOOK_STACK.pop()
        if not _HOOK_STACK:
            Node._saved = _SLOT
        return False


def hook_stack():
    """A copy of the saved_tensors_hooks stack (None if empty), for restore_hook_stack."""
    return list(_HOOK_STACK) if _HOOK_STACK else None


def restore_hook_stack(saved):
    """Puts back a stack taken by hook_stack: contexts entered or exited inside a backward
    (in a hook) end with it, as torch restores this thread-local state after a backward."""
    _HOOK_STACK[:] = saved or ()
    Node._saved = _PACKING if _HOOK_STACK else _SLOT


class disable_saved_tensors_hooks:
    """Context manager raising if saved_tensors_hooks are used inside it."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _HOOK_STACK:
            raise RuntimeError(self.error_message)
        self._prev = saved_tensors_hooks.__enter__
        msg = self.error_message

        def refuse(hooks_self):
            raise RuntimeError(msg)
        saved_tensors_hooks.__enter__ = refuse
        return self

    def __exit__(self, *exc):
        saved_tensors_hooks.__enter__ = self._prev
        return False


def increment_version(tensor):
    """Bumps the version counter of ``tensor`` (or of each tensor in an iterable), as an
    in-place change made behind autograd's back would have to. (An inference tensor has no
    version to bump: nothing happens, as in torch.)"""
    from .._tensor import Tensor
    from .grad_mode import INFERENCE_VC
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if t._vc is not INFERENCE_VC:
            t._vc[0] += 1


def allow_mutation_on_saved_tensors():
    """Context manager under which a tensor saved for backward may be modified in place:
    the first such change clones it first, and backward uses the clone (see
    ``ember.autograd._mutation_on_saved``)."""
    from ._mutation_on_saved import allow_mutation_on_saved_tensors as context
    return context()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU during forward and moved back to their device for
    backward; ember's tensors all live on the CPU, so each is kept as a copy."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            return tensor.device, tensor.detach().clone()

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)
