"""gradcheck / gradgradcheck with a tensor-like input (upstream's ``Wrapper``: not a Tensor, it
unwraps itself in ``__torch_function__`` and records what it is asked), ember against torch:
the value returned, the exception (class and first line of its message), the warnings, and
the attributes and functions reached through each wrapped input.

(torch's own check fails on the Wrapper -- a gradient that comes back wrapped is not a
Tensor, so torch counts it as undefined -- which the checks below compare too.)
"""
import functools
import warnings

import numpy as np
import pytest
import torch

import ember
from ..overrides.test_overrides_upstream import upstream

LIBS = (ember, torch)
CHECKS = ('gradcheck', 'gradgradcheck')


@functools.lru_cache(maxsize=None)
def _ns(lib):
    return upstream(lib)


def _wrapped(lib, data, requires_grad=True):
    """A Wrapper around ``data`` (a tensor of ``lib``, or values made float64)."""
    t = data if isinstance(data, lib.Tensor) else lib.tensor(data, dtype=lib.double)
    w = _ns(lib).wrap(t)
    if requires_grad:
        w.requires_grad = True
    return w


def _run(lib, make_inputs, func, check, **kwargs):
    """What ``lib.autograd.<check>`` does: (result or (exception class, first line), warnings,
    attribute names touched, names of the functions dispatched) over the wrapped inputs."""
    inputs = make_inputs(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            result = getattr(lib.autograd, check)(func(lib), inputs, check_batched_grad=False,
                                                  **kwargs)
        except Exception as e:  # (compared with torch's below)
            result = (type(e).__name__, str(e).split('\n')[0])
    wrappers = [x for x in inputs if isinstance(x, _ns(lib).Wrapper)]
    attrs = sorted(set().union(*(w.used_attrs for w in wrappers)))
    calls = sorted({f.__name__ for w in wrappers for f in w.used_calls})
    return result, [str(w.message) for w in caught], attrs, calls


def _same(make_inputs, func, check, **kwargs):
    got, expected = (_run(lib, make_inputs, func, check, **kwargs) for lib in LIBS)
    assert got == expected
    return got


MODES = pytest.mark.parametrize('fast_mode', [False, True], ids=['slow', 'fast'])
RAISE = pytest.mark.parametrize('raise_exception', [False, True], ids=['bool', 'raise'])


@MODES
@RAISE
@pytest.mark.parametrize('check', CHECKS)
@pytest.mark.parametrize('op', ['add', 'mul', 'sub'])
def test_two_wrapped_inputs(op, check, raise_exception, fast_mode):
    result, _, attrs, calls = _same(
        lambda lib: (_wrapped(lib, np.arange(6.).reshape(2, 3)), _wrapped(lib, np.ones((2, 3)))),
        lambda lib: getattr(lib, op), check, raise_exception=raise_exception,
        fast_mode=fast_mode)
    assert 'grad' in calls and 'data' in attrs  # (the check ran as far as both Jacobians)


@MODES
@RAISE
@pytest.mark.parametrize('check', CHECKS)
def test_wrapped_and_plain_inputs(check, raise_exception, fast_mode):
    _same(lambda lib: (_wrapped(lib, [1., 2.]),
                       lib.tensor([3., 4.], dtype=lib.double, requires_grad=True)),
          lambda lib: lib.mul, check, raise_exception=raise_exception, fast_mode=fast_mode)


@MODES
@pytest.mark.parametrize('check', CHECKS)
def test_upstream_case_touches_what_torch_touches(check, fast_mode):
    # upstream's TestGradCheckOverride, per check and mode, compared with torch as a whole
    _same(lambda lib: (_wrapped(lib, 5.0), _wrapped(lib, 6.0)), lambda lib: lib.add, check,
          raise_exception=False, fast_mode=fast_mode)


@MODES
@pytest.mark.parametrize('check', CHECKS)
def test_no_input_requires_grad(check, fast_mode):
    result, *_ = _same(lambda lib: (_wrapped(lib, [1., 2.], requires_grad=False),),
                       lambda lib: lib.sin, check, fast_mode=fast_mode)
    assert result[0] == 'ValueError'


@MODES
@pytest.mark.parametrize('check', CHECKS)
def test_stride_zero_input(check, fast_mode):
    result, *_ = _same(
        lambda lib: (_wrapped(lib, lib.tensor([1.], dtype=lib.double).expand(3)),),
        lambda lib: lib.sin, check, fast_mode=fast_mode)
    assert result[0] == 'RuntimeError' and 'stride 0' in result[1]


@MODES
@pytest.mark.parametrize('check', CHECKS)
def test_single_precision_input_warns(check, fast_mode):
    _, caught, *_ = _same(lambda lib: (_wrapped(lib, lib.tensor([1., 2.])),),
                          lambda lib: lib.sin, check, raise_exception=False,
                          fast_mode=fast_mode)
    assert any('is not a double precision' in m for m in caught)


@pytest.mark.parametrize('check', CHECKS)
def test_complex_input_slow_mode(check):
    # (fast mode is left out: torch's own fast path multiplies a complex by the Wrapper and
    # raises TypeError)
    _same(lambda lib: (_wrapped(lib, lib.tensor([1 + 2j, 2.], dtype=lib.complex128)),),
          lambda lib: lib.sin, check, raise_exception=True, fast_mode=False)


@MODES
def test_plain_tensors_still_pass(fast_mode):
    # the same checks on plain tensors of each library pass on both
    for lib in LIBS:
        x = lib.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=lib.double, requires_grad=True)
        y = lib.tensor([1.5, -0.5], dtype=lib.double, requires_grad=True)
        f = lambda a, b, lib=lib: lib.tanh(a @ b) * b  # noqa: E731
        assert lib.autograd.gradcheck(f, (x, y), fast_mode=fast_mode)
        assert lib.autograd.gradgradcheck(f, (x, y), fast_mode=fast_mode)
