"""Random numbers: Generator, manual_seed, rand/randn/randint/randperm/normal/bernoulli and
the in-place samplers uniform_/normal_/bernoulli_/random_.

Streams come from NumPy's PCG64, not torch's Mersenne Twister: a seed makes ember
reproducible, but the numbers differ from torch's for the same seed.
"""
import numpy as np

from .. import _dtype
from .._device import check_device
from ._core import Tensor, make, register, check_inplace, Node, track, track1, result
from ._core import check_nonnegative_sizes
from .creation import _shape, _dt, _finish

__all__ = ['Generator', 'manual_seed', 'seed', 'initial_seed', 'default_generator']


class Generator:
    """A random-number stream: ``ember.Generator().manual_seed(0)``."""

    def __init__(self, device='cpu'):
        check_device(device, 'Generator')
        self._seed = 67280421310721  # torch's default initial seed
        self._stream = None

    @property
    def _rng(self):
        # Every random draw comes through here: a running vmap may refuse or replay it.
        if DRAW_HOOK[0] is not None:
            DRAW_HOOK[0](self)
        return self._numpy_stream()

    def _numpy_stream(self):
        # Created on first use: importing numpy.random costs ~10 ms that `import ember` skips.
        if self._stream is None:
            self._stream = np.random.default_rng(self._seed & 0xFFFFFFFFFFFFFFFF)
        return self._stream

    def manual_seed(self, seed):
        """Resets the stream to start from ``seed``; returns self."""
        self._seed = int(seed)
        self._stream = None
        return self

    def seed(self):
        """Reseeds from a non-deterministic source; returns the new seed."""
        import secrets
        s = secrets.randbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed the stream was last started from."""
        return self._seed

    def get_state(self):
        """The stream's state as a uint8 tensor (pass to ``set_state``)."""
        import pickle
        return make(np.frombuffer(pickle.dumps(self._numpy_stream().bit_generator.state),
                                  np.uint8).copy())

    def set_state(self, state):
        """Restores a state returned by ``get_state``."""
        import pickle
        self._numpy_stream().bit_generator.state = pickle.loads(state._data.tobytes())
        return self

    @property
    def device(self):
        """The device of the stream (always the CPU)."""
        from .._device import CPU
        return CPU


default_generator = Generator()
# [hook or None]: what vmap (ember.func) calls before each draw, to refuse it or replay one
DRAW_HOOK = [None]


def _rng(generator):
    return (generator or default_generator)._rng


@register(method=False, dispatch=False)
def manual_seed(seed):
    """Seeds the default generator; returns it."""
    return default_generator.manual_seed(seed)


@register(method=False, dispatch=False)
def seed():
    """Seeds the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


@register(method=False, dispatch=False)
def initial_seed():
    """The default generator's seed."""
    return default_generator.initial_seed()


@register(method=False, dispatch=False)
def get_rng_state():
    """The default generator's state."""
    return default_generator.get_state()


@register(method=False, dispatch=False)
def set_rng_state(new_state):
    """Restores the default generator's state."""
    default_generator.set_state(new_state)


def _float_dt(dtype, op, shape=None):
    """The NumPy dtype of a float sample of ``dtype``; torch's kernel ``op`` refuses another
    (with a ``shape``: only a non-empty one -- an empty result runs no kernel)."""
    dt = _dt(dtype)
    if dt.kind not in 'fcV' and (shape is None or 0 not in tuple(shape)):
        raise NotImplementedError(f'"{op}" not implemented for '
                                  f"'{_dtype.FROM_NP[dt].kernel_name}'")
    return dt


