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
import warnings

from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks
from ..autograd.grad_mode import enable_grad, no_grad
from .._tensor import Tensor

__all__ = ['checkpoint', 'checkpoint_sequential', 'CheckpointError', 'CheckpointFunction']

_WHY = ('use_reentrant=False is recommended, but if you need to preserve the current default '
        'behavior, you can pass use_reentrant=True. Refer to docs for more details on the '
        'differences between the two variants.')


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved."""


def _rng_state(preserve):
    from .._ops.random import get_rng_state
    return get_rng_state() if preserve else None


def _rerun(function, args, kwargs, state):
    """``function`` run again with grad on, from the random state the forward started in
    (the stream outside is left where it was)."""
    from .._ops.random import get_rng_state, set_rng_state
    outside = get_rng_state() if state is not None else None
    if state is not None:
        set_rng_state(state)
    try:
        with enable_grad():
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


class _Recomputation:
    """The saved tensors of one checkpointed call: numbered at pack time, recomputed all at
    once on the first unpack."""

    def __init__(self, function, args, kwargs, state):
        self.function, self.args, self.kwargs, self.state = function, args, kwargs, state
        self.count = 0
        self.tensors = None

    def pack(self, tensor):
        self.count += 1
        return self.count - 1

    def unpack(self, index):
        if self.tensors is None:
            self.tensors = []
            args = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                    for a in self.args]
            with saved_tensors_hooks(self._keep, lambda t: t):
                _rerun(self.function, args, self.kwargs, self.state)
            if len(self.tensors) != self.count:
                raise CheckpointError(
                    'torch.utils.checkpoint: A different number of tensors was saved during the '
                    f'original forward and recomputation.\nNumber of tensors saved during '
                    f'forward: {self.count}\nNumber of tensors saved during recomputation: '
                    f'{len(self.tensors)}.')
            self.function = self.args = self.kwargs = None  # the inputs are no longer needed
        return self.tensors[index]

    def _keep(self, tensor):
        self.tensors.append(tensor)
        return tensor


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
    if context_fn is not None:
        raise NotImplementedError('checkpoint: context_fn is not supported by ember')
    frame = _Recomputation(function, args, kwargs, _rng_state(preserve))
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


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
