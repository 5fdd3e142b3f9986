"""Variable-length sequences for the recurrent layers, as torch.nn.utils.rnn: padding a list
of sequences into one tensor and back, and ``PackedSequence``, the time-major packing that
RNN, LSTM and GRU run without computing on the padding.

A packed batch lists the sequences' steps time by time: first step 0 of every sequence,
then step 1 of those at least 2 long, and so on, with the sequences sorted by decreasing
length; ``batch_sizes[t]`` says how many sequences are still running at time ``t``.
``sorted_indices`` records the sort (None when the input was already sorted), so results
come back in the caller's order.
"""
from collections import namedtuple
from collections.abc import Iterable

import numpy as np

from ..._ops._core import Node, track1, result
from ..._ops.creation import arange, full, zeros, as_tensor
from ..._ops.index import index_add
from ..._tensor import Tensor, make

__all__ = ['PackedSequence', 'invert_permutation', 'pack_padded_sequence',
           'pad_packed_sequence', 'pad_sequence', 'unpad_sequence', 'pack_sequence',
           'unpack_sequence']

_PackedSequenceBase = namedtuple('PackedSequence_',
                                 ['data', 'batch_sizes', 'sorted_indices', 'unsorted_indices'])


class PackedSequence(_PackedSequenceBase):
    """A batch of sequences packed time step by time step (see the module docstring):
    ``data`` (sum of lengths, *features), ``batch_sizes`` (int64, one entry per time step),
    ``sorted_indices`` and ``unsorted_indices`` (the sort by length and its inverse, or
    None). Build it with :func:`pack_padded_sequence` or :func:`pack_sequence`.

    >>> from ember.nn.utils.rnn import pack_sequence
    >>> p = pack_sequence([ember.tensor([1., 2.]), ember.tensor([3., 4., 5.])],
    ...                   enforce_sorted=False)
    >>> p.data, p.batch_sizes, p.sorted_indices
    (tensor([3., 1., 4., 2., 5.]), tensor([2, 2, 1]), tensor([1, 0]))
    """
    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # (data, batch_sizes) as one pair, the form the packing kernel returns
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """``data.to(*args, **kwargs)``; the indices follow to its device (never to its
        dtype). Returns ``self`` when ``data`` does not change."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ('device', 'dtype')}
        sorted_indices, unsorted_indices = (
            None if t is None else t.to(data.device, **kwargs)
            for t in (self.sorted_indices, self.unsorted_indices))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self, *args, **kwargs):
        """This packed sequence on the CPU (``self``: ember runs there)."""
        return self.to(*args, device='cpu', **kwargs)

    def cuda(self, *args, **kwargs):
        """Moves ``data`` to CUDA: fails as ``Tensor.cuda`` does (ember runs on the CPU)."""
        self.data.cuda(*args, **kwargs)
        return self.to(*args, device='cuda', **kwargs)

    def pin_memory(self):
        """``self``: ember has no pinned memory (nothing to pin for a CPU-only library)."""
        return self

    def is_pinned(self):
        """False: ember has no pinned memory."""
        return False

    @property
    def is_cuda(self):
        """Whether ``data`` is on a CUDA device (never, in ember)."""
        return self.data.is_cuda

    def double(self):
        """``data`` as float64."""
        return self.to(dtype=_dtype('float64'))

    def float(self):
        """``data`` as float32."""
        return self.to(dtype=_dtype('float32'))

    def half(self):
        """``data`` as float16."""
        return self.to(dtype=_dtype('float16'))

    def long(self):
        """``data`` as int64."""
        return self.to(dtype=_dtype('int64'))

    def int(self):
        """``data`` as int32."""
        return self.to(dtype=_dtype('int32'))

    def short(self):
        """``data`` as int16."""
        return self.to(dtype=_dtype('int16'))

    def char(self):
        """``data`` as int8."""
        return self.to(dtype=_dtype('int8'))

    def byte(self):
        """``data`` as uint8."""
        return self.to(dtype=_dtype('uint8'))


def _dtype(name):
    from ... import _dtype as dtypes
    return getattr(dtypes, name)


def invert_permutation(permutation):
    """The inverse of a permutation (a 1-D int64 tensor), or None for None."""
    if permutation is None:
        return None
    p = permutation._data
    inverse = np.empty_like(p)
    inverse[p] = np.arange(p.size, dtype=p.dtype)
    return make(inverse)


# -- packing -------------------------------------------------------------------------------
class PackPaddedSequenceBackward0(Node):
    """The gradient of the packed data goes back to the padded positions it came from; the
    padding gets zeros."""

    def backward(self, g):
        shape, dt = self._meta[0]
        flat = zeros((shape[0] * shape[1],) + tuple(shape[2:]), dtype=g.dtype)
        return index_add(flat, 0, self.positions, g).reshape(shape)


def _batch_sizes(lengths, steps):
    """How many of the (sorted, decreasing) ``lengths`` are longer than each time step."""
    return (lengths[None, :] > np.arange(steps)[:, None]).sum(1)


def _packed_positions(batch_sizes, batch_first, steps, batch):
    """The flat positions, in a padded (steps, batch) or (batch, steps) layout, of the
    packed data's rows, in packing order."""
    t = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    b = np.concatenate([np.arange(n) for n in batch_sizes]) if len(t) else t
    return b * steps + t if batch_first else t * batch + b


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs the padded batch ``input`` ((T, B, *), or (B, T, *) with ``batch_first``) whose
    sequences have the given ``lengths`` (a list or a 1-D tensor). With ``enforce_sorted``
    the lengths must already decrease; otherwise the batch is sorted here and the order is
    kept in the result's ``sorted_indices``."""
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=_dtype('int64'))
    else:
        lengths = as_tensor(lengths, dtype=_dtype('int64'))
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lengths._data, kind='stable') if lengths._data.ndim == 1 else None
        if order is not None:
            sorted_indices = make(order.astype(np.int64))
            lengths = make(lengths._data[order])
            input = input.index_select(1 if not batch_first else 0, sorted_indices)
    data, batch_sizes = _pack(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pack(input, lengths, batch_first):
    """The packed data and batch sizes of a padded batch with sorted ``lengths``."""
    lens = lengths._data
    if lens.ndim != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lens.ndim}D cpu Long tensor")
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if input.dim() < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                         "got 1)")
    batch, steps = input.shape[:2] if batch_first else input.shape[1::-1]
    if lens.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lens.size} (batch_size={batch})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if (np.diff(lens) > 0).any():
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                           "to pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if lens[0] > steps:  # torch reads past the end here
        raise RuntimeError(f"pack_padded_sequence: a length ({lens[0]}) exceeds the "
                           f"padded sequence length ({steps})")
    sizes = _batch_sizes(lens, int(lens[0]))
    positions = _packed_positions(sizes, batch_first, steps, batch)
    flat = input._data.reshape((batch * steps,) + input._data.shape[2:])
    node = track1(PackPaddedSequenceBackward0, input)
    if node is not None:
        node.positions = make(positions)
    return result(flat[positions], node), make(sizes.astype(np.int64))


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpacks a PackedSequence into a padded batch ((T, B, *), or (B, T, *) with
    ``batch_first``) filled with ``padding_value`` past each sequence's end, ``T`` the
    longest length or ``total_length``; returns it with the lengths (int64), both in the
    order the sequences were packed from."""
    data, batch_sizes = sequence.data, sequence.batch_sizes
    sizes = batch_sizes._data
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and "
                             f"max sequence length being {steps}")
        steps = total_length
    batch = int(sizes[0])
    out = full((steps, batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    positions = _packed_positions(sizes, False, steps, batch)
    out.view((steps * batch,) + tuple(data.shape[1:]))[make(positions)] = data
    if batch_first:
        out = out.transpose(0, 1)
    # sequence b runs for as many steps as have more than b sequences running
    lengths = make((sizes[None, :] > np.arange(batch)[:, None]).sum(1).astype(np.int64))
    if sequence.unsorted_indices is not None:
        out = out.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = make(lengths._data[sequence.unsorted_indices._data])
    return out, lengths


# -- padding -------------------------------------------------------------------------------
def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right'):
    """Stacks sequences of different lengths (each (L_i, *), trailing sizes those of the
    first) into one tensor (max L, B, *), or (B, max L, *) with ``batch_first``, padded
    with ``padding_value`` on the ``padding_side`` ('right' or 'left'), in the first
    sequence's dtype."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ('left', 'right'):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("pad_sequence: each sequence needs at least one dimension (its "
                           "length), but got a 0-d tensor")
    longest = max(s.shape[0] for s in sequences)
    trailing = tuple(first.shape[1:])
    shape = ((len(sequences), longest) if batch_first else (longest, len(sequences)))
    out = full(shape + trailing, padding_value, dtype=first.dtype)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        steps = slice(0, n) if padding_side == 'right' else slice(longest - n, longest)
        (out[i, steps] if batch_first else out[steps, i]).copy_(s)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of :func:`pad_sequence` (right padding): the list of the first
    ``lengths[i]`` steps of each sequence of the batch."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    steps = padded_sequences.shape[1]
    out = []
    for seq, n in zip(padded_sequences, lengths):
        out.append(seq[arange(steps) < n])
    return out


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (each (L_i, *)); with ``enforce_sorted`` they must come
    longest first."""
    lengths = as_tensor([s.shape[0] for s in sequences], dtype=_dtype('int64'))
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
