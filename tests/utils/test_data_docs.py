"""The examples in ember.utils.data's docstrings run and print what they show."""
import doctest

import numpy as np
import pytest

import ember
import ember.utils.data as data

MODULES = [data, data.dataset, data.sampler, data.collate, data.dataloader]


@pytest.mark.parametrize('module', MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    names = {'ember': ember, 'np': np, **{n: getattr(data, n) for n in data.__all__}}
    result = doctest.testmod(module, extraglobs=names, report=True)
    assert result.attempted > 0, f"{module.__name__} has no examples"
    assert result.failed == 0, f"{result.failed} docstring examples failed (printed above)"


def test_every_public_name_has_a_docstring_with_an_example():
    for name in data.__all__:
        doc = getattr(data, name).__doc__ or ''
        assert '>>>' in doc, f"ember.utils.data.{name} has no example in its docstring"
