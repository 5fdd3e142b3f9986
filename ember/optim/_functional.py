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

__all__ = ['ArrayOps', 'TensorOps', 'backend', 'sgd', 'adam', 'nadam', 'radam', 'adamax',
           'rmsprop', 'adagrad', 'adadelta', 'asgd', 'rprop', 'adafactor', 'muon',
           'newton_schulz']

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
        """The array a tensor's update works on; a 0-d one (a learned temperature, a
        scalar gain) as a 1-element view of it, since ufuncs return a 0-d result as a
        NumPy scalar, which ``out=`` and item assignment cannot take."""
        a = t._data
        return a.reshape(1) if a.ndim == 0 else a

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
    def state_scalar(x):
        """A 0-d state value (Adam's step count, NAdam's mu product) as the scalar formulas
        use it: a Python float (from a tensor, or from its array as ``of`` gives it)."""
        return x.item() if isinstance(x, np.ndarray) else float(x)

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
    def add_scalar(x, s):
        """x + s, a new array."""
        return np.add(x, s)

    @staticmethod
    def div(x, s):
        """x / s, a new array."""
        return np.divide(x, s)

    @staticmethod
    def abs(x):
        return np.abs(x)

    @staticmethod
    def mul_(x, s):
        np.multiply(x, s, out=x)

    def add_(self, x, y, alpha=1):
        if alpha != 1:
            # (a sparse gradient stays sparse: its entries are added one by one, as torch)
            y = np.multiply(y, alpha, out=self._tmp(y) if type(y) is np.ndarray else None)
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
    def addcdiv_tmp_(x, a, b, value, quotient=None):
        """x += value * a / b, where ``b`` is a temporary the update may overwrite (unless
        the ``quotient`` goes to other scratch memory)."""
        t = np.divide(a, b, out=b if quotient is None else quotient)
        if value != 1:
            np.multiply(t, value, out=t)
        np.add(x, t, out=x)

    def addcdiv_(self, x, a, b, value):
        """x += value * a / b."""
        self.addcdiv_tmp_(x, a, b, value, quotient=self._tmp(x))

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

    @staticmethod
    def div_tmp(x, y):
        return np.divide(x, y, out=x)

    @staticmethod
    def mul_tmp(x, y):
        return np.multiply(x, y, out=x)

    @staticmethod
    def mul(x, y):
        """x * y, a new array."""
        return np.multiply(x, y)

    @staticmethod
    def copy_(x, y):
        np.copyto(x, y)

    @staticmethod
    def sign(x):
        return np.sign(x)

    @staticmethod
    def clamp_(x, lo, hi):
        np.clip(x, lo, hi, out=x)

    @staticmethod
    def sign_factors_tmp(s, positive, negative):
        """Each entry of the sign array ``s`` replaced by ``positive``, ``negative`` or 1
        (for a zero), in place."""
        pos, neg = s > 0, s < 0
        s.fill(1)
        s[pos] = positive
        s[neg] = negative
        return s

    @staticmethod
    def zero_where(x, mask):
        """A copy of ``x`` with zeros where ``mask``."""
        out = x.copy()
        out[mask] = 0
        return out

    @staticmethod
    def less(x, value):
        return x < value

    # Adafactor's primitives (it has no differentiable mode, so ArrayOps only).
    @staticmethod
    def norm(x):
        """The 2-norm of all of ``x``, a Python float."""
        return float(np.sqrt(np.vdot(x, x)))

    @staticmethod
    def mean_square(x, axis):
        """mean(x * x) over ``axis``, kept as a size-1 axis."""
        return np.mean(np.square(x), axis=axis, keepdims=True)

    @staticmethod
    def mean(x, axis):
        return np.mean(x, axis=axis, keepdims=True)

    @staticmethod
    def matmul(x, y):
        return np.matmul(x, y)

    @staticmethod
    def clamp_min_tmp(x, lo):
        return np.maximum(x, lo, out=x)

    @staticmethod
    def rsqrt_tmp(x):
        np.sqrt(x, out=x)
        return np.divide(1, x, out=x)


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
    def state_scalar(x):
        # torch's differentiable Adam (NAdam) computes its bias corrections (momentum
        # coefficients) from the step (mu product) tensor, in that tensor's dtype. A copy:
        # the next step changes the original in place.
        return x.clone()

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
    def add_scalar(x, s):
        return x + s

    add_tmp = add_scalar

    @staticmethod
    def div(x, s):
        return x / s

    div_tmp = div

    @staticmethod
    def mul_tmp(x, y):
        return x * y

    @staticmethod
    def abs(x):
        return x.abs()

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
    def addcdiv_(x, a, b, value):
        # The division saves ``b`` too, which may be state (Adamax's exp_inf): a copy.
        TensorOps.addcdiv_tmp_(x, a, b.clone(), value)

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
    def mul(x, y):
        # the product saves both; either may be state changed in place later: copies
        return x.clone() * y.clone()

    @staticmethod
    def copy_(x, y):
        x.copy_(y)

    @staticmethod
    def sign(x):
        return x.sign()

    @staticmethod
    def clamp_(x, lo, hi):
        x.clamp_(lo, hi)

    @staticmethod
    def sign_factors_tmp(s, positive, negative):
        # piecewise constant in s: no gradient flows through the factors
        s = s.detach()
        out = s.new_ones(s.shape)
        out[s > 0] = positive
        out[s < 0] = negative
        return out

    @staticmethod
    def zero_where(x, mask):
        return x.masked_fill(mask, 0)

    @staticmethod
    def less(x, value):
        return x < value


