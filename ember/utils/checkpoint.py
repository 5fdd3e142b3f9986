"""Activation checkpointing: run a piece of the model without keeping what its backward
needs, and run it again during backward to get those values back.

Two variants, as in torch:

- ``use_reentrant=False`` (recommended): the forward records its graph as usual, but every
  tensor an op saves for backward is replaced by a number (``saved_tensors_hooks``). The
  first backward step that needs one re-runs the function with the same random state and
  takes the tensors it saves, in the same order. Outputs keep their ops' grad_fns.
- ``use_reentrant=True`` (torch's old default): the forward runs under ``no_grad`` inside a
  custom Function (grad_fn ``CheckpointFunctionBackward``), whose backward re-runs it with
  grad and back-propagates through the copy.

Either way no intermediate activation outlives the forward (arrays an op keeps for itself
outside the saved tensors -- masks, indices -- are still kept), and the gradients equal the
ones without checkpointing.
"""
import contextlib
import warnings

from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks
from ..autograd.grad_mode import enable_grad, no_grad
from .._tensor import Tensor
from ._selective_checkpoint import (CheckpointPolicy, SelectiveCheckpointContext,
                                    create_selective_checkpoint_contexts)

__all__ = ['checkpoint', 'checkpoint_sequential', 'CheckpointError', 'CheckpointFunction',
           'set_checkpoint_early_stop', 'set_checkpoint_debug_enabled', 'GraphExecGroup',
           'CheckpointPolicy', 'SelectiveCheckpointContext',
           'create_selective_checkpoint_contexts', 'noop_context_fn']

_WHY = ('use_reentrant=False is recommended, but if you need to preserve the current default '
        'behavior, you can pass use_reentrant=True. Refer to docs for more details on the '
        'differences between the two variants.')


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved."""


def _rng_state(preserve):
    """What a recomputation restores: the random state (if ``preserve``) and the CPU
    autocast settings the forward ran under."""
    from .._ops.random import get_rng_state
    from ..amp import autocast_mode as amp
    return (get_rng_state() if preserve else None,
            dict(enabled=amp.is_autocast_enabled('cpu'), dtype=amp.get_autocast_dtype('cpu'),
                 cache_enabled=amp.is_autocast_cache_enabled()))


def noop_context_fn():
    """The default ``context_fn`` of ``checkpoint``: two contexts that do nothing."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def _rerun(function, args, kwargs, state, context=None):
    """``function`` run again with grad on, from the random state and under the autocast
    settings the forward started with (the stream outside is left where it was), inside
    ``context`` (the recomputation's, from ``context_fn``) if given."""
    from .._ops.random import get_rng_state, set_rng_state
    from ..amp import autocast
    state, cpu_autocast = state
    outside = get_rng_state() if state is not None else None
    if state is not None:
        set_rng_state(state)
    try:
        with enable_grad(), autocast('cpu', **cpu_autocast), \
                context if context is not None else contextlib.nullcontext():
            return function(*args, **kwargs)
    finally:
        if outside is not None:
            set_rng_state(outside)


class CheckpointFunction(Function):
    """The reentrant variant: forward without a graph, backward by recomputation."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        """Runs ``run_function(*args)`` without a graph, keeping only the inputs."""
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn('None of the inputs have requires_grad=True. Gradients will be None',
                          stacklevel=2)
        ctx.run_function = run_function
        ctx.state = _rng_state(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        """Re-runs the function with grad and back-propagates ``grads`` through it."""
        from ..autograd import backward
        from ..autograd.engine import current_graph_task
        if not current_graph_task().checkpoint_valid:
            raise RuntimeError(
                'When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() '
                'or passing an `inputs` parameter to .backward(). To resolve this error, you '
                'can either set use_reentrant=False, or call .backward() without passing the '
                '`inputs` argument.')
        tensors = iter(ctx.saved_tensors)
        inputs = [next(tensors) if a is None else a for a in ctx.inputs]
        detached = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                    for a in inputs]
        outputs = _rerun(ctx.run_function, detached, {}, ctx.state)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError('none of output has requires_grad=True, this checkpoint() is not '
                               'necessary')
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in detached)


_TIP = ('\n\nTip: To see a more detailed error message, either pass `debug=True` to\n'
        '`torch.utils.checkpoint.checkpoint(...)` or wrap the code block\n'
        'with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n'
        'enable checkpoint-debug mode globally.\n')
_DEBUG = ('An error happened while unpacking tensors. You are seeing this error because you '
          'passed `debug=True` to checkpoint (or enabled '
          'torch.utils.checkpoint.set_checkpoint_debug_enabled). ')
# Settings made by the context managers below: None means "as the call says".
_EARLY_STOP = [None]
_DEBUG_ENABLED = [None]
_GROUPS = []  # the GraphExecGroups entered, innermost last


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """The non-reentrant checkpoints made within it recompute to the end of the function
    (``False``) or stop once they have saved every tensor needed (``True``). The setting
    is taken when the checkpoint runs forward and overrides its ``early_stop`` argument."""
    prev = _EARLY_STOP[0]
    _EARLY_STOP[0] = enable
    try:
        yield
    finally:
        _EARLY_STOP[0] = prev


class set_checkpoint_debug_enabled:
    """Context manager: ``True``/``False`` overrides every checkpoint's ``debug`` argument
    within it; ``None`` leaves it to the calls."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.prev = None

    def __enter__(self):
        self.prev = _DEBUG_ENABLED[0]
        _DEBUG_ENABLED[0] = self.enabled

    def __exit__(self, *exc):
        _DEBUG_ENABLED[0] = self.prev


