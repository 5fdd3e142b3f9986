"""Helpers for module code and checkpoints (torch.nn.modules.utils). The private ``_pair``
family is here because custom layers import it from this path (``from
torch.nn.modules.utils import _pair``) to read a size argument as an int or a tuple."""
import collections.abc
from itertools import repeat

__all__ = ['consume_prefix_in_state_dict_if_present']


def _ntuple(n, name='parse'):
    """A parser of a size argument: an iterable becomes a tuple as it is, anything else is
    repeated ``n`` times."""
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, '_single')
_pair = _ntuple(2, '_pair')
_triple = _ntuple(3, '_triple')
_quadruple = _ntuple(4, '_quadruple')


def _reverse_repeat_tuple(t, n):
    """Each entry of ``t``, last first, repeated ``n`` times (per-dim padding in F.pad's
    last-dim-first order)."""
    return tuple(x for x in reversed(t) for _ in range(n))


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
