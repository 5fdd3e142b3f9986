"""The update rule of each optimizer for one parameter, written once over a dozen
primitives, and the two backends that run it.

``ArrayOps`` (the default) works on the tensors' NumPy arrays in place with ufuncs
(``out=``): no Tensor dispatch, no graph, temporaries only where a formula needs one. Its
hyperparameters are Python floats, which NumPy casts to the array's dtype (NEP 50), so
float32 parameters are updated in float32 math as torch does. The caller bumps the version
counter of every tensor whose array it handed in (``touched``).

``TensorOps`` (``differentiable=True``) runs the same formulas with ember Tensor ops under
grad mode, so autograd can differentiate through the step (hyperparameters may then be
tensors that require grad). Where a formula reuses a temporary's memory (``*_tmp``), this
backend makes a new tensor instead: autograd may have saved the old one.

The formulas follow torch's single-tensor (for-loop) implementations op for op, except
where a rearrangement saves a pass over the arrays (noted there), so the results agree to
rounding (torch also fuses ``a + alpha * b`` into one rounding; NumPy rounds twice).
"""
import numpy as np

from .._tensor import Tensor, make
from .._ops.pointwise import maximum as _maximum

__all__ = ['ArrayOps', 'TensorOps', 'backend', 'sgd', 'adam', 'rmsprop', 'adagrad']

_REAL = {np.dtype(np.complex64): np.dtype(np.float32),
         np.dtype(np.complex128): np.dtype(np.float64)}


class ArrayOps:
    """Primitives on NumPy arrays; the in-place ones (``*_``) write into their first
    argument, the ``*_tmp`` ones into their first argument too (a temporary).

    One instance serves one step of one param group: it keeps one scratch array per shape
    and dtype for the temporaries a primitive needs internally, so a step allocates almost
    nothing (large allocations cost page faults on every step).
    """
    differentiable = False

    def __init__(self):
        self._scratch = {}

    def _tmp(self, like):
        """Scratch memory shaped like ``like``. Safe to share: a primitive never returns it
        and never gets it as an argument."""
        key = (like.shape, like.dtype)
        t = self._scratch.get(key)
        if t is None:
            t = self._scratch[key] = np.empty(like.shape, like.dtype)
        return t

    @staticmethod
    def of(t):
        """The array a tensor's update works on."""
        return t._data

    @staticmethod
    def wrap(a):
        """A new state value as the tensor torch users read from ``optimizer.state``."""
        return make(a)

    @staticmethod
    def touched(*tensors):
        """Bumps the version counters of tensors updated through their arrays, so autograd
        notices the in-place change of a tensor it saved."""
        for t in tensors:
            t._vc[0] += 1

    @staticmethod
    def scalar(x):
        """A hyperparameter as a Python number (a 0-d/1-element tensor gives its value)."""
        return float(x) if isinstance(x, Tensor) else x

    @staticmethod
    def count(step):
        """Adam's step count for its bias corrections: a Python float."""
        return float(step._data)

    @staticmethod
    def sqrt_scalar(x):
        return x ** 0.5

    @staticmethod
    def real(x):
        """A complex array as real pairs (torch's view_as_real), so that squares are taken
        per component; other arrays unchanged."""
        if x.dtype.kind != 'c':
            return x
        return x[..., None].view(_REAL[x.dtype])

    @staticmethod
    def neg(x):
        return np.negative(x)

    @staticmethod
    def clone(x):
        return x.copy(order='K')

    @staticmethod
    def add(x, y, alpha):
        """x + alpha * y, a new array."""
        t = np.multiply(y, alpha)
        return np.add(x, t, out=t)

    @staticmethod
    def mul_(x, s):
        np.multiply(x, s, out=x)

    def add_(self, x, y, alpha=1):
        if alpha != 1:
            y = np.multiply(y, alpha, out=self._tmp(y))
        np.add(x, y, out=x)

    def addcmul_(self, x, a, b, value):
        """x += value * a * b."""
        t = self._tmp(x)
        if value == 1:
            np.multiply(a, b, out=t)
        else:
            np.multiply(a, value, out=t)
            np.multiply(t, b, out=t)
        np.add(x, t, out=x)

    @staticmethod
    def addcmul(x, a, b, value):
        """x + value * a * b, a new array."""
        t = np.multiply(a, value)
        np.multiply(t, b, out=t)
        return np.add(x, t, out=t)

    @staticmethod
    def addcdiv_tmp_(x, a, b, value):
        """x += value * a / b, where ``b`` is a temporary the update may overwrite."""
        np.divide(a, b, out=b)
        if value != 1:
            np.multiply(b, value, out=b)
        np.add(x, b, out=x)

    def lerp_(self, x, end, w):
        """x += w * (end - x), computed from the nearer end as torch does."""
        t = np.subtract(end, x, out=self._tmp(x))
        if abs(w) < 0.5:
            np.multiply(t, w, out=t)
            np.add(x, t, out=x)
        else:
            np.multiply(t, 1 - w, out=t)
            np.subtract(end, t, out=x)

    @staticmethod
    def maximum_(x, y):
        np.maximum(x, y, out=x)

    @staticmethod
    def sqrt(x):
        return np.sqrt(x)

    @staticmethod
    def sqrt_tmp(x):
        return np.sqrt(x, out=x)

    @staticmethod
    def add_tmp(x, s):
        return np.add(x, s, out=x)


