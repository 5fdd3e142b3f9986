"""LBFGS against torch 2.13: the same iterates (parameters after every ``step``), losses,
closure-call counts and state_dict on deterministic problems, with and without the
strong-Wolfe line search; its errors."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import arr
from .helpers import LIBS, assert_same_params, assert_same_state, roundtrip, same_error, torch


def _rosenbrock(lib, ps):
    (x,) = ps
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def _least_squares(lib, ps):
    w, b = ps
    dtype = w.detach().numpy().dtype
    a = lib.tensor(arr(20, 3, seed=1, dtype=dtype))
    y = lib.tensor(arr(20, seed=2, dtype=dtype))
    return ((a @ w + b - y) ** 2).mean()


def _mlp(lib, ps):
    w1, b1, w2, b2 = ps
    dtype = w1.detach().numpy().dtype
    x = lib.tensor(arr(16, 3, seed=3, dtype=dtype))
    y = lib.tensor(arr(16, 2, seed=4, dtype=dtype))
    h = lib.tanh(x @ w1.T + b1)
    return ((h @ w2.T + b2 - y) ** 2).mean()


PROBLEMS = {
    'rosenbrock': (_rosenbrock, lambda: [np.array([-1.5, 2.0, 0.5, -0.3])]),
    'least_squares': (_least_squares, lambda: [arr(3, seed=5), np.zeros(())]),
    'mlp': (_mlp, lambda: [arr(5, 3, seed=6) * 0.5, arr(5, seed=7) * 0.1,
                           arr(2, 5, seed=8) * 0.5, arr(2, seed=9) * 0.1]),
}
OPTIONS = [
    dict(),
    dict(line_search_fn='strong_wolfe'),
    dict(lr=0.5, max_iter=4, history_size=3),
    dict(max_iter=6, history_size=2, line_search_fn='strong_wolfe'),
    dict(lr=0.1, max_iter=3, max_eval=5, tolerance_change=1e-6, line_search_fn='strong_wolfe'),
]
OPTION_IDS = ['plain', 'wolfe', 'short-history', 'wolfe-short-history', 'wolfe-max-eval']


def _run(lib, problem, options, steps, start=None, dtype='float64'):
    """``steps`` LBFGS steps; the parameters after each, the losses step returned, how
    often the closure ran, and the optimizer."""
    fn, init = PROBLEMS[problem]
    ps = [lib.nn.Parameter(lib.tensor(a.astype(dtype))) for a in (start or init())]
    opt = lib.optim.LBFGS(ps, **options)
    calls = []

    def closure():
        opt.zero_grad()
        loss = fn(lib, ps)
        loss.backward()
        calls.append(lib.is_grad_enabled())
        return loss

    iterates, losses = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        iterates.append([p.detach().clone() for p in ps])
    return iterates, losses, calls, opt


@pytest.mark.parametrize('options', OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize('problem', sorted(PROBLEMS))
def test_same_iterates_as_torch(problem, options):
    """Three steps (up to 60 iterations): rounding differences (NumPy's and torch's dot
    products sum in different orders) grow by about 10x per 10 iterations on the MLP, so
    more steps would test the conditioning, not the algorithm."""
    (e_it, e_loss, e_calls, e_opt), (t_it, t_loss, t_calls, t_opt) = [
        _run(lib, problem, options, steps=3) for lib in LIBS]
    assert e_calls == t_calls and all(e_calls)
    np.testing.assert_allclose(e_loss, t_loss, rtol=1e-9, atol=1e-12)
    for step, (e, t) in enumerate(zip(e_it, t_it)):
        assert_same_params(e, t, rtol=1e-8, atol=1e-10)
    # Near convergence the history holds differences of nearly equal gradients, and
    # ``ro = 1 / y.s`` scales their rounding noise up: looser bounds for the state.
    assert_same_state(e_opt.state_dict(), t_opt.state_dict(), rtol=1e-6, atol=1e-6)


def test_float32_parameters():
    """A few iterations (float32 runs into rounding noise long before float64)."""
    (e_it, e_loss, _, e_opt), (t_it, t_loss, _, t_opt) = [
        _run(lib, 'mlp', dict(max_iter=4, line_search_fn='strong_wolfe'), steps=2,
             dtype='float32') for lib in LIBS]
    np.testing.assert_allclose(e_loss, t_loss, rtol=1e-5)
    for e, t in zip(e_it, t_it):
        assert_same_params(e, t, rtol=1e-4, atol=1e-5)


def test_step_returns_at_once_when_the_gradient_is_already_small():
    for_lib = []
    for lib in LIBS:
        it, losses, calls, opt = _run(lib, 'least_squares', dict(tolerance_grad=1e3), steps=2)
        for_lib.append((it[-1], losses, len(calls), opt.state_dict()))
    (e_ps, e_loss, e_n, e_sd), (t_ps, t_loss, t_n, t_sd) = for_lib
    assert e_n == t_n == 2 and e_loss == t_loss
    assert_same_params(e_ps, t_ps)
    assert_same_state(e_sd, t_sd)


def test_state_dict_round_trip_continues_the_same_iterates():
    options = dict(max_iter=3, history_size=4, line_search_fn='strong_wolfe')
    straight, _, _, _ = _run(ember, 'mlp', options, steps=4)
    first, _, _, opt = _run(ember, 'mlp', options, steps=2)
    saved = roundtrip({'params': first[-1], 'optim': opt.state_dict()})
    fn, _ = PROBLEMS['mlp']
    ps = [ember.nn.Parameter(t.clone()) for t in saved['params']]
    opt2 = ember.optim.LBFGS(ps, **options)
    opt2.load_state_dict(saved['optim'])

    def closure():
        opt2.zero_grad()
        loss = fn(ember, ps)
        loss.backward()
        return loss

    for _ in range(2):
        opt2.step(closure)
    for a, b in zip(ps, straight[-1]):
        np.testing.assert_array_equal(a._data, b._data)


def test_complex_parameters_as_real_pairs():
    out = []
    for lib in LIBS:
        z = lib.nn.Parameter(lib.tensor(arr(3, seed=11, dtype=np.complex128)))
        target = lib.tensor(arr(3, seed=12, dtype=np.complex128))
        opt = lib.optim.LBFGS([z], max_iter=5, line_search_fn='strong_wolfe')

        def closure():
            opt.zero_grad()
            loss = ((z - target).abs() ** 2).sum() + (z ** 2).real.sum() * 0.1
            loss.backward()
            return loss

        opt.step(closure)
        out.append(z.detach())
    assert_same_params([out[0]], [out[1]], rtol=1e-8, atol=1e-10)


def test_defaults_and_repr():
    e = ember.optim.LBFGS([ember.nn.Parameter(ember.ones(2))], max_iter=8)
    t = torch.optim.LBFGS([torch.nn.Parameter(torch.ones(2))], max_iter=8)
    assert e.defaults == t.defaults
    assert repr(e) == repr(t)


def test_errors():
    same_error(lambda lib: lib.optim.LBFGS(
        [{'params': [lib.nn.Parameter(lib.ones(2))]},
         {'params': [lib.nn.Parameter(lib.ones(2))], 'lr': 0.1}]))
    same_error(lambda lib: lib.optim.LBFGS([lib.nn.Parameter(lib.ones(2))], lr=-1))
    same_error(lambda lib: lib.optim.LBFGS([lib.nn.Parameter(lib.ones(2))],
                                           lr=lib.ones(2)))

    def bad_line_search(lib):
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.LBFGS([w], line_search_fn='armijo')

        def closure():
            opt.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
    same_error(bad_line_search)

    def second_group(lib):
        opt = lib.optim.LBFGS([lib.nn.Parameter(lib.ones(2))])
        opt.add_param_group({'params': [lib.nn.Parameter(lib.ones(2))]})
        opt.step(lambda: lib.ones(()))
    same_error(second_group)


def test_lr_as_a_tensor_and_a_parameter_without_grad():
    out = []
    for lib in LIBS:
        w = lib.nn.Parameter(lib.tensor(arr(3, seed=5)))
        unused = lib.nn.Parameter(lib.tensor(arr(2, seed=6)))
        opt = lib.optim.LBFGS([w, unused], lr=lib.tensor(0.5, dtype=lib.float64), max_iter=5)
        a = lib.tensor(arr(20, 3, seed=1))
        y = lib.tensor(arr(20, seed=2))

        def closure():
            opt.zero_grad()
            loss = ((a @ w - y) ** 2).mean()
            loss.backward()
            return loss

        for _ in range(2):
            opt.step(closure)
        out.append(([w.detach(), unused.detach()], opt.state_dict()))
    assert_same_params(out[0][0], out[1][0], rtol=1e-10, atol=1e-12)
    assert_same_state(out[0][1], out[1][1], rtol=1e-8, atol=1e-10)
