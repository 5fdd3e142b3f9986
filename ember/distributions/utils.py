"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits, lazily
computed parameters, and small array-level facts (machine epsilon, Cholesky success)."""
import math
import numbers

import numpy as np

import ember
from ember.overrides import is_tensor_like

__all__ = ['broadcast_all', 'clamp_probs', 'lazy_property', 'logits_to_probs',
           'probs_to_logits', 'euler_constant']

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


def broadcast_all(*values):
    """Broadcasts tensors and Python numbers to one shape; numbers become tensors of the
    first tensor's dtype (the default dtype if there is none)::

        >>> [t.shape for t in broadcast_all(ember.zeros(2, 1), 3.0)]
        [torch.Size([2, 1]), torch.Size([2, 1])]
    """
    if not all(isinstance(v, (ember.Tensor, numbers.Number)) or
               hasattr(v, '__torch_function__') for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(is_tensor_like(v) for v in values):
        # (tensor-likes stay as they are: broadcast_tensors hands them to their handler)
        like = next((v for v in values if isinstance(v, ember.Tensor)), None)
        dtype = like.dtype if like is not None else ember.get_default_dtype()
        values = [v if is_tensor_like(v) else ember.tensor(v, dtype=dtype) for v in values]
    return ember.broadcast_tensors(*values)


def standard_normal(shape, dtype):
    """Standard normal draws of ``shape`` from the default generator (no graph)."""
    with ember.no_grad():
        return ember.randn(tuple(shape), dtype=dtype)


def sum_rightmost(value, dim):
    """Sums the rightmost ``dim`` dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: sigmoid if binary, else softmax over the last dim."""
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, dim=-1)


def finfo(tensor):
    """NumPy's float facts (eps, tiny, max) for the tensor's dtype."""
    return np.finfo(tensor._data.dtype)


def clamp_probs(probs):
    """Clamps probabilities into [eps, 1 - eps] for the dtype's machine epsilon."""
    eps = float(finfo(probs).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped away from 0 and 1 first): log-odds if binary,
    else the log-probabilities."""
    p = clamp_probs(probs)
    if is_binary:
        return ember.log(p) - ember.log1p(-p)
    return ember.log(p)


def cholesky_succeeds(matrices):
    """A boolean tensor over the batch: whether each matrix has a Cholesky factor."""
    a = np.asarray(matrices.detach()._data)
    flat = a.reshape((-1,) + a.shape[-2:])
    ok = np.empty(len(flat), bool)
    for i, m in enumerate(flat):
        try:
            np.linalg.cholesky(m)
            ok[i] = True
        except np.linalg.LinAlgError:
            ok[i] = False
    return ember.tensor(ok.reshape(a.shape[:-2]))


class lazy_property:
    """A parameter computed from another on first access and then cached on the instance
    (``probs`` of a distribution made from ``logits``). It is computed with grad mode on,
    so gradients reach the parameter it came from."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


LOG_2PI = math.log(2 * math.pi)


def broadcast_params(*values):
    """``broadcast_all(*values)`` and the batch shape they give: empty when every value is
    a Python number (the tensors made from them are 0-d anyway), else the tensors' shape."""
    tensors = broadcast_all(*values)
    if all(isinstance(v, numbers.Number) for v in values):
        return tensors, ember.Size()
    return tensors, tensors[0].size()


class BinaryParameter:
    """The success probability of the two-outcome families (Bernoulli, Binomial,
    NegativeBinomial, LogitRelaxedBernoulli), given as ``probs`` or ``logits``: each is
    derived from the other on first use, and ``_param`` is the one given."""

    @lazy_property
    def logits(self):
        """Log-odds of success."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """Probability of success."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """Shape of the parameter the distribution was made from."""
        return self._param.size()

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)


def _tril_indices(n, diag):
    """Row and column indices of the lower triangle (from diagonal ``diag``), row order."""
    rows, cols = np.tril_indices(n, diag)
    return ember.tensor(rows), ember.tensor(cols)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle of (a batch of) square matrices, from diagonal ``diag`` down, as
    vectors in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = _tril_indices(n, diag)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``: (a batch of) lower-triangular matrices filled
    in row order from vectors, zero elsewhere."""
    # D is the positive root of D^2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 len = 0
    b = 1 + 2 * diag
    n = (-b + (b ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > float(finfo(vec).eps):
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    rows, cols = _tril_indices(n, diag)
    mat[..., rows, cols] = vec
    return mat
