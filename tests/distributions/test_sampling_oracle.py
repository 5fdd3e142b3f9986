"""Sampling against torch. The random streams differ (ember draws from NumPy), so:

- reparameterised gradients are compared at the same point: ember draws x = rsample(),
  torch rebuilds the same x from its own formula (icdf(cdf(x)), loc + L eps, ...) and the
  gradients of both with respect to the parameters must agree;
- Gamma's implicit gradient is compared with torch's ``_standard_gamma_grad`` at ember's
  draws, and Beta/Dirichlet's (exact where torch's is approximate) through the identity
  E[d x / d alpha] = d E[x] / d alpha, against torch's gradient of the analytic mean;
- sample statistics are compared with torch's analytic moments, seeded (deterministic);
- seeding with ember.manual_seed repeats the draws.
"""
import numpy as np
import pytest

from .helpers import arr, ember, torch

N = 40000


def _pair(make, params, dtype=np.float64):
    e_ps = [ember.tensor(p.astype(dtype), requires_grad=True) for p in params]
    t_ps = [torch.tensor(p.astype(dtype), requires_grad=True) for p in params]
    return make(ember.distributions, *e_ps), make(torch.distributions, *t_ps), e_ps, t_ps


def _grads(e_out, t_out, e_ps, t_ps, seed=0):
    w = np.random.default_rng(seed).standard_normal(tuple(t_out.shape))
    e_g = ember.autograd.grad((e_out * ember.tensor(w, dtype=e_out.dtype)).sum(), e_ps)
    t_g = torch.autograd.grad((t_out * torch.tensor(w, dtype=t_out.dtype)).sum(), t_ps)
    return [np.asarray(g._data) for g in e_g], [g.numpy() for g in t_g]


LOC_SCALE = {
    'Normal': (lambda D, m, s: D.Normal(m, s), [arr(3), arr(3, low=0.5, high=2.0, seed=1)]),
    'Laplace': (lambda D, m, s: D.Laplace(m, s), [arr(3), arr(3, low=0.5, high=2.0, seed=1)]),
    'Uniform': (lambda D, a, w: D.Uniform(a, a + w), [arr(3), arr(3, low=0.5, high=2.0)]),
    'Exponential': (lambda D, r: D.Exponential(r), [arr(3, low=0.5, high=2.0)]),
    'LogNormal': (lambda D, m, s: D.LogNormal(m, s), [arr(3), arr(3, low=0.2, high=1.0)]),
    'Cauchy': (lambda D, m, s: D.Cauchy(m, s), [arr(3), arr(3, low=0.5, high=2.0, seed=1)]),
    'HalfNormal': (lambda D, s: D.HalfNormal(s), [arr(3, low=0.5, high=2.0)]),
    'TransformedTanh': (lambda D, m, s: D.TransformedDistribution(
        D.Normal(m, s), [D.transforms.TanhTransform(), D.transforms.AffineTransform(1.0, 3.0)]),
        [arr(3), arr(3, low=0.2, high=1.0)]),
}


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', LOC_SCALE)
def test_rsample_gradient_matches_torch_at_the_same_draw(name, dtype):
    make, params = LOC_SCALE[name]
    ember.manual_seed(0)
    e, t, e_ps, t_ps = _pair(make, params, dtype)
    x = e.rsample((5,))
    assert x.requires_grad and tuple(x.shape) == (5, 3) and x.dtype == e_ps[0].dtype
    # torch's reparameterisation of the same draw: x = icdf(u) with u = cdf(x).
    with torch.no_grad():
        u = t.cdf(torch.tensor(x.detach()._data))
    x_t = t.icdf(u)
    np.testing.assert_allclose(np.asarray(x.detach()._data), x_t.detach().numpy(),
                               rtol=1e-4 if dtype == np.float32 else 1e-9)
    for a, b in zip(*_grads(x, x_t, e_ps, t_ps)):
        np.testing.assert_allclose(a, b, rtol=2e-3 if dtype == np.float32 else 1e-7,
                                   atol=1e-4 if dtype == np.float32 else 1e-9)


