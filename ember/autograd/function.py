"""Custom autograd Functions: ``class MyFn(Function)`` with ``forward``/``backward``.

Each Function subclass gets a graph-node class of its own, ``<Name>Backward``; the ``ctx``
that ``forward`` receives *is* that node, so everything forward stashes on ctx is there for
``backward`` with no copying. ``apply`` runs forward with grad mode off, then wires the
outputs into the graph the same way built-in ops are wired.
"""
import inspect
import sys
import warnings

import numpy as np

from .._tensor import Tensor, make
from .grad_mode import STATE
from .graph import Node, SavedTensor, _SavedOutput, _RELEASED, _TWICE, next_seq
from .forward_ad import FWD, tangent_of, flush
from .anomaly_mode import ANOMALY, record as record_trace
from .._ops._core import edge, rebase, link_view, check_view_rewritable
from .._ops.shape import view

__all__ = ['Function', 'FunctionCtx', 'once_differentiable', 'BackwardCFunction',
           'InplaceFunction']

_new = object.__new__


class FunctionCtx:
    """The methods ``forward`` (or ``setup_context``) may call on ``ctx``."""

    def save_for_backward(self, *tensors):
        """Saves tensors (inputs, outputs, or None) for ``backward``; gradients flow through
        them in double backward, and modifying them in place before backward is an error."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Saves tensors for ``jvp`` (forward-mode AD)."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Declares inputs that ``forward`` modified in place (they must be returned)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Declares outputs that never require grad (their gradient is always zero)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """With False, ``backward`` gets None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = bool(value)


_CLEARED = object()  # a node's _saved once clear_saved_tensors_on_access handed them out


class BackwardCFunction(Node, FunctionCtx):
    """The graph node of a custom Function: calls the user's ``backward`` with itself as ctx."""
    _forward_cls = None
    materialize_grads = True
    to_save = None
    dirty_tensors = ()
    non_differentiable = ()
    _skip = None   # positions of the non-tensor arguments, whose gradients must be None
    _non_diff_nrs = frozenset()  # positions of the outputs marked non-differentiable
    _is_pure_view = False  # set by a forward whose output is a plain view of its input
    _n_args = 0

    def apply(self, grads):
        cls = self._forward_cls
        if STATE.enabled:  # create_graph: the backward's own graph is being recorded
            _guard_stashed_tensors(self)
        res = cls._backward_impl(self, *grads)
        if type(res) is not tuple:
            res = (res,)
        n_args = self._n_args
        if len(res) != n_args:
            if len(res) > n_args and all(r is None for r in res[n_args:]):
                res = res[:n_args]
            else:
                raise RuntimeError(_count_error(self, cls, len(res)))
        skip = self._skip
        if skip is None:
            return res
        for i in skip:
            if res[i] is not None:
                name = _forward_param_names(cls, n_args)[i]
                raise RuntimeError(
                    f"function {type(self).__name__} returned a gradient different than "
                    f"None at position {i + 1}, but the corresponding forward input was "
                    f"not a Variable\n{cls.__name__}.backward returned a tensor for '{name}' "
                    f"(argument {i} of {cls.__name__}.forward), which was not a tensor; return "
                    "None in that position.")
        if len(skip) == 1:  # (the common case, e.g. MulConstant's constant)
            i = skip[0]
            return res[:i] + res[i + 1:]
        return tuple([r for i, r in enumerate(res) if i not in skip])

    def _param_of_edge(self, i):
        """Forward's parameter name and position for gradient edge ``i`` (tensor args only)."""
        skip = self._skip or ()
        positions = [p for p in range(self._n_args) if p not in skip]
        pos = positions[i] if i < len(positions) else i
        return _forward_param_names(self._forward_cls, self._n_args)[pos], pos

    def explain_gradient(self, i, got, expected):
        """ember's addition to torch's wrong-shape message: which parameter, which shapes."""
        name, pos = self._param_of_edge(i)
        fn = self._forward_cls.__name__
        return (f"\n{fn}.backward returned a gradient of shape {list(got)} for '{name}' "
                f"(argument {pos} of {fn}.forward), whose shape is {list(expected)}. Each "
                "gradient must have its input's shape (or broadcast to it).")

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, checked for in-place modification.
        With ``clear_saved_tensors_on_access = True`` on the Function, the node lets go of
        them on this first access (a second one is an error)."""
        saved = self._saved
        if saved is None:
            return ()
        if saved is _CLEARED:
            raise RuntimeError(
                'saved_tensors can only be accessed once when '
                'clear_saved_tensors_on_access=True is set on the autograd.Function. Either '
                'access saved_tensors only once, or set clear_saved_tensors_on_access=False.')
        out = tuple(Node.saved_tensors.fget(self))
        if self._forward_cls.clear_saved_tensors_on_access:
            self._saved = _CLEARED
        return out

    @property
    def _raw_saved_tensors(self):
        """torch's ``SavedTensor`` handles on what ``save_for_backward`` saved (one per
        saved value, None included: that shows only when hooks are registered on it)."""
        saved = self._saved
        if saved is None:
            return ()
        if saved is _RELEASED or saved is _CLEARED:
            raise RuntimeError(_TWICE)
        return tuple(SavedTensor._of(self, i) for i in range(len(saved)))

    @property
    def saved_variables(self):
        """The old name of ``saved_tensors`` (deprecated, as in torch)."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'",
                      DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def _out_meta(self):
        return self._outs


