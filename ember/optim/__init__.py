"""ember.optim: optimizers and learning-rate schedulers, as torch.optim.

Layout (one job per module):

- ``optimizer.py``  the ``Optimizer`` base: param groups (options filled from the
  optimizer's defaults), ``state`` keyed by parameter, ``state_dict`` in torch's layout
  (``{'state': {0: {...}}, 'param_groups': [{..., 'params': [0, 1]}]}``), ``zero_grad``,
  step and state_dict hooks, torch's errors; and ``RuleOptimizer``, whose one ``step``
  serves every built-in optimizer;
- ``_functional.py`` each optimizer's update rule for one parameter, written once over a
  dozen primitives (``mul_``, ``addcmul_``, ``lerp_``, ...) with two backends;
- ``sgd.py``, ``adam.py``, ``adamw.py``, ``nadam.py``, ``radam.py``, ``adamax.py``,
  ``rmsprop.py``, ``adagrad.py``, ``adadelta.py``, ``asgd.py``, ``rprop.py``,
  ``adafactor.py``, ``muon.py``: constructor checks, defaults, and the state each
  parameter gets;
- ``sparse_adam.py``: SparseAdam, which updates only a sparse gradient's entries;
- ``lbfgs.py``: L-BFGS, which works on all parameters as one vector and calls the
  closure several times per step (so it has no per-parameter rule), and its strong-Wolfe
  line search;
- ``swa_utils.py``: weight averaging (AveragedModel, SWALR, update_bn);
- ``_stateless.py``: ``swap_in_optimizer_params_and_state``, stepping an optimizer on
  other tensors and state for the length of a ``with`` block;
- ``lr_scheduler.py``: ``LRScheduler`` and the schedules (StepLR, MultiStepLR,
  ExponentialLR, CosineAnnealingLR, CosineAnnealingWarmRestarts, OneCycleLR, CyclicLR,
  LambdaLR, MultiplicativeLR, ConstantLR, LinearLR, PolynomialLR, SequentialLR,
  ChainedScheduler, ReduceLROnPlateau), chainable as in torch.

Speed: ``step()`` never goes through Tensor dispatch. The default backend updates the
parameters' NumPy arrays (``p._data``, grads ``p.grad._data``) and the state tensors' arrays
in place with ufuncs (``out=``), then bumps the version counter of every tensor it changed
(``t._vc[0] += 1``) so that autograd still detects in-place modification of saved tensors.
Hyperparameters enter as Python floats, so float32 parameters are updated in float32 math,
as torch does (bias corrections are Python floats too). State values are ember tensors
(``opt.state[p]['exp_avg']``), ``step`` a 0-d float tensor, as torch stores them.

Keywords: ``foreach``, ``fused`` and ``capturable`` are accepted and ignored -- ember has
one device and one implementation -- except that ``fused`` keeps ``step`` in float32 and
is refused together with ``foreach`` or ``differentiable`` (as torch). Note that torch
itself refuses ``capturable=True`` for CPU tensors at step time; ember just runs.
``differentiable=True`` runs the same update rules on Tensor ops under autograd (the
second backend), so gradients flow through ``step`` (real parameters only).
"""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from .muon import Muon  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401
from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401
from ._stateless import swap_in_optimizer_params_and_state  # noqa: F401

__all__ = ['Optimizer', 'SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'NAdam', 'RAdam', 'Adamax',
           'Adadelta', 'LBFGS', 'ASGD', 'Rprop', 'Adafactor', 'Muon', 'SparseAdam', 'lr_scheduler',
           'swa_utils', 'swap_in_optimizer_params_and_state']