def _gradient(F, p, g, weight_decay, maximize, decoupled=False, lr=None):
    """The gradient the update uses: negated to maximize, plus L2 weight decay -- or, with
    ``decoupled`` (AdamW's form), the weights shrink by ``lr * weight_decay`` instead and
    the gradient keeps no decay."""
    if maximize:
        g = F.neg(g)
    if weight_decay != 0:
        if decoupled:
            F.mul_(p, 1 - lr * weight_decay)
        else:
            g = F.add(g, p, weight_decay)
    return g


def _average_square_(F, avg, x, decay):
    """avg = decay * avg + (1 - decay) * x**2, in place."""
    F.mul_(avg, decay)
    F.addcmul_(avg, x, x, 1 - decay)


def _moments_(F, g, m, v, beta1, beta2):
    """Adam's running averages of the gradient (``m``) and of its square (``v``)."""
    F.lerp_(m, g, 1 - beta1)
    _average_square_(F, v, g, beta2)


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
    """One Adam/AdamW update of ``p`` at ``step`` (1 on the first, ``F.state_scalar`` of
    the step tensor: bias corrections in Python floats, as torch); ``v_max`` is the AMSGrad
    running maximum or None. ``decoupled`` shrinks the weights (AdamW) instead of adding
    L2 decay to the gradient."""
    g = _gradient(F, p, g, weight_decay, maximize, decoupled, lr)
    p, g, m, v = F.real(p), F.real(g), F.real(m), F.real(v)
    _moments_(F, g, m, v, beta1, beta2)
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


def nadam(F, p, g, m, v, mu_product, *, step, lr, beta1, beta2, eps, weight_decay,
          momentum_decay, decoupled, maximize):
    """One NAdam update of ``p`` at ``step`` (a Python float, 1 on the first): Adam whose
    step takes the momentum one step ahead (Nesterov), ``mu_t * m`` plus ``(1 - mu_t) *
    g``, each bias-corrected by the product of the ``mu`` so far. ``mu_t = beta1 * (1 -
    0.96 ** (t * momentum_decay) / 2)`` warms up over the steps; ``mu_product`` (0-d
    state) accumulates it in place. ``decoupled`` as in :func:`adam`."""
    g = _gradient(F, p, g, weight_decay, maximize, decoupled, lr)
    p, g, m, v = F.real(p), F.real(g), F.real(m), F.real(v)
    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    F.mul_(mu_product, mu)
    # A float, or under TensorOps a tensor in the state's dtype (as torch's differentiable
    # path, whose coefficients below are then computed in that dtype).
    product = F.state_scalar(mu_product)
    _moments_(F, g, m, v, beta1, beta2)
    denom = F.add_tmp(F.sqrt_tmp(F.div(v, 1 - beta2 ** step)), eps)
    F.addcdiv_(p, g, denom, -lr * (1.0 - mu) / (1.0 - product))
    F.addcdiv_tmp_(p, m, denom, -lr * mu_next / (1.0 - product * mu_next))


