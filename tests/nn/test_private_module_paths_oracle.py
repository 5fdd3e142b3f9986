"""The private helpers model code imports from torch's module paths -- ``_pair`` and family
(torch.nn.modules.utils), ``_calculate_fan_in_and_fan_out`` (torch.nn.init),
``_get_activation_fn`` (torch.nn.modules.transformer), MultiheadAttention from
torch.nn.modules.activation, NonDynamicallyQuantizableLinear from torch.nn.modules.linear,
and torch.utils.data._utils.collate's extension points -- behave as torch's."""
import importlib

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch


def both(path):
    """The module at ``path`` (written for torch) in ember and in torch."""
    return (importlib.import_module(path.replace('torch', 'ember', 1)),
            importlib.import_module(path))


def same_outcome(fn):
    out = []
    for lib in (ember, torch):
        try:
            out.append(('ok', fn(lib)))
        except Exception as exc:  # noqa: BLE001 - the exception is what we compare
            out.append((type(exc).__name__, str(exc)))
    assert out[0] == out[1]


@pytest.mark.parametrize('name', ['_single', '_pair', '_triple', '_quadruple'])
@pytest.mark.parametrize('value', [3, (1, 2), [4, 5, 6], 'ab'])
def test_ntuple_parsers(name, value):
    e, t = both('torch.nn.modules.utils')
    assert getattr(e, name)(value) == getattr(t, name)(value)
    assert getattr(e, name).__name__ == getattr(t, name).__name__


def test_reverse_repeat_tuple_and_ntuple_factory():
    e, t = both('torch.nn.modules.utils')
    assert e._reverse_repeat_tuple((1, 2, 3), 2) == t._reverse_repeat_tuple((1, 2, 3), 2)
    assert e._ntuple(5)(7) == t._ntuple(5)(7)


@pytest.mark.parametrize('shape', [(8, 3, 5, 5), (4, 6), (2, 3, 4), (5,)])
def test_calculate_fan_in_and_fan_out(shape):
    same_outcome(lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.zeros(shape)))


@pytest.mark.parametrize('mode', ['fan_in', 'fan_out', 'fan_avg'])
def test_calculate_correct_fan(mode):
    same_outcome(lambda lib: lib.nn.init._calculate_correct_fan(lib.zeros(6, 2, 3), mode))


@pytest.mark.parametrize('act', ['relu', 'gelu', 'tanh'])
def test_get_activation_fn(act):
    e, t = both('torch.nn.modules.transformer')
    same_outcome(lambda lib: getattr(
        (e if lib is ember else t)._get_activation_fn(act), '__name__'))


def test_classes_reached_from_torch_paths():
    e, t = both('torch.nn.modules.activation')
    assert e.MultiheadAttention is ember.nn.MultiheadAttention
    assert t.MultiheadAttention is torch.nn.MultiheadAttention
    e, t = both('torch.nn.modules.linear')
    mha = [lib.nn.MultiheadAttention(4, 2) for lib in (ember, torch)]
    assert type(mha[0].out_proj) is e.NonDynamicallyQuantizableLinear
    assert type(mha[1].out_proj) is t.NonDynamicallyQuantizableLinear
    assert issubclass(e.NonDynamicallyQuantizableLinear, ember.nn.Linear)
    assert repr(mha[0]) == repr(mha[1])


def test_collate_extension_points():
    """The documented way to teach collation a new type: a copy of default_collate_fn_map
    with an entry, passed to ``collate``; collate_tensor_fn stacks."""
    class Box:
        def __init__(self, v):
            self.v = v

    results = []
    for lib in (ember, torch):
        c = importlib.import_module(lib.__name__ + '.utils.data._utils.collate')
        table = dict(c.default_collate_fn_map)
        table[Box] = lambda batch, *, collate_fn_map=None: sum(b.v for b in batch)
        out = c.collate([{'b': Box(1), 'x': lib.ones(2)}, {'b': Box(2), 'x': lib.zeros(2)}],
                        collate_fn_map=table)
        stacked = c.collate_tensor_fn([lib.ones(2), lib.zeros(2)])
        results.append((out['b'], out['x'].tolist(), stacked.tolist(),
                        c.default_collate([1.5, 2.5]).dtype is lib.float64,
                        bool(c.np_str_obj_array_pattern.search(np.array(['a']).dtype.str)),
                        c.default_collate_err_msg_format.format('X')))
    assert results[0] == results[1]
    assert ember.utils.data._utils.collate.default_collate is ember.utils.data.default_collate