@register(method=False)
def rand(*size, generator=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform samples on [0, 1)."""
    dev = check_device(device, 'rand')
    shape = _shape(size, 'rand')  # (torch makes the tensor, then its kernel refuses)
    dt = _float_dt(dtype, 'check_uniform_bounds')
    if dt.kind == 'c':  # real and imaginary parts each uniform on [0, 1), as torch
        parts = _rng(generator).random(tuple(shape) + (2,))
        arr = (parts[..., 0] + 1j * parts[..., 1]).astype(dt)
    else:
        arr = _rng(generator).random(shape).astype(dt)
    return _finish(arr, requires_grad, 'rand', dev)


@register(method=False)
def randn(*size, generator=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal samples."""
    dev = check_device(device, 'randn')
    shape = _shape(size, 'randn')  # (torch makes the tensor, then its kernel refuses)
    dt = _float_dt(dtype, 'normal_kernel_cpu', shape)
    if dt.kind == 'c':  # real and imaginary parts each of variance 1/2, as torch
        parts = _rng(generator).standard_normal(tuple(shape) + (2,)) * np.sqrt(0.5)
        arr = (parts[..., 0] + 1j * parts[..., 1]).astype(dt)
    else:
        arr = _rng(generator).standard_normal(shape).astype(dt)
    return _finish(arr, requires_grad, 'randn', dev)


@register(method=False)
def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``rand`` with ``input``'s shape and dtype."""
    return rand(input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad,
                device=input.device if device is None else device)


@register(method=False)
def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """``randn`` with ``input``'s shape and dtype."""
    return randn(input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad,
                 device=input.device if device is None else device)


@register(method=False)
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, layout=None,
            device=None, requires_grad=False):
    """Integers uniform in [low, high) (int64 unless ``dtype``)."""
    dev = check_device(device, 'randint')
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    shape = _shape((size,), 'randint')
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    dt = dtype.np if dtype is not None else np.int64
    _random_bounds(low, high, dt)
    arr = _rng(generator).integers(low, high, shape).astype(dt)
    return _finish(arr, requires_grad, 'randint', dev)


@register(method=False)
def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    """``randint`` with ``input``'s shape and dtype."""
    if high is None:
        if isinstance(low, Tensor) and low.dim() != 0:
            raise RuntimeError("high must be a scalar tensor and on CPU")
        low, high = 0, low
    if isinstance(high, Tensor):  # (torch reads a tensor's value as an int64, truncating)
        from .pointwise import fill_scalar
        high = fill_scalar(high.item(), np.int64)
    return randint(low, high, input._data.shape, dtype=dtype or input.dtype)


@register(method=False)
def randperm(n, *, generator=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0..n-1`` (int64 unless ``dtype``)."""
    dev = check_device(device, 'randperm')
    check_nonnegative_sizes([n])  # (torch's randperm makes its result first)
    dt = np.dtype(dtype.np if dtype is not None else np.int64)
    if dt.kind in 'bc':
        raise NotImplementedError(f"\"randperm\" not implemented for '{dtype.kernel_name}'")
    _dtype.refuse_barebones('randperm', dtype, chalf=True)
    if dt.kind in 'iu' and n - 1 > np.iinfo(dt).max:
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    arr = _rng(generator).permutation(n).astype(dt)
    return _finish(arr, requires_grad, 'randperm', dev)


@register(method=False)
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None,
           layout=None, device=None, requires_grad=False):
    """Normal samples; ``mean``/``std`` may be tensors (elementwise) or numbers with ``size``."""
    dev = check_device(device, 'normal')
    rng = _rng(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        if not isinstance(std, Tensor):
            _check_std(std)
        elif s.dtype.kind == 'c':
            raise RuntimeError("normal expects standard deviation to be non-complex")
        elif not np.all(np.asarray(s) >= 0):  # (NaN too)
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        ref = mean if isinstance(mean, Tensor) else std
        _normal_dtype(ref._data.dtype, mean, 0 not in shape)
        if isinstance(std, Tensor) and ref is mean and s.dtype.kind in 'fc' \
                and m.dtype.kind in 'biu':
            # (an empty result: the float std is written into an integer one)
            raise RuntimeError(f"result type {std.dtype.kernel_name} can't be cast to the "
                               f"desired output type {mean.dtype.kernel_name}")
        arr = (m + s * rng.standard_normal(shape)).astype(ref._data.dtype)
        return make(arr)
    _check_std(std)
    if size is None:
        raise TypeError("normal() missing required argument 'size' when mean and std are "
                        "numbers")
    shape = _shape((size,), 'normal')
    _normal_dtype(_dt(dtype), None, 0 not in tuple(shape))  # (the kernel's refusal only)
    arr = (mean + std * rng.standard_normal(shape)).astype(_dt(dtype))
    return _finish(arr, requires_grad, 'normal', dev)


def _normal_dtype(np_dtype, mean, nonempty=True):
    """torch's refusals of an integer or bool result dtype: first a number ``mean`` out of
    its range (it is converted to the std's dtype; None: no number to convert), then the
    kernel's (only for a ``nonempty`` result: an empty one runs no kernel)."""
    kind = np.dtype(np_dtype).kind
    if kind not in 'iub':
        return
    if kind != 'b' and mean is not None and not isinstance(mean, Tensor):
        from .pointwise import _C_TYPE
        info = np.iinfo(np_dtype)
        if not info.min <= mean <= info.max:  # (NaN too)
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_C_TYPE[np.dtype(np_dtype).name]} without overflow")
    if not nonempty:
        return
    raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for "
                              f"'{_dtype.FROM_NP[np.dtype(np_dtype)].kernel_name}'")


