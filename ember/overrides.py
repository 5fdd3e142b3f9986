"""The __torch_function__ protocol: how ember's public functions and Tensor methods hand over
to tensor-like types and Tensor subclasses, and the helpers the note lists.

Every public op is registered once (``ember._ops._core.register``); the registry wraps it in
``overridable``, whose fast path is one type test per argument: when every argument is a
plain ``Tensor`` or a plain Python value and no mode is active, the implementation runs at
once. Otherwise ``handle_torch_function`` applies the note's rules: gather the distinct
types that define ``__torch_function__``, subclasses before superclasses, otherwise left to
right; call each until one does not return ``NotImplemented``; if all do, raise TypeError.

The hot pointwise ops check inline and call ``handoff``, which has a fast path of its own
for the commonest case, one Tensor subclass among plain values: it calls the subclass's
handler at once, and when the handler passes the call on unchanged to
``Tensor.__torch_function__`` (``super().__torch_function__``), that runs a copy of the op
that skips the check and makes the subclass's result directly (``_tensor_default``).

Functions are named as the user reaches them in ember: ``ember.mul``, ``ember.Tensor.mul``
(not ``torch.mul``) in error messages.
"""
import functools
import threading

from . import _autocast

__all__ = ['has_torch_function', 'handle_torch_function', 'is_tensor_like',
           'DisableTorchFunction', 'DisableTorchFunctionSubclass', 'overridable',
           'get_overridable_functions', 'get_ignored_functions', 'get_testing_overrides',
           'resolve_name', 'TorchFunctionMode', 'is_tensor_method_or_property',
           'wrap_torch_function', 'coverage']


class _Flags:
    """One thread's switches, in slots of one object: a function fetches it once
    (``THREAD.flags``: a threading.local attribute, ~30 ns) and then reads and writes slots
    (~7 ns each), where each threading.local access would cost the 30 ns again."""
    __slots__ = ('subclass_disabled', 'args_disabled', 'all_disabled', 'modes', 'fast_args',
                 'fast_class')

    def __init__(self):
        self.subclass_disabled = False  # in a handler, or Tensor.__torch_function__'s default
        self.args_disabled = False      # in DisableTorchFunctionSubclass: no argument dispatches
        self.all_disabled = False       # in DisableTorchFunction (which sets the first too)
        self.modes = []                 # this thread's TorchFunctionModes, innermost last
        # What handoff's fast path gave the handler running now: its ``args``, and the
        # subclass's _FastClass (see handoff and _tensor_default).
        self.fast_args = self.fast_class = None


class _PerThread(threading.local):
    """Holds each thread's _Flags (made on the thread's first access)."""

    def __init__(self):
        self.flags = _Flags()


THREAD = _PerThread()
_Tensor = None  # ember.Tensor, bound by ember._tensor once it is defined
# Tensor subclasses that opt out of the protocol (``nn.Parameter``, registered by
# ember.nn.parameter): the fast paths pass them as they pass plain tensors, since a call
# with them dispatches and checks exactly as with a plain tensor.
_AS_TENSOR = set()
_retype = None  # ember._tensor.retype, bound the same way
_PLAIN = frozenset((int, float, bool, complex, type(None), str, slice, type(Ellipsis)))
_PLAIN_OR_TENSOR = _PLAIN  # and ember.Tensor, added by ember._tensor


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """Assign as ``__torch_function__`` on a Tensor subclass to opt it out of the protocol
    (such a class is never handed a call). Called (a subclass of such a class calling its
    ``super()``'s handler), it runs ``func`` with subclasses treated as plain tensors, as
    torch's does."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


_KIND = {}          # type -> 0: not overloaded, 1: Tensor subclass, 2: other tensor-like,
#                      3: real torch's Tensor (or a subclass): refused, never called (see below)
_DEFAULT_HANDLER = {}  # type -> True for a Tensor subclass keeping Tensor.__torch_function__
_PLAIN_METHOD = {}  # type -> True if its __torch_function__ is a plain (instance) method
_FAST_CLASS = {}    # Tensor subclass with a classmethod handler -> its _FastClass


class _FastClass:
    """What handoff's fast path keeps for a Tensor subclass ``cls``: ``types``, the
    ``(cls,)`` its handler gets when ``cls`` is the only overloaded type, and ``copies``:
    {op: the op's copy that makes ``cls`` results} (see _tensor_default)."""
    __slots__ = ('types', 'copies')

    def __init__(self, cls):
        self.types = (cls,)
        self.copies = {}


def _kind(t):
    """How type ``t`` takes part in the protocol (cached: this runs on every dispatch)."""
    k = _KIND.get(t)
    if k is None:
        tf = getattr(t, '__torch_function__', None)
        if tf is None or tf is _disabled_torch_function_impl:
            k = 0
        elif issubclass(t, _Tensor):
            k = 1
        else:
            k = 3 if is_torch_tensor_type(t) else 2
        _KIND[t] = k
        _PLAIN_METHOD[t] = k in (1, 2) and _defined_as_plain_method(t)
        _DEFAULT_HANDLER[t] = k == 1 and getattr(tf, '__func__', None) is _tensor_default
        if k == 1 and not _PLAIN_METHOD[t]:
            _FAST_CLASS[t] = _FastClass(t)
    return k


def _collect(relevant, found=None, types=None):
    """The distinct overloaded arguments, subclasses before superclasses, otherwise in
    order of appearance (lists and tuples of arguments are looked into, and tuples within
    those: an index such as ``x[0, (i, j)]``). Tensor subclasses take part except while
    subclass dispatch is off. (``found``/``types``: what an outer call has found so far.)"""
    flags = None
    for a in relevant:
        ta = type(a)
        if ta is _Tensor or ta in _PLAIN:
            continue
        for x in (a if ta is list or ta is tuple else (a,)):
            t = type(x)
            if t is _Tensor or t in _PLAIN:
                continue
            if t is tuple or t is list:  # (nested: rare, so simply recursive)
                found = _collect((x,), found, types)
                types = None if found is None else [type(f) for f in found]
                continue
            k = _KIND.get(t)
            if k is None:
                k = _kind(t)
            if k == 0:
                continue
            if flags is None:
                flags = THREAD.flags
            # (real torch tensors are always collected: they are refused, never run as data)
            if flags.args_disabled if k == 2 else k == 1 and flags.subclass_disabled:
                continue
            if found is None:
                found, types = [x], [t]
            elif t not in types:
                index = len(found)
                for i, other in enumerate(types):
                    if issubclass(t, other):
                        index = i
                        break
                found.insert(index, x)
                types.insert(index, t)
    return found


def has_torch_function(relevant_args):
    """True if any argument (or element of a list/tuple argument) is an overloaded type."""
    if type(relevant_args) is not tuple and type(relevant_args) is not list and \
            not hasattr(relevant_args, '__getitem__'):
        raise TypeError("expected a sequence")
    if THREAD.flags.all_disabled:
        return False
    return _modes_on() or _collect(relevant_args) is not None


def is_tensor_like(inp):
    """True for Tensors (and subclasses) and for any type that defines __torch_function__."""
    return type(inp) is _Tensor or hasattr(type(inp), '__torch_function__')


def resolve_name(f):
    """The public name of an overridable function: ``'ember.add'``, ``'ember.Tensor.add'``,
    ``'ember.Tensor.shape.__get__'``."""
    return getattr(f, '_ember_name', None) or _property_name(f)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the ``__torch_function__`` of the overloaded arguments in the note's order;
    the first result that is not NotImplemented is returned."""
    overloaded = None if THREAD.flags.all_disabled else _collect(relevant_args)
    if _modes_on():
        return _mode_dispatch(public_api, overloaded, args, kwargs)
    return dispatch(public_api, overloaded or [], args, kwargs)


def dispatch(public_api, overloaded, args, kwargs):
    """``handle_torch_function`` once the overloaded arguments are known."""
    if len(overloaded) == 1 and _DEFAULT_HANDLER.get(type(overloaded[0])):
        # One subclass that keeps Tensor's default: do what the default does, without the
        # chain of calls to reach it (the commonest kind of subclass).
        cls = type(overloaded[0])
        flags = THREAD.flags
        prev = flags.subclass_disabled
        flags.subclass_disabled = True
        try:
            result = public_api(*args, **kwargs) if kwargs else public_api(*args)
        finally:
            flags.subclass_disabled = prev
        if type(public_api) is _METHOD_WRAPPER and id(public_api.__self__) in _NOWRAP:
            return result
        return _convert(result, cls)
    types = tuple([type(a) for a in overloaded])
    # Handlers run with subclass dispatch off, as super().__torch_function__ would: a handler
    # that calls ``func`` again directly gets the plain implementation instead of itself.
    flags = THREAD.flags
    prev = flags.subclass_disabled
    flags.subclass_disabled = True
    try:
        return _call_handlers(public_api, overloaded, types, args, kwargs)
    finally:
        flags.subclass_disabled = prev


def _call_handlers(public_api, overloaded, types, args, kwargs):
    torch_tensor = None
    for arg in overloaded:
        if _KIND[type(arg)] == 3:
            # Real torch's handler would call the ember function back (recursion): the
            # other arguments' handlers may still take the call; if none does, refuse.
            torch_tensor = arg
            continue
        if _PLAIN_METHOD[type(arg)]:
            # The oldest form (the note's first ScalarTensor): torch accepts it, with a
            # deprecation warning for Tensor subclasses only; so does ember.
            if _KIND[type(arg)] == 1 and not _WARNED_PLAIN_METHOD:
                _WARNED_PLAIN_METHOD.append(True)  # once per process, as torch warns
                _warn_at_caller("Defining your `__torch_function__` as a plain method is "
                                "deprecated and will be an error in future, please define it "
                                "as a classmethod.")
            result = arg.__torch_function__(public_api, types, args, kwargs)
        else:
            result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if torch_tensor is not None:
        _refuse_torch_tensor(public_api, torch_tensor, args, kwargs)
    _no_implementation(public_api, types)


_WARNED_PLAIN_METHOD = []  # non-empty once the plain-method warning was given


def _warn_at_caller(message):
    """A UserWarning attributed to the first frame outside ember (the user's call), however
    deep in the protocol it is raised."""
    import os
    import sys
    import warnings
    here = os.path.dirname(__file__) + os.sep
    level, frame = 2, sys._getframe(1)  # (level 1: this function)
    while frame is not None and frame.f_code.co_filename.startswith(here):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, UserWarning, stacklevel=level)


def _no_implementation(public_api, types):
    """The TypeError for a call that every handler declined."""
    name = resolve_name(public_api) or getattr(public_api, '__name__', repr(public_api))
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: [{', '.join(t.__name__ for t in types)}]")


def _defined_as_plain_method(cls):
    """True if the class that defines __torch_function__ made it a plain function."""
    attr = _defining_attr(cls, '__torch_function__')
    return attr is not None and not isinstance(attr, (classmethod, staticmethod))


def _defining_attr(cls, name):
    """Attribute ``name`` as the class that defines it holds it (a classmethod object, not
    the bound method), or None."""
    for klass in cls.__mro__:
        attr = klass.__dict__.get(name)
        if attr is not None:
            return attr
    return None


CONTINUE = object()  # handoff's answer when the op should run its own implementation


def handoff(public, args, out):
    """What an op that checks the protocol inline calls when an argument (``args``, or its
    ``out=``) is not a plain Tensor or number, or a mode is on: the protocol's result, or
    CONTINUE if the op should run its own implementation."""
    fast = _FAST_CLASS.get(type(args[0]))
    if fast is not None and out is None and not MODES and (
            len(args) == 1 or type(args[1]) in _PLAIN_OR_TENSOR or type(args[1]) is type(args[0])):
        # The commonest case -- a Tensor subclass, plain values, no mode -- without collecting
        # the arguments: what dispatch would do, in one step (handlers get kwargs None when
        # there are none, as from torch's built-in functions). ``fast_args`` tells
        # Tensor.__torch_function__ that the arguments need no second look (see there).
        flags = THREAD.flags
        if flags.subclass_disabled:  # (DisableTorchFunction turns it on too)
            return CONTINUE
        flags.subclass_disabled = True
        flags.fast_args = args
        flags.fast_class = fast
        types = fast.types
        try:
            result = types[0].__torch_function__(public, types, args, None)
        finally:
            flags.subclass_disabled = False
            flags.fast_args = None
        if result is NotImplemented:
            _no_implementation(public, types)
        return result
    overloaded = overloaded_args(*args, out)
    if overloaded is None and not (MODES and _modes_on()):
        return CONTINUE
    return inline_dispatch(public, overloaded, args, None if out is None else {'out': out})


def overloaded_args(*args):
    """The arguments that take part in the protocol (None when none does, or when the
    protocol is off)."""
    return None if THREAD.flags.all_disabled else _collect(args)


def inline_dispatch(public, overloaded, args, kwargs):
    """What a function that checks the protocol itself (``handoff``, a property getter)
    calls when it must hand over: to the active modes first, then to the overloaded
    arguments."""
    if _modes_on():
        return _mode_dispatch(public, overloaded, args, kwargs)
    return dispatch(public, overloaded, args, kwargs)


def overridable(impl, public_name):
    """The public object for an op implementation: calls with tensor-like arguments go
    through the protocol; ``public_name`` is how the user reaches it (``'ember.Tensor.add'``).

    An implementation that checks the protocol itself (``_checks_protocol``: the hot
    pointwise ops, to spare a call frame) gets a copy of itself instead of a wrapper: same
    code, but its ``public`` closure cell points at the copy, so ``__torch_function__``
    receives exactly the function the user called.
    """
    if getattr(impl, '_checks_protocol', False):
        return _self_dispatching_copy(impl, public_name)
    # What the fast path runs and lets through unchecked is settled by the op's first call
    # (``first``, checked in full), from torch's signature of it (ember._ops._args): ``run``
    # becomes ``impl`` itself -- or, where ``impl`` would take fewer arguments than torch
    # does, ``impl`` behind a count of them -- and ``plain`` the plain types (int, float,
    # None ...) some parameter takes, so a float where only a Tensor goes takes the checked
    # path. Nothing is added per call.
    plain = _NOTHING
    # An op with an autocast policy tests ``_autocast.GATE`` (also non-empty while a thread
    # casts) where the others test ``MODES``: the same cost, and no cost to the others.
    cast = _autocast.policy(public_name)
    gate = MODES if cast is None else _autocast.GATE
    # {NumPy dtype: (exception, message)} of the dtypes torch's kernel of the op refuses,
    # or None (also settled by the first call)
    refused = refusable = None

    def first(*args):
        nonlocal run, plain, refused, refusable
        checker = _arguments()
        plain = checker.fast_types(public_name, _PLAIN)
        run = checker.fast_runner(public_name, impl)
        # (an op that applies torch's dtype refusals itself, in its own order, says so)
        refused = None if getattr(impl, '_refuses_dtypes', False) else \
            checker.refusals(public_name)
        if refused is not None:
            # (every dtype any form of the op refuses: a call whose first argument is a
            # tensor of another dtype cannot be refused, and skips the full check)
            refusable = frozenset(refused) | frozenset(
                checker.refusals(public_name, True) or ())
        # (this call goes on by the checked path: ``impl`` runs in the wrapper's own frame,
        # so a warning's stacklevel points where it always does)
        raise _Settled
    run = first

    @functools.wraps(impl)
    def public(*args, **kwargs):
        if not gate:
            tensor = _Tensor
            for a in args:
                t = type(a)
                if t is not tensor and t not in plain and t not in _AS_TENSOR:
                    break
            else:
                if not kwargs:
                    try:
                        if refused is None:
                            return run(*args)
                        # (the body first: its own error, where it has one, names the case)
                        r = run(*args)
                        a = args[0] if args else None
                        if type(a) is not tensor or a._data.dtype in refusable:
                            _ARGS[0].refuse_dtypes(public_name, refused, args, None)
                        return r
                    except _Settled:
                        pass
                    except Exception as e:  # noqa: BLE001 - refuse re-raises or returns
                        done = _arguments().refuse(public_name, args, None, e, impl)
                        if done is not None:  # (complex32, computed through complex64)
                            return done[0]
                        raise
        overloaded = None if THREAD.flags.all_disabled else \
            _collect(args + tuple(kwargs.values()))
        if MODES and _modes_on():
            return _mode_dispatch(public, overloaded, args, kwargs or None)
        if overloaded is None:
            checker = _arguments()
            if run is first:
                try:
                    first()
                except _Settled:
                    pass
            bound = checker.check(public_name, args, kwargs)
            if kwargs:
                args, kwargs = checker.body_args(public_name, impl, bound, args, kwargs)
            # (autocast: the op and its dtype checks see the cast arguments, and the ops it
            # is made of are not cast again until it returns)
            low = None
            if cast is not None and _autocast.state.casting is not None:
                args, kwargs, low = _autocast.enter(cast, args, kwargs)
            try:
                r = checker.call_with_out(public_name, impl, bound, args, kwargs) if \
                    kwargs and 'out' in kwargs else impl(*args, **kwargs)
                if bound is None:  # (a function torch writes in Python: its inner op's parser)
                    checker.inner_after(public_name, impl, args, kwargs)
                if refused is not None:
                    checker.refuse_dtypes(public_name, refused, args, kwargs)
                return r
            except Exception as e:  # noqa: BLE001 - refuse re-raises or returns
                done = checker.refuse(public_name, args, kwargs, e, impl, bound)
                if done is not None:  # (complex32, computed through complex64)
                    return done[0]
                raise
            finally:
                if low is not None:
                    _autocast.state.casting = low
        return dispatch(public, overloaded, args, kwargs or None)

    public._ember_name = public_name
    public._ember_impl = impl
    _name_public(public, public_name)
    return public


def operator_method(impl, public_name):
    """The public object for an operator torch writes in Python (``__pow__``, ``__rpow__``,
    ``__rsub__``, ``__floordiv__``...): handlers receive the operator itself, with
    ``kwargs={}``, and a TypeError -- from the op, or from every handler declining --
    becomes NotImplemented, so Python tries the other operand's reflected operator
    (``a ** b`` reaches ``type(b).__rpow__``), as in torch."""
    plain = _PLAIN

    def public(*args, **kwargs):
        try:
            if not MODES:
                tensor = _Tensor
                for a in args:
                    t = type(a)
                    if t is not tensor and t not in plain and t not in _AS_TENSOR:
                        break
                else:
                    if not kwargs:
                        return impl(*args)
            overloaded = None if THREAD.flags.all_disabled else \
                _collect(args + tuple(kwargs.values()) if kwargs else args)
            if MODES and _modes_on():
                return _mode_dispatch(public, overloaded, args, kwargs)
            if overloaded is None:
                # (the op torch's Python operator calls parses the arguments: a list there
                # is its TypeError, so NotImplemented)
                _arguments().check(public_name, args, kwargs)
                return impl(*args, **kwargs)
            return dispatch(public, overloaded, args, kwargs)
        except TypeError as e:
            if _arguments()._from_numpy(e):  # (NumPy refused complex32's structured dtype:
                # torch's kernel refusal, or its answer through complex64: see
                # _args._refuse_chalf)
                done = _arguments()._refuse_chalf(public_name, args, kwargs, impl)
                if done is not None:
                    return done[0]
            return NotImplemented

    functools.update_wrapper(public, impl)
    public._ember_name = public_name
    public._ember_impl = impl
    _name_public(public, public_name)
    return public


_NOTHING = frozenset()


class _Settled(Exception):
    """Raised by an op's first fast-path call once it has settled what the fast path runs
    (see ``overridable``): that call goes on by the checked path."""


_ARGS = []  # [ember._ops._args], imported on first use (it needs the op registry's package)


def _arguments():
    """The argument layer (``ember._ops._args``)."""
    if not _ARGS:
        from ._ops import _args
        _ARGS.append(_args)
    return _ARGS[0]


def _name_public(f, public_name):
    """``__name__``/``__qualname__`` as the user reaches the function (``__add__``,
    ``Tensor.__add__``), which is what __torch_function__ handlers see."""
    parts = public_name.split('.')
    f.__name__ = parts[-1]
    f.__qualname__ = '.'.join(parts[1:])


def _argument_name(impl, i):
    """The name of ``impl``'s positional parameter ``i`` (for error messages)."""
    return _arguments().param_name(impl, i)


def _self_dispatching_copy(fn, public_name):
    copy = _copy_with_cells(fn, public=None)
    copy.__doc__, copy.__qualname__, copy.__module__ = fn.__doc__, fn.__qualname__, \
        fn.__module__
    copy.__wrapped__ = fn  # (inspect.signature reads the implementation's)
    _name_public(copy, public_name)
    copy.__closure__[fn.__code__.co_freevars.index('public')].cell_contents = copy
    copy._ember_name = public_name
    copy._ember_impl = fn
    _CHECKS_INLINE[copy] = fn
    return copy


# The public ops that check the protocol inline -> the implementation handoff's fast path
# copies for them (see _tensor_default). An operator dispatching as a method (``a + b`` hands
# handlers ``Tensor.add``) adds that method here with the operator's implementation.
_CHECKS_INLINE = {}


def dispatch_as(operator, method):
    """Makes the operator ``operator`` (a public op that checks the protocol inline, e.g.
    ``Tensor.__add__``) hand ``__torch_function__`` the public object ``method``
    (``Tensor.add``), as torch does. ``method`` called with the operator's arguments and no
    keywords must do what the operator does."""
    impl = operator._ember_impl
    operator.__closure__[impl.__code__.co_freevars.index('public')].cell_contents = method
    _CHECKS_INLINE.setdefault(method, impl)


def _as_subclass_copy(impl, cls):
    """A copy of an op's implementation ``impl`` that skips the protocol check (``public`` None) and
    makes its result a ``cls`` (``result_type``): what Tensor.__torch_function__ runs when
    the check could only say "run yourself" and the result would be converted to ``cls``.
    (Called without ``out=``, the ops that check inline return a new tensor made by
    ``result``, never an argument: making it a ``cls`` at once is what ``_convert`` does.)"""
    return _copy_with_cells(impl, public=None, result_type=cls)


def _copy_with_cells(fn, **cells):
    """A copy of function ``fn`` with new closure cells holding ``cells`` (name: value); its
    other cells stay shared with ``fn``."""
    import types as _types
    closure = list(fn.__closure__)
    for name, value in cells.items():
        closure[fn.__code__.co_freevars.index(name)] = _types.CellType(value)
    copy = _types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                               tuple(closure))
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def _tensor_default(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: runs ``func`` with subclass dispatch off, then gives the
    results the subclass's type."""
    flags = THREAD.flags
    if args is flags.fast_args and not kwargs:
        # The handler passed on the arguments handoff gave it (a pass-through subclass):
        # a subclass and plain values, no mode (entering one clears ``fast_args``). If
        # ``func`` checks the protocol inline, the check could only say "run yourself" now:
        # run its copy without the check, which also makes the result a ``cls`` at once
        # instead of a Tensor converted afterwards (a second object). Same result, in half
        # the time of the general path for such a subclass (see DESIGN.md).
        fast = flags.fast_class
        if types is fast.types and cls is types[0]:
            copy = fast.copies.get(func)
            if copy is None and func in _CHECKS_INLINE:
                copy = fast.copies[func] = _as_subclass_copy(_CHECKS_INLINE[func], cls)
            if copy is not None:
                return copy(*args)
    if not resolve_name(func) and is_torch_callable(func):
        _refuse_ember_tensor(func, args, kwargs)
    for t in types:
        if not issubclass(cls, t):
            return NotImplemented
    prev = flags.subclass_disabled  # (already on when called by dispatch)
    flags.subclass_disabled = True
    try:
        result = func(*args, **kwargs) if kwargs else func(*args)
    finally:
        flags.subclass_disabled = prev
    if type(func) is _METHOD_WRAPPER and id(func.__self__) in _NOWRAP:
        return result  # .grad stays what backward made it, as in torch
    return _convert(result, cls)


_METHOD_WRAPPER = type(property().__get__)
_NOWRAP = set()  # ids of the properties whose results the default does not convert


def _convert(ret, cls):
    if cls is _Tensor:
        return ret
    if isinstance(ret, _Tensor) and not isinstance(ret, cls):
        return _retype(ret, cls)  # (as_subclass, without going through the protocol again)
    if isinstance(ret, (tuple, list)):
        converted = [_convert(r, cls) for r in ret]
        if hasattr(ret, '_fields'):  # named tuples (max, sort, ...)
            return type(ret)(*converted)
        return type(ret)(converted)
    return ret


# -- real torch in the same process ---------------------------------------------------------
# torch's Tensor defines __torch_function__, and so does ember's: each library would hand a
# call with the other's tensor to the other's handler, which calls the function again with
# the same arguments (torch's handler calls it with torch's dispatch off, ember's with
# ember's), forever. So ember recognises torch's tensors and functions -- by the name of
# the module that defines them, without importing torch -- and refuses them with a
# TypeError that names both libraries. Converting stays where torch converts NumPy arrays:
# ember.tensor / as_tensor / asarray take a torch tensor as data (``to_array``).
_TORCH_TENSOR_TYPES = {}  # type -> True if it is torch.Tensor or derives from it


def is_torch_tensor_type(t):
    """True if class ``t`` is real torch's ``torch.Tensor`` or a subclass of it (e.g. torch's
    ``nn.Parameter``); torch itself is not imported."""
    known = _TORCH_TENSOR_TYPES.get(t)
    if known is None:
        known = _TORCH_TENSOR_TYPES[t] = any(
            c.__name__ in ('Tensor', 'TensorBase') and c.__module__ in ('torch', 'torch._C')
            for c in getattr(t, '__mro__', ()))
    return known


def is_torch_callable(func):
    """True if ``func`` is one of real torch's functions, methods or property getters
    (``torch.add``, ``torch.Tensor.add``, ``torch.Tensor.shape.__get__``,
    ``torch.nn.functional.relu``)."""
    return _torch_name(func) is not None


def _torch_name(func):
    """torch's public name for one of its callables (as listed above), else None."""
    holder = getattr(func, '__self__', None)
    if getattr(holder, '__objclass__', None) is not None:  # a getter: shape.__get__
        owner, name = holder.__objclass__, f'{holder.__name__}.__get__'
    elif getattr(func, '__objclass__', None) is not None:  # a method of a C class
        owner, name = func.__objclass__, func.__name__
    else:  # a function, or a method written in Python (``Tensor.split``)
        owner, name = None, getattr(func, '__qualname__', None) or '?'
        if not name.startswith('Tensor.'):
            name = getattr(func, '__name__', name)
    module = getattr(func if owner is None else owner, '__module__', None)
    if not isinstance(module, str) or not (module == 'torch' or module.startswith('torch.')):
        return None
    if owner is not None and is_torch_tensor_type(owner) or name.startswith('Tensor.'):
        return 'torch.Tensor.' + name.split('Tensor.', 1)[-1]
    if owner is not None:
        return f'{module}.{owner.__qualname__}.{name}'
    return f'{module}.{name}'


def _position_of(target, args, kwargs):
    """(index, keyword) of the argument that is or contains ``target``."""
    for i, a in enumerate(args):
        if a is target or type(a) in (list, tuple) and any(x is target for x in a):
            return i, None
    for k, a in (kwargs or {}).items():
        if a is target or type(a) in (list, tuple) and any(x is target for x in a):
            return None, k
    return None, None


def _refuse_torch_tensor(public_api, tensor, args, kwargs):
    """The TypeError for an ember function given a real torch tensor."""
    name = resolve_name(public_api) or getattr(public_api, '__name__', repr(public_api))
    i, key = _position_of(tensor, args, kwargs)
    if key is not None:
        where = f"argument '{key}'"
    elif i is None:  # (deeper inside an argument)
        where = "an argument"
    else:
        impl = getattr(public_api, '_ember_impl', public_api)
        where = f"argument '{_argument_name(impl, i)}' (position {i + 1})"
    raise TypeError(f"{name}(): {where} must be ember.Tensor, not torch.Tensor: ember and "
                    "torch tensors do not mix. Convert it with ember.as_tensor(x) (shares "
                    "its memory) or ember.tensor(x) (a copy)")


def _refuse_ember_tensor(func, args, kwargs):
    """The TypeError for a real torch function given an ember tensor (torch asks ember's
    ``__torch_function__`` to take the call)."""
    name = _torch_name(func)
    ember_arg = next((a for a in list(args) + list((kwargs or {}).values())
                      if isinstance(a, _Tensor) or type(a) in (list, tuple)
                      and any(isinstance(x, _Tensor) for x in a)), None)
    i, key = _position_of(ember_arg, args, kwargs)
    where = f"argument '{key}'" if key is not None else \
        f"argument (position {i + 1})" if i is not None else "an argument"
    raise TypeError(f"{name}(): {where} is an ember.Tensor, not a torch.Tensor: torch and "
                    "ember tensors do not mix. Convert it with torch.from_numpy(x.numpy())")


class _FlagsOn:
    """A context manager that turns this thread's ``FLAGS`` on and restores them after."""
    FLAGS = ()

    def __enter__(self):
        flags = THREAD.flags
        self.prev = [getattr(flags, name) for name in self.FLAGS]
        for name in self.FLAGS:
            setattr(flags, name, True)

    def __exit__(self, *exc):
        flags = THREAD.flags
        for name, value in zip(self.FLAGS, self.prev):
            setattr(flags, name, value)
        return False


class DisableTorchFunctionSubclass(_FlagsOn):
    """Context manager: Tensor subclasses are treated as plain tensors inside it."""
    FLAGS = ('subclass_disabled', 'args_disabled')


class DisableTorchFunction(_FlagsOn):
    """Context manager: the protocol is off entirely inside it (tensor-likes included)."""
    FLAGS = ('all_disabled', 'subclass_disabled')


def get_overridable_functions():
    """{namespace: [functions]} for every function and Tensor method that dispatches,
    derived from the op registry (never kept by hand)."""
    import ember
    from ._ops._core import METHODS
    ignored = _ignored_dispatching() | _unlisted()
    funcs = {ember: [], ember.Tensor: []}
    for name in dir(ember):
        f = getattr(ember, name)
        if callable(f) and resolve_name(f) and f not in ignored:
            funcs[ember].append(f)
    seen = set()
    for name in METHODS:
        f = getattr(ember.Tensor, name, None)
        if f is not None and resolve_name(f) and id(f) not in seen and f not in ignored:
            seen.add(id(f))  # (an operator may be its method: Tensor.__sub__ is Tensor.sub)
            funcs[ember.Tensor].append(f)
    for name, attr in vars(ember.Tensor).items():
        if isinstance(attr, property) and id(attr) in _PROPERTY_NAMES:
            funcs[ember.Tensor].append(attr.__get__)
    for namespace in (ember.nn.functional, ember.linalg, ember.fft, ember.special):
        funcs[namespace] = [f for f in (getattr(namespace, n) for n in dir(namespace))
                            if callable(f) and resolve_name(f) and f not in ignored]
    return funcs


# Functions torch lists as ignored although they dispatch (factories taking a tensor or a
# mode's interest, and a few Tensor methods): as in torch, they hand over to a mode or an
# overloaded argument, but the overridable and testing listings leave them out.
_IGNORED_DISPATCHING = {
    '': ('arange', 'as_strided', 'empty', 'eye', 'full', 'linspace', 'logspace', 'normal',
         'ones', 'rand', 'rand_like', 'randint', 'randint_like', 'randn', 'randn_like',
         'randperm', 'scalar_tensor', 'tril_indices', 'triu_indices', 'vander', 'zeros',
         'hann_window', 'hamming_window', 'blackman_window', 'bartlett_window',
         'kaiser_window', 'result_type', 'can_cast', 'fill', 'range', 'frombuffer',
         'empty_permuted'),
    'Tensor': ('unflatten', 'new_tensor', 'new_zeros', 'new_ones', 'new_empty', 'new_full',
               'stride'),
    'fft': ('fftfreq', 'rfftfreq'),
}


# torch functions that torch lists neither as overridable nor as ignored: the in-place forms
# it has as functions too (they dispatch), and a few plain Python functions.
_UNLISTED = ('dropout_', 'alpha_dropout_', 'feature_dropout_', 'embedding_renorm_', 'celu_',
             'selu_', 'rrelu_', 'threshold_', 'while_loop', 'solve', 'lstsq', 'eig', 'symeig',
             'matrix_rank', 'compiled_with_cxx11_abi', 'to_dlpack', 'from_dlpack')


def _unlisted():
    import ember
    from ._ops import METHOD_FUNCTIONS
    return {getattr(ember, n) for n in METHOD_FUNCTIONS + _UNLISTED}


def _ignored_dispatching():
    import ember
    return {getattr(owner, n) for key, names in _IGNORED_DISPATCHING.items()
            for owner in [ember if not key else getattr(ember, key)] for n in names
            if hasattr(owner, n)}


def get_ignored_functions():
    """Public callables left out of the overridable listing, as torch leaves them out: type
    checks, configuration, conversions (which do not dispatch) and the factories and methods
    of ``_IGNORED_DISPATCHING`` (which do, as torch's do)."""
    import ember
    names = ('is_tensor', 'set_default_dtype', 'get_default_dtype', 'set_default_device',
             'get_default_device', 'set_printoptions',
             'promote_types', 'is_grad_enabled', 'is_inference_mode_enabled', 'manual_seed',
             'seed', 'initial_seed', 'get_rng_state', 'set_rng_state', 'device', 'dtype',
             'Generator', 'no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode',
             'broadcast_shapes', 'save', 'load', 'is_storage', 'typename', 'cond',
             'set_anomaly_enabled', 'is_anomaly_enabled', 'is_anomaly_check_nan_enabled',
             'set_warn_always', 'is_warn_always_enabled', 'set_flush_denormal',
             'set_default_tensor_type', 'init_num_threads', 'get_device_module', 'fork', 'wait',
             'is_vulkan_available', 'sym_constrain_range', 'sym_constrain_range_for_size',
             'sym_fresh_size',
             # configuration of the drop-in namespaces (see ember/__init__.py's _LAZY)
             'compile', 'is_autocast_enabled', 'get_autocast_dtype', 'set_num_threads',
             'get_num_threads', 'set_num_interop_threads', 'get_num_interop_threads',
             'set_float32_matmul_precision', 'get_float32_matmul_precision',
             'use_deterministic_algorithms', 'are_deterministic_algorithms_enabled',
             'is_deterministic_algorithms_warn_only_enabled', 'set_deterministic_debug_mode',
             'get_deterministic_debug_mode', 'set_autocast_enabled', 'set_autocast_dtype',
             'is_autocast_cpu_enabled', 'get_autocast_cpu_dtype', 'get_autocast_gpu_dtype',
             'is_autocast_cache_enabled', 'set_autocast_cache_enabled', 'clear_autocast_cache',
             'autocast_increment_nesting', 'autocast_decrement_nesting',
             # data in, a tensor out: they convert (torch tensors too), as torch's do
             'tensor', 'as_tensor', 'asarray', 'from_numpy',
             'install_as_torch', 'uninstall_as_torch',
             # a function transform: it dispatches nothing itself (as torch lists it)
             'vmap')
    from .amp.autocast_mode import _OLD_SPELLINGS  # (is_autocast_cpu_enabled ...)
    from ._ops import REMOVED_METHODS
    names += tuple(_OLD_SPELLINGS)
    F = ember.nn.functional  # (its deprecated wrappers call interpolate, which dispatches)
    return {getattr(ember, n) for n in names if hasattr(ember, n)} | \
        {ember.Tensor.as_subclass, ember.Tensor.__iter__, F.upsample, F.upsample_nearest,
         F.upsample_bilinear} | _ignored_dispatching() | \
        {getattr(ember.Tensor, n) for n in REMOVED_METHODS}


# -- modes ----------------------------------------------------------------------------------
# Every active mode, in any thread: the fast paths test this global first (a thread-local
# read on every op would cost more); what a thread's calls see is its own stack (its flags'
# ``modes``).
MODES = []


def _modes_on():
    """True if this thread has a mode to hand calls to (and the protocol is on)."""
    if not MODES:
        return False
    flags = THREAD.flags
    return bool(flags.modes) and not flags.all_disabled


class TorchFunctionMode:
    """Intercepts every ember function and Tensor method called inside ``with mode:``.

    Subclasses define ``__torch_function__(self, func, types, args=(), kwargs=None)``; while it
    runs, the mode is off, so calling ``func`` inside it runs the operation (or reaches the
    modes below it). Modes nest; the innermost sees calls first.
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        flags = THREAD.flags
        flags.modes.append(self)
        flags.fast_args = None  # (a handler entering a mode: its calls must reach the mode)
        MODES.append(self)
        _autocast.GATE.append(self)
        return self

    def __exit__(self, *exc):
        THREAD.flags.modes.remove(self)
        MODES.remove(self)
        _autocast.GATE.remove(self)
        return False


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every call unchanged: the base for modes that intercept a few."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _get_current_function_mode():
    """This thread's innermost active TorchFunctionMode, or None."""
    modes = THREAD.flags.modes
    return modes[-1] if modes else None


def _get_current_function_mode_stack():
    """This thread's active TorchFunctionModes, outermost first (a new list)."""
    return list(THREAD.flags.modes)


class _enable_torch_function(_FlagsOn):
    """Context manager: the protocol back on inside ``DisableTorchFunction`` (or
    ``DisableTorchFunctionSubclass``), for Tensor subclasses and tensor-likes alike."""
    FLAGS = ('all_disabled', 'subclass_disabled', 'args_disabled')

    def __enter__(self):
        flags = THREAD.flags
        self.prev = [getattr(flags, name) for name in self.FLAGS]
        for name in self.FLAGS:
            setattr(flags, name, False)


def _mode_dispatch(public_api, overloaded, args, kwargs):
    """Hands the call to the innermost mode (with that mode off while it runs); a mode that
    returns NotImplemented passes the call on to the arguments (never to the modes below it,
    as in torch): TypeError if there are none, or if they all decline too."""
    stack = THREAD.flags.modes
    mode = stack[-1]
    if _MODE_CLASSMETHOD.get(type(mode)) is None:
        _MODE_CLASSMETHOD[type(mode)] = isinstance(
            _defining_attr(type(mode), '__torch_function__'), classmethod)
    if _MODE_CLASSMETHOD[type(mode)]:
        raise RuntimeError("Defining your mode's `__torch_function__` as a classmethod is not "
                           "supported, please make it a plain method")
    # While its handler runs the mode is off: off this thread's stack, and out of the
    # global lists too, so the ops the handler calls take the fast path when no other mode
    # is on (otherwise each would parse its arguments in full, ~14 us).
    stack.pop()
    MODES.remove(mode)
    _autocast.GATE.remove(mode)
    try:
        types = tuple([type(a) for a in overloaded or ()])
        result = mode.__torch_function__(public_api, types, args, kwargs)
    finally:
        stack.append(mode)
        MODES.append(mode)
        _autocast.GATE.append(mode)
    if result is NotImplemented:
        # As torch: the arguments' handlers next, with the mode back on (never the outer
        # modes first); TypeError if they all decline too, or if there are none. A subclass
        # keeping Tensor's default runs the function again with subclass dispatch off: the
        # mode sees it once more, now with no overloaded types.
        result = dispatch(public_api, overloaded or [], args, kwargs)
    return result


_MODE_CLASSMETHOD = {}  # mode type -> True if its __torch_function__ is a classmethod


# -- listings derived from the registry -------------------------------------------------
def get_testing_overrides():
    """{overridable function: a dummy returning -1 with the function's positional
    parameters (plus ``out=None`` where the function takes ``out``)}, derived from the op
    registry; useful with ``inspect.signature``."""
    import inspect
    result = {}
    for funcs in get_overridable_functions().values():
        for f in funcs:
            result[f] = _dummy(f, inspect)
    return result


def _dummy(f, inspect):
    impl = getattr(f, '_ember_impl', None)
    if impl is None and _property_name(f):
        impl = lambda self: None  # noqa: E731 - a property getter takes the tensor only
    try:
        sig = inspect.signature(impl)
    except (TypeError, ValueError):
        sig = inspect.Signature()
    P = inspect.Parameter
    # (``*deprecated``: torch's deprecated argument orders -- add(input, alpha, other) --
    # which its dummies leave out)
    params = [p for p in sig.parameters.values()
              if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD, P.VAR_POSITIONAL)
              and not (p.kind is P.VAR_POSITIONAL and p.name == 'deprecated')]
    if 'out' in sig.parameters and not any(p.name == 'out' for p in params) and \
            not any(p.kind is P.VAR_POSITIONAL for p in params):
        params.append(P('out', P.POSITIONAL_OR_KEYWORD, default=None))

    def dummy(*args, **kwargs):
        return -1
    dummy.__signature__ = inspect.Signature(params)
    dummy.__name__ = f.__name__
    return dummy


def dispatching_property(prop, name):
    """``prop`` with a getter that goes through the protocol; handlers receive the new
    property's ``__get__`` as ``func`` (as torch passes ``Tensor.shape.__get__``)."""
    fget = prop.fget
    holder = []

    def getter(self):
        if type(self) is _Tensor and not MODES:
            return fget(self)
        overloaded = None if THREAD.flags.all_disabled else _collect((self,))
        if overloaded is None and not (MODES and _modes_on()):
            return fget(self)
        return inline_dispatch(holder[0].__get__, overloaded, (self,), None)
    getter.__name__ = getter.__qualname__ = name
    getter.__doc__ = fget.__doc__
    new = property(getter, prop.fset, prop.fdel, prop.__doc__)
    holder.append(new)
    _PROPERTY_NAMES[id(new)] = name
    if name == 'grad':
        _NOWRAP.add(id(new))
    return new


_PROPERTY_NAMES = {}  # id(property) -> name, to name a property's __get__ in messages


def _property_name(f):
    owner = getattr(f, '__self__', None)
    if isinstance(owner, property) and id(owner) in _PROPERTY_NAMES:
        return f'ember.Tensor.{_PROPERTY_NAMES[id(owner)]}.__get__'
    return None


def is_tensor_method_or_property(func):
    """True for Tensor methods (and property getters) that dispatch."""
    name = resolve_name(func) or ''
    return name.startswith('ember.Tensor.')


def wrap_torch_function(dispatcher):
    """Decorator making a user function overridable: ``dispatcher(*args, **kwargs)``
    returns the arguments to look at for tensor-likes."""
    def deco(fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            overloaded = None if THREAD.flags.all_disabled else _collect(relevant)
            modes = MODES and _modes_on()
            if overloaded is None and not modes:
                return fn(*args, **kwargs)
            if modes:
                return _mode_dispatch(wrapped, overloaded, args, kwargs)
            return dispatch(wrapped, overloaded, args, kwargs)
        wrapped._ember_impl = fn
        wrapped._ember_name = f'{fn.__module__}.{fn.__qualname__}'
        return wrapped
    return deco


def coverage(cls, make=None, *, verbose=False):
    """Calls every overridable function with instances of ``cls`` (made by ``make()``,
    default ``cls()``) in its tensor positions, and sorts the functions into those ``cls``
    handles, those it returns NotImplemented for, and those that raise something else.

    >>> report = coverage(ScalarTensor, lambda: ScalarTensor(2, 2))  # doctest: +SKIP
    >>> report['handled']                                             # doctest: +SKIP
    ['ember.add', 'ember.mean']
    """
    import inspect
    make = make or cls
    report = {'handled': [], 'not_implemented': [], 'raised': []}
    for f, dummy in get_testing_overrides().items():
        params = [p for p in inspect.signature(dummy).parameters.values()
                  if p.default is p.empty and p.kind is not p.VAR_POSITIONAL]
        args = [make() for _ in params] or [make()]
        name = resolve_name(f)
        try:
            r = f(*args)
        except TypeError as e:
            key = 'not_implemented' if 'no implementation found' in str(e) else 'raised'
            report[key].append(name if key != 'raised' else (name, f'TypeError: {e}'))
        except Exception as e:  # noqa: BLE001 - what a type's handler raises is the report
            report['raised'].append((name, f'{type(e).__name__}: {e}'))
        else:  # (an operator torch writes in Python answers NotImplemented instead)
            report['not_implemented' if r is NotImplemented else 'handled'].append(name)
    for v in report.values():
        v.sort(key=lambda x: x if isinstance(x, str) else x[0])
    if verbose:
        print(f"coverage({cls.__name__}): {len(report['handled'])} handled, "
              f"{len(report['not_implemented'])} NotImplemented, {len(report['raised'])} "
              "raised")
    return report
