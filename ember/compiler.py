"""ember.compiler: torch.compiler's switches for code that asks whether it is being compiled
or marks functions for the compiler. ember runs everything eagerly (see ``ember.compile``):
nothing is ever being compiled, and the markers return what they mark."""
import contextlib

__all__ = ['compile', 'reset', 'allow_in_graph', 'substitute_in_graph',
           'assume_constant_result', 'list_backends', 'disable', 'set_stance',
           'cudagraph_mark_step_begin', 'is_compiling', 'is_dynamo_compiling', 'is_exporting',
           'nested_compile_region', 'get_default_backend', 'set_default_backend']

_default_backend = ['inductor']


def compile(*args, **kwargs):
    """``ember.compile``."""
    from ._compile import compile as _compile
    return _compile(*args, **kwargs)


def reset():
    """Clears compilation caches: ember keeps none."""


def is_compiling():
    """False: ember never traces code for a compiler."""
    return False


is_dynamo_compiling = is_exporting = is_compiling


def _identity(fn):
    return fn


allow_in_graph = assume_constant_result = _identity
allow_in_graph.__doc__ = "Returns ``fn`` itself: there is no graph to allow it in."


def substitute_in_graph(original_fn, *, can_constant_fold_through=False,
                        skip_signature_check=False):
    """A decorator registering a traceable stand-in for ``original_fn``; the decorated name
    keeps calling ``original_fn`` eagerly (the stand-in is only ever traced)."""
    return lambda substitute: original_fn


def nested_compile_region(fn=None, *, options=None, max_reuse_entries=8, reuse_hash_fn=None):
    """Marks a region compiled once and reused: ``fn`` itself (or a decorator returning it)."""
    return _identity if fn is None else fn


def disable(fn=None, recursive=True, *, reason=None):
    """Excludes ``fn`` from compilation: ``fn`` itself (or a decorator returning it)."""
    return _identity if fn is None else fn


@contextlib.contextmanager
def _stance():
    yield


def set_stance(stance='default', *, skip_guard_eval_unsafe=False, force_backend=None):
    """How compiled code should behave (eager here whatever the stance): usable as a
    context manager or decorator that changes nothing."""
    return _stance()


def cudagraph_mark_step_begin():
    """Marks a new iteration for CUDA graphs: nothing to do without CUDA."""


def list_backends(exclude_tags=('debug', 'experimental')):
    """The backend names ``compile`` accepts without the debug/experimental ones, as torch
    lists them."""
    return ['cudagraphs', 'inductor', 'openxla', 'tvm']


def get_default_backend():
    """The backend ``compile`` uses when none is given."""
    return _default_backend[0]


def set_default_backend(backend):
    """Sets the backend ``compile`` reports as its default (ember runs eagerly anyway)."""
    _default_backend[0] = backend