@register
def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability ``input`` (or ``p``) per element, else 0."""
    if isinstance(p, Tensor):  # (a 0-d tensor, which torch's parser reads as the float)
        p = float(p)
    if p is not None and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    # (torch fills the result -- ``out``, else a tensor like ``input`` -- in place: its
    # kernel's dtype checks are those of ``bernoulli_``)
    dtype = out._data.dtype if isinstance(out, Tensor) else input._data.dtype
    if input._data.size:
        _refuse_bernoulli(dtype, input if p is None else p)
    probs = input._data if p is None else np.full(input._data.shape, p)
    if not np.all((probs >= 0) & (probs <= 1)):  # (NaN too)
        raise RuntimeError(_P_IN_RANGE)
    t = make((_rng(generator).random(input._data.shape) < probs).astype(dtype))
    if out is not None:
        from .pointwise import _write_out
        return _write_out(out, t)
    return t


bernoulli._dtype_first = True  # (its dtype refusals come before the range of p, as torch's)


def _refuse_bernoulli(dtype, p):
    """torch's errors for the dtypes its Bernoulli kernels have no loop for: a complex
    tensor to fill (with a number ``p`` or a tensor one), then a ``p`` tensor that is not
    floating point (bool and integer probabilities are refused, not read as 0/1)."""
    tensor_p = isinstance(p, Tensor)
    if dtype.kind == 'c':
        kernel = 'bernoulli_tensor_cpu_self_' if tensor_p else 'bernoulli_scalar_cpu_'
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.FROM_NP[dtype].kernel_name}'")
    if tensor_p and p._data.dtype.kind not in 'fV':
        raise NotImplementedError('"bernoulli_tensor_cpu_p_" not implemented for '
                                  f"'{p.dtype.kernel_name}'")


class PoissonBackward0(Node):
    """A Poisson draw does not move with its rate here (torch's gradient is zero)."""

    def backward(self, g):
        return g * 0


def _dtype_first(fn):
    fn._dtype_first = True  # (torch checks the rates inside its dtype dispatch: see _args)
    return fn


@register(method=False)
@_dtype_first
def poisson(input, generator=None):
    """A Poisson draw per element, with the element as its rate (same dtype)."""
    x = input._data
    if x.dtype.kind not in 'fV':
        raise NotImplementedError(f'"poisson_cpu" not implemented for '
                                  f"'{_dtype.FROM_NP[x.dtype].kernel_name}'")
    if not np.all(x >= 0):  # (torch's check is ``rate >= 0``: NaN fails it too)
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    lam = x.astype(np.float64)
    rng = _rng(generator)
    # NumPy's sampler stops near 2**63 (torch's wraps to -2**63 there); at such rates the
    # Poisson law is the normal one of mean and variance ``lam`` to within 1e-9.
    huge = lam > _POISSON_MAX
    if huge.any():
        normal = np.rint(lam + np.sqrt(lam) * rng.standard_normal(lam.shape))
        draw = np.where(huge, normal, rng.poisson(np.where(huge, 0, lam)))
    else:
        draw = rng.poisson(lam)
    draw = np.asarray(draw).astype(x.dtype)  # (a 0-d rate: NumPy draws a Python int)
    return result(draw, track1(PoissonBackward0, input))


_POISSON_MAX = 1e18


class _BinomialBackward(Node):
    def backward(self, g):
        raise RuntimeError("derivative for aten::binomial is not implemented")


_BinomialBackward.__name__ = _BinomialBackward.__qualname__ = 'NotImplemented'


@register(method=False)
def binomial(count, prob, generator=None):
    """A binomial draw per element: the number of successes in ``count`` trials of success
    probability ``prob`` (float tensors of one dtype, broadcast)."""
    c, p = count._data, prob._data
    if c.dtype.kind not in 'fV' or c.dtype.names is not None:  # (complex32 is 'V' too)
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_dtype.FROM_NP[c.dtype].kernel_name}")
    if p.dtype.kind not in 'fV' or p.dtype.names is not None:
        raise ValueError(f"binomial only supports floating-point dtypes for prob, got: "
                         f"{_dtype.FROM_NP[p.dtype].kernel_name}")
    if p.dtype != c.dtype:
        raise RuntimeError(f"Found dtype {_dtype.FROM_NP[p.dtype].kernel_name} but expected "
                           f"{_dtype.FROM_NP[c.dtype].kernel_name}")
    from ._core import check_broadcast
    shape = check_broadcast(c.shape, p.shape)
    if c.dtype not in (np.float32, np.float64):  # (torch's kernel: single and double only)
        raise NotImplementedError(f'"binomial_cpu" not implemented for '
                                  f"'{_dtype.FROM_NP[c.dtype].kernel_name}'")
    c, p = np.broadcast_to(c, shape), np.broadcast_to(p, shape).astype(np.float64)
    # torch's sampler: no trial for a count <= 0, and every trial succeeds (the count
    # comes back as given) for a probability >= 1; a count past 2**53 (1e30: more trials
    # than an int64 holds) draws from the binomial's normal limit
    rng, q = _rng(generator), np.clip(np.nan_to_num(p), 0, 1)
    huge = np.isfinite(c) & (c > 2.0 ** 53)
    trials = np.where(np.isfinite(c) & (c > 0) & ~huge, c, 0).astype(np.int64)
    draw = np.array(rng.binomial(trials, q), np.float64)  # (a 0-d draw is a Python int)
    if huge.any():
        n, qh = c[huge].astype(np.float64), q[huge]
        spread = np.sqrt(n * qh * (1 - qh)) * rng.standard_normal(n.shape)
        draw[huge] = np.clip(np.round(n * qh + spread), 0, n)
    draw = np.where((p >= 1) & (c > 0), c, draw)
    # (and none of its comparisons holds for a NaN probability, which falls through to NaN)
    draw = np.where((c > 0) & np.isnan(p), np.nan, draw)
    return result(np.asarray(draw, c.dtype), track(_BinomialBackward, (count, prob)))