def _count_error(node, cls, got):
    expected = node._n_args
    msg = (f"function {type(node).__name__} returned an incorrect number of gradients "
           f"(expected {expected}, got {got})")
    # ember goes further than torch: say which forward parameters are concerned.
    names = _forward_param_names(cls, expected)
    if got < expected:
        missing = ', '.join(names[got:expected])
        msg += (f"\n{cls.__name__}.backward must return one gradient per argument of "
                f"{cls.__name__}.forward ({', '.join(names[:expected])}); it returned none for "
                f"{missing}. Return None for an input that needs no gradient.")
    else:
        msg += (f"\n{cls.__name__}.forward takes {expected} argument(s) "
                f"({', '.join(names[:expected])}) but backward returned {got} values; extra "
                "trailing values are only allowed if they are None.")
    return msg


def _forward_param_names(cls, n):
    try:
        params = list(inspect.signature(cls.forward).parameters)
    except (TypeError, ValueError):
        params = []
    if params and not _uses_setup_context(cls) and params[0] in ('ctx', 'context', 'self'):
        params = params[1:]
    names = [p for p in params][:n]
    return names + [f'arg{i}' for i in range(len(names), n)]


def _uses_setup_context(cls):
    return cls._setup_style


class FunctionMeta(type):
    """Gives every Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + 'Backward', (BackwardCFunction,), {'_forward_cls': cls})
        backward_cls.__module__ = cls.__module__
        backward_cls.__qualname__ = name + 'Backward'
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)
        # Decided once per class, not on every call: which forward style, which backward.
        base = globals().get('_SingleLevelFunction')
        if base is not None:
            cls._setup_style = cls.setup_context is not base.setup_context
            if cls.backward is not base.backward and cls.vjp is not base.vjp:
                cls._backward_impl = staticmethod(_both_backward_and_vjp)
            else:
                cls._backward_impl = staticmethod(
                    cls.backward if cls.backward is not base.backward else cls.vjp)


def _both_backward_and_vjp(ctx, *grads):
    raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not "
                       "allowed. You should only implement one of them.")


class _SingleLevelFunction(metaclass=FunctionMeta):
    @staticmethod
    def forward(*args, **kwargs):
        """Computes the outputs; override it (``forward(ctx, ...)`` or, with
        ``setup_context``, ``forward(...)``)."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Saves what backward needs when ``forward`` does not take ctx (newer style)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Gradient formula: one gradient (or None) per forward argument."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    # (as torch; ember's vmap runs forward once per batch element, so it needs no rule)
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """torch.func.vmap's rule for this Function; ember's vmap loops and never asks for
        one, so none is given."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either "
                                  "override the vmap staticmethod or set "
                                  "generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode formula: one tangent per output."""
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")


