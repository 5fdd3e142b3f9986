"""Weight averaging, as torch.optim.swa_utils: ``AveragedModel`` keeps a running average
(equal weights, SWA, or exponential, EMA) of a model's parameters, ``SWALR`` anneals the
lr to a constant for the averaging phase, and ``update_bn`` recomputes BatchNorm statistics
for the averaged weights.
"""
import math
from copy import deepcopy
from itertools import chain

from .._ops.creation import tensor as _tensor
from .. import _dtype
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _per_group

__all__ = ['AveragedModel', 'update_bn', 'SWALR', 'get_ema_multi_avg_fn',
           'get_swa_multi_avg_fn', 'get_ema_avg_fn', 'get_swa_avg_fn']


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def _inexact(t):
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA update of lists of tensors, for ``AveragedModel(multi_avg_fn=)``:
    ``ema = decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        for ema, current in zip(ema_param_list, current_param_list, strict=True):
            if _inexact(ema_param_list[0]):
                ema.lerp_(current, 1 - decay)
            else:
                ema.copy_(ema * decay + current * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An in-place equal-weight (SWA) update of lists of tensors, for
    ``AveragedModel(multi_avg_fn=)``: ``avg += (current - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        # With a tensor count the weight is a float32 number, as torch computes it.
        weight = float(1 / (num_averaged + 1))
        for avg, current in zip(averaged_param_list, current_param_list, strict=True):
            if _inexact(averaged_param_list[0]):
                avg.lerp_(current, weight)
            elif isinstance(num_averaged, Tensor):
                avg.addcdiv_(current - avg, num_averaged + 1)  # (refused for integers)
            else:
                avg.add_(current - avg, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The EMA of one tensor, for ``AveragedModel(avg_fn=)``: returns ``decay * ema + (1 -
    decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The equal-weight running average of one tensor, for ``AveragedModel(avg_fn=)``:
    returns ``avg + (current - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters ``update_parameters(model)`` averages with the
    model's current ones: the first call copies them, later calls apply ``avg_fn`` (per
    tensor, returning the new average) or ``multi_avg_fn`` (in place, on lists of tensors
    of one dtype), by default the equal-weight average (SWA). With ``use_buffers`` the
    buffers are averaged too; otherwise they are copied from the model. ``n_averaged``
    (an int64 buffer) counts the calls. ``forward`` runs the copy.

    >>> net = ember.nn.Linear(1, 1, bias=False)
    >>> swa = ember.optim.swa_utils.AveragedModel(net)
    >>> for w in (1.0, 2.0, 6.0):
    ...     _ = net.weight.data.fill_(w); swa.update_parameters(net)
    >>> swa.module.weight.data, swa.n_averaged
    (tensor([[3.]]), tensor(3))
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer('n_averaged', _tensor(0, dtype=_dtype.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged copy of the model applied to the arguments."""
        return self.module(*args, **kwargs)

    def _averaged(self, model):
        """Pairs (this copy's tensor, the model's tensor), both detached."""
        if self.use_buffers:
            mine = chain(self.module.parameters(), self.module.buffers())
            theirs = chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        return [(a.detach(), b.detach()) for a, b in zip(mine, theirs)]

    def update_parameters(self, model):
        """Averages ``model``'s current parameters (and buffers with ``use_buffers``) into
        this copy."""
        pairs = self._averaged(model)
        if int(self.n_averaged) == 0:
            for avg, current in pairs:
                avg.copy_(current)
        elif self.avg_fn is not None and self.multi_avg_fn is None:
            for avg, current in pairs:
                avg.copy_(self.avg_fn(avg, current, self.n_averaged))
        else:
            # torch's per-tensor fallback for devices without multi-tensor kernels (the
            # CPU) when no function is given; multi_avg_fn gets the tensors of each dtype
            # together, in order of first appearance
            by_dtype = {}
            for avg, current in pairs:
                lists = by_dtype.setdefault(avg.dtype, ([], []))
                lists[0].append(avg)
                lists[1].append(current)
            swa = get_swa_avg_fn()
            for mine, theirs in by_dtype.values():
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(mine, theirs, self.n_averaged)
                else:
                    for avg, current in zip(mine, theirs):
                        avg.copy_(swa(avg, current, self.n_averaged))
        if not self.use_buffers:
            for mine, theirs in zip(self.module.buffers(), model.buffers(), strict=True):
                mine.detach().copy_(theirs.detach())
        with no_grad():
            self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recomputes the running statistics of every BatchNorm layer of ``model`` in one pass
    over ``loader`` (batches, or lists/tuples whose first item is the input), as a
    cumulative average; the layers' momentum and the model's mode are restored after."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its ``swa_lr`` (one for all groups, or a list) over
    ``anneal_epochs`` steps, by cosine (``'cos'``) or linear (``'linear'``)
    interpolation, then holds it.

    >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
    >>> sched = ember.optim.swa_utils.SWALR(opt, swa_lr=0.5, anneal_epochs=2,
    ...                                     anneal_strategy='linear')
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.75, 0.5, 0.5]
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos',
                 last_epoch=-1):
        for lr, group in zip(_per_group('swa_lr', optimizer, swa_lr), optimizer.param_groups):
            group['swa_lr'] = lr
        if anneal_strategy not in ('cos', 'linear'):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == 'cos' else \
            self._linear_anneal

    def _fraction(self, step):
        """The annealing progress after ``step`` steps, in [0, 1]."""
        return self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))

    def get_lr(self):
        """Each group's lr moved along the annealing curve towards its swa_lr. The lr the
        curve started from is recovered from the current one, so that another scheduler
        may have changed it in between."""
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        before, now = self._fraction(step - 1), self._fraction(step)
        out = []
        for group in self.optimizer.param_groups:
            lr, swa_lr = group['lr'], group['swa_lr']
            start = swa_lr if before == 1 else (lr - before * swa_lr) / (1 - before)
            out.append(swa_lr * now + start * (1 - now))
        return out

    def state_dict(self):
        """Every attribute except the optimizer and the annealing function."""
        return {k: v for k, v in self.__dict__.items()
                if k not in ('optimizer', 'anneal_func')}

    def load_state_dict(self, state_dict):
        """Restores what ``state_dict`` returned."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