@register
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """``num_samples`` indices drawn from each row of ``input`` (non-negative weights, not
    necessarily summing to one), index ``i`` with probability proportional to its weight;
    without ``replacement`` no index repeats within a row (once the positive weights are used
    up, the zero-weight indices follow).

    >>> ember.multinomial(ember.tensor([0., 3., 0.]), 2, replacement=True)
    tensor([1, 1])
    """
    _check_multinomial_args(input, num_samples, replacement)
    x = input._data
    p = (x if x.ndim == 2 else x[None]).astype(np.float64)
    if p.shape[0] == 0:
        arr = np.zeros((0, num_samples), np.int64)
    elif not replacement or num_samples == 1:
        _check_weights(p)
        # Exponential race: the first n of p / Exp(1) draws, largest first, are a sample
        # without replacement with the right probabilities.
        keys = p / _rng(generator).standard_exponential(p.shape)
        arr = np.argsort(-keys, axis=1, kind='stable')[:, :num_samples]
    else:
        _check_weights_per_row(p)
        rng = _rng(generator)
        arr = np.stack([rng.choice(p.shape[1], num_samples, p=r / r.sum()) for r in p])
    t = make(np.ascontiguousarray(arr, np.int64) if x.ndim == 2 else arr[0].astype(np.int64))
    if out is not None:
        from .pointwise import _write_out
        return _write_out(out, t)
    return t


def _check_multinomial_args(input, num_samples, replacement):
    """torch's checks of multinomial's arguments, in torch's order."""
    if not isinstance(num_samples, (int, np.integer)):  # (torch's parser takes NumPy ints)
        raise TypeError("multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type(num_samples).__name__}")
    x = input._data
    if x.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if x.dtype.kind not in 'fV':
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype.kernel_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > x.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if x.shape[-1] > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")


_INVALID = "invalid multinomial distribution ({})"


def _check_weights(p):
    """The checks before a draw without replacement (or of one sample): every weight finite
    and non-negative, no row all zeros."""
    if p.shape[1] == 0:  # torch finds this out computing the rows' min and max
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if not (np.all(p >= 0) and np.all(p < np.inf)):  # (NaN fails both)
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(p.sum(1) == 0):
        raise RuntimeError(_INVALID.format("sum of probabilities <= 0"))


