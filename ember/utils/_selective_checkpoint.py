"""Selective activation checkpointing: a policy decides, op by op, which results of a
non-reentrant checkpoint are kept from the forward instead of being recomputed in backward.

``create_selective_checkpoint_contexts(policy)`` returns the two contexts
``checkpoint(..., context_fn=...)`` runs the forward and the recomputation under. Both are
``TorchFunctionMode``s, so they see every public op the function calls (torch's sit below
autograd as dispatch modes; ember has no such layer, and ops calling ops inside one public
op are not shown, so a composite op such as ``F.linear`` is one call here). Each call is
named by the ``ember.ops.aten`` OpOverload torch would report (``op_namespace.overload_of``).

In the forward the policy is asked once per call, after the op ran; the calls it saves keep
their outputs (detached, with their version counters) and how to hand back the tensors the
op's node saved for backward: an input of the call, one of its outputs, or (anything else)
the tensor itself. The recomputation counts calls per op; a saved call is not run again:
its saved tensors go to the checkpoint in their place, and its cached outputs are returned
(with a node that makes them require grad as the op's would; the recomputed graph serves
only to save tensors). Each cached entry can be handed out once.
"""
import enum
from collections import defaultdict

from ..autograd.graph import Node
from ..overrides import TorchFunctionMode

__all__ = ['CheckpointPolicy', 'SelectiveCheckpointContext',
           'create_selective_checkpoint_contexts']


class SelectiveCheckpointContext:
    """What a policy function is told about a call besides the op and its arguments:
    ``is_recompute`` (always False: the policy is asked in the forward only, as in torch
    2.13) and ``op_output``, the op's result."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


class CheckpointPolicy(enum.Enum):
    """A policy's answer for one op call: ``MUST_SAVE``/``PREFER_SAVE`` keep its output
    from the forward; ``MUST_RECOMPUTE``/``PREFER_RECOMPUTE`` recompute it in backward
    (``MUST_*`` only matters to compilers, which may override ``PREFER_*``). The CPU-offload
    answers recompute too in eager mode."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVE = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)
_RECOMPUTE = object()  # a storage entry: run the op again
_CONSUMED = object()   # a storage entry: the cached result was handed out already
_MISMATCH = ('This can happen if the operations in the checkpointed region are '
             'nondeterministic or depend on global state that changed between forward and '
             'backward.')


def _leaves(value, out):
    """The tensors in ``value`` (nested tuples, lists and dict values), appended to ``out``."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _leaves(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _leaves(v, out)
    return out


def _replace(value, fn):
    """``value`` with each tensor ``t`` in it replaced by ``fn(t)`` (structure kept)."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        return fn(value)
    if isinstance(value, (tuple, list)):
        items = [_replace(v, fn) for v in value]
        return type(value)(items) if type(value) in (tuple, list) else type(value)(*items)
    return value


class _Cached:
    """One saved call: its outputs and how to give back what its node saved."""

    def __init__(self, out, inputs, packed):
        outputs = _leaves(out, [])
        self.requires_grad = [t.requires_grad for t in outputs]
        # An in-place op's output is an input: the recomputation gets that input back as it
        # is (the op is not run again), as torch's in-place ops return their own argument.
        self.inplace = [next((k for k, i in enumerate(inputs) if t is i), None)
                        for t in outputs]
        # an in-place op's version bump counts as a change since caching (as in torch,
        # whose cache sees the output before autograd bumps it)
        self.versions = [t._vc[0] - (k is not None) for t, k in zip(outputs, self.inplace)]
        self.out = _replace(out, lambda t: t.detach())
        cached = _leaves(self.out, [])
        self.recipes = [self._recipe(t, inputs, outputs, cached) for t in packed]

    @staticmethod
    def _recipe(t, inputs, outputs, cached):
        """What stands for the saved tensor ``t`` in a recomputation: the index of the
        input it is, its cached output, or (neither) a detached ``t`` kept from now on."""
        for k, i in enumerate(inputs):
            if t._data is i._data:
                return k
        for j, o in enumerate(outputs):
            if t._data is o._data:
                return cached[j]
        return t.detach()

    def replay(self, inputs, allow_mutation):
        """The cached outputs (after the mutation check) for a recomputation whose call has
        tensor arguments ``inputs``; the tensors the op's node saved go to the active
        saved-tensor hook first, in their order."""
        from .._ops._core import track
        from .._tensor import make
        from ..autograd.graph import _HOOK_STACK
        from ..autograd.grad_mode import no_grad
        cached = _leaves(self.out, [])
        if not allow_mutation and any(t._vc[0] != v for t, v in zip(cached, self.versions)):
            raise RuntimeError('Tensor cached during selective activation checkpoint has been '
                               'mutated')
        if _HOOK_STACK and self.recipes:
            pack = _HOOK_STACK[-1][0]
            with no_grad():
                for r in self.recipes:
                    pack(inputs[r] if type(r) is int else r)
        node = track(_CachedOutputs, inputs) if any(self.requires_grad) else None
        if node is not None:
            node.n_outputs = len(cached)
        count = iter(range(len(cached)))

        def attach(t):
            nr = next(count)
            if self.inplace[nr] is not None:
                return inputs[self.inplace[nr]]
            if node is None or not self.requires_grad[nr]:
                return t
            r = make(t._data, node, True)
            r._vc = t._vc
            if nr:
                r._output_nr = nr
            return r
        return _replace(self.out, attach)


class _CachedOutputs(Node):
    """The recomputed history of a cached call: the recomputation only collects saved
    tensors, so no gradient flows back through it."""

    def backward(self, *grads):
        return tuple(None for _ in self.next_functions)