# The metaclass ran before these two existed; give them the per-class decisions too.
_SingleLevelFunction._setup_style = False
_SingleLevelFunction._backward_impl = _SingleLevelFunction.backward


class Function(_SingleLevelFunction):
    """Base class of custom differentiable operations.

    >>> class Exp(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         y = x.exp()
    ...         ctx.save_for_backward(y)
    ...         return y
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (y,) = ctx.saved_tensors
    ...         return g * y
    >>> Exp.apply(ember.ones(2, requires_grad=True))
    tensor([2.7183, 2.7183], grad_fn=<ExpBackward>)
    """
    # True: the node drops its saved tensors when backward reads ctx.saved_tensors (once).
    clear_saved_tensors_on_access = False

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(f"{type(self).__name__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: https://pytorch.org/docs/stable/"
                           "autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs ``forward`` and records the call in the graph; returns its output(s)."""
        levels = sys.modules.get('ember.func._levels')
        if levels is not None and levels.RUNNING:  # (inside torch.func.vmap, grad, jvp...)
            levels.check_function(cls)
        if kwargs or (cls._setup_style and _signature(cls)[2]):
            # (with setup_context, ``inputs`` holds forward's defaulted arguments too)
            args, kwargs = _bind(cls, args, kwargs)
        needs = tuple([isinstance(a, Tensor) and a._requires_grad for a in args])
        grad_on = STATE.enabled
        record = grad_on and True in needs

        ctx = _new(cls._backward_cls)
        ctx._saved = None
        ctx._seq = next_seq()
        ctx.needs_input_grad = needs
        if ANOMALY.enabled:
            record_trace(ctx)
        fw_level = FWD.level
        if fw_level is not None:
            flush()           # pending tangents first: forward may modify its inputs in place
            FWD.level = None  # as in torch, forward runs with forward AD off; jvp decides
        STATE.enabled = False
        try:
            if cls._setup_style:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            STATE.enabled = grad_on
            if fw_level is not None:
                FWD.level = fw_level

        if record:
            _record_inputs(ctx, args)
        if ctx._is_pure_view:
            _check_pure_view(args, outputs)
        special = ctx.dirty_tensors or ctx.non_differentiable
        if (not special and fw_level is None and type(outputs) is Tensor
                and outputs._data.dtype.kind in 'fcV'):
            # The common case, inline: one new float output, nothing marked.
            for a in args:
                if outputs is a:
                    outputs = _alias_of(outputs)
                    break
            if outputs._base is not None:
                outputs._made_by_function = cls.__name__
                if ctx._is_pure_view:
                    _mark_pure_view(args, (outputs,))
            if record:
                outputs._gfn = ctx
                outputs._requires_grad = True
                if ctx.to_save is not None:
                    _save(ctx, (outputs,))
            else:
                ctx.to_save = None
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if special:
            outs = _wire_outputs(ctx, args, outs, record)
        else:
            outs = _wire_plain_outputs(ctx, args, outs, record)
        if FWD.level is not None:
            _forward_ad(cls, ctx, args, outs)
        if ctx._is_pure_view:
            _mark_pure_view(args, outs)
        if ctx.dirty_tensors:
            # (as torch: dropped once used, so no cycle runs node -> dirty tensor -> node)
            ctx.dirty_tensors = None
        return outs[0] if single else outs


class InplaceFunction(Function):
    """A Function that may work in place: ``inplace`` is recorded for ``forward`` to read
    (legacy style, as torch keeps it)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


def _forward_ad(cls, ctx, args, outs):
    """Calls ``jvp`` right after forward when an input carries a tangent, and gives the
    outputs the tangents it returns (inputs without one get zeros, or None when
    ``set_materialize_grads(False)``)."""
    tangents = [tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    if cls.jvp is _SingleLevelFunction.jvp:
        raise RuntimeError("You must implement the jvp function for custom autograd.Function "
                           "to use it with forward mode AD.")
    if ctx.materialize_grads:  # (an integer input has no tangent: it stays None)
        tangents = [make(np.zeros_like(a._data)) if t is None and isinstance(a, Tensor)
                    and a._data.dtype.kind in 'fcV' else t for a, t in zip(args, tangents)]
    # (a dirty input's tangent must be modified in place: its version has to move)
    versions = [None if t is None else t._vc[0] for t in tangents]
    grad_on = STATE.enabled
    STATE.enabled = False
    # in jvp, ctx.saved_tensors are what save_for_forward saved (nothing if it was not called)
    saved_bw = ctx._saved
    fw_saved = ctx.__dict__.get('saved_for_forward')
    ctx._saved = (None if fw_saved is None else
                  tuple((None, 0) if t is None else (t, t._vc[0]) for t in fw_saved))
    try:
        out_tangents = cls.jvp(ctx, *tangents)
    finally:
        STATE.enabled = grad_on
        ctx._saved = saved_bw
    if not isinstance(out_tangents, tuple):
        out_tangents = (out_tangents,)
    if len(out_tangents) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(out_tangents)})")
    dirty = {id(d) for d in ctx.dirty_tensors}
    for i, (o, t) in enumerate(zip(outs, out_tangents)):
        if t is not None and not (isinstance(o, Tensor) and o._data.dtype.kind in 'fcV'):
            raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the "
                               "corresponding forward output is not a differentiable Tensor."
                               "You should return None at that position instead.")
        if isinstance(o, Tensor) and t is not None:
            if id(o) in dirty:
                k = next(i for i, a in enumerate(args) if a is o)
                if t is not tangents[k] or t._vc[0] == versions[k]:
                    raise RuntimeError(
                        "An inplace custom Function is not modifying the forward mode gradients "
                        "inplace. If the forward is modifying an input inplace, then the jvp "
                        "function must modify the corresponding gradient inplace.")
            elif o._base is not None:
                _check_view_tangent(o, t, args, tangents)
            if t._data.shape != o._data.shape:
                raise RuntimeError(
                    "Trying to set a forward gradient that has a different size than that of "
                    "the original Tensor, this is not supported. Tensor is of size "
                    f"{list(o._data.shape)} while the given forward gradient is of size "
                    f"{list(t._data.shape)}.")
            o._fw = (FWD.level, t)


def _check_view_tangent(o, t, args, tangents):
    """torch's rule: when forward returns a view of an input, jvp must return a view of
    that input's tangent (of its base, when the tangent is itself a view)."""
    k = next((k for k, a in enumerate(args) if isinstance(a, Tensor)
              and o._base is (a if a._base is None else a._base)), None)
    if k is None:
        return
    if t._base is None:
        raise RuntimeError("A custom Function's forward is returning a view (or an input "
                           "as-is) but the jvp is not returning a view.")
    given = tangents[k]
    if given is None:
        return
    if given._base is None and t._base is not given:
        raise RuntimeError("A custom Function is returning a view but the jvp is not "
                           "returning a view of the given grad input.")
    if given._base is not None and t._base is not given._base:
        raise RuntimeError("A custom Function is returning a view but the jvp is not "
                           "returning a view of the same base as the given grad input.")


def _bind(cls, args, kwargs):
    """Puts keyword arguments in forward's positional order (torch tracks tensors passed by
    keyword too); keywords forward declares as keyword-only stay keywords."""
    sig, has_ctx, has_defaults = _signature(cls)
    bound = sig.bind_partial(*((None,) + args if has_ctx else args), **kwargs)
    if has_defaults and not has_ctx:
        bound.apply_defaults()
    positional, rest = [], {}
    for name, value in bound.arguments.items():
        p = sig.parameters[name]
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional.append(value)
        elif p.kind == p.VAR_POSITIONAL:
            positional.extend(value)
        elif p.kind == p.VAR_KEYWORD:
            rest.update(value)
        else:
            rest[name] = value
    if has_ctx:
        positional = positional[1:]
    return tuple(positional), rest


def _signature(cls):
    """forward's signature, whether it takes ctx first and whether it has defaulted
    parameters (cached on the class)."""
    sig = cls.__dict__.get('_forward_signature')
    if sig is None:
        full = inspect.signature(cls.forward)
        sig = (full, not _uses_setup_context(cls),
               any(p.default is not p.empty for p in full.parameters.values()))
        cls._forward_signature = sig
    return sig


def _record_inputs(ctx, args):
    """The node's edges, one per tensor argument, in one pass (this runs on every call)."""
    edges, meta, ids, skip = [], [], [], None
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            edges.append(edge(a))
            d = a._data
            meta.append((d.shape, d.dtype))
            ids.append(id(a))
        elif skip is None:
            skip = [i]
        else:
            skip.append(i)
    ctx.next_functions = tuple(edges)
    ctx._meta = tuple(meta)
    ctx._input_ids = ids
    ctx._n_args = len(args)
    if skip is not None:
        ctx._skip = skip


def _wire_plain_outputs(ctx, args, outs, record):
    """``_wire_outputs`` for the common case: nothing marked dirty or non-differentiable."""
    result = []
    for nr, o in enumerate(outs):
        if isinstance(o, Tensor):
            for a in args:
                if o is a:  # an input returned unchanged becomes a new tensor viewing it
                    o = _alias_of(o)
                    break
            if o._base is not None:
                _mark_function_view(ctx, o, nr, outs)
            if record and o._data.dtype.kind in 'fcV':
                o._gfn = ctx
                o._requires_grad = True
                if nr:
                    o._output_nr = nr
        result.append(o)
    if record:
        if len(outs) > 1:
            ctx.n_outputs = len(outs)
            ctx._outs = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor)
                              else ((), None) for o in result)
        if ctx.to_save is not None:
            _save(ctx, result)
    else:
        ctx.to_save = None
    return tuple(result)


