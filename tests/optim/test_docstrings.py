"""The examples in ember.optim's docstrings run and print what they show."""
import doctest
import importlib

import pytest

import ember

MODULES = ['optimizer', 'sgd', 'adam', 'adamw', 'nadam', 'radam', 'adamax', 'rmsprop', 'adagrad',
           'adadelta', 'lbfgs', 'asgd', 'rprop', 'adafactor', 'muon', 'lr_scheduler',
           'swa_utils']


@pytest.mark.parametrize('name', MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f'ember.optim.{name}')
    result = doctest.testmod(module, extraglobs={'ember': ember}, verbose=False)
    assert result.attempted > 0 and result.failed == 0, result


def test_every_public_name_has_a_docstring():
    import ember.optim.lr_scheduler as sched
    names = [getattr(ember.optim, n) for n in ember.optim.__all__]
    names += [getattr(sched, n) for n in sched.__all__]
    for obj in names:
        assert obj.__doc__, obj
        for attr, member in vars(obj).items() if isinstance(obj, type) else ():
            if callable(member) and not attr.startswith('_'):
                assert member.__doc__, f'{obj.__name__}.{attr}'
