"""Helpers shared by the adaptations of PyTorch's test/test_autograd.py.

Each adapted test takes ``lib`` (ember or real torch 2.13) and runs on both: the torch run
proves the expectation is torch's behaviour, the ember run is the test. ``XFAIL`` in a test
module maps a test name to the reason ember's run is expected to fail (strict).
"""
import contextlib
import re
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed; "
                            "`pip install -e '.[test]'` brings it")


def lib_fixture(xfail):
    """A ``lib`` fixture over ember and torch; ember's run of a test named in ``xfail`` is
    marked xfail (strict) with the reason given there."""
    @pytest.fixture(params=[ember, torch], ids=['ember', 'torch'])
    def lib(request):
        name = request.node.originalname
        if request.param is ember and name in xfail:
            request.applymarker(pytest.mark.xfail(strict=True, reason=xfail[name]))
        return request.param
    return lib


@pytest.fixture(autouse=True)
def exit_dual_levels(lib):
    """As upstream's forward-mode tearDown: a failing test leaves no dual level behind (a
    module imports it to use it)."""
    yield
    fwAD = lib.autograd.forward_ad
    while fwAD._current_level >= 0:
        fwAD.exit_dual_level()


def npy(x):
    """A NumPy copy of a tensor of either library (or of a number)."""
    if isinstance(x, ember.Tensor):
        return np.array(x.detach()._data)
    if isinstance(x, torch.Tensor):
        x = x.detach()
        # (torch hands NumPy no bfloat16: as float32, which holds it exactly)
        return (x.float() if x.dtype == torch.bfloat16 else x).numpy().copy()
    return np.asarray(x)


def eq(a, b, rtol=1.3e-6, atol=1e-5):
    """Like upstream's assertEqual: tensors, numbers and sequences of them compare by value
    (within float tolerance); anything else with ``==``."""
    tensors = (ember.Tensor, torch.Tensor)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        assert len(a) == len(b), f"length {len(a)} != {len(b)}"
        for x, y in zip(a, b):
            eq(x, y, rtol, atol)
        return
    if isinstance(a, tensors) or isinstance(b, tensors):
        x, y = npy(a), npy(b)
        if isinstance(a, tensors) and isinstance(b, tensors):
            assert x.shape == y.shape, f"shape {x.shape} != {y.shape}"
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        return
    if isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, rel=rtol, abs=atol, nan_ok=True)
        return
    assert a == b, f"{a!r} != {b!r}"


@contextlib.contextmanager
def raises(exc, pattern=None):
    """``assertRaisesRegex``: the exception class and a regex searched in its message. (It
    keeps no reference to the exception, whose traceback would keep the test's locals
    alive, as unittest's does not either.)"""
    try:
        yield
    except exc as e:
        if pattern is not None:
            assert re.search(pattern, str(e)), f"{pattern!r} not found in {str(e)!r}"
        return
    pytest.fail(f"DID NOT RAISE {exc.__name__}")


@contextlib.contextmanager
def warns(category, pattern=None):
    """``assertWarnsRegex``."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        yield w
    hits = [x for x in w if issubclass(x.category, category)
            and (pattern is None or re.search(pattern, str(x.message)))]
    assert hits, f"no {category.__name__} matching {pattern!r} in {[str(x.message) for x in w]}"


def graph_desc(fn):
    """Upstream's description of a graph: node class names, nested by next_functions."""
    if fn is None:
        return 'None'
    result = type(fn).__name__ + '('
    nexts = fn.next_functions
    result += ', '.join(graph_desc(n) for n, _ in nexts)
    return result + ')'


def _outcome(fn, lib):
    try:
        return fn(lib)
    except Exception as e:  # (compared across the two libraries)
        return ('raised', type(e).__name__, str(e))


def _same_outcome(a, b, rtol=1e-12, atol=1e-12):
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same_outcome(x, y, rtol, atol)
    elif isinstance(a, (ember.Tensor, torch.Tensor)):
        assert isinstance(b, (ember.Tensor, torch.Tensor)), (a, b)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        # (values as read: a conj/neg-flagged tensor's resolved values)
        np.testing.assert_allclose(npy(a.resolve_conj().resolve_neg()),
                                   npy(b.resolve_conj().resolve_neg()), rtol=rtol, atol=atol)
    else:
        assert a == b, (a, b)


def oracle(fn, rtol=1e-12, atol=1e-12):
    """Runs ``fn(lib)`` on ember and torch; their results (lists and tuples compared
    element by element, tensors by dtype, shape and values within ``rtol``/``atol``) or
    their errors must agree."""
    _same_outcome(_outcome(fn, ember), _outcome(fn, torch), rtol, atol)
