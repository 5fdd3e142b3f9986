"""nn.functional's ``pad``: constant padding (or cropping, with negative pads) and the
reflect / replicate / circular modes, each with torch's node (``ConstantPadNdBackward0``,
``ReflectionPad2DBackward0``...) and a backward in ember ops."""
import numpy as np

from ..._memory_format import in_format, suggested_format
from ..._ops import _args

from ..._ops import _core
from ..._ops._core import Node, make

_NP_MODES = {'reflect': 'reflect', 'replicate': 'edge', 'circular': 'wrap'}
_NODE_PREFIX = {'reflect': 'ReflectionPad', 'replicate': 'ReplicationPad',
                'circular': 'CircularPad'}


class ConstantPadNdBackward0(Node):
    """The gradient of a constant pad is the gradient cropped back (a pad by minus the pads,
    itself differentiable)."""

    def backward(self, g):
        return pad(g, [-p for p in self.pad]),


class _IndexPadBackward(Node):
    """reflect / replicate / circular: each output element copies one input element, so
    the gradient adds every output's gradient into its source element."""

    def backward(self, g):
        lead = g.shape[:g.dim() - len(self.inner)]
        flat = g.reshape(*lead, g.shape[len(lead):].numel())   # (not -1: lead may be empty)
        zeros = make(np.zeros(tuple(lead) + (int(np.prod(self.inner)),), g._data.dtype))
        return zeros.index_add(-1, self.source, flat).reshape(*lead, *self.inner),


def _node_class(mode, k):
    name = f'{_NODE_PREFIX[mode]}{k}DBackward0'
    cls = _NODE_CLASSES.get(name)
    if cls is None:  # made once per name, not per call
        cls = _NODE_CLASSES[name] = type(name, (_IndexPadBackward,), {})
    return cls


_NODE_CLASSES = {}


def pad(input, pad, mode='constant', value=None):
    """Pads the last ``len(pad) // 2`` dims: ``pad`` lists (before, after) pairs starting
    from the last dim; negative amounts crop. Modes: constant, reflect, replicate,
    circular."""
    # (torch's C pad parses its arguments in order before anything runs; the common types
    # skip the full check)
    if type(input) is not _core.Tensor:
        _args.check_argument('pad', 'Tensor input', input, 0)
    _args.int_lists('pad', 2, pad=pad)
    if type(mode) is not str:
        _args.check_argument('pad', 'c10::string_view mode', mode, 2)
    if value is not None:  # (a double: -1 is -1.0, which no uint8 holds)
        if type(value) not in (int, float):
            _args.check_argument('pad', 'double? value', value, 3)
        value = float(value)
    return padded(input, pad, mode, value, listed=True)