def _mark_function_view(ctx, o, nr, outs):
    """Output ``o`` (number ``nr``) of a custom Function is a view: it may not be modified
    in place (the message says why: made inside the Function, or one of several outputs)."""
    name = ctx._forward_cls.__name__
    o._made_by_function = name
    if sum(isinstance(x, Tensor) for x in outs) > 1:
        o._multi_view_of = (name, nr)


def _check_pure_view(args, outputs):
    """A Function that set ``ctx._is_pure_view`` (its output is a plain view of its input)
    must take one tensor and return one."""
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    if (sum(isinstance(a, Tensor) for a in args) != 1
            or sum(isinstance(o, Tensor) for o in outs) != 1):
        raise RuntimeError("Pure view custom Function can only have one input Tensor and one "
                           "output Tensor. Open an issue if you need to support more.")


def _mark_pure_view(args, outs):
    """The output of a pure-view Function that views its input is an ordinary view of it:
    an in-place op on it rewrites the input's history and replays the view (its custom
    backward is bypassed then). A view of anything else may not be modified in place."""
    from .._ops._core import PURE_VIEW, PURE_VIEW_OF_TEMP, WATCHED
    (inp,) = [a for a in args if isinstance(a, Tensor)]
    for o in outs:
        if isinstance(o, Tensor) and o._base is not None:
            if o._base is (inp if inp._base is None else inp._base):
                o._made_by_function = PURE_VIEW
                o._no_grad_view = False
                if o._seen == WATCHED:  # (made under forward's no_grad, but no no-grad view)
                    o._seen = o._made_at[1]
            else:
                o._made_by_function = PURE_VIEW_OF_TEMP


