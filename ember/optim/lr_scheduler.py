"""Learning-rate schedulers, as torch.optim.lr_scheduler.

A scheduler rewrites ``group['lr']`` of its optimizer's param groups each time ``step()``
is called (after ``optimizer.step()``). Each schedule computes the next lr from the current
one (torch's chainable form), so schedulers stacked on one optimizer compose; ``step(epoch)``
(deprecated in torch) jumps with the closed form where the schedule has one.
``get_last_lr()`` is what the last step set. A tensor ``lr`` stays the same tensor: it is
filled in place.
"""
import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from .._tensor import Tensor
from .optimizer import Optimizer, _to_scalar

__all__ = ['LRScheduler', 'LambdaLR', 'MultiplicativeLR', 'StepLR', 'MultiStepLR',
           'ConstantLR', 'LinearLR', 'ExponentialLR', 'PolynomialLR', 'CosineAnnealingLR',
           'CosineAnnealingWarmRestarts', 'SequentialLR', 'ChainedScheduler',
           'ReduceLROnPlateau', 'OneCycleLR', 'CyclicLR']

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate "
    "your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _group_values(optimizer, key):
    """``group[key]`` of every param group; tensors are cloned, so that the caller never
    aliases the optimizer's own."""
    return [g[key].clone() if isinstance(g[key], Tensor) else g[key]
            for g in optimizer.param_groups]


def _set_group_value(group, key, value):
    """Sets ``group[key]``; a tensor there is filled in place instead of replaced."""
    if isinstance(group[key], Tensor):
        group[key].fill_(_to_scalar(value))
    else:
        group[key] = value


def _per_group(name, optimizer, value):
    """``value`` for each param group: a list/tuple must have one entry per group, anything
    else is repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
    else:
        value = [value] * len(optimizer.param_groups)
    return [v.clone() if isinstance(v, Tensor) else v for v in value]


def _callable_state(fn):
    """What a scheduler's state_dict keeps of a user function: a callable object's
    attributes (a copy of its ``__dict__``); None for None, plain functions and lambdas."""
    if fn is None or isinstance(fn, types.FunctionType):
        return None
    return fn.__dict__.copy()


def _restore_callable(fn, saved):
    """Puts back into ``fn`` what ``_callable_state`` kept of it (nothing for None)."""
    if saved is not None:
        fn.__dict__.update(saved)


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


class LRScheduler:
    """Base class of the schedulers: subclasses implement ``get_lr()`` (the next lr of each
    group, computed after ``last_epoch`` has advanced). Construction records each group's
    ``initial_lr`` and makes the first step (``last_epoch`` 0); pass ``last_epoch`` >= 0
    only when resuming, with ``initial_lr`` already in the groups.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [1.0, 0.5, 0.5, 0.25]
    """
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                lr = group['lr']
                group.setdefault('initial_lr', lr.clone() if isinstance(lr, Tensor) else lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if 'initial_lr' not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        "when:\n1. You're trying to resume training from a checkpoint but "
                        "haven't properly loaded the optimizer state\n2. You're using "
                        "last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs = _group_values(optimizer, 'initial_lr')
        self.last_epoch = last_epoch
        # Optimizer.step marks _opt_called; count only the steps made under a scheduler.
        if not optimizer.__dict__.get('_with_lr_scheduler'):
            optimizer._with_lr_scheduler = True
            optimizer._opt_called = False
        self._initial_step()

    def _initial_step(self):
        """Resets the step count and makes the constructor's step."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute except the optimizer, as a dict."""
        return {k: v for k, v in self.__dict__.items() if k != 'optimizer'}

    def load_state_dict(self, state_dict):
        """Restores what ``state_dict`` returned."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The lr of each param group as the last ``step`` set it (tensors are copies)."""
        return self._last_lr

    def get_lr(self):
        """The next lr of each param group; called by ``step`` (use ``get_last_lr`` to read
        the current one)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advances the schedule one step and writes the new lrs into the optimizer. Call it
        after ``optimizer.step()``. ``epoch`` (deprecated) jumps to that epoch."""
        if self._step_count == 1 and not getattr(self.optimizer, '_opt_called', False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                "result in PyTorch skipping the first value of the learning rate schedule. "
                "See more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        if epoch is None:
            self.last_epoch += 1
            self._set_lrs(self.get_lr)
        else:
            self.last_epoch = epoch
            self._set_lrs(getattr(self, '_get_closed_form_lr', self.get_lr))

    def _set_lrs(self, compute):
        """Writes the lrs ``compute()`` returns into the groups (``get_lr`` called from
        here does not warn) and records them for ``get_last_lr``."""
        self._get_lr_called_within_step = True
        try:
            values = compute()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, 'lr', lr)
        self._last_lr = _group_values(self.optimizer, 'lr')

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=3)

    def _current(self):
        """The groups' current lrs (copies): what a schedule returns when it holds still."""
        return _group_values(self.optimizer, 'lr')

    def _scaled(self, factors):
        """Each group's current lr times its factor."""
        return [g['lr'] * f for g, f in zip(self.optimizer.param_groups, factors, strict=True)]


