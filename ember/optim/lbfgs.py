"""L-BFGS: limited-memory quasi-Newton steps, optionally with a strong-Wolfe line search
(torch.optim.LBFGS).

Unlike the other optimizers, L-BFGS works on all parameters as one flat vector and calls
the closure several times per ``step``; there is no per-parameter rule to put in
``_functional``. The vectors it keeps (the direction ``d``, the gradient and step
differences of its history) are ember tensors in ``state``, as torch keeps them, so
``state_dict`` has torch's layout: one entry, under the first parameter's index.
"""
import numpy as np

from .._tensor import make
from ..autograd.grad_mode import enable_grad, no_grad
from ._functional import ArrayOps
from .optimizer import Optimizer, _to_scalar, check_lr

__all__ = ['LBFGS']


class LBFGS(Optimizer):
    """L-BFGS (as torch.optim.LBFGS): each ``step(closure)`` runs up to ``max_iter``
    iterations of ``x += t * d``, where the direction ``d`` applies the inverse-Hessian
    estimate built from the last ``history_size`` gradient/step differences to the
    negative gradient (the two-loop recursion). ``t`` is ``lr`` (on the very first
    iteration ``lr * min(1, 1 / |g|_1)``), or with ``line_search_fn='strong_wolfe'`` what a
    line search satisfying the strong Wolfe conditions finds. The closure re-evaluates the
    model and returns the loss; ``step`` returns its first result.

    A step stops early when the gradient's largest entry is at most ``tolerance_grad``,
    when the change of the loss or of ``x`` is below ``tolerance_change``, or after
    ``max_eval`` closure calls (default ``max_iter * 5 // 4``). Only one parameter group is
    supported. Complex parameters are optimized as pairs of reals.

    >>> w = ember.nn.Parameter(ember.tensor([1.0, -2.0]))
    >>> opt = ember.optim.LBFGS([w], line_search_fn='strong_wolfe')
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - 3) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> opt.step(closure)
    tensor(29., grad_fn=<SumBackward0>)
    >>> [round(v, 4) for v in w.tolist()]
    [3.0, 3.0]
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]['params']

    # -- the parameters as one flat vector -------------------------------------------------
    def _arrays(self):
        """The parameters' arrays, complex ones as real pairs."""
        return [ArrayOps.real(p._data) for p in self._params]

    def _flat_grad(self):
        """All gradients as one new vector (zeros for a parameter without one)."""
        parts = []
        for p, a in zip(self._params, self._arrays()):
            g = p._grad
            parts.append(np.zeros(a.size, a.dtype) if g is None
                         else ArrayOps.real(g._data).reshape(-1))
        return make(np.concatenate(parts))

    def _move(self, t, d):
        """x += t * d, in place."""
        t, d, offset = float(t), d._data, 0
        for p, a in zip(self._params, self._arrays()):
            np.add(a, np.multiply(d[offset:offset + a.size].reshape(a.shape), t), out=a)
            offset += a.size
            p._vc[0] += 1

    def _snapshot(self):
        return [a.copy() for a in self._arrays()]

    def _restore(self, saved):
        for p, a, s in zip(self._params, self._arrays(), saved):
            a[...] = s
            p._vc[0] += 1

    # -- the step --------------------------------------------------------------------------
    @no_grad()
    def step(self, closure):
        """Up to ``max_iter`` L-BFGS iterations; ``closure`` (required) re-evaluates the
        model, computes the gradients and returns the loss. Returns the closure's first
        loss."""
        if len(self.param_groups) != 1:  # a group added after construction
            raise AssertionError("Expected exactly one param_group, but got "
                                 f"{len(self.param_groups)}")

        def evaluate():
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = _to_scalar(group['lr'])
        max_iter, max_eval = group['max_iter'], group['max_eval']
        tol_grad, tol_change = group['tolerance_grad'], group['tolerance_change']
        line_search_fn, history_size = group['line_search_fn'], group['history_size']

        state = self.state[self._params[0]]
        state.setdefault('func_evals', 0)
        state.setdefault('n_iter', 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        evals = 1
        state['func_evals'] += 1
        g = self._flat_grad()
        if g.abs().max() <= tol_grad:
            return orig_loss

        d, t = state.get('d'), state.get('t')
        old_dirs, old_stps, ro = state.get('old_dirs'), state.get('old_stps'), state.get('ro')
        H_diag = state.get('H_diag')
        prev_g, prev_loss = state.get('prev_flat_grad'), state.get('prev_loss')

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state['n_iter'] += 1
            if state['n_iter'] == 1:
                d = g.neg()
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                y, s = g.sub(prev_g), d.mul(t)
                ys = y.dot(s)
                # Curvature condition: keep the pair only if it adds a positive-definite
                # update (else the estimate would stop being a descent metric).
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                if 'al' not in state:
                    state['al'] = [None] * history_size
                d = _two_loop(g, old_dirs, old_stps, ro, H_diag, state['al'])

            if prev_g is None:
                prev_g = g.clone()
            else:
                prev_g.copy_(g)
            prev_loss = loss

            # The first iteration has no curvature yet: a step of length at most lr.
            t = min(1.0, 1.0 / g.abs().sum()) * lr if state['n_iter'] == 1 else lr
            gtd = g.dot(d)
            if gtd > -tol_change:  # not a descent direction (to tolerance)
                break

            ls_evals = 0
            if line_search_fn is not None:
                if line_search_fn != 'strong_wolfe':
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x0 = self._snapshot()

                def at(step):
                    """The loss and gradient at x0 + step * d (x is left at x0)."""
                    self._move(step, d)
                    value = float(evaluate())
                    grad = self._flat_grad()
                    self._restore(x0)
                    return value, grad

                loss, g, t, ls_evals = strong_wolfe(at, t, d, loss, g, gtd,
                                                    max_ls=max_eval - evals)
                self._move(t, d)
                opt_cond = g.abs().max() <= tol_grad
            else:
                self._move(t, d)
                if n_iter != max_iter:
                    # The loss at the new point, unless no iteration will use it.
                    loss = float(evaluate())
                    g = self._flat_grad()
                    opt_cond = g.abs().max() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state['func_evals'] += ls_evals

            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_g, prev_loss=prev_loss)
        return orig_loss