def test_multivariate_normal_rsample_gradient():
    a = arr(3, 3, seed=3)
    cov = a @ a.T + 3 * np.eye(3)
    make = lambda D, m, c: D.MultivariateNormal(m, covariance_matrix=c)  # noqa: E731
    e, t, e_ps, t_ps = _pair(make, [arr(2, 3), cov])
    ember.manual_seed(0)
    x = e.rsample((4,))
    with torch.no_grad():
        eps = torch.linalg.solve_triangular(
            t.scale_tril, (torch.tensor(x.detach()._data) - t.loc).unsqueeze(-1),
            upper=False).squeeze(-1)
    x_t = t.loc + (t.scale_tril @ eps.unsqueeze(-1)).squeeze(-1)
    for a, b in zip(*_grads(x, x_t, e_ps, t_ps)):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


def test_gamma_rsample_gradient_matches_standard_gamma_grad():
    conc = np.array([0.05, 0.5, 1.0, 3.0, 20.0, 300.0])
    rate = np.array([1.0, 2.0, 0.5, 1.5, 1.0, 3.0])
    e, t, e_ps, t_ps = _pair(lambda D, c, r: D.Gamma(c, r), [conc, rate])
    ember.manual_seed(1)
    x = e.rsample((50,))
    g_conc, g_rate = ember.autograd.grad(x.sum(), e_ps)
    xs = x.detach()._data * rate  # the standard-Gamma draws
    expected = torch._standard_gamma_grad(torch.tensor(conc).expand(50, 6),
                                          torch.tensor(xs)) / torch.tensor(rate)
    # torch's derivative is an approximation accurate to about 1e-3; ember's is exact.
    np.testing.assert_allclose(np.asarray(g_conc._data), expected.sum(0).numpy(), rtol=2e-3)
    np.testing.assert_allclose(np.asarray(g_rate._data), (-xs / rate ** 2).sum(0), rtol=1e-9)


@pytest.mark.parametrize('name', ['Gamma', 'Beta', 'Dirichlet'])
def test_implicit_gradient_is_gradient_of_the_mean(name):
    make, params = {
        'Gamma': (lambda D, c: D.Gamma(c, 1.0), [np.array([0.3, 1.0, 4.0])]),
        'Beta': (lambda D, a, b: D.Beta(a, b), [np.array([0.5, 2.0, 5.0]),
                                                np.array([1.5, 0.7, 3.0])]),
        'Dirichlet': (lambda D, c: D.Dirichlet(c), [np.array([0.5, 2.0, 4.0])]),
    }[name]
    e, t, e_ps, t_ps = _pair(make, params)
    ember.manual_seed(2)
    x = e.rsample((N,))
    w = np.random.default_rng(0).standard_normal(tuple(x.shape[1:]))
    e_g = ember.autograd.grad((x * ember.tensor(w)).mean(0).sum(), e_ps)
    t_g = torch.autograd.grad((t.mean * torch.tensor(w)).sum(), t_ps)
    for a, b in zip(e_g, t_g):
        np.testing.assert_allclose(np.asarray(a._data), b.numpy(), rtol=0.05, atol=0.01)


