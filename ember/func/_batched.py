"""What torch's vmap refuses inside the vmapped function, for ember's looping vmap.

torch hands the function BatchedTensors, which refuse what cannot be batched: reading a
value into Python (``.item()``, ``int()``, ``if x:``), ``.data``, ``out=`` ops, ops with a
non-tensor result (``torch.equal``) or a value-dependent shape (``nonzero``, boolean-mask
indexing). ember hands the function plain per-element tensors (see ``_vmap``), so it marks
them instead: each running vmap is a ``Batching`` mode (a TorchFunctionMode, so code
outside vmap pays nothing), the per-element slices of its inputs are marked with it, every
op with a marked argument marks its results, and the ops above refuse a marked argument
with torch's message. Tensors the function makes from nothing batched (factories, closed-
over tensors) stay unmarked and work as outside vmap, as in torch.

A tensor's marks are ``_vmap_levels`` in its ``__dict__``: the set of ``Batching`` modes it
is batched at (nested vmaps each add theirs; a mode only ever looks for itself).
"""
from ..overrides import TorchFunctionMode, resolve_name
from .._tensor import Tensor

__all__ = ['Batching', 'refuse_data_set']

_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
         "calling .item() on a Tensor, please try to rewrite what you're doing with other "
         "operations. If error is occurring somewhere inside PyTorch internals, please file a "
         "bug report.")
_CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
                 "control flow. We don't support that yet, please file an issue at "
                 "https://github.com/pytorch/pytorch/issues .")
_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"
_DATA_GET = "accessing `data` under vmap transform is not allowed"
_DATA_SET = "mutating directly with `.data` under vmap transform is not allowed."
_NO_FALLBACK = "Batching rule not implemented for aten::{}. We could not generate a fallback."
_OUT = ("Batching rule not implemented for aten::{}.out; the fallback path doesn't work on "
        "out= or view ops.")
_DYNAMIC = ("vmap: We do not support batching operators that can output dynamic shape. "
            "Attempted to vmap over aten::{}. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues if you need this feature.")
_MASK = ("vmap: We do not support batching operators that can support dynamic shape. "
         "Attempting to batch over indexing with a boolean mask.")
_ALLCLOSE = ("vmap over torch.allclose isn't supported yet. Please file an issue at "
             "https://github.com/pytorch/pytorch/issues if you need this feature.")


def _format(mode, args):
    # (torch formats a 0-d tensor as its number, through .item(); others as their str)
    if args[0]._data.ndim == 0:
        raise RuntimeError(_ITEM)


def _getitem(mode, args):
    # (an unbatched mask over a batched tensor is fine: every element keeps the same count)
    index = args[1] if isinstance(args[1], (tuple, list)) else (args[1],)
    for i in index:
        if isinstance(i, Tensor) and i._data.dtype.kind == 'b' and mode.marks(i):
            raise RuntimeError(_MASK)


def _aten_name(name):
    """aten's name of a public op: ``ember.linalg.vector_norm`` -> ``linalg_vector_norm``
    (its out= overload is named ``.out`` in most cases; a few have names of their own)."""
    return name[len('ember.'):].replace('Tensor.', '').replace('.', '_')


def _both(names, refusal):
    """``{'ember.<name>': refusal, 'ember.Tensor.<name>': refusal}`` for each name."""
    return {f'ember.{p}{n}': refusal for n in names for p in ('', 'Tensor.')}


# public name -> the message a batched argument gets, or a function (mode, args) that
# raises when the call cannot be batched
_REFUSALS = {
    **{f'ember.Tensor.{n}': _ITEM for n in ('item', '__int__', '__float__', '__complex__',
                                            '__index__', '__contains__')},
    **{f'ember.Tensor.{n}': _NO_STORAGE for n in ('tolist', 'numpy', 'data_ptr', '__array__')},
    'ember.Tensor.__bool__': _CONTROL_FLOW,
    'ember.Tensor.__format__': _format,
    'ember.Tensor.__getitem__': _getitem,
    'ember.Tensor.data.__get__': _DATA_GET,
    **_both(('is_nonzero',), _CONTROL_FLOW),
    **_both(('equal',), _NO_FALLBACK.format('equal')),
    **_both(('allclose',), _ALLCLOSE),
    **_both(('nonzero', 'argwhere'), _DYNAMIC.format('nonzero')),
    **_both(('unique',), _DYNAMIC.format('_unique2')),
}

# The older vmap (torch._vmap_internals, which autograd.grad(is_grads_batched=True) and
# gradcheck batch with) refuses fewer calls, most of them in its fallback's words; it lets
# ``.data`` and value-dependent shapes through.
_LEGACY = {
    **{f'ember.Tensor.{n}': _NO_FALLBACK.format('item')
       for n in ('item', '__int__', '__float__', '__complex__', '__index__', '__contains__')},
    **{f'ember.Tensor.{n}': _NO_STORAGE for n in ('tolist', 'numpy', 'data_ptr', '__array__')},
    'ember.Tensor.__bool__': _NO_FALLBACK.format('is_nonzero'),
    **_both(('is_nonzero',), _NO_FALLBACK.format('is_nonzero')),
    **_both(('equal',), _NO_FALLBACK.format('equal')),
    **_both(('allclose',), _NO_FALLBACK.format('allclose')),
}


class Batching(TorchFunctionMode):
    """One running vmap: marks the tensors batched at it and refuses what torch's
    BatchedTensor refuses (enter it for the vmap's loop)."""

    running = False

    def __init__(self, legacy=False):
        self.alone = frozenset((self,))  # (the marks of a tensor batched at this vmap only)
        self.legacy = legacy  # (the older vmap's refusals)
        self.refusals = _LEGACY if legacy else _REFUSALS

    def mark(self, t):
        """Marks tensor ``t`` as batched at this vmap; returns it."""
        levels = t.__dict__.get('_vmap_levels')
        t._vmap_levels = self.alone if not levels else levels | self.alone
        return t

    def marks(self, t):
        """True if tensor ``t`` is batched at this vmap."""
        levels = t.__dict__.get('_vmap_levels')
        return levels is not None and self in levels

    def _any(self, values):
        for v in values:
            if isinstance(v, Tensor):
                if self.marks(v):
                    return True
            elif isinstance(v, (list, tuple)) and self._any(v):
                return True
        return False

    def _mark_all(self, result):
        if isinstance(result, Tensor):
            self.mark(result)
        elif isinstance(result, (list, tuple)):
            for r in result:
                self._mark_all(r)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not (self._any(args) or kwargs and self._any(kwargs.values())):
            return func(*args, **kwargs)
        name = resolve_name(func)
        refusal = self.refusals.get(name)
        if refusal is not None:
            if isinstance(refusal, str):
                raise RuntimeError(refusal)
            refusal(self, args)
        if kwargs.get('out') is not None:
            raise RuntimeError(_OUT.format(_aten_name(name)))
        result = func(*args, **kwargs)
        self._mark_all(result)
        return result

    def __enter__(self):
        self.running = True
        return super().__enter__()

    def __exit__(self, *exc):
        self.running = False
        return super().__exit__(*exc)


def refuse_data_set(tensor, value):
    """``tensor.data = value`` with either batched at a running vmap: torch's error
    (called by the ``data`` setter only for tensors that carry marks)."""
    for t in (tensor, value):
        for level in t.__dict__.get('_vmap_levels') or ():
            if level.running:
                # (the older vmap fails on the check of the two tensors' types)
                raise RuntimeError(_NO_FALLBACK.format('_has_compatible_shallow_copy_type')
                                   if level.legacy else _DATA_SET)
