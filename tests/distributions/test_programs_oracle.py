"""Small programs written against torch.distributions, run unchanged on ember and torch
(deterministic: no sampling), compared at the end."""
import numpy as np

from .helpers import ember, torch


def fit_mixture(lib, data, steps=60):
    """Maximum-likelihood fit of a two-component Gaussian mixture with Adam, plus a KL
    penalty pulling the component scales toward a LogNormal prior's mode."""
    D = lib.distributions
    logits = lib.zeros(2, requires_grad=True)
    loc = lib.tensor([-1.0, 1.0], requires_grad=True)
    log_scale = lib.zeros(2, requires_grad=True)
    opt = lib.optim.Adam([logits, loc, log_scale], lr=0.05)
    x = lib.tensor(data)
    for _ in range(steps):
        opt.zero_grad()
        mix = D.MixtureSameFamily(D.Categorical(logits=logits),
                                  D.Normal(loc, log_scale.exp()))
        prior = D.Independent(D.Normal(lib.zeros(2), lib.ones(2)), 1)
        posterior = D.Independent(D.Normal(loc, log_scale.exp()), 1)
        loss = -mix.log_prob(x).mean() + 0.01 * D.kl_divergence(posterior, prior)
        loss.backward()
        opt.step()
    return [t.detach().numpy() if lib is torch else t.detach()._data
            for t in (logits, loc, log_scale, loss)]


def test_mixture_fit_matches_torch():
    rng = np.random.default_rng(0)
    data = np.concatenate([rng.normal(-2, 0.5, 300), rng.normal(1.5, 1.0, 200)])
    for a, b in zip(fit_mixture(ember, data), fit_mixture(torch, data)):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-4, atol=1e-5)


def policy_gradient_step(lib, obs, actions, returns, weight):
    """One REINFORCE step: Categorical policy log-probabilities weighted by returns, with
    an entropy bonus; returns the gradient of the policy weights."""
    D = lib.distributions
    w = lib.tensor(weight, requires_grad=True)
    logits = lib.tensor(obs) @ w
    dist = D.Categorical(logits=logits)
    loss = -(dist.log_prob(lib.tensor(actions)) * lib.tensor(returns)).mean() \
        - 0.01 * dist.entropy().mean()
    loss.backward()
    return w.grad.numpy() if lib is torch else w.grad._data


def test_policy_gradient_matches_torch():
    rng = np.random.default_rng(1)
    obs, weight = rng.standard_normal((16, 4)), rng.standard_normal((4, 3))
    actions, returns = rng.integers(0, 3, 16), rng.standard_normal(16)
    np.testing.assert_allclose(policy_gradient_step(ember, obs, actions, returns, weight),
                               policy_gradient_step(torch, obs, actions, returns, weight),
                               rtol=1e-10)