class GraphExecGroup:
    """Context manager: the backward calls within it count as one for non-reentrant
    checkpoints, so a recomputation is shared by all of them (they must not need the same
    saved tensor twice)."""

    def __enter__(self):
        _GROUPS.append(self)
        return self

    def __exit__(self, *exc):
        _GROUPS.remove(self)


class _StopRecomputation(Exception):
    """Raised inside a recomputation once it has saved all it must (early stop)."""


def _meta(t):
    return {'shape': t.shape, 'dtype': t.dtype, 'device': t.device}


class _Recomputation:
    """The saved tensors of one checkpointed call: numbered at pack time; the first unpack
    in a backward (graph task, or a GraphExecGroup) re-runs the function and keeps what it
    saves for that backward only, each tensor handed out once."""

    def __init__(self, function, args, kwargs, state, debug, early_stop, context=None):
        self.function, self.args, self.kwargs, self.state = function, args, kwargs, state
        self.context = context  # (the recomputation's, from context_fn)
        self.debug, self.early_stop = debug, early_stop
        self.metas = []
        # A backward run inside the checkpointed function (autograd.grad there) may unpack
        # before the forward has saved all: that recomputation saves more than was counted,
        # and the extra tensors are not checked (as in torch).
        self.forward_completed = False
        self.ignore_mismatch = False
        self.recomputed = {}  # backward key -> list of tensors (None once handed out)

    def pack(self, tensor):
        self.metas.append(_meta(tensor))
        return len(self.metas) - 1

    def unpack(self, index):
        from ..autograd.engine import current_graph_task
        task = current_graph_task()
        key = _GROUPS[-1] if _GROUPS else (task.id if task is not None else None)
        tensors = self.recomputed.get(key) if key is not None else None
        if tensors is None:
            tensors = self._recompute()
            if key is not None:
                self.recomputed[key] = tensors
                if not _GROUPS:
                    # (the tensors of one backward are dropped when it ends)
                    task.callbacks.append(lambda: self.recomputed.pop(key, None))
        elif tensors[index] is None:
            overlap = ('Performing two backward calls that overlap (i.e. require the same '
                       'saved activation in order to compute gradients) is not allowed while '
                       'under the torch.utils.checkpoint.GraphExecGroup context. '
                       if _GROUPS else '')
            raise CheckpointError(
                'torch.utils.checkpoint: Unpack is being triggered for a tensor that was '
                'already unpacked once. ' + overlap + 'If you are calling ctx.saved_tensors '
                'in backward, make sure to do so only once. Otherwise please open an issue '
                'with details on your use case.')
        out = tensors[index]
        if key is not None:
            tensors[index] = None
        return out

    def _recompute(self):
        debug = self.debug if _DEBUG_ENABLED[0] is None else _DEBUG_ENABLED[0]
        early = self.early_stop
        kept = []
        count = len(self.metas)

        def keep(tensor):
            if len(kept) == count:
                if not self.forward_completed:
                    self.ignore_mismatch = True
                    return tensor
                raise CheckpointError('torch.utils.checkpoint: trying to save more tensors '
                                      'during recomputation than during the original forward '
                                      'pass.' + _TIP)
            kept.append(tensor)
            if early and len(kept) == count:
                raise _StopRecomputation
            return tensor

        # Inputs that require grad are detached (the recomputed graph must not reach the
        # caller's leaves); the others are passed as they are, so a saved input is the
        # caller's own tensor object.
        args = [a.detach().requires_grad_(True) if isinstance(a, Tensor) and a.requires_grad
                else a for a in self.args]
        try:
            with saved_tensors_hooks(keep, lambda t: t):
                _rerun(self.function, args, self.kwargs, self.state, self.context)
        except _StopRecomputation:
            pass
        if self.ignore_mismatch:
            return kept
        if len(kept) != count:
            raise CheckpointError(
                'torch.utils.checkpoint: A different number of tensors was saved during the '
                f'original forward and recomputation.\nNumber of tensors saved during '
                f'forward: {count}\nNumber of tensors saved during recomputation: '
                f'{len(kept)}.' + _TIP)
        bad = [i for i, (m, t) in enumerate(zip(self.metas, kept)) if m != _meta(t)]
        if bad:
            lines = ''.join(f'tensor at position {i}:\nsaved metadata: {self.metas[i]}\n'
                            f'recomputed metadata: {_meta(kept[i])}\n' for i in bad)
            msg = ('torch.utils.checkpoint: Recomputed values for the following tensors have '
                   'different metadata than during the forward pass.\n' + lines + '.')
            raise CheckpointError(_DEBUG + msg if debug else msg + _TIP)
        return kept


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check='default',
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, keeping none of its activations for backward: they are
    recomputed when backward needs them. ``preserve_rng_state=True`` (the default) replays
    the random stream, so dropout draws the same mask twice.

    >>> x = ember.ones(3, requires_grad=True)
    >>> y = ember.utils.checkpoint.checkpoint(ember.sin, x, use_reentrant=False)
    """
    if use_reentrant is None:
        warnings.warn('torch.utils.checkpoint: the use_reentrant parameter should be passed '
                      'explicitly. Starting in PyTorch 2.9, calling checkpoint without '
                      'use_reentrant will raise an exception. ' + _WHY, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop('preserve_rng_state', True)
    if kwargs and use_reentrant:
        raise ValueError('Unexpected keyword arguments: ' + ','.join(kwargs))
    if use_reentrant:
        if context_fn is not None or debug is not False:
            raise ValueError('Passing `context_fn` or `debug` is only supported when '
                             'use_reentrant=False.')
        return CheckpointFunction.apply(function, preserve, *args)
    custom_context = context_fn is not None and context_fn is not noop_context_fn
    if custom_context and (debug if _DEBUG_ENABLED[0] is None else _DEBUG_ENABLED[0]):
        raise ValueError('debug=True is incompatible with non-default context_fn')
    if determinism_check not in ('default', 'none'):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    forward_context, recompute_context = (context_fn() if custom_context
                                          else (contextlib.nullcontext(), None))
    if _EARLY_STOP[0] is not None:
        early_stop = _EARLY_STOP[0]  # (the enclosing context manager wins over the argument)
    frame = _Recomputation(function, args, kwargs, _rng_state(preserve), debug, early_stop,
                           recompute_context)
    from ..autograd.grad_mode import is_grad_enabled
    if not is_grad_enabled():  # (nothing is saved: the contexts are not entered, as torch)
        forward_context = contextlib.nullcontext()
    with saved_tensors_hooks(frame.pack, frame.unpack):
        forward_context.__enter__()
        try:
            out = function(*args, **kwargs)
        except BaseException as e:
            if forward_context.__exit__(type(e), e, e.__traceback__):
                raise RuntimeError(
                    'torch.utils.checkpoint: the forward context provided by context_fn '
                    'suppressed an exception raised during the checkpointed forward. This is '
                    'not supported because checkpoint cannot return a value for a failed '
                    'forward.') from e
            raise
        forward_context.__exit__(None, None, None)
    frame.forward_completed = True
    return out


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs ``functions`` (a list or an ``nn.Sequential``) in ``segments`` chunks, each
    checkpointed except the last, which runs normally."""
    if use_reentrant is None:
        warnings.warn('torch.utils.checkpoint.checkpoint_sequential: the use_reentrant '
                      'parameter should be passed explicitly. In version 2.9 we will raise an '
                      'exception if use_reentrant is not passed. ' + _WHY, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop('preserve_rng_state', True)
    if kwargs:
        raise ValueError('Unexpected keyword arguments: ' + ','.join(kwargs))
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start, end):
        def forward(x):
            for f in functions[start:end + 1]:
                x = f(x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