def _alias_of(t):
    """A view of ``t`` over the same memory; recorded as ``t.view(t.shape)`` so it can be
    viewed further and replayed like any other view."""
    alias = make(t._data)
    if type(t) is not Tensor:  # a subclass stays itself, as in torch
        alias.__class__ = type(t)
    alias._vc = t._vc
    link_view(alias, t, view, tuple(t._data.shape))
    return alias


def _wire_outputs(ctx, args, outs, record):
    """Makes each output tensor an output of ``ctx`` (the node), handling inputs returned as
    outputs, in-place-modified (dirty) inputs and non-differentiable outputs."""
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    inputs = {id(a): a for a in args if isinstance(a, Tensor)}
    if dirty:
        returned = {id(o) for o in outs}
        for t in ctx.dirty_tensors:
            if id(t) not in returned:
                raise RuntimeError("Some elements marked as dirty during the forward method "
                                   "were not returned as output. The inputs that are modified "
                                   "inplace must all be outputs of the Function.")
        if (any(t._base is not None for t in ctx.dirty_tensors)
                and sum(isinstance(o, Tensor) for o in outs) > 1):
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, "
                "your Function cannot return more than one Tensor. This is not supported by the "
                "current autograd engine. You should either make sure the input is not a view "
                "(using .clone() for example) or make your Function only return one Tensor "
                "(potentially splitting it into two Functions: one doing the inplace that "
                "returns a single Tensor and a second one that does the other operations). You "
                "can ask on the forum https://discuss.pytorch.org/ if you need help to do this "
                "change.")
    result = []
    for nr, o in enumerate(outs):
        if not isinstance(o, Tensor):
            result.append(o)
            continue
        differentiable = id(o) not in non_diff  # (by identity: before any aliasing below)
        if id(o) in dirty:
            if record:
                _check_dirty(o, id(o) in inputs)
            o._vc[0] += 1  # as torch does for every tensor marked dirty
        elif id(o) in inputs:
            o = _alias_of(o)  # an input returned unchanged becomes a new tensor viewing it
        if o._base is not None and id(o) not in dirty:
            _mark_function_view(ctx, o, nr, outs)
        if record and differentiable and o._data.dtype.kind in 'fcV':
            if id(o) in dirty and o._base is not None:
                # A view modified in place: its base's history goes through CopySlices,
                # exactly as for a built-in in-place op on a view.
                new = make(o._data, ctx, True)
                new._output_nr = nr
                rebase(o, new)
            else:
                o._gfn = ctx
                o._requires_grad = True
                o._output_nr = nr
        elif record and id(o) in dirty:
            o._gfn = None
        result.append(o)
    if record:
        ctx.n_outputs = len(outs)
        if non_diff:
            ctx._non_diff_nrs = frozenset(k for k, o in enumerate(outs) if id(o) in non_diff)
        ctx._outs = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), None)
                          for o in result)
        _save(ctx, result)
    else:
        ctx.to_save = None
    return tuple(result)