def _check_weights_per_row(p):
    """The checks before a draw with replacement, row by row as torch makes them: the first
    bad weight of a row (negative or NaN, else infinite), then the row's sum."""
    negative = ~(p >= 0)
    bad = negative | np.isinf(p)
    for r in np.flatnonzero(bad.any(1) | ~(p.sum(1) > 0))[:1]:
        if bad[r].any():
            k = np.argmax(bad[r])
            raise RuntimeError(_INVALID.format(
                "encountering probability entry < 0" if negative[r, k] else
                "encountering probability entry = infinity or NaN"))
        raise RuntimeError(_INVALID.format("sum of probabilities <= 0"))


def _sampler(name, draw):
    refused = []  # [the dtypes torch's kernel refuses], looked up by the first call

    def refuse(self):
        if not refused:
            from ._args import refusals
            refused.append(refusals(name) or {})
        error = refused[0].get(self._data.dtype)
        # (an empty tensor runs no kernel: only the refusals made before it stand)
        if error is not None and (self._data.size or error[2] is None):
            raise error[0](error[1])

    def fn(self, *args, generator=None, **kwargs):
        check_inplace(self, name)
        # (torch's random_ kernel for uint16+ draws only within bounds given)
        barebones = draw is _random and \
            _dtype.FROM_NP[self._data.dtype] in _dtype.BAREBONES_UNSIGNED
        if draw is _uniform or barebones and not (args or kwargs):
            refuse(self)  # (its dtype dispatch comes before its bounds check)
        if draw is _random or draw is _uniform or draw is _bernoulli:
            kwargs['dtype'] = self._data.dtype
        vals = draw(_rng(generator), self._data.shape, *args, **kwargs)
        if not barebones:
            refuse(self)  # (after the parameters' checks, before anything is written, as torch)
        if self._data.dtype.names is not None:  # (complex32: NumPy would set both parts)
            vals = _dtype.cast(np.asarray(vals), self._data.dtype)
        self._data[...] = vals
        self._vc[0] += 1
        return self
    fn.__name__ = fn.__qualname__ = name
    fn._refuses_dtypes = True  # (see overrides.overridable)
    return fn


def _g(v):
    """A number as torch's messages print it (C++'s default: 6 significant digits)."""
    return f'{v:g}' if isinstance(v, float) else str(v)


# (the C++ names and the largest value torch's bounds checks give each dtype; a complex
# tensor is filled through its real view)
_BOUNDS = {'float16': ('c10::Half', 'Half', 65504.0),
           'bfloat16': ('c10::BFloat16', 'BFloat16', 3.3895313892515355e38),
           'float32': ('float', 'Float', 3.4028234663852886e38),
           'float64': ('double', 'Double', 1.7976931348623157e308)}
_BOUNDS['complex64'], _BOUNDS['complex128'] = _BOUNDS['float32'], _BOUNDS['float64']
_BOUNDS['complex32'] = _BOUNDS['float16']


def _uniform(rng, shape, a=0.0, b=1.0, *, dtype, to=None, **kwargs):
    # (torch's keywords are ``from`` -- a Python keyword, given through ``**`` -- and ``to``)
    a, b = kwargs.pop('from', a), b if to is None else to
    if kwargs:
        raise TypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if (np.dtype(dtype).kind == 'c' or np.dtype(dtype).names is not None) and 0 in shape:
        return np.empty(shape)  # (torch checks no bounds for an empty complex tensor)
    cname, kname, top = _BOUNDS[_dtype.FROM_NP[np.dtype(dtype)].name]
    for v, arg in ((a, 'from'), (b, 'to')):
        if not -top <= v <= top:  # (NaN too)
            raise RuntimeError(f"{arg} is out of bounds for {cname}")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_g(a)} > to={_g(b)}")
    if b - a > top:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{kname}>::max(), "
                           f"but found to={_g(b)} and from={_g(a)} which result in to-from to "
                           "exceed the limit")
    return rng.uniform(a, b, shape)


def _check_std(std):
    """torch's refusal of a negative or NaN standard deviation given as a number."""
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")


def _normal(rng, shape, mean=0.0, std=1.0):
    _check_std(std)
    return mean + std * rng.standard_normal(shape)


_UNSET = object()