class _LRScheduler(LRScheduler):
    """The old name of :class:`LRScheduler`, kept for code that subclasses it."""


class _LambdaScheduler(LRScheduler):
    """Schedulers driven by one function of the epoch per param group. Their state_dict
    holds, per function, its ``__dict__`` if it is a callable object, else None (plain
    functions and lambdas are not saved)."""

    def _set_lambdas(self, optimizer, lr_lambda):
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)

    def state_dict(self):
        """Every attribute except the optimizer; ``lr_lambdas`` as described above."""
        state = {k: v for k, v in self.__dict__.items() if k not in ('optimizer', 'lr_lambdas')}
        state['lr_lambdas'] = [_callable_state(fn) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        """Restores what ``state_dict`` returned (callable objects' attributes included)."""
        state = dict(state_dict)
        saved = state.pop('lr_lambdas')
        self.__dict__.update(state)
        for fn, attrs in zip(self.lr_lambdas, saved):
            _restore_callable(fn, attrs)


class LambdaLR(_LambdaScheduler):
    """lr = initial lr * ``lr_lambda(epoch)`` (one function, or a list with one per group).

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """Each base lr times its function of ``last_epoch``."""
        self._warn_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs,
                                                                  strict=True)]


class MultiplicativeLR(_LambdaScheduler):
    """Each step multiplies the lr by ``lr_lambda(epoch)`` (one function, or one per group).

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lrs times their functions of ``last_epoch`` (unchanged at start)."""
        self._warn_outside_step()
        if self._is_initial:
            return self._current()
        return self._scaled(fn(self.last_epoch) for fn in self.lr_lambdas)


class StepLR(LRScheduler):
    """Multiplies the lr by ``gamma`` every ``step_size`` epochs.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.1]
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lrs, times gamma when ``last_epoch`` is a multiple of step_size."""
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return self._scaled([self.gamma] * len(self.optimizer.param_groups))

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the lr by ``gamma`` at each epoch in ``milestones`` (a milestone listed
    twice multiplies twice).

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
    >>> for _ in range(3):
    ...     opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lrs, times gamma (per repetition) at a milestone."""
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return self._current()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return self._scaled([factor] * len(self.optimizer.param_groups))

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiplies the lr by ``factor`` until epoch ``total_iters``, then restores it.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=1)
    >>> before = sched.get_last_lr(); opt.step(); sched.step(); before, sched.get_last_lr()
    ([0.5], [1.0])
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """factor at epoch 0, 1 / factor at ``total_iters``, unchanged otherwise."""
        self._warn_outside_step()
        n = len(self.optimizer.param_groups)
        if self.last_epoch == 0:
            return self._scaled([self.factor] * n)
        if self.last_epoch != self.total_iters:
            return self._current()
        return self._scaled([1.0 / self.factor] * n)

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scales the lr by a factor going linearly from ``start_factor`` to ``end_factor``
    over ``total_iters`` epochs.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.75]
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The ratio of this epoch's factor to the last one's, times the current lrs."""
        self._warn_outside_step()
        n = len(self.optimizer.param_groups)
        if self.last_epoch == 0:
            return self._scaled([self.start_factor] * n)
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor
                              + (self.last_epoch - 1) * span)
        return self._scaled([ratio] * n)

    def _get_closed_form_lr(self):
        span = self.end_factor - self.start_factor
        frac = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + span * frac) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies the lr by ``gamma`` every epoch.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lrs times gamma (unchanged at construction)."""
        self._warn_outside_step()
        if self._is_initial:
            return self._current()
        return self._scaled([self.gamma] * len(self.optimizer.param_groups))

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decays the lr to 0 over ``total_iters`` epochs as ``(1 - epoch / total_iters) **
    power``.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=1.0)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.75]
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lrs times the ratio of this epoch's decay to the last one's."""
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return self._scaled([decay] * len(self.optimizer.param_groups))

    def _get_closed_form_lr(self):
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left ** self.power for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneals the lr from its initial value to ``eta_min`` along half a cosine over
    ``T_max`` epochs (and back up over the next ``T_max``: it does not restart).

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The next point on the cosine, computed from the current lrs (chainable)."""
        self._warn_outside_step()
        groups, t, T, lo = self.optimizer.param_groups, self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:
            # Resumed at last_epoch > 0: start from the closed form.
            return [lo + (base - lo) * (1 + math.cos(t * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            # The bottom of the cosine, where the ratio below would divide by zero.
            return [g['lr'] + (base - lo) * (1 - math.cos(math.pi / T)) / 2
                    for base, g in zip(self.base_lrs, groups, strict=True)]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (g['lr'] - lo) + lo for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial lr to ``eta_min`` that restarts: the first cycle
    lasts ``T_0`` epochs, each next one ``T_mult`` times longer. ``step(epoch)`` may take a
    fractional epoch (e.g. ``epoch + batch / batches``).

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 3))
    >>> lrs
    [0.5, 1.0, 0.5]
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The point ``T_cur / T_i`` of the current cycle's cosine."""
        self._warn_outside_step()
        cos = 1 + math.cos(math.pi * self.T_cur / self.T_i)
        return [self.eta_min + (base - self.eta_min) * cos / 2 for base in self.base_lrs]

    def step(self, epoch=None):
        """Advances one epoch, or jumps to ``epoch`` (which may be fractional)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # Cycles so far: T_0 * (1 + T_mult + ... + T_mult**(n-1)) <= epoch.
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self.get_lr)


class _Composite(LRScheduler):
    """Schedulers made of other schedulers of one optimizer: their state_dict nests the
    parts' state_dicts under ``_schedulers``."""

    def _check_parts(self, schedulers, optimizer, none_message):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} {none_message}")
        for i, sched in enumerate(schedulers):
            if not hasattr(sched, 'optimizer'):
                raise TypeError(f"{type(self).__name__} at index {i} should have `optimizer` "
                                "as its attribute.")
            if isinstance(sched, ReduceLROnPlateau):
                raise ValueError(
                    f"{type(self).__name__} does not support `ReduceLROnPlateau` scheduler as "
                    "it requires additional kwargs to be specified when calling `step`, but "
                    f"got one at index {i} in the given schedulers sequence.")
            if optimizer != sched.optimizer:
                raise ValueError(
                    f"{type(self).__name__} expects all schedulers to belong to the same "
                    f"optimizer, but got scheduler {type(sched).__name__} at index {i} has "
                    f"{sched.optimizer}, which is different from {type(optimizer).__name__}.")

    def state_dict(self):
        """Every attribute except the optimizer; the parts as their own state_dicts."""
        state = {k: v for k, v in self.__dict__.items() if k not in ('optimizer', '_schedulers')}
        state['_schedulers'] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        """Restores what ``state_dict`` returned, parts included."""
        state = dict(state_dict)
        parts = state.pop('_schedulers')
        self.__dict__.update(state)
        for sched, part in zip(self._schedulers, parts):
            sched.load_state_dict(part)