MOMENTS = {
    'Normal': lambda D, T: D.Normal(T.tensor([0.5, -1.0]), T.tensor([1.0, 2.0])),
    'Uniform': lambda D, T: D.Uniform(T.tensor([0.0, -1.0]), T.tensor([1.0, 3.0])),
    'Laplace': lambda D, T: D.Laplace(T.tensor([0.5, -1.0]), T.tensor([1.0, 2.0])),
    'Exponential': lambda D, T: D.Exponential(T.tensor([0.5, 3.0])),
    'LogNormal': lambda D, T: D.LogNormal(T.tensor([0.0, 0.5]), T.tensor([0.3, 0.5])),
    'Gamma': lambda D, T: D.Gamma(T.tensor([0.3, 5.0]), T.tensor([1.0, 2.0])),
    'Beta': lambda D, T: D.Beta(T.tensor([0.5, 3.0]), T.tensor([2.0, 1.0])),
    'Dirichlet': lambda D, T: D.Dirichlet(T.tensor([0.5, 3.0, 1.0])),
    'Bernoulli': lambda D, T: D.Bernoulli(T.tensor([0.2, 0.9])),
    'Binomial': lambda D, T: D.Binomial(T.tensor([5.0, 20.0]), T.tensor([0.3, 0.6])),
    'Poisson': lambda D, T: D.Poisson(T.tensor([0.5, 7.0])),
    'Categorical': lambda D, T: D.Categorical(T.tensor([0.2, 0.5, 0.3])),
    'OneHotCategorical': lambda D, T: D.OneHotCategorical(T.tensor([0.2, 0.5, 0.3])),
    'MultivariateNormal': lambda D, T: D.MultivariateNormal(
        T.tensor([1.0, -1.0]), T.tensor([[2.0, 0.5], [0.5, 1.0]])),
    'Independent': lambda D, T: D.Independent(D.Normal(T.zeros(2), T.tensor([1.0, 3.0])), 1),
    'LowRankMultivariateNormal': lambda D, T: D.LowRankMultivariateNormal(
        T.tensor([1.0, -1.0]), T.tensor([[1.0], [0.5]]), T.tensor([0.5, 2.0])),
    'HalfNormal': lambda D, T: D.HalfNormal(T.tensor([0.5, 2.0])),
    'Chi2': lambda D, T: D.Chi2(T.tensor([1.0, 6.0])),
    'StudentT': lambda D, T: D.StudentT(T.tensor([5.0, 9.0]), T.tensor([1.0, -1.0])),
    'Gumbel': lambda D, T: D.Gumbel(T.tensor([1.0, -1.0]), T.tensor([0.5, 2.0])),
    'Geometric': lambda D, T: D.Geometric(T.tensor([0.3, 0.8])),
    'Multinomial': lambda D, T: D.Multinomial(6, T.tensor([0.2, 0.5, 0.3])),
    'Pareto': lambda D, T: D.Pareto(T.tensor([1.0, 0.5]), T.tensor([5.0, 8.0])),
    'Weibull': lambda D, T: D.Weibull(T.tensor([1.0, 2.0]), T.tensor([0.8, 3.0])),
    'NegativeBinomial': lambda D, T: D.NegativeBinomial(T.tensor([3.0, 10.0]),
                                                        T.tensor([0.3, 0.6])),
    'MixtureSameFamily': lambda D, T: D.MixtureSameFamily(
        D.Categorical(T.tensor([0.3, 0.7])), D.Normal(T.tensor([-2.0, 1.0]), T.ones(2))),
}


@pytest.mark.parametrize('name', MOMENTS)
def test_sample_moments(name):
    e = MOMENTS[name](ember.distributions, ember)
    t = MOMENTS[name](torch.distributions, torch)
    ember.manual_seed(0)
    x = e.sample((N,))
    assert tuple(x.shape) == (N,) + tuple(t.batch_shape + t.event_shape)
    assert bool(t.support.check(torch.tensor(x._data)).all())
    data = x._data.astype(np.float64)
    if name == 'Categorical':  # its mean is nan in torch: compare the class frequencies
        np.testing.assert_allclose(np.bincount(data.astype(int), minlength=3) / N,
                                   t.probs.numpy(), atol=0.015)
        return
    mean, var = t.mean.numpy(), t.variance.numpy()
    # 6 standard errors: seeded, so deterministic; loose enough for any honest sampler.
    np.testing.assert_allclose(data.mean(0), mean, atol=6 * np.sqrt(var / N).max() + 1e-12)
    np.testing.assert_allclose(data.var(0), var, rtol=0.1, atol=1e-3)


@pytest.mark.parametrize('name', MOMENTS)
def test_manual_seed_repeats_samples(name):
    d = MOMENTS[name](ember.distributions, ember)
    ember.manual_seed(123)
    a = d.sample((3,))
    ember.manual_seed(123)
    b = d.sample((3,))
    np.testing.assert_array_equal(a._data, b._data)
    assert str(a.dtype) == str(MOMENTS[name](torch.distributions, torch).sample((3,)).dtype)