def _is_tensor(x):
    return isinstance(x, Tensor)


class TensorOps:
    """The same primitives as ember Tensor ops (autograd records them). A hyperparameter
    may be a tensor; then it enters by multiplication so gradients reach it."""
    differentiable = True

    @staticmethod
    def of(t):
        return t

    @staticmethod
    def wrap(t):
        return t

    @staticmethod
    def touched(*tensors):
        pass  # Tensor ops bump their own version counters

    @staticmethod
    def scalar(x):
        return x.squeeze() if isinstance(x, Tensor) and x._data.ndim else x

    @staticmethod
    def count(step):
        # torch's differentiable Adam computes its bias corrections from the step tensor,
        # in that tensor's dtype. A copy: the next step increments the original in place.
        return step.clone()

    @staticmethod
    def sqrt_scalar(x):
        return x.sqrt() if _is_tensor(x) else x ** 0.5

    @staticmethod
    def real(x):
        if x.is_complex():
            raise NotImplementedError("ember.optim: differentiable=True does not support "
                                      "complex parameters yet")
        return x

    @staticmethod
    def neg(x):
        return -x

    @staticmethod
    def clone(x):
        return x.detach().clone()

    @staticmethod
    def add(x, y, alpha):
        return x + y * alpha

    @staticmethod
    def mul_(x, s):
        x.mul_(s)

    @staticmethod
    def add_(x, y, alpha=1):
        if _is_tensor(alpha):
            x.add_(y.clone() * alpha)  # the product saves y, which may be state: a copy
        else:
            x.add_(y, alpha=alpha)

    @staticmethod
    def addcmul_(x, a, b, value):
        if _is_tensor(value):
            x.add_(a * value * b)
        else:
            x.addcmul_(a, b, value=value)

    @staticmethod
    def addcmul(x, a, b, value):
        a, b = a.clone(), b.clone()  # state (RMSprop's grad_avg) changes next step: copies
        return x + a * value * b if _is_tensor(value) else x.addcmul(a, b, value=value)

    @staticmethod
    def addcdiv_tmp_(x, a, b, value):
        # ``a`` may be state (Adam's exp_avg) that the next step changes in place, and the
        # graph node saves it: hand it a copy (as torch's differentiable path does).
        a = a.clone()
        if _is_tensor(value):
            x.add_(a * value / b)
        else:
            x.addcdiv_(a, b, value=value)

    @staticmethod
    def lerp_(x, end, w):
        x.lerp_(end, w)

    @staticmethod
    def maximum_(x, y):
        # maximum's graph node saves both inputs, state that changes in place: copies.
        x.copy_(_maximum(x.clone(), y.clone()))

    @staticmethod
    def sqrt(x):
        return x.sqrt()

    sqrt_tmp = sqrt

    @staticmethod
    def add_tmp(x, s):
        return x + s