class SequentialLR(_Composite):
    """Runs ``schedulers`` one after another, switching at the epochs in ``milestones``
    (one fewer than the schedulers), e.g. a linear warm-up then cosine annealing.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> warm = ember.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> decay = ember.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = ember.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[2])
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        self._check_parts(schedulers, optimizer, "expects at least one scheduler, but got no "
                                                 "scheduler.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each part's constructor already made its first step: take those back, then start
        # the first part afresh from the initial lrs.
        for group in optimizer.param_groups:
            _set_group_value(group, 'lr', group['initial_lr'])
        _undo_first_steps(self)
        first = schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self):
        """Steps the part whose turn it is (a part starts at its milestone from epoch 0)."""
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            sched._update_lr(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


def _undo_first_steps(sched):
    """Takes one epoch back from every scheduler inside ``sched`` (nested ones too)."""
    if hasattr(sched, '_schedulers'):
        for part in sched._schedulers:
            _undo_first_steps(part)
    elif hasattr(sched, 'last_epoch'):
        sched.last_epoch -= 1


class ChainedScheduler(_Composite):
    """Steps all of ``schedulers`` together at each ``step()``, so their effects on the lr
    multiply (chainable schedules).

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> a = ember.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> b = ember.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    >>> sched = ember.optim.lr_scheduler.ChainedScheduler([a, b])
    >>> opt.step(); sched.step(); [round(lr, 4) for lr in sched.get_last_lr()]
    [0.45]
    """

    def __init__(self, schedulers, optimizer=None):
        optimizer = optimizer or (schedulers[0].optimizer if schedulers else None)
        self._check_parts(schedulers, optimizer, "expects at least one scheduler to be chained, "
                                                 "but got no scheduler.")
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, 'lr')

    def step(self):
        """Steps every part once."""
        for sched in self._schedulers:
            sched.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, 'lr')


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the lr by ``factor`` (down to ``min_lr``) when a metric has not improved
    for more than ``patience`` steps: ``step(metric)``.

    ``mode`` 'min' (lower is better) or 'max'; an improvement must beat the best by
    ``threshold``, relative (``threshold_mode='rel'``) or absolute ('abs'); after a
    reduction ``cooldown`` steps pass before bad steps count again; a reduction smaller
    than ``eps`` is skipped.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    >>> for loss in [3.0, 2.0, 2.0, 2.0]:
    ...     sched.step(loss)
    >>> sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, 'lr')
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Records one value of the watched metric and reduces the lrs on a plateau."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, 'lr')

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old = float(group['lr'])
            new = max(old * self.factor, min_lr)
            if old - new > self.eps:
                _set_group_value(group, 'lr', new)

    @property
    def in_cooldown(self):
        """True while steps after a reduction are not counted."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == 'min':
            if self.threshold_mode == 'rel':
                return a < best * (1.0 - self.threshold)
            return a < best - self.threshold
        if self.threshold_mode == 'rel':
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {'min', 'max'}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {'rel', 'abs'}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == 'min' else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        """Restores what ``state_dict`` returned."""
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