@pytest.mark.parametrize('name', ['Normal', 'Laplace', 'Exponential', 'Gamma', 'Beta',
                                  'Dirichlet', 'MultivariateNormal', 'LogNormal'])
def test_sample_has_no_graph_rsample_has(name):
    e = MOMENTS[name](ember.distributions, ember)
    t = MOMENTS[name](torch.distributions, torch)
    assert e.has_rsample == t.has_rsample
    assert not e.sample().requires_grad


def test_straight_through_one_hot():
    for lib in (ember, torch):
        p = lib.tensor([0.2, 0.5, 0.3], requires_grad=True)
        d = lib.distributions.OneHotCategoricalStraightThrough(probs=p)
        x = d.rsample((4,))
        (x * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        assert d.has_rsample
        if lib is ember:
            eg = p.grad._data.copy()
        else:
            np.testing.assert_allclose(eg, p.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize('family', ['RelaxedOneHotCategorical', 'RelaxedBernoulli'])
def test_relaxed_rsample_gradient_at_the_same_noise(family):
    temp, logits = 0.7, arr(2, 3)
    e_ps = [ember.tensor(temp, requires_grad=True), ember.tensor(logits, requires_grad=True)]
    t_ps = [torch.tensor(temp, requires_grad=True), torch.tensor(logits, requires_grad=True)]
    ember.manual_seed(0)
    x = getattr(ember.distributions, family)(e_ps[0], logits=e_ps[1]).rsample((4,))
    xd = torch.tensor(x.detach()._data)
    t, lg = t_ps
    if family == 'RelaxedOneHotCategorical':
        # x = softmax((logits + G) / t): the noise, up to a per-row constant, is t log x - logits
        lg_n = lg - lg.logsumexp(-1, keepdim=True)
        noise = (temp * xd.log() - lg_n).detach()
        x_t = torch.softmax((lg_n + noise) / t, -1)
    else:
        # x = sigmoid((logit(u) + logits) / t)
        noise = (temp * torch.logit(xd) - lg).detach()
        x_t = torch.sigmoid((noise + lg) / t)
    for a, b in zip(*_grads(x, x_t, e_ps, t_ps)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_squashed_gaussian_with_cached_tanh():
    # The soft actor-critic policy: the log-probability of its own (cached) sample.
    mu, log_std = arr(4, 2), arr(4, 2, seed=1) * 0.3
    e_ps = [ember.tensor(mu, requires_grad=True), ember.tensor(log_std, requires_grad=True)]
    t_ps = [torch.tensor(mu, requires_grad=True), torch.tensor(log_std, requires_grad=True)]
    ember.manual_seed(0)
    De, Dt = ember.distributions, torch.distributions
    e = De.TransformedDistribution(De.Normal(e_ps[0], e_ps[1].exp()),
                                   [De.transforms.TanhTransform(cache_size=1)])
    a = e.rsample()
    lp = e.log_prob(a).sum(-1)
    t_base = Dt.Normal(t_ps[0], t_ps[1].exp())
    u = ((torch.tensor(a.detach()._data).atanh() - t_ps[0]) / t_ps[1].exp()).detach()
    tanh = Dt.transforms.TanhTransform(cache_size=1)
    t = Dt.TransformedDistribution(t_base, [tanh])
    a_t = tanh(t_ps[0] + u * t_ps[1].exp())
    lp_t = t.log_prob(a_t).sum(-1)
    np.testing.assert_allclose(np.asarray(lp.detach()._data), lp_t.detach().numpy(),
                               rtol=1e-6, atol=1e-8)
    for x, y in zip(*_grads(lp + a.sum(-1), lp_t + a_t.sum(-1), e_ps, t_ps)):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-8)


def test_independent_is_subscriptable_like_torchs_generic():
    assert ember.distributions.Independent[ember.distributions.Normal] is not None
    assert torch.distributions.Independent[torch.distributions.Normal] is not None
