"""Helpers for module code and checkpoints (torch.nn.modules.utils).

The tuple helpers are private in torch too, but layers written outside torch import them
(``from torch.nn.modules.utils import _pair``), and ember's own modules use them.
"""
from collections.abc import Iterable
from itertools import repeat

__all__ = ['consume_prefix_in_state_dict_if_present']


def _ntuple(n, name='parse'):
    """A parser turning a value into an ``n``-tuple: an iterable becomes the tuple of its
    items (whatever their number, as torch's), anything else is repeated ``n`` times."""
    def parse(x):
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, '_single')
_pair = _ntuple(2, '_pair')
_triple = _ntuple(3, '_triple')
_quadruple = _ntuple(4, '_quadruple')


def _reverse_repeat_tuple(t, n):
    """``t`` reversed with each item repeated ``n`` times: a padding per dim (first dim
    first) as F.pad wants it (last dim first, both sides)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """``out_size`` (an int, or a list with None for "keep") completed from the trailing
    entries of ``defaults`` (the input's shape), as adaptive pooling's output size."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d
            for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strips ``prefix`` (e.g. ``'module.'`` of a DataParallel checkpoint) from the keys of
    ``state_dict`` that start with it, in place, and from its ``_metadata`` keys (where the
    module named by the prefix itself, ``'module'``, becomes the root ``''``)."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, '_metadata', None)
    if metadata is not None:
        for key in list(metadata.keys()):
            # the root's entry '' stays; the prefix's own module has no trailing dot
            if key and (key == prefix.replace('.', '') or key.startswith(prefix)):
                metadata[key[len(prefix):]] = metadata.pop(key)