def _check_dirty(t, is_input):
    """torch's rules for a tensor given to ``mark_dirty``, as for a built-in in-place op."""
    if t._gfn is None and t._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    if not is_input:
        msg = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
               "that have been mutated should be passed to ctx.mark_dirty().")
        warnings.warn(msg, stacklevel=4)
        if t._base is not None:  # (its history could not be rewritten through the base)
            raise RuntimeError(msg)
    base = t._base
    if base is not None:  # (torch's order: the view's own kind first, then its base)
        check_view_rewritable(t)
        if base._gfn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")


def _save(ctx, outputs):
    """Turns ``save_for_backward``'s tensors into version-checked saved tensors; outputs are
    kept without a reference cycle and come back with this node as their grad_fn."""
    tensors = ctx.to_save
    ctx.to_save = None
    if tensors is None:
        return
    out_ids = {id(o): o for o in outputs if isinstance(o, Tensor)}
    saved = []
    for t in tensors:
        if t is None:
            saved.append((None, 0))
        elif id(t) in out_ids and (t._gfn is ctx or (t._base is not None and any(
                t is d for d in ctx.dirty_tensors))):
            # (a view marked dirty has the history of its base's CopySlices, which leads
            # back to this node: it comes back as this node's output, the same gradient path)
            saved.append((_SavedOutput(t), t._vc[0]))
        else:
            saved.append((t, t._vc[0]))
    ctx._saved = tuple(saved)