class _MomentumCycler(LRScheduler):
    """Schedulers that can cycle the momentum against the lr: the ``momentum`` of SGD-like
    optimizers, or ``betas[0]`` of Adam-like ones (``use_beta1``)."""

    def _use_momentum_of(self, optimizer):
        """Checks that ``optimizer`` has a momentum to cycle and notes which kind."""
        if 'momentum' not in optimizer.defaults and 'betas' not in optimizer.defaults:
            raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                             "option enabled")
        self.use_beta1 = 'betas' in optimizer.defaults

    def _start_momentum(self, tops, bases):
        """Starts each group's momentum at its top value; the group records both bounds."""
        for top, base, group in zip(tops, bases, self.optimizer.param_groups, strict=True):
            self._set_momentum(group, top)
            group['max_momentum'] = top
            group['base_momentum'] = base

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group['betas'] = (value, *group['betas'][1:])
        else:
            group['momentum'] = value


class OneCycleLR(_MomentumCycler):
    """The 1cycle policy, stepped once per batch: the lr rises from ``max_lr /
    div_factor`` to ``max_lr`` over the first ``pct_start`` of ``total_steps`` (or
    ``epochs * steps_per_epoch``), then falls to ``initial_lr / final_div_factor``.
    ``three_phase`` falls back to the initial lr symmetrically first and only then
    annihilates it. ``anneal_strategy`` 'cos' or 'linear'. With ``cycle_momentum`` the
    momentum (SGD) or beta1 (Adam) moves inversely between ``max_momentum`` and
    ``base_momentum``.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0, momentum=0.9)
    >>> sched = ember.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10,
    ...                                             anneal_strategy='linear')
    >>> sched.get_last_lr(), opt.param_groups[0]['momentum']
    ([0.04], 0.95)
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        up = float(pct_start * self.total_steps) - 1
        # Each phase: (end step, lr from, lr to, momentum from, momentum to); the values
        # are keys of the param group.
        if three_phase:
            phases = [(up, 'initial_lr', 'max_lr', 'max_momentum', 'base_momentum'),
                      (float(2 * pct_start * self.total_steps) - 2, 'max_lr', 'initial_lr',
                       'base_momentum', 'max_momentum'),
                      (self.total_steps - 1, 'initial_lr', 'min_lr', 'max_momentum',
                       'max_momentum')]
        else:
            phases = [(up, 'initial_lr', 'max_lr', 'max_momentum', 'base_momentum'),
                      (self.total_steps - 1, 'max_lr', 'min_lr', 'base_momentum',
                       'max_momentum')]
        keys = ('end_step', 'start_lr', 'end_lr', 'start_momentum', 'end_momentum')
        self._schedule_phases = [dict(zip(keys, phase)) for phase in phases]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ('cos', 'linear'):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group('max_lr', optimizer, max_lr)
        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, max_lrs):
                group['initial_lr'] = top / div_factor
                group['max_lr'] = top
                group['min_lr'] = group['initial_lr'] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._use_momentum_of(optimizer)
            tops = _per_group('max_momentum', optimizer, max_momentum)
            bases = _per_group('base_momentum', optimizer, base_momentum)
            if last_epoch == -1:
                self._start_momentum(tops, bases)
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == 'cos':
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        """The lr at ``last_epoch`` in its phase (also sets the cycled momentum)."""
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase['end_step']
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(group[phase['start_lr']], group[phase['end_lr']],
                                            pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(
                            group[phase['start_momentum']], group[phase['end_momentum']], pct))
                    break
                start = end
        return lrs


def _total_steps(total_steps, epochs, steps_per_epoch):
    """OneCycleLR's cycle length from ``total_steps`` or ``epochs * steps_per_epoch``."""
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError("Expected positive integer steps_per_epoch, but got "
                             f"{steps_per_epoch}")
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


