"""ember._dynamo: the few names of torch's (private) graph tracer that training scripts
touch -- ``config`` switches set before ``torch.compile``, ``reset()``, ``mark_dynamic``,
``disable``... ember runs eagerly, so they are accepted and change nothing."""
from ..compiler import (allow_in_graph, assume_constant_result, disable, is_compiling,  # noqa: F401
                        list_backends, reset)
from . import config  # noqa: F401

__all__ = ['config', 'reset', 'disable', 'is_compiling', 'allow_in_graph',
           'assume_constant_result', 'list_backends', 'mark_dynamic', 'mark_static',
           'maybe_mark_dynamic', 'graph_break', 'is_dynamo_supported', 'explain']


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None):
    """Marks dims of ``t`` as varying between calls: nothing is specialised here."""


def maybe_mark_dynamic(t, index):
    """As ``mark_dynamic``: no effect."""


def mark_static(t, index=None):
    """Marks dims of ``t`` as fixed: no effect."""


def graph_break():
    """Ends the traced graph here: there is none."""


def is_dynamo_supported():
    """True, as on torch's CPU build (ember accepts ``compile`` and runs eagerly)."""
    return True


def explain(f, *extra_args, **extra_kwargs):
    """Not available: ember does not trace graphs."""
    raise NotImplementedError("ember runs eagerly: torch._dynamo.explain has no graphs to "
                              "explain")
