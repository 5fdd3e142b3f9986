"""The functional utilities of ember.nn: pad, one_hot, normalize, cosine_similarity
(exported by ``ember.nn.functional``)."""
import numpy as np

from .._ops import _core
from .._ops._core import Node, make
from .._ops.shape import broadcast_tensors
from .._dtype import promote_types
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

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
        flat = g.reshape(*lead, -1)
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
    pad = [int(p) for p in pad]
    x = input._data
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {x.ndim}")
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
    out = x.reshape(x.shape[:x.ndim - k] + (-1,))[..., source.ravel()]
    out = out.reshape(x.shape[:x.ndim - k] + source.shape)
    n = _core.track(_node_class(mode, k), (input,))
    result = _core.result(out, n)
    if n is not None:
        n.source, n.inner = make(source.ravel().astype(np.int64)), inner
    return result


def _check_index_pad(shape, pairs, k, mode):
    """torch's checks of a reflect / replicate / circular pad of the last ``k`` dims."""
    if mode == 'circular':
        if any(a > shape[d] or b > shape[d] for d, (a, b) in enumerate(pairs)
               if d >= len(shape) - k):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        return
    if 0 in shape[len(shape) - k - 1:]:
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                           "batch size and other non-zero dimensions for input, but got: "
                           f"{list(shape)}")
    if mode == 'reflect':
        for d, (a, b) in enumerate(pairs):
            if a >= shape[d] or b >= shape[d]:
                raise RuntimeError(f"Argument #4: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({a}, "
                                   f"{b}) at dimension {d} of input {list(shape)}")


def _constant_pad(input, pad, pairs, value):
    x = input._data
    crop = tuple(slice(max(-a, 0), x.shape[d] - max(-b, 0)) for d, (a, b) in enumerate(pairs))
    grow = [(max(a, 0), max(b, 0)) for a, b in pairs]
    out = np.pad(x[crop], grow, constant_values=value)
    n = _core.track(ConstantPadNdBackward0, (input,))
    result = _core.result(out, n)
    if n is not None:
        n.pad = pad
    return result


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding of class indices (a new last dim of ``num_classes``, inferred
    as max + 1 when -1)."""
    if not isinstance(tensor, Tensor) or tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = tensor._data
    if idx.size and idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not idx.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(idx.max()) + 1
    elif idx.size and idx.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return make((idx[..., None] == np.arange(num_classes)).astype(np.int64))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``)."""
    norm = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    if out is not None:
        return out.copy_(input / norm)
    return input / norm


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (they broadcast); each
    is divided by its norm (at least ``eps``) before the dot product, for stability."""
    dt = promote_types(x1.dtype, x2.dtype)
    if not dt.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{dt.kernel_name}")
    # Each operand is normalised in its own floating dtype (an integer one in the common
    # dtype), as torch does, then the product promotes. Broadcast first: a size-1 dim
    # stretched along ``dim`` must count in the norm.
    x1, x2 = broadcast_tensors(*(x if x.dtype.is_floating_point else x.to(dt)
                                 for x in (x1, x2)))
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():  # the floor is not part of the derivative, as in torch
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)
