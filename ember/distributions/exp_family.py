"""ExponentialFamily: distributions whose density is exp(<t(x), theta> - F(theta) + k(x));
entropy and same-family KL follow from the log-normalizer F by autograd."""
import ember

from .distribution import Distribution

__all__ = ['ExponentialFamily']


class ExponentialFamily(Distribution):
    """Base of the exponential families. A subclass gives ``_natural_params`` (theta),
    ``_log_normalizer(*theta)`` (F) and ``_mean_carrier_measure`` (E[k(x)]); the entropy
    is then ``F(theta) - <theta, grad F(theta)> - E[k(x)]`` (the Bregman form)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """Entropy from the log-normalizer's gradient (differentiable twice over)."""
        result = -self._mean_carrier_measure
        thetas = [p.detach().requires_grad_() for p in self._natural_params]
        with ember.enable_grad():
            f = self._log_normalizer(*thetas)
            grads = ember.autograd.grad(f.sum(), thetas, create_graph=True)
        result = result + f
        for theta, g in zip(thetas, grads):
            result = result - (theta * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
