"""check_function: every check a custom Function's author should run, in one call.

>>> report = ember.autograd.check_function(MyFunction, x, w)   # doctest: +SKIP
>>> print(report)                                              # doctest: +SKIP
check_function(MyFunction) -- 5 passed, 2 skipped
  ok       gradcheck                first derivatives match finite differences
  ...
"""
import numpy as np

from .._tensor import Tensor, make

__all__ = ['check_function', 'CheckReport']


class CheckReport:
    """The result of ``check_function``: one line per check, ``ok`` if none failed."""

    def __init__(self, name):
        self.name = name
        self.rows = []   # (check, status, detail); status is 'ok', 'FAIL' or 'skipped'

    def add(self, check, status, detail):
        self.rows.append((check, status, detail))

    @property
    def ok(self):
        """True if no check failed (skipped checks do not count as failures)."""
        return all(status != 'FAIL' for _, status, _ in self.rows)

    @property
    def failures(self):
        """The rows of the checks that failed."""
        return [r for r in self.rows if r[1] == 'FAIL']

    def __str__(self):
        counts = {s: sum(1 for _, st, _ in self.rows if st == s) for s in ('ok', 'FAIL',
                                                                          'skipped')}
        parts = [f"{counts['FAIL']} FAILED"] if counts['FAIL'] else []
        parts.append(f"{counts['ok']} passed")
        if counts['skipped']:
            parts.append(f"{counts['skipped']} skipped")
        head = f"check_function({self.name}) -- {', '.join(parts)}"
        width = max(len(c) for c, _, _ in self.rows) if self.rows else 0
        lines = [head]
        for check, status, detail in self.rows:
            first, *rest = str(detail).splitlines() or ['']
            lines.append(f"  {status:8} {check:{width}}  {first}")
            lines.extend(f"  {'':8} {'':{width}}  {line}" for line in rest[:12])
        return '\n'.join(lines)

    __repr__ = __str__


def check_function(fn, *inputs, raise_on_failure=False, eps=1e-6, atol=1e-5, rtol=1e-3):
    """Runs on ``fn`` (a custom Function class, or any callable of tensors) with ``inputs``:
    gradcheck; gradgradcheck unless backward is ``@once_differentiable``; forward-mode vs
    reverse-mode agreement when it defines ``jvp``; that ``needs_input_grad`` is respected
    (each input alone requiring grad gives the same gradient); that backward copes when only
    some outputs get a gradient (``set_materialize_grads(False)`` style); repeated backward
    with ``retain_graph``; and non-contiguous inputs. Tensor inputs are checked as float64
    copies. Returns a ``CheckReport``; with ``raise_on_failure=True`` a failure raises
    RuntimeError with the report.
    """
    from .function import Function
    is_function = isinstance(fn, type) and issubclass(fn, Function)
    apply = fn.apply if is_function else fn
    name = fn.__name__ if hasattr(fn, '__name__') else type(fn).__name__
    args = [_float64(a) for a in inputs]
    report = CheckReport(name)
    diff = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a._requires_grad]
    if not diff:
        raise ValueError("check_function needs at least one tensor input with "
                         "requires_grad=True")

    _run(report, 'gradcheck', 'first derivatives match finite differences',
         lambda: _gradcheck(apply, args, eps, atol, rtol))
    if is_function and getattr(fn._backward_impl, '_once_differentiable', False):
        report.add('gradgradcheck', 'skipped', 'backward is @once_differentiable')
    else:
        _run(report, 'gradgradcheck', 'second derivatives match finite differences',
             lambda: _gradgradcheck(apply, args, eps, atol, rtol))
    if is_function and fn.jvp is not _base_jvp():
        _run(report, 'forward AD', 'jvp agrees with finite differences and with backward',
             lambda: _gradcheck(apply, args, eps, atol, rtol, forward=True))
    else:
        report.add('forward AD', 'skipped', 'no jvp defined')
    _run(report, 'needs_input_grad', 'each input alone requiring grad gets the same gradient',
         lambda: _check_needs_input_grad(apply, args, diff))
    _run(report, 'partial outputs', 'backward copes when only some outputs get a gradient',
         lambda: _check_partial_outputs(apply, args, diff))
    _run(report, 'retain_graph', 'a second backward through the same graph agrees',
         lambda: _check_retain_graph(apply, args, diff))
    _run(report, 'non-contiguous', 'non-contiguous inputs give the same values and gradients',
         lambda: _check_non_contiguous(apply, args, diff))
    if raise_on_failure and not report.ok:
        raise RuntimeError(str(report))
    return report


# -- the checks --------------------------------------------------------------------------
class _Failed(Exception):
    pass


def _run(report, check, what, body):
    try:
        note = body()
    except _Failed as e:
        report.add(check, 'FAIL', str(e))
    except Exception as e:  # noqa: BLE001 - any error is a failed check, reported as such
        report.add(check, 'FAIL', f"{type(e).__name__}: {e}")
    else:
        report.add(check, 'skipped' if note else 'ok', note or what)


def _base_jvp():
    from .function import _SingleLevelFunction
    return _SingleLevelFunction.jvp