def _random_top(dtype):
    """random_()'s exclusive upper bound: past the largest integer of an integer dtype, or
    2 ** (mantissa bits + 1) for a floating one (every integer below is exact)."""
    if dtype.kind == 'b':
        return 2
    if dtype.kind in 'iu':
        return int(np.iinfo(dtype).max) + 1
    return 2 ** {2: 11, 4: 24, 8: 53}.get(dtype.itemsize, 8) if dtype.kind == 'f' else 2 ** 8


def _random(rng, shape, a=None, b=_UNSET, *, dtype=np.dtype(np.float32)):
    # random_() / random_(to) / random_(from, None) (up to the dtype's top) / random_(from, to)
    bounded = a is not None  # (torch checks a range given, not the dtype's own)
    if a is None:
        a, b = 0, _random_top(dtype)
    elif b is _UNSET:
        a, b = 0, a
    elif b is None:
        b = _random_top(dtype)
    if a >= b:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={a} "
                           f">= to={b}")
    if bounded:
        _random_bounds(a, b, dtype)
    return rng.integers(a, b, shape)


_C_NAMES = {'b': 'bool', 'u1': 'unsigned char', 'i1': 'signed char', 'i2': 'short int',
            'i4': 'int', 'i8': 'long int', 'u2': 'short unsigned int', 'u4': 'unsigned int',
            'u8': 'long unsigned int'}


def _random_bounds(a, b, dtype):
    """torch's check of the range [a, b) of integers drawn into ``dtype``: within the values
    of an integer or bool dtype; none for a complex one."""
    dtype = np.dtype(dtype)
    if dtype.kind == 'c' or dtype.names is not None:  # (complex32 too)
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    if dtype.kind in 'biu':
        lo, hi = (0, 1) if dtype.kind == 'b' else (int(np.iinfo(dtype).min),
                                                   int(np.iinfo(dtype).max))
        name = _C_NAMES['b' if dtype.kind == 'b' else dtype.kind + str(dtype.itemsize)]
        if not lo <= a <= hi:
            raise RuntimeError(f"from is out of bounds for {name}")
        if not lo <= b - 1 <= hi:
            raise RuntimeError(f"to - 1 is out of bounds for {name}")


_P_IN_RANGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
               "message be improved?  If so, please report an enhancement request to PyTorch.)")


def _bernoulli(rng, shape, p=0.5, *, dtype):
    pa = p
    if isinstance(p, Tensor):
        if 0 in shape:  # (torch draws nothing, and looks at nothing, for an empty tensor)
            return np.zeros(shape, bool)
        if dtype.kind == 'c':  # (the tensor filled is checked before p expands, p after)
            _refuse_bernoulli(dtype, p)
        from .shape import expand
        pa = expand(p, shape)._data  # (torch's error for a p that does not expand)
        _refuse_bernoulli(dtype, p)
    elif 0 <= p <= 1 and 0 not in shape:  # (a number p: its range is checked first)
        _refuse_bernoulli(dtype, p)
    if not np.all((pa >= 0) & (pa <= 1)):
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}"
                           if not isinstance(p, Tensor) else _P_IN_RANGE)
    return rng.random(shape) < pa


def _exponential(rng, shape, lambd=1.0):
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    return rng.exponential(1.0 / lambd, shape)


def _geometric(rng, shape, p):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    return rng.geometric(p, shape)


def _log_normal(rng, shape, mean=1.0, std=2.0):
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    return rng.lognormal(mean, std, shape)


def _cauchy(rng, shape, median=0.0, sigma=1.0):
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    return median + sigma * rng.standard_cauchy(shape)


for _n, _d, _doc in (('uniform_', _uniform, "Fills with samples uniform on [a, b)."),
                     ('normal_', _normal, "Fills with normal samples (mean, std)."),
                     ('random_', _random, "Fills with integers uniform in [from, to)."),
                     ('bernoulli_', _bernoulli, "Fills with 1 with probability p, else 0."),
                     ('exponential_', _exponential, "Fills with exponential samples."),
                     ('geometric_', _geometric, "Fills with geometric samples."),
                     ('log_normal_', _log_normal, "Fills with log-normal samples."),
                     ('cauchy_', _cauchy, "Fills with Cauchy samples.")):
    _f = _sampler(_n, _d)
    _f.__doc__ = _doc
    register(_f, function=False)
del _n, _d, _doc, _f
