"""``torch.fx``, as far as eager code meets it: ember has no graph tracer, so
``symbolic_trace``, ``Tracer``, ``GraphModule`` and the rest raise NotImplementedError when
used, while what libraries call at import time works -- ``@torch.fx.wrap`` and
``has_side_effect`` (which only mark functions for the tracer) return what they are given,
and ``isinstance(x, torch.fx.Proxy)`` is False for every value.
"""
import inspect

__all__ = ['symbolic_trace', 'Tracer', 'wrap', 'Graph', 'GraphModule', 'Interpreter',
           'Transformer', 'Node', 'Proxy', 'replace_pattern', 'has_side_effect', 'map_arg']

_NO_TRACER = ("ember has no FX graph tracer: torch.fx.{} is not available (ember runs "
              "eagerly; call the module itself)")


def wrap(fn_or_name):
    """Marks a function as a leaf for the tracer; returns it (ember does not trace). Must be
    called at a module's top level, with a callable or a name, as torch requires."""
    caller = inspect.currentframe().f_back
    if caller is None or caller.f_code.co_name != '<module>':
        raise NotImplementedError("wrap must be called at the top level of a module")
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or "
                           "string name")
    return fn_or_name


def has_side_effect(fn):
    """Marks ``fn`` as having side effects for the tracer; returns it."""
    return fn


def map_arg(a, fn):
    """``fn`` applied to every graph Node inside the nested structure ``a`` (there are none
    in eager code, so ``a`` comes back rebuilt as it was)."""
    if isinstance(a, tuple):
        return type(a)(map_arg(x, fn) for x in a) if not hasattr(a, '_fields') else \
            type(a)(*(map_arg(x, fn) for x in a))
    if isinstance(a, list):
        return [map_arg(x, fn) for x in a]
    if isinstance(a, dict):
        return {k: map_arg(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_arg(a.start, fn), map_arg(a.stop, fn), map_arg(a.step, fn))
    return fn(a) if isinstance(a, Node) else a


def symbolic_trace(root, concrete_args=None):
    """Not available: ember has no graph tracer."""
    raise NotImplementedError(_NO_TRACER.format('symbolic_trace'))


def replace_pattern(gm, pattern, replacement):
    """Not available: ember has no graph tracer."""
    raise NotImplementedError(_NO_TRACER.format('replace_pattern'))


class _Untraceable:
    """A tracer class ember cannot make."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_TRACER.format(type(self).__name__))


class Tracer(_Untraceable):
    """FX's tracer (not available)."""


class Graph(_Untraceable):
    """An FX graph (not available)."""


class GraphModule(_Untraceable):
    """A module built from an FX graph (not available)."""


class Interpreter(_Untraceable):
    """Runs an FX graph node by node (not available)."""


class Transformer(Interpreter):
    """Rewrites an FX graph (not available)."""


class Node(_Untraceable):
    """A node of an FX graph (not available)."""


class Proxy(_Untraceable):
    """A value being traced (none is, in ember)."""