def _float64(a):
    if isinstance(a, Tensor) and a._data.dtype.kind in 'fV':
        t = make(a._data.astype(np.float64))
        return t.requires_grad_(a._requires_grad)
    return a


def _fresh(args):
    """Copies of the inputs with their own memory and no history."""
    return [make(a._data.copy()).requires_grad_(a._requires_grad) if isinstance(a, Tensor)
            else a for a in args]


def _gradcheck(apply, args, eps, atol, rtol, forward=False):
    from .gradcheck import gradcheck
    if not gradcheck(apply, tuple(_fresh(args)), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=True, check_forward_ad=forward,
                     check_backward_ad=not forward, check_undefined_grad=False):
        raise _Failed("gradcheck returned False")


def _gradgradcheck(apply, args, eps, atol, rtol):
    from .gradcheck import gradgradcheck
    gradgradcheck(apply, tuple(_fresh(args)), eps=eps, atol=atol * 10, rtol=rtol * 10,
                  check_undefined_grad=False)


def _outputs(out):
    outs = out if isinstance(out, tuple) else (out,)
    return [o for o in outs if isinstance(o, Tensor) and o._requires_grad]


def _grads(apply, args, diff, seeds=None, which=None):
    """Gradients of sum(seed_k * output_k) (over the outputs in ``which``) w.r.t. ``diff``."""
    from . import grad
    outs = _outputs(apply(*args))
    chosen = range(len(outs)) if which is None else which
    rng = np.random.default_rng(0)
    seeds = seeds or [make(rng.standard_normal(o._data.shape)) for o in outs]
    picked = [outs[k] for k in chosen]
    gs = grad(picked, [args[i] for i in diff], [seeds[k] for k in chosen], allow_unused=True)
    return [None if g is None else g._data.copy() for g in gs], seeds


def _same(a, b, what):
    for i, (x, y) in enumerate(zip(a, b)):
        x = np.zeros_like(y) if x is None and y is not None else x
        y = np.zeros_like(x) if y is None and x is not None else y
        if x is not None and not np.allclose(x, y, rtol=1e-7, atol=1e-9):
            raise _Failed(f"{what}: gradient of input {i} differs (max difference "
                          f"{np.abs(x - y).max():.3g})")


def _check_needs_input_grad(apply, args, diff):
    if len(diff) < 2:
        return "only one input requires grad"
    full, seeds = _grads(apply, _fresh(args), diff)
    for k, i in enumerate(diff):
        alone = [make(a._data.copy()).requires_grad_(j == i) if isinstance(a, Tensor) else a
                 for j, a in enumerate(args)]
        g, _ = _grads(apply, alone, [i], seeds)
        _same(g, [full[k]], f"with only input {i} requiring grad")


def _check_partial_outputs(apply, args, diff):
    outs = _outputs(apply(*_fresh(args)))
    if len(outs) < 2:
        return "one differentiable output"
    fresh = _fresh(args)
    full, seeds = _grads(apply, fresh, diff)
    total = None
    for k in range(len(outs)):
        g, _ = _grads(apply, _fresh(args), diff, seeds, which=[k])
        g = [np.zeros_like(f) if x is None else x for x, f in zip(g, full)]
        total = g if total is None else [a + b for a, b in zip(total, g)]
    _same(total, full, "summing the gradients of each output alone")


def _check_retain_graph(apply, args, diff):
    from . import grad
    fresh = _fresh(args)
    outs = _outputs(apply(*fresh))
    rng = np.random.default_rng(1)
    seeds = [make(rng.standard_normal(o._data.shape)) for o in outs]
    ins = [fresh[i] for i in diff]
    first = grad(outs, ins, seeds, retain_graph=True, allow_unused=True)
    second = grad(outs, ins, seeds, allow_unused=True)
    _same([None if g is None else g._data for g in second],
          [None if g is None else g._data for g in first], "the second backward")


def _check_non_contiguous(apply, args, diff):
    if not any(isinstance(a, Tensor) and a._data.ndim for a in args):
        return "no input with dimensions"
    contiguous = _fresh(args)
    strided = [_non_contiguous(a) if isinstance(a, Tensor) else a for a in args]
    out_a = apply(*contiguous)
    out_b = apply(*strided)
    for x, y in zip(_outputs(out_a) or [out_a], _outputs(out_b) or [out_b]):
        if isinstance(x, Tensor) and not np.allclose(x._data, y._data, rtol=1e-7, atol=1e-9):
            raise _Failed("outputs differ for non-contiguous inputs")
    g1, seeds = _grads(apply, contiguous, diff)
    g2, _ = _grads(apply, strided, diff, seeds)
    _same(g2, g1, "with non-contiguous inputs")


def _non_contiguous(t):
    """The same values in memory with gaps (every other element of a bigger buffer)."""
    data = t._data
    if data.ndim == 0:
        return make(data.copy()).requires_grad_(t._requires_grad)
    big = np.zeros(data.shape[:-1] + (data.shape[-1] * 2,), data.dtype)
    view = big[..., ::2]
    view[...] = data
    return make(view).requires_grad_(t._requires_grad)