def _two_loop(g, dirs, stps, ro, H_diag, al):
    """The L-BFGS direction ``-H g``: the inverse-Hessian estimate (``H_diag`` times the
    identity, updated by the pairs ``stps[i]``, ``dirs[i]`` of step and gradient
    differences, ``ro[i] = 1 / dirs[i].stps[i]``) applied to the negative gradient. ``al``
    receives the first loop's coefficients (torch keeps them in the state)."""
    q = g.neg()
    for i in range(len(dirs) - 1, -1, -1):
        al[i] = stps[i].dot(q) * ro[i]
        q.add_(dirs[i], alpha=-al[i])
    r = q.mul(H_diag)
    for i in range(len(dirs)):
        be_i = dirs[i].dot(r) * ro[i]
        r.add_(stps[i], alpha=al[i] - be_i)
    return r


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clipped
    to ``bounds`` (default: between x1 and x2); their midpoint when the cubic has no
    minimum."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if not d2_square >= 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt() if hasattr(d2_square, 'sqrt') else d2_square ** 0.5
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


class _Point:
    """One trial of the line search: step ``t``, loss ``f``, gradient ``g``, slope
    ``gtd`` along the direction."""
    __slots__ = ('t', 'f', 'g', 'gtd')

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def strong_wolfe(at, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step ``t`` along ``d`` from the point with loss ``f``, gradient ``g`` and slope
    ``gtd`` (negative) meeting the strong Wolfe conditions: sufficient decrease
    ``f(t) <= f + c1 t gtd`` and curvature ``|slope(t)| <= -c2 gtd``. ``at(t)`` gives the
    loss and gradient at step ``t``. A bracketing phase grows ``t`` (cubic extrapolation)
    until an interval holds a point that qualifies, then a zoom phase shrinks it (cubic
    interpolation, kept away from the ends); at most ``max_ls`` evaluations after the
    first. Returns the loss, gradient and step of the best point, and the number of
    evaluations."""
    d_norm = d.abs().max()
    start = _Point(0, f, g.clone(), gtd)

    def trial(step):
        f_new, g_new = at(step)
        return _Point(step, f_new, g_new, g_new.dot(d))

    def sufficient_decrease(p):
        return not p.f > f + c1 * p.t * gtd

    def curvature(p):
        return abs(p.gtd) <= -c2 * gtd

    new, prev = trial(t), start
    evals, ls_iter = 1, 0
    bracket = None  # [a, b] around a qualifying step, or [p] once p qualifies
    while ls_iter < max_ls:
        if not sufficient_decrease(new) or (ls_iter > 1 and new.f >= prev.f):
            bracket = [prev, new]
            break
        if curvature(new):
            bracket = [new]
            break
        if new.gtd >= 0:  # the slope turned: a minimum lies between
            bracket = [prev, new]
            break
        # Still descending: extrapolate, at least a little and at most 10x further.
        step = _cubic_min(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd,
                          bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10))
        prev, new = new, trial(step)
        evals += 1
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = [_Point(0, f, g, None), new]
    if len(bracket) == 1:
        best = bracket[0]
        return best.f, best.g, best.t, evals

    # Zoom: shrink the bracket; ``low`` indexes its end with the lower loss.
    insufficient_progress = False
    low = 0 if bracket[0].f <= bracket[-1].f else 1
    while ls_iter < max_ls:
        a, b = bracket
        if abs(b.t - a.t) * d_norm < tolerance_change:
            break
        step = _cubic_min(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        # A trial too near an end makes little progress: after one such, or one outside
        # the bracket, move it a tenth of the bracket inside.
        top, bottom = max(a.t, b.t), min(a.t, b.t)
        eps = 0.1 * (top - bottom)
        if min(top - step, step - bottom) < eps:
            if insufficient_progress or step >= top or step <= bottom:
                step = top - eps if abs(step - top) < abs(step - bottom) else bottom + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        new = trial(step)
        evals += 1
        ls_iter += 1
        if not sufficient_decrease(new) or new.f >= bracket[low].f:
            bracket[1 - low] = new
            low = 0 if bracket[0].f <= bracket[1].f else 1
        else:
            done = curvature(new)
            if not done and new.gtd * (bracket[1 - low].t - bracket[low].t) >= 0:
                bracket[1 - low] = bracket[low]
            bracket[low] = new
            if done:
                break
    best = bracket[low]
    return best.f, best.g, best.t, evals
