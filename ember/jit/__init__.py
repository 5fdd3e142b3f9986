"""ember.jit: TorchScript's decorators and entry points, running the Python code eagerly.

ember has no compiler: ``script`` and ``trace`` give back something that runs the original
Python, so results are identical to calling it directly (a module comes back as itself, a
function as a ``ScriptFunction`` wrapping it). The decorators (``ignore``, ``unused``,
``export``, ``script_method``, ``interface``) return what they decorate, ``is_scripting()``
and ``is_tracing()`` are False. Saving or loading TorchScript archives is not possible:
``save``/``load`` raise NotImplementedError (save a ``state_dict`` with ``ember.save``).
"""
import collections
import contextlib
import functools
import typing
import warnings

__all__ = ['script', 'trace', 'trace_module', 'ignore', 'unused', 'export', 'script_method',
           'interface', 'annotate', 'script_if_tracing', 'isinstance', 'is_scripting',
           'is_tracing', 'ScriptModule', 'ScriptFunction', 'Final', 'Attribute', 'fork', 'wait',
           'freeze', 'optimize_for_inference', 'save', 'load', 'enable_onednn_fusion',
           'onednn_fusion_enabled', 'optimized_execution']

Final = typing.Final
Attribute = collections.namedtuple('Attribute', ['value', 'type'])
_builtin_isinstance = isinstance
_onednn = [False]


def _deprecated(name, instead='Please switch to `torch.compile` or `torch.export`.'):
    # (attributed to torch.jit itself, as torch's are: Python's default filters then hide
    # the DeprecationWarning from a script's __main__, and torch shows nothing there)
    warnings.warn(f'`torch.jit.{name}` is deprecated. {instead}', DeprecationWarning)


def __getattr__(name):
    # ScriptModule subclasses ember.nn.Module: made on first use so `ember.jit` does not
    # import ember.nn.
    if name == 'ScriptModule':
        from ._module import ScriptModule
        globals()['ScriptModule'] = ScriptModule
        return ScriptModule
    raise AttributeError(f"module 'ember.jit' has no attribute '{name}'")


class ScriptFunction:
    """A "scripted" function: calls the original Python function (``__wrapped__``)."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.name = getattr(fn, '__name__', type(fn).__name__)

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    def save(self, *args, **kwargs):
        """Not possible: see ``ember.jit.save``."""
        save(self, *args, **kwargs)


def _module_types():
    from ..nn import Module
    return Module


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``obj`` ready to call as torch's scripted form would be: a Module or class unchanged,
    a function wrapped in a ``ScriptFunction``; everything runs eagerly."""
    _deprecated('script')
    if _builtin_isinstance(obj, (ScriptFunction, _module_types(), type)):
        return obj
    if not callable(obj):
        raise TypeError(f'{type(obj)} is a built-in class')
    return ScriptFunction(obj)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Runs ``func`` once on the example inputs (as tracing does) and returns it ready to
    call: a Module unchanged, a function as a ``ScriptFunction``. Later calls run the Python
    code again, so data-dependent control flow is followed (a real trace would freeze it)."""
    _deprecated('trace')
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("'NoneType' object is not iterable")
    from .._tensor import Tensor
    args = (example_inputs,) if _builtin_isinstance(example_inputs, Tensor) else \
        tuple(example_inputs or ())
    func(*args, **(example_kwarg_inputs or {}))
    if _builtin_isinstance(func, (ScriptFunction, _module_types())):
        return func
    return ScriptFunction(func)


def trace_module(mod, inputs, *args, **kwargs):
    """Runs each named method of ``mod`` on its example inputs; returns ``mod``."""
    _deprecated('trace_module')
    from .._tensor import Tensor
    for method, example in inputs.items():
        example = (example,) if _builtin_isinstance(example, Tensor) else tuple(example)
        getattr(mod, method)(*example)
    return mod


def ignore(drop=False, **kwargs):
    """Marks a function for the compiler to leave as Python: returns it unchanged
    (``@ignore`` or ``@ignore(drop=...)``)."""
    if callable(drop):
        return drop
    if drop:
        warnings.warn('ignore(True) has been deprecated. TorchScript will now drop the function '
                      'call on compilation. Use torch.jit.unused now. {}', FutureWarning,
                      stacklevel=2)
    return lambda fn: fn


def unused(fn):
    """Marks a function the compiler may drop: returns it unchanged."""
    return fn


def export(fn):
    """Marks a method to compile as an entry point: returns it unchanged."""
    return fn


def script_method(fn):
    """Marks a method of a ScriptModule subclass: returns it unchanged."""
    _deprecated('script_method')
    return fn


def interface(obj):
    """Declares a TorchScript interface: returns the class unchanged."""
    _deprecated('interface', 'Please use `torch.compile` instead.')
    if not (_builtin_isinstance(obj, type) and obj.__bases__ == (object,)):
        raise RuntimeError("TorchScript interfaces must inherit from 'object'")
    return obj


def script_if_tracing(fn):
    """Scripts ``fn`` only when called under tracing, which never happens here: returns a
    wrapper that calls it."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def annotate(the_type, the_value):
    """A type hint for the compiler: returns ``the_value``."""
    return the_value


