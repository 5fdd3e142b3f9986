"""vmap: map a function over one dimension of its inputs (``torch.vmap``, ``torch.func.vmap``).

ember has no batched tensors, so vmap loops: it runs the function once per batch element,
on views that select that element from each mapped input (``x.select(in_dim, b)``), and
stacks the per-element results along ``out_dims``. What the function sees is exactly what
torch's vmap shows it (per-example tensors, one dimension less); only the speed is a
Python loop's. Views keep autograd and in-place semantics: gradients flow back to the
inputs through the selects and the stack, and an in-place op writes into the input, as
torch's BatchedTensor does. What a BatchedTensor refuses (``.item()``, ``bool()``, ``.data``,
``out=``, ``torch.equal``...) the loop refuses too: it runs inside a ``_batched.Batching``
mode that marks the per-element tensors and whatever ops make from them.

Randomness: while a vmap runs, every draw from a Generator asks ``_on_draw`` first. With
``randomness='error'`` it raises torch's error; with ``'same'`` each batch element replays
the draws of the first (the generator's state is put back at each element's first draw);
with ``'different'`` the draws simply follow one another.
"""
import functools

from .._tensor import Tensor
from .._ops import random as _random
from .._ops.pointwise import equal as _equal
from ..utils._pytree import tree_flatten, tree_unflatten, _broadcast_to_and_flatten
from . import _levels, _batched

__all__ = ['vmap']

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")
# (the wording of the older vmap that torch's autograd.grad and gradcheck batch with)
_RANDOM_UNSUPPORTED = ("vmap: We do not yet support calling random operations inside of vmap. "
                       "Please perform random operations outside of vmap as a workaround")


class _Level:
    """One running vmap: its randomness mode and, for 'same', the generator states the
    first batch element started from."""

    def __init__(self, randomness):
        self.randomness = randomness
        self.started = {}        # generator -> its state at the first element's first draw
        self.touched = set()     # generators drawn from during the current element


_LEVELS = []  # the vmaps running now, outermost first


def _on_draw(generator):
    """Called before every random draw while a vmap runs (see ember._ops.random)."""
    for level in _LEVELS:
        if level.randomness == 'error':
            raise RuntimeError(_RANDOM_ERROR)
        if level.randomness == 'unsupported':
            raise RuntimeError(_RANDOM_UNSUPPORTED)
    for level in _LEVELS:
        if level.randomness == 'same' and generator not in level.touched:
            level.touched.add(generator)
            stream = generator._numpy_stream().bit_generator
            if generator in level.started:
                stream.state = level.started[generator]
            else:
                level.started[generator] = stream.state


def _name(func):
    """How torch's vmap messages name a function."""
    if hasattr(func, '__name__'):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_randomness(randomness):
    if randomness not in ('error', 'different', 'same'):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def vmap(func, in_dims=0, out_dims=0, randomness='error', *, chunk_size=None):
    """``vmap(func)`` maps ``func`` over dimension ``in_dims`` of its (pytree) inputs and
    returns the results stacked along ``out_dims``. ``in_dims``: an int, or a tuple matching
    the arguments (nested like them, None for an argument not mapped, required for a
    non-tensor argument); ``out_dims`` likewise for the outputs (None: an output the same
    for every element). Keyword arguments are passed unmapped. ``randomness``: 'error'
    (random ops raise), 'different' or 'same' (the same draws for every element).
    ``chunk_size`` is accepted for torch's API; ember runs one element at a time anyway.
    """
    _check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)
    return wrapped


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs, none_passes=False):
    """One call of a vmapped function (``none_passes``: None outputs come back as None, for
    autograd.grad's unused inputs)."""
    _check_out_dims(func, out_dims)
    size, flat_dims, flat_args, spec = _batched_inputs(func, in_dims, args)
    level = _Level(randomness)
    _LEVELS.append(level)
    _random.DRAW_HOOK[0] = _on_draw
    if randomness != 'unsupported':  # (the older vmap of autograd.grad/gradcheck is none)
        _levels.RUNNING.append('vmap')
    batching = _batched.Batching(legacy=randomness == 'unsupported')
    try:
        results, slices = [], []
        with batching:
            # (a batch of size 0 still runs the function once, on zeros, to learn its outputs)
            for b in range(size) if size else [None]:
                level.touched = set()
                sliced = [a if d is None else batching.mark(
                              _element(a, d, b) if b is not None else
                              a.new_zeros(a.shape[:d] + a.shape[d + 1:]))
                          for a, d in zip(flat_args, flat_dims)]
                slices.append(sliced)
                results.append(func(*tree_unflatten(sliced, spec), **kwargs))
    finally:
        if randomness != 'unsupported':
            _levels.RUNNING.pop()
        _LEVELS.pop()
        if not _LEVELS:
            _random.DRAW_HOOK[0] = None
    return _stacked(func, out_dims, results, slices, size, flat_args, flat_dims, none_passes,
                    batching)


def _element(a, d, b):
    """Element ``b`` of input ``a`` along its mapped dimension ``d``: a view, marked with its
    offset in the batch (forward AD takes it as a batched tangent, and as_strided keeps
    within it, as torch does for a batched tensor)."""
    s = a.select(d, b)
    s._batch_shift = b * a.stride(d)
    return s


