"""Tensor.__format__ against torch: a 0-d plain tensor formats as its Python number (with or
without a format spec); other tensors, and subclasses such as Parameter, format as their str
and refuse a spec."""
import warnings

import numpy as np
import pytest

import ember
from .oracle import torch

LIBS = (ember, torch)
ZERO_D = [(0.01, 'float32'), (0.01, 'float64'), (0.01, 'float16'), (-7, 'int64'),
          (200, 'uint8'), (True, 'bool'), (1.5 - 2j, 'complex64'), (float('nan'), 'float32')]


def both(fn):
    """``fn(lib)`` for ember and torch: the results, or the exceptions raised."""
    out = []
    for lib in LIBS:
        try:
            out.append(fn(lib))
        except Exception as exc:  # noqa: BLE001 - the exception is what gets compared
            out.append(exc)
    return out


def assert_same(fn):
    e, t = both(fn)
    if isinstance(t, Exception):
        assert type(e) is type(t) and str(e) == str(t), f"ember {e!r}, torch {t!r}"
    else:
        assert e == t, f"ember {e!r}, torch {t!r}"


@pytest.mark.parametrize('value,dtype', ZERO_D, ids=[d for _, d in ZERO_D])
@pytest.mark.parametrize('spec', ['', '.3f', '>12', 'e', '+.2%'])
def test_zero_d_formats_as_its_number(value, dtype, spec):
    def fmt(lib):
        return format(lib.tensor(value, dtype=getattr(lib, dtype)), spec)
    assert_same(fmt)


def test_f_string_of_float32_scalar_shows_its_exact_value():
    assert f"{ember.tensor(0.01)}" == f"{torch.tensor(0.01)}" == '0.009999999776482582'
    assert f"{ember.tensor(0.01):.3f}" == '0.010'


def test_zero_d_requiring_grad_formats_without_warning():
    for lib in LIBS:
        x = lib.tensor(2.5, requires_grad=True) * 2
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            assert f"{x}" == '5.0' and f"{x:.1f}" == '5.0'


@pytest.mark.parametrize('shape', [(3,), (2, 2), (0,), (1,)])
def test_n_d_formats_as_str_and_refuses_a_spec(shape):
    def data(lib):
        return lib.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    assert_same(lambda lib: f"{data(lib)}" == str(data(lib)))
    assert_same(lambda lib: format(data(lib), '.3f'))


def test_parameter_formats_as_its_str_even_when_zero_d():
    assert_same(lambda lib: f"{lib.nn.Parameter(lib.tensor(0.5))}")
    assert_same(lambda lib: format(lib.nn.Parameter(lib.tensor(0.5)), '.2f'))