def isinstance(obj, target_type):
    """``isinstance`` that also accepts typing generics (``List[int]``, ``Dict[str, Tensor]``,
    ``Optional[...]``), checking container elements as TorchScript refines them."""
    origin = typing.get_origin(target_type)
    if origin is None:
        return _builtin_isinstance(obj, target_type)
    targs = typing.get_args(target_type)
    if origin is typing.Union:
        return any(isinstance(obj, t) for t in targs)
    if not _builtin_isinstance(obj, origin):
        return False
    if origin is dict:
        return all(isinstance(k, targs[0]) and isinstance(v, targs[1]) for k, v in obj.items())
    if origin is tuple:
        return len(obj) == len(targs) and all(map(isinstance, obj, targs))
    return all(isinstance(x, targs[0]) for x in obj)


def is_scripting():
    """False: code never runs under the TorchScript compiler here."""
    return False


def is_tracing():
    """False: code never runs under the tracer here."""
    return False


class _Future:
    """The result of ``fork``: already computed; ``wait()`` returns it."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        """The value (the forked call already ran)."""
        return self._value

    def done(self):
        """True: the call already ran."""
        return True


def _run_now(func, *args, **kwargs):
    """Runs ``func(*args, **kwargs)`` now (ember has no inter-op thread pool); returns a
    future whose ``wait()`` gives the result (``torch.fork``, which does not warn)."""
    return _Future(func(*args, **kwargs))


def _wait_for(future):
    """The value of a future from ``fork`` (``torch.wait``, which does not warn)."""
    return future.wait()


def fork(func, *args, **kwargs):
    """``torch.fork``, warning that ``torch.jit``'s spelling is deprecated."""
    _deprecated('fork', 'Please use `torch.compile` instead.')
    return _run_now(func, *args, **kwargs)


def wait(future):
    """``torch.wait``, warning that ``torch.jit``'s spelling is deprecated."""
    _deprecated('wait', 'Please use `torch.compile` instead.')
    return _wait_for(future)


_fork, _wait = fork, wait  # (torch's older, private names for the same two functions)


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """``mod`` itself: there is no compiled graph to freeze."""
    return mod


def optimize_for_inference(mod, other_methods=None):
    """``mod`` itself: there is no compiled graph to optimise."""
    return mod


def save(m, f, _extra_files=None):
    """Not supported: ember cannot write TorchScript archives."""
    raise NotImplementedError('ember.jit.save: ember runs models eagerly and cannot write '
                              'TorchScript archives; save the weights with '
                              'ember.save(model.state_dict(), f) instead')


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Not supported: ember cannot read TorchScript archives."""
    raise NotImplementedError('ember.jit.load: ember cannot run TorchScript archives (they '
                              'hold compiled TorchScript code); load a state_dict with '
                              'ember.load(f) into the model built in Python instead')


def enable_onednn_fusion(enabled):
    """Records the oneDNN fusion switch (no effect: nothing is compiled)."""
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled():
    """The oneDNN fusion switch as last set."""
    return _onednn[0]


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """Context manager toggling graph optimisation: a no-op here."""
    yield