def radam(F, p, g, m, v, *, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize):
    """One RAdam update of ``p`` at ``step`` (a Python float, 1 on the first): Adam whose
    adaptive denominator is used only once the variance of its estimate is tractable (the
    approximated SMA length ``rho_t`` above 5), and then scaled by the rectification term;
    before that, momentum SGD with the bias-corrected ``m``. ``decoupled`` as in
    :func:`adam`."""
    g = _gradient(F, p, g, weight_decay, maximize, decoupled, lr)
    p, g, m, v = F.real(p), F.real(g), F.real(m), F.real(v)
    _moments_(F, g, m, v, beta1, beta2)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        # p -= lr * rect * sqrt(bc2) / bc1 * m / (sqrt(v) + eps): torch's four products
        # over the arrays folded into one scalar.
        denom = F.add_tmp(F.sqrt(v), eps)
        F.addcdiv_tmp_(p, m, denom, -lr * rect * bias_correction2 ** 0.5 / bias_correction1)
    else:
        F.add_(p, m, -lr / bias_correction1)


def adamax(F, p, g, m, u, *, step, lr, beta1, beta2, eps, weight_decay, maximize):
    """One Adamax update of ``p`` at ``step`` (a Python float, 1 on the first): Adam with
    the infinity norm, ``u = max(beta2 * u, |g| + eps)`` in place of the root mean square,
    and ``p -= lr / (1 - beta1**step) * m / u``."""
    g = _gradient(F, p, g, weight_decay, maximize)
    p, g, m, u = F.real(p), F.real(g), F.real(m), F.real(u)
    F.lerp_(m, g, 1 - beta1)
    F.mul_(u, beta2)
    F.maximum_(u, F.add_tmp(F.abs(g), eps))
    F.addcdiv_(p, m, u, -(lr / (1 - beta1 ** step)))


def rmsprop(F, p, g, square_avg, grad_avg, buf, *, lr, alpha, eps, weight_decay, momentum,
            maximize):
    """One RMSprop update of ``p``; ``grad_avg`` (centered) and ``buf`` (momentum) may be
    None."""
    g = _gradient(F, p, g, weight_decay, maximize)
    p, g, square_avg = F.real(p), F.real(g), F.real(square_avg)
    _average_square_(F, square_avg, g, alpha)
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


def adadelta(F, p, g, square_avg, acc_delta, *, lr, rho, eps, weight_decay, maximize):
    """One Adadelta update of ``p``: the step ``delta = sqrt(acc_delta + eps) / sqrt(
    square_avg + eps) * g`` has the units of ``p`` (running RMS of past steps over that of
    the gradients, both decaying with ``rho``), and ``p -= lr * delta``."""
    g = _gradient(F, p, g, weight_decay, maximize)
    p, g = F.real(p), F.real(g)
    square_avg, acc_delta = F.real(square_avg), F.real(acc_delta)
    _average_square_(F, square_avg, g, rho)
    std = F.sqrt_tmp(F.add_scalar(square_avg, eps))
    delta = F.sqrt_tmp(F.add_scalar(acc_delta, eps))
    delta = F.mul_tmp(F.div_tmp(delta, std), g)
    _average_square_(F, acc_delta, delta, rho)
    F.add_(p, delta, -lr)


def asgd(F, p, g, ax, *, eta, mu, lambd, weight_decay, maximize):
    """One ASGD update of ``p`` with the step size ``eta`` and averaging rate ``mu`` of
    this step: the weights decay by ``lambd * eta``, take a gradient step of ``eta``, and
    the running average ``ax`` moves ``mu`` of the way to them (``mu`` is 1, a plain copy,
    until averaging starts)."""
    g = _gradient(F, p, g, weight_decay, maximize)
    p, g, ax = F.real(p), F.real(g), F.real(ax)
    F.mul_(p, 1 - lambd * eta)
    F.add_(p, g, -eta)
    if mu != 1:
        F.add_(ax, F.add(p, ax, -1), mu)
    else:
        F.copy_(ax, p)


def rprop(F, p, g, prev, step_size, *, etaminus, etaplus, step_size_min, step_size_max,
          maximize):
    """One Rprop update of ``p``: each entry's own step size grows by ``etaplus`` while
    its gradient keeps its sign and shrinks by ``etaminus`` when the sign flips (within
    ``[step_size_min, step_size_max]``); the entry moves by its step size against the
    gradient's sign, except just after a flip (it then waits a step, its gradient
    remembered as 0 in ``prev``)."""
    if maximize:
        g = F.neg(g)
    p, g, prev, step_size = F.real(p), F.real(g), F.real(prev), F.real(step_size)
    s = F.sign(F.mul(g, prev))
    flipped = F.less(s, 0)
    F.mul_(step_size, F.sign_factors_tmp(s, etaplus, etaminus))
    F.clamp_(step_size, step_size_min, step_size_max)
    g = F.zero_where(g, flipped)
    F.addcmul_(p, F.sign(g), step_size, -1)
    F.copy_(prev, g)


