"""Collation: a list of samples into one batch (``default_collate``), and a sample's NumPy
parts into tensors (``default_convert``), with torch's rules for each element type.

``collate(batch, collate_fn_map=...)`` is the general walk: it looks the type of the batch's
first element up in the map (exact type first, then the keys in order by isinstance) and
otherwise recurses into mappings, namedtuples and sequences. ``default_collate`` is that walk
with ``default_collate_fn_map``; extend a copy of the map to teach it new types.
"""
import copy
import re
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence

import numpy as np

from ... import as_tensor, float64, stack, tensor
from ..._tensor import Tensor

__all__ = ['collate', 'default_collate', 'default_convert', 'default_collate_fn_map']

# NumPy dtype codes of strings and objects: arrays of them cannot become tensors.
_NOT_NUMERIC = re.compile(r'[SaUO]')
_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                  "or lists; found {}")


def _rebuild_mapping(proto, values):
    """A mapping like ``proto`` holding ``values`` (a dict with the same keys): a copy of
    ``proto`` updated if it is mutable (keeps extra attributes, e.g. of an OrderedDict
    subclass), else its type called on the dict, else a plain dict."""
    try:
        if isinstance(proto, MutableMapping):
            clone = copy.copy(proto)
            clone.update(values)
            return clone
        return type(proto)(values)
    except TypeError:
        return values


def _rebuild_sequence(proto, values):
    """A sequence like ``proto`` holding ``values`` (a list): a namedtuple of proto's type; a
    list for a plain tuple (torch's historical choice); a copy of a mutable sequence with its
    items replaced; else proto's type called on the list, or the list itself."""
    if isinstance(proto, tuple):
        return type(proto)(*values) if hasattr(proto, '_fields') else values
    try:
        if isinstance(proto, MutableSequence):
            clone = copy.copy(proto)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(proto)(values)
    except TypeError:
        return values


def _is_numpy(obj):
    """A NumPy array or scalar other than a ``np.str_`` (which stays a string)."""
    t = type(obj)
    return t.__module__ == 'numpy' and t.__name__ not in ('str_', 'string_')


def default_convert(data):
    """Turns the NumPy arrays and scalars inside ``data`` into tensors, recursing into
    mappings and sequences (a tuple becomes a list); anything else is returned unchanged.
    The DataLoader's ``collate_fn`` when automatic batching is off (``batch_size=None``).

    >>> default_convert({'x': np.arange(2), 'name': 'a'})
    {'x': tensor([0, 1]), 'name': 'a'}
    """
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if isinstance(data, np.ndarray) and _NOT_NUMERIC.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, Mapping):
        return _rebuild_mapping(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates ``batch`` (a list of samples of one structure): the element type's function
    from ``collate_fn_map`` (called as ``fn(batch, collate_fn_map=...)``), or for mappings,
    namedtuples and sequences the same structure with each field collated across the batch.
    Sequences must all have the same length.

    >>> collate([(1, 'a'), (2, 'b')], collate_fn_map=default_collate_fn_map)
    [tensor([1, 2]), ('a', 'b')]
    """
    elem = batch[0]
    if collate_fn_map is not None:
        fn = collate_fn_map.get(type(elem))
        if fn is None:
            fn = next((f for kind, f in collate_fn_map.items() if isinstance(elem, kind)), None)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, Mapping):
        return _rebuild_mapping(elem, {k: collate([d[k] for d in batch],
                                                  collate_fn_map=collate_fn_map)
                                       for k in elem})
    if isinstance(elem, Sequence):
        # A namedtuple's fields are fixed by its type, so only other sequences are checked.
        if not hasattr(elem, '_fields') and any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return _rebuild_sequence(elem, [collate(field, collate_fn_map=collate_fn_map)
                                        for field in zip(*batch)])
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def _collate_tensors(batch, *, collate_fn_map=None):
    return stack(batch, 0)


def _collate_arrays(batch, *, collate_fn_map=None):
    if _NOT_NUMERIC.search(batch[0].dtype.str):
        raise TypeError(_COLLATE_ERROR.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def _collate_numpy_scalars(batch, *, collate_fn_map=None):
    return as_tensor(batch)


def _collate_floats(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=float64)


def _collate_ints(batch, *, collate_fn_map=None):
    return tensor(batch)


def _keep(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: _collate_tensors,
    np.ndarray: _collate_arrays,
    (np.bool_, np.number, np.object_): _collate_numpy_scalars,
    float: _collate_floats,
    int: _collate_ints,
    str: _keep,
    bytes: _keep,
}
"""``collate``'s table for ``default_collate``: tensors are stacked along a new first dim,
NumPy arrays and scalars become tensors (then stacked), Python floats a float64 tensor, ints
an int64 tensor (bools a bool tensor), strings and bytes stay the sequence they came in."""


def default_collate(batch):
    """Collates a list of samples into a batch: tensors stacked along a new first dim, NumPy
    arrays and numbers made tensors (float -> float64, int -> int64, bool -> bool), strings
    left as the sequence they came in (the list itself at the top, a tuple from inside
    sequences, as in torch); dicts, namedtuples and other sequences collated field by field
    (a tuple comes back as a list). The DataLoader's default ``collate_fn``.

    >>> default_collate(['a', 'b'])
    ['a', 'b']
    >>> default_collate([{'x': 1.0, 'y': (0, 'a')}, {'x': 2.0, 'y': (1, 'b')}])
    {'x': tensor([1., 2.], dtype=torch.float64), 'y': [tensor([0, 1]), ('a', 'b')]}
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