class _Recording:
    """Context: while open, the tensors saved for backward are also listed in ``packed``,
    then handed to the saved-tensor hook that was active (the checkpoint's)."""

    def __init__(self, packed):
        self.packed = packed
        self.hooks = None

    def __enter__(self):
        from ..autograd.graph import _HOOK_STACK, saved_tensors_hooks
        if not _HOOK_STACK:
            return self
        pack, unpack = _HOOK_STACK[-1]
        packed = self.packed

        def record(t):
            packed.append(t)
            return pack(t)
        self.hooks = saved_tensors_hooks(record, unpack)
        self.hooks.__enter__()
        return self

    def __exit__(self, *exc):
        if self.hooks is not None:
            self.hooks.__exit__(*exc)
        return False


# Calls that reach no aten operator in torch (autograd bookkeeping), and detach, which the
# checkpoint itself adds a different number of times in forward and recomputation.
_NOT_OPS = {'detach', 'requires_grad_', 'retain_grad', 'register_hook', 'backward',
            'register_post_accumulate_grad_hook'}


def _ignored(op):
    """Calls left out of the policy and of the per-op counts."""
    return op.overloadpacket.__name__ in _NOT_OPS and op.overloadpacket._ns == 'aten'


def _unchanged(op, out, args, kwargs):
    """True for a call that returns its own argument without being an in-place op
    (``contiguous`` of a contiguous tensor, ``to`` its own dtype): torch runs no operator."""
    if op.overloadpacket.__name__.endswith('_'):
        return False
    inputs = _leaves((args, kwargs), [])
    return any(o is i for o in _leaves(out, []) for i in inputs)


class _CachingMode(TorchFunctionMode):
    """The forward's context: runs each call, asks the policy, caches what it saves."""

    def __init__(self, policy_fn, storage):
        self.policy_fn = policy_fn
        self.storage = storage

    def __torch_function__(self, func, types, args=(), kwargs=None):
        from .._ops.op_namespace import overload_of
        kwargs = kwargs or {}
        op = overload_of(func, args, kwargs)
        if op is None or _ignored(op):
            return func(*args, **kwargs)
        packed = []
        with _Recording(packed):
            out = func(*args, **kwargs)
        entries = self.storage[op]
        if op.overloadpacket._ns == 'aten' and (not _leaves(out, []) or
                                                _unchanged(op, out, args, kwargs)):
            entries.append(_RECOMPUTE)  # (not an op torch's policy sees)
            return out
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=out),
                                op, *args, **kwargs)
        if isinstance(policy, bool):  # (the older boolean answer: True saves)
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        entries.append(_Cached(out, _leaves((args, kwargs), []), packed) if policy in _SAVE
                       else _RECOMPUTE)
        return out


class _CachedMode(TorchFunctionMode):
    """The recomputation's context: each call takes the entry the forward left for it (by
    op and call count) -- the cached result, or the go-ahead to run it again."""

    def __init__(self, storage, allow_cache_entry_mutation):
        self.storage = storage
        self.allow_cache_entry_mutation = allow_cache_entry_mutation
        self.counter = defaultdict(int)

    def __enter__(self):
        self.counter.clear()  # (each recomputation counts from the start)
        return super().__enter__()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        from .._ops.op_namespace import overload_of
        kwargs = kwargs or {}
        op = overload_of(func, args, kwargs)
        if op is None or _ignored(op):
            return func(*args, **kwargs)
        idx = self.counter[op]
        self.counter[op] += 1
        entries = self.storage.get(op)
        if entries is None:
            raise RuntimeError(f'{op} encountered during backward but not found in storage. '
                               + _MISMATCH)
        if idx >= len(entries):
            raise RuntimeError(f'{op} invocation index {idx} encountered during backward but '
                               'not found in storage. ' + _MISMATCH)
        entry = entries[idx]
        if entry is _CONSUMED:
            raise RuntimeError('Trying to backward an extra time. You are only allowed to '
                               'backward once on any region computed under selective '
                               'activation checkpoint.')
        if entry is _RECOMPUTE:
            return func(*args, **kwargs)
        entries[idx] = _CONSUMED
        return entry.replay(_leaves((args, kwargs), []), self.allow_cache_entry_mutation)


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The ``context_fn`` result for a non-reentrant ``checkpoint`` that keeps the outputs
    of the ops a policy picks instead of recomputing them.

    ``policy_fn_or_list``: ``policy(ctx, op, *args, **kwargs)`` returning a
    ``CheckpointPolicy`` (``op`` an ``ember.ops.aten`` OpOverload), or a list of
    OpOverloads to save (every other op is recomputed). A cached output changed in place
    before backward is an error unless ``allow_cache_entry_mutation``; a checkpointed region
    can be recomputed (backward through) only once.

    >>> ctx = functools.partial(create_selective_checkpoint_contexts, [ember.ops.aten.mm.default])
    >>> out = checkpoint(fn, x, use_reentrant=False, context_fn=ctx)  # doctest: +SKIP
    """
    from .._ops.op_namespace import OpOverload, OpOverloadPacket
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpOverload):
                hint = ('Please update the OpOverloadPacket to a specific OpOverload.For '
                        'example, if you have `torch.ops.aten.mm`, change it to '
                        '`torch.ops.aten.mm.default`.'
                        if isinstance(op, OpOverloadPacket) else '')
                raise ValueError(f'Expected op in `op_list` to be an OpOverload but got: {op} '
                                 f'of type {type(op)}. {hint}')
        ops = policy_fn_or_list

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError('policy_fn_or_list must be either a function or a list of ops.')
    storage = defaultdict(list)
    return _CachingMode(policy_fn, storage), _CachedMode(storage, allow_cache_entry_mutation)