def _gradient(F, p, g, weight_decay, maximize):
    """The gradient the update uses: negated to maximize, plus L2 weight decay."""
    if maximize:
        g = F.neg(g)
    if weight_decay != 0:
        g = F.add(g, p, weight_decay)
    return g


def sgd(F, p, g, buf, *, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """One SGD update of ``p``; returns the momentum buffer (new on the first step: the
    gradient itself, so dampening starts acting on the second step)."""
    g = _gradient(F, p, g, weight_decay, maximize)
    if momentum != 0:
        if buf is None:
            buf = F.clone(g)
        else:
            F.mul_(buf, momentum)
            F.add_(buf, g, 1 - dampening)
        g = F.add(g, buf, momentum) if nesterov else buf
    F.add_(p, g, -lr)
    return buf


def adam(F, p, g, m, v, v_max, *, step, lr, beta1, beta2, eps, weight_decay, decoupled,
         maximize):
    """One Adam/AdamW update of ``p`` at ``step`` (1 on the first, ``F.count`` of the step
    tensor: bias corrections in Python floats, as torch); ``v_max`` is the AMSGrad
    running maximum or None. ``decoupled`` shrinks the weights (AdamW) instead of adding
    L2 decay to the gradient."""
    if maximize:
        g = F.neg(g)
    if weight_decay != 0:
        if decoupled:
            F.mul_(p, 1 - lr * weight_decay)
        else:
            g = F.add(g, p, weight_decay)
    p, g, m, v = F.real(p), F.real(g), F.real(m), F.real(v)
    F.lerp_(m, g, 1 - beta1)
    F.mul_(v, beta2)
    F.addcmul_(v, g, g, 1 - beta2)
    if v_max is not None:
        v_max = F.real(v_max)
        F.maximum_(v_max, v)
        v = v_max
    step_size = lr / (1 - beta1 ** step)
    bias_correction2_sqrt = F.sqrt_scalar(1 - beta2 ** step)
    # p -= step_size * m / (sqrt(v) / bias_correction2_sqrt + eps), with the division by
    # the bias correction moved onto the scalars: one pass over the arrays fewer.
    denom = F.add_tmp(F.sqrt(v), eps * bias_correction2_sqrt)
    F.addcdiv_tmp_(p, m, denom, -step_size * bias_correction2_sqrt)


def rmsprop(F, p, g, square_avg, grad_avg, buf, *, lr, alpha, eps, weight_decay, momentum,
            maximize):
    """One RMSprop update of ``p``; ``grad_avg`` (centered) and ``buf`` (momentum) may be
    None."""
    g = _gradient(F, p, g, weight_decay, maximize)
    p, g, square_avg = F.real(p), F.real(g), F.real(square_avg)
    F.mul_(square_avg, alpha)
    F.addcmul_(square_avg, g, g, 1 - alpha)
    if grad_avg is not None:
        grad_avg = F.real(grad_avg)
        F.lerp_(grad_avg, g, 1 - alpha)
        avg = F.sqrt_tmp(F.addcmul(square_avg, grad_avg, grad_avg, -1))
    else:
        avg = F.sqrt(square_avg)
    avg = F.add_tmp(avg, eps)
    if buf is not None:
        buf = F.real(buf)
        F.mul_(buf, momentum)
        F.addcdiv_tmp_(buf, g, avg, 1)
        F.add_(p, buf, -lr)
    else:
        F.addcdiv_tmp_(p, g, avg, -lr)


def adagrad(F, p, g, state_sum, *, step, lr, lr_decay, eps, weight_decay, maximize):
    """One Adagrad update of ``p`` at ``step`` (1 on the first)."""
    g = _gradient(F, p, g, weight_decay, maximize)
    clr = lr / (1 + (step - 1) * lr_decay)
    p, g, state_sum = F.real(p), F.real(g), F.real(state_sum)
    F.addcmul_(state_sum, g, g, 1)
    std = F.add_tmp(F.sqrt(state_sum), eps)
    F.addcdiv_tmp_(p, g, std, -clr)


def backend(group):
    """The primitives one step of a parameter group runs on."""
    return TensorOps if group['differentiable'] else ArrayOps()