def padded(input, pad, mode='constant', value=None, listed=False, direct=False):
    """``pad`` with any number as ``value`` (``constant_pad_nd`` takes a Scalar); ``listed``:
    ``pad`` is known to be a list of ints; ``direct``: called as ``constant_pad_nd``, whose
    checks of the list's length say it in their own words."""
    if not listed:
        _args.int_lists('pad', 2, pad=pad)  # (torch's C pad parses it: ints only)
    pad = [int(p) for p in pad]
    x = input._data
    if mode != 'constant' and mode not in _NP_MODES:  # (torch reads the mode first)
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}"
                           if direct else "Padding length must be divisible by 2")
    if len(pad) // 2 > x.ndim:
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the "
            f"input. Pad length is {len(pad)}while the input has {x.ndim}dimensions."
            if direct else "Padding length should be less than or equal to two times the "
            f"input dimension but got padding length {len(pad)} and input of dimension "
            f"{x.ndim}")
    k = len(pad) // 2
    # per-dim (before, after), first dim first
    pairs = [(0, 0)] * (x.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(k))]
    if mode == 'constant':
        return _constant_pad(input, pad, pairs, 0 if value is None else value)
    if mode not in _NP_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if not 1 <= k <= 3 or x.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {x.ndim}D "
                                  "input tensor.")
    _check_index_pad(x.shape, pairs, k, mode)
    if mode != 'circular' and k == 1 and x.shape[-1] + sum(pairs[-1]) < 1:
        # (the 1-d kernels' output size, checked before their dtype dispatch)
        raise RuntimeError(f"input (W: {x.shape[-1]}) is too small. Calculated output W: "
                           f"{x.shape[-1] + sum(pairs[-1])}")
    if mode != 'circular' and x.dtype == np.bool_:  # (torch's kernels of these two)
        raise NotImplementedError(f'"{"reflection" if mode == "reflect" else "replication"}'
                                  f'_pad{k}d" not implemented for \'Bool\'')
    inner = x.shape[x.ndim - k:]
    # negative amounts crop: as torch, after reflect / replicate padding (an element keeps
    # its source about the uncropped edge) but before circular padding (which wraps the
    # cropped input)
    grow = [(max(a, 0), max(b, 0)) for a, b in pairs[x.ndim - k:]]
    source = np.arange(int(np.prod(inner))).reshape(inner)
    if mode != 'circular':
        source = np.pad(source, grow, mode=_NP_MODES[mode])
    source = source[tuple(slice(max(-a, 0), source.shape[d] - max(-b, 0))
                          for d, (a, b) in enumerate(pairs[x.ndim - k:]))]
    if mode == 'circular':
        source = np.pad(source, grow, mode='wrap')
    # (the inner size spelled out: -1 is ambiguous for an empty batch)
    out = x.reshape(x.shape[:x.ndim - k] + (int(np.prod(inner)),))[..., source.ravel()]
    out = out.reshape(x.shape[:x.ndim - k] + source.shape)
    n = _core.track(_node_class(mode, k), (input,))
    result = _core.result(out, n)
    if n is not None:
        n.source, n.inner = make(source.ravel().astype(np.int64)), inner
    return result


def check_index_pad_rank(shape, k):
    """torch's check that a reflection / replication pad of ``k`` dims has a (batch of)
    ``k + 1``-d input whose dims, but the batch, are not empty."""
    if len(shape) not in (k + 1, k + 2) or 0 in shape[len(shape) - k - 1:]:
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                           "batch size and other non-zero dimensions for input, but got: "
                           f"{list(shape)}")


def _check_index_pad(shape, pairs, k, mode):
    """torch's checks of a reflect / replicate / circular pad of the last ``k`` dims."""
    if mode == 'circular':
        if any(a > shape[d] or b > shape[d] for d, (a, b) in enumerate(pairs)
               if d >= len(shape) - k):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if any(shape[d] + a + b < 0 for d, (a, b) in enumerate(pairs)):
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        return
    check_index_pad_rank(shape, k)
    if mode == 'reflect':  # (torch checks the last dim first: its pads are arguments 4, 5)
        for j in range(k):
            d = len(shape) - 1 - j
            a, b = pairs[d]
            if a >= shape[d] or b >= shape[d]:
                raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({a}, "
                                   f"{b}) at dimension {d} of input {list(shape)}")


def _constant_pad(input, pad, pairs, value):
    x = input._data
    for n, (a, b) in zip(x.shape, pairs):
        # (torch crops a negative amount with narrow, which refuses to leave less than nothing)
        if n + min(a, 0) < 0 or n + min(a, 0) + min(b, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    crop = tuple(slice(max(-a, 0), x.shape[d] - max(-b, 0)) for d, (a, b) in enumerate(pairs))
    grow = [(max(a, 0), max(b, 0)) for a, b in pairs]
    if any(a or b for a, b in grow):
        # (torch converts the value, a double, only to write it: -1 fits no uint8)
        from ..._ops.pointwise import fill_scalar
        value = fill_scalar(value, x.dtype)
        out = np.pad(x[crop], grow, constant_values=value)
    else:
        out = x[crop].copy()
    # (as torch: the input's channels-last layout kept, else row-major -- np.pad would
    # follow the input's strides)
    out = in_format(out, suggested_format(x))
    n = _core.track(ConstantPadNdBackward0, (input,))
    result = _core.result(out, n)
    if n is not None:
        n.pad = pad
    return result