class _StashedTensorError(Node):
    """grad_fn given to a tensor that forward stashed as a plain ctx attribute, once backward
    runs with create_graph: reaching it in a double backward means a gradient would have
    been silently lost (pytorch#58509), so it raises and says what to do instead."""

    def backward(self, *grads):
        fn, name = self.function, self.attribute
        raise RuntimeError(
            f"{fn}.backward used ctx.{name}, a tensor that {fn}.forward computed but did not "
            "return or pass to ctx.save_for_backward. Its dependence on the inputs is invisible "
            "to autograd, so differentiating through it (double backward) would silently give "
            "a wrong result (torch does, pytorch#58509). Return it as an output of "
            f"{fn} and save it with ctx.save_for_backward, or recompute it inside backward from "
            "the saved inputs. If it truly is a constant, store it as a NumPy array or a "
            "number instead of a tensor.")


_CTX_INTERNALS = frozenset(('needs_input_grad', 'to_save', 'saved_for_forward',
                            'dirty_tensors', 'non_differentiable'))


def _guard_stashed_tensors(ctx):
    """Gives every float tensor forward stashed on ctx (not an input, not an output, not
    saved) a grad_fn that raises if double backward reaches it. Done once per node, and only
    when backward builds a graph, so plain backward pays nothing."""
    d = ctx.__dict__
    if '_stash_guarded' in d:
        return
    d['_stash_guarded'] = True
    inputs = set(d.get('_input_ids', ()))
    for name, value in list(d.items()):
        if (name.startswith('_') or name in _CTX_INTERNALS or not isinstance(value, Tensor)
                or value._requires_grad or id(value) in inputs
                or value._data.dtype.kind not in 'fcV'):
            continue
        err = _new(_StashedTensorError)
        err.next_functions = ctx.next_functions  # where the lost gradient would have gone
        err._meta = ctx._meta
        err._saved = None
        err._seq = next_seq()
        err.function, err.attribute = ctx._forward_cls.__name__, name
        guarded = make(value._data, err, True)
        guarded._vc = value._vc
        d[name] = guarded


class Error(Node):
    """Stands in for the graph of a once_differentiable backward: differentiating it raises
    (named ``Error``, as torch's node). ``refuse_double_backward`` gives one its own message."""
    message = ("trying to differentiate twice a function that was marked with "
               "@once_differentiable")

    def backward(self, *grads):
        raise RuntimeError(self.message)


def refuse_double_backward(t, message):
    """``t`` (a gradient a backward just computed with grad mode on) behind an ``Error`` node
    that raises ``message`` if a double backward reaches it, as torch's formulas do where
    their derivative is undefined."""
    err = object.__new__(Error)
    err.next_functions = (edge(t),)
    err._meta = ((t._data.shape, t._data.dtype),)
    err._saved = None
    err._seq = next_seq()
    err.n_outputs = 1
    err._outs = err._meta
    err.message = message
    return make(t._data, err, True)


def once_differentiable(fn):
    """Decorator for a ``backward`` that is not itself differentiable: it runs with grad mode
    off, and differentiating its result (double backward) raises a clear error."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        grad_on = STATE.enabled
        STATE.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            STATE.enabled = grad_on
        if not grad_on:
            return outputs
        requires = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        if not requires:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = object.__new__(Error)
        # As in torch, the error node hangs off placeholder leaves, not off the real graph:
        # backward() through it raises, while a gradient w.r.t. real tensors does not reach
        # it. One edge per output, an empty one where the output is None or not a float.
        ins = [make(o._data).requires_grad_() if isinstance(o, Tensor) and
               o._data.dtype.kind in 'fcV' else None for o in outs]
        err.next_functions = tuple((None, 0) if a is None else edge(a) for a in ins)
        err._meta = tuple(None if a is None else (a._data.shape, a._data.dtype) for a in ins)
        err._saved = None
        err._seq = next_seq()
        err.n_outputs = len(outs)
        err._outs = tuple(((), None) if a is None else m for a, m in zip(ins, err._meta))
        wrapped = []
        for nr, (o, a) in enumerate(zip(outs, ins)):
            if a is not None:
                o = make(o._data)
                o._gfn = err
                o._requires_grad = True
                if nr:
                    o._output_nr = nr
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)
    wrapper._once_differentiable = True  # (check_function skips gradgradcheck for it)
    return wrapper