def adafactor(F, p, g, row_var, col_var, variance, *, step, lr, beta2_decay, eps1, eps2, d,
              weight_decay, maximize):
    """One Adafactor update of ``p`` at ``step`` (a Python float, 1 on the first). The
    second moment of a matrix's gradient is kept factored: running means of the squares
    over its rows (``row_var``) and columns (``col_var``), their outer product over the
    mean of ``row_var`` estimating it; a vector keeps the full ``variance``. The running
    means decay at ``1 - step ** beta2_decay``. The step ``g / sqrt(v)`` is scaled down to
    RMS at most ``d``, then by the relative step size ``min(lr, 1/sqrt(step))`` times the
    weights' RMS (at least ``eps2``). ``weight_decay`` shrinks the weights by ``lr *
    weight_decay`` first."""
    if maximize:
        g = F.neg(g)
    decay = step ** beta2_decay
    rho = min(lr, 1 / step ** 0.5)
    alpha = max(eps2, F.norm(p) / p.size ** 0.5) * rho
    if weight_decay != 0:
        F.mul_(p, 1 - lr * weight_decay)
    if row_var is not None:
        F.lerp_(row_var, F.mean_square(g, -1), decay)
        F.lerp_(col_var, F.mean_square(g, -2), decay)
        v = F.div_tmp(F.matmul(row_var, col_var),
                      F.clamp_min_tmp(F.mean(row_var, -2), eps1))
    else:
        F.lerp_(variance, F.mul(g, g), decay)
        v = F.clone(variance)
    update = F.mul_tmp(F.rsqrt_tmp(F.clamp_min_tmp(v, eps1 * eps1)), g)
    denom = max(1.0, F.norm(update) / (update.size ** 0.5 * d))
    F.add_(p, update, -alpha / denom)


def _bfloat16(x):
    """A float32 array rounded to the nearest bfloat16 values (ties to even), kept in
    float32: the rounding of torch's bfloat16 ops, each computed in float32 and rounded
    once."""
    x = np.ascontiguousarray(x, np.float32)
    bits = x.view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1)))
               & np.uint32(0xFFFF0000)).view(np.float32)
    return np.where(np.isnan(x), x, rounded)


def newton_schulz(g, coefficients, steps, eps):
    """The orthogonalization of the matrix ``g`` (its polar factor ``U V^T``,
    approximately) that Muon steps along, by ``steps`` iterations of the quintic
    ``X <- a X + (b A + c A^2) X`` with ``A = X X^T``, from ``g`` scaled to unit norm; in
    bfloat16 arithmetic, as torch runs it. A tall matrix is worked on transposed, so that
    ``A`` is the smaller Gram matrix."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if g.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    x = _bfloat16(g)
    tall = g.shape[0] > g.shape[1]
    if tall:
        x = x.T
    norm = _bfloat16(np.sqrt(np.sum(np.square(x, dtype=np.float32))))
    x = _bfloat16(x / np.maximum(norm, _bfloat16(eps)))
    for _ in range(steps):
        gram = _bfloat16(x @ x.T)
        poly = _bfloat16(b * gram + c * (gram @ gram))
        x = _bfloat16(a * x + poly @ x)
    return x.T if tall else x


def muon(F, p, g, buf, *, lr, adjusted_lr, weight_decay, momentum, nesterov, coefficients,
         steps, eps):
    """One Muon update of the matrix ``p``: momentum ``buf`` (an average of the gradients
    decaying with ``momentum``; with ``nesterov`` the step takes it one step ahead),
    orthogonalized by :func:`newton_schulz`, then a step of ``adjusted_lr`` after the
    weights shrink by ``lr * weight_decay``."""
    F.lerp_(buf, g, 1 - momentum)
    if nesterov:
        update = F.clone(g)
        F.lerp_(update, buf, momentum)
    else:
        update = buf
    update = newton_schulz(update, coefficients, steps, eps)
    F.mul_(p, 1 - lr * weight_decay)
    F.add_(p, update.astype(p.dtype, copy=False), -adjusted_lr)


def backend(group):
    """The primitives one step of a parameter group runs on."""
    return TensorOps if group.get('differentiable') else ArrayOps()