class CyclicLR(_MomentumCycler):
    """The cyclical learning rate policy, stepped once per batch: the lr goes linearly from
    ``base_lr`` up to ``max_lr`` in ``step_size_up`` steps and back in ``step_size_down``
    (default: as many), the amplitude scaled per ``mode`` -- 'triangular' (constant),
    'triangular2' (halved each cycle), 'exp_range' (``gamma ** step``) -- or by a custom
    ``scale_fn`` of the cycle number (``scale_mode='cycle'``) or of the step
    ('iterations'). With ``cycle_momentum`` the momentum (SGD) or beta1 (Adam) moves the
    other way, from ``max_momentum`` down to ``base_momentum``. The constructor sets the lr
    of each group to its ``base_lr``.

    The state_dict keeps a custom ``scale_fn`` only if it is a callable object (its
    attributes), not a function or lambda.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0, momentum=0.9)
    >>> sched = ember.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.5,
    ...                                           step_size_up=2)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 3))
    >>> lrs, opt.param_groups[0]['momentum']
    ([0.3, 0.5, 0.3, 0.1], 0.9)
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode='triangular', gamma=1.0, scale_fn=None, scale_mode='cycle',
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group('base_lr', optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _set_group_value(group, 'lr', lr)
        self.max_lrs = _per_group('max_lr', optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ('triangular', 'triangular2', 'exp_range') and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._fix_scale_mode()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._use_momentum_of(optimizer)
            self.base_momentums = _per_group('base_momentum', optimizer, base_momentum)
            self.max_momentums = _per_group('max_momentum', optimizer, max_momentum)
            if last_epoch == -1:
                self._start_momentum(self.max_momentums, self.base_momentums)
        super().__init__(optimizer, last_epoch)
        # The constructor's step ran from the groups' initial_lr (as torch); the cycle's
        # lower bounds are the base_lr given.
        self.base_lrs = base_lrs

    def _fix_scale_mode(self):
        # A built-in mode decides what it scales by; a custom scale_fn keeps scale_mode.
        if self._scale_fn_custom is None:
            self.scale_mode = 'iterations' if self.mode == 'exp_range' else 'cycle'

    def scale_fn(self, x):
        """The amplitude's scale at ``x`` (the cycle number, counted from 1, or the step,
        per ``scale_mode``): the custom ``scale_fn``'s, else the mode's."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == 'triangular':
            return 1.0
        if self.mode == 'triangular2':
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        """The lr at step ``last_epoch`` of its cycle (also sets the cycled momentum)."""
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle  # position in the cycle, [0, 1)
        if x <= self.step_ratio:
            height = x / self.step_ratio
        else:
            height = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == 'cycle' else self.last_epoch
        # scale_fn is called once per value, as torch does (a custom one may count calls).
        lrs = [base + (top - base) * height * self.scale_fn(at)
               for base, top in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            momenta = [top - (top - base) * height * self.scale_fn(at)
                       for base, top in zip(self.base_momentums, self.max_momentums,
                                            strict=True)]
            for group, momentum in zip(self.optimizer.param_groups, momenta, strict=True):
                self._set_momentum(group, momentum)
        return lrs

    def state_dict(self):
        """Every attribute except the optimizer; a custom ``scale_fn`` as described above
        (last)."""
        state = super().state_dict()
        state['_scale_fn_custom'] = _callable_state(state.pop('_scale_fn_custom'))
        return state

    def load_state_dict(self, state_dict):
        """Restores what ``state_dict`` returned (a callable object's attributes included)."""
        state = dict(state_dict)
        saved = state.pop('_scale_fn_custom')
        super().load_state_dict(state)
        _restore_callable(self._scale_fn_custom, saved)
        self._fix_scale_mode()