def _stacked(func, out_dims, results, slices, size, flat_args, flat_dims, none_passes,
             batching):
    """The per-element results as one pytree of outputs, batched along ``out_dims``."""
    spec = tree_flatten(results[0])[1]
    # per_leaf[j]: output leaf j of every element
    per_leaf = list(zip(*(tree_flatten(r)[0] for r in results)))
    if isinstance(results[0], Tensor):  # (a lone output takes out_dims=(d,) as d, as torch)
        ok = out_dims is None or isinstance(out_dims, int) or (
            isinstance(out_dims, tuple) and len(out_dims) == 1)
        flat_out_dims = list(out_dims) if isinstance(out_dims, tuple) else [out_dims]
    else:
        flat_out_dims = _broadcast_to_and_flatten(out_dims, spec)
        ok = flat_out_dims is not None
    if not ok:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is "
                         "not compatible with the structure of `outputs`. out_dims has structure "
                         f"{tree_flatten(out_dims)[1]} but outputs has structure {spec}.")
    name = _name(func)
    outs = []
    # The same tensors returned in two places give one result (a view of it for another
    # out_dim), as torch unwraps one batched tensor once.
    done = {}
    for j, d in enumerate(flat_out_dims):
        leaves = per_leaf[j]
        key = tuple(map(id, leaves))
        if d is not None and key in done:
            first, first_d = done[key]
            n = first.dim()
            if -n <= d < n:
                outs.append(first if d % n == first_d else first.movedim(first_d, d % n))
                continue
        if d is None:
            if _varies(leaves, batching):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 "when out_dim is None")
            outs.append(leaves[0])
            continue
        if none_passes and all(x is None for x in leaves):
            outs.append(None)
            continue
        for x in leaves:
            if not isinstance(x, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(x)}. Did you mean to set out_dims= to None for "
                                 "output?")
        outs.append(_along(leaves, d, slices, size, flat_args, flat_dims))
        done[key] = (outs[-1], d % outs[-1].dim())
    _views_of_outputs(outs, per_leaf, flat_out_dims)
    return tree_unflatten(outs, spec)


def _views_of_outputs(outs, per_leaf, flat_out_dims):
    """Where each element's output ``k`` is a view of its output ``j`` laid out alike for
    every element, the batched output ``k`` becomes that view of the batched output ``j``
    (as torch's batched view of a batched tensor), instead of a stacked copy. Only for
    outputs batched along dimension 0 that do not require grad (the tangents of forward AD,
    say), whose values are the same either way."""
    for k, leaves in enumerate(per_leaf):
        x = leaves[0]
        if (flat_out_dims[k] != 0 or not isinstance(x, Tensor) or x._base is None
                or outs[k].requires_grad):
            continue
        for j, bases in enumerate(per_leaf):
            whole = outs[j]
            if j == k or flat_out_dims[j] != 0 or not isinstance(whole, Tensor):
                continue
            layout = _same_view(leaves, bases, whole.stride()[1:])
            if layout is not None:
                offset = whole.storage_offset() + layout[2]
                outs[k] = whole.as_strided((len(leaves),) + layout[0],
                                           (whole.stride(0),) + layout[1], offset)
                break


def _same_view(views, bases, base_stride):
    """``(shape, stride, offset from the base)`` shared by every ``views[i]``, a view of
    ``bases[i]`` whose strides are ``base_stride``; None if they differ."""
    layout = None
    for v, b in zip(views, bases):
        if not isinstance(v, Tensor) or v._base is not b or b.stride() != base_stride:
            return None
        this = (tuple(v.shape), v.stride(), v.storage_offset() - b.storage_offset())
        if layout is not None and this != layout:
            return None
        layout = this
    return layout


def _varies(leaves, batching):
    """Whether an output declared unbatched (out_dim None) varies with the batch element:
    an op made it from a batched input (``batching`` marked it), or, for what no op made
    (a custom Function's output), the elements' values differ."""
    tensors = [x for x in leaves if isinstance(x, Tensor)]
    if any(batching.marks(x) for x in tensors):
        return True
    first = tensors[0] if tensors else None
    # (the implementation of equal: the public one would be refused by an outer vmap)
    return any(x is not first and not (x.shape == first.shape and _equal(x, first))
               for x in tensors)


def _along(leaves, d, slices, size, flat_args, flat_dims):
    """One output: the elements' tensors stacked along dimension ``d``."""
    import ember
    n = leaves[0].dim() + 1
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    d %= n
    if size == 0:
        return ember.stack(list(leaves), d).narrow(d, 0, 0)
    # Each element returned its slice of one input (the identity, an in-place op): the
    # result is that input itself, or a view of it with the mapped dimension moved, as in
    # torch (which never unbinds such a tensor).
    for k, dim in enumerate(flat_dims):
        if dim is not None and all(x is s[k] for x, s in zip(leaves, slices)):
            whole = flat_args[k]
            return whole if dim == d else whole.movedim(dim, d)
    return ember.stack(list(leaves), d)


def _check_out_dims(func, out_dims):
    leaves = [out_dims] if isinstance(out_dims, int) else tree_flatten(out_dims)[0]
    if any(d is not None and not isinstance(d, int) for d in leaves):
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an "
                         "int, None or a python collection of ints representing where in the "
                         "outputs the vmapped dimension should appear.")


def _batched_inputs(func, in_dims, args):
    """(batch size, per-leaf in_dim normalized, flat arguments, their spec), checked as
    torch checks them."""
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple "
                         f"matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. The "
                         "latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = _broadcast_to_and_flatten(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either an "
                             "integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                             f"{type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        n = arg.dim()
        if not -n <= d < n:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                             f"Tensor of dimensionality {n} so expected in_dim to satisfy "
                             f"-{n} <= in_dim < {n}.")
        flat_dims[i] = d % n
    sizes = [a.shape[d] for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec
