"""torch.nn.modules.utils' tuple helpers (private in torch, imported by layers written outside
it: ``from torch.nn.modules.utils import _pair``) against torch's: same results, same errors."""
import pytest

import ember
from ..oracle.oracle import torch


def outcome(fn):
    try:
        return 'ok', fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)


@pytest.mark.parametrize('name', ['_single', '_pair', '_triple', '_quadruple'])
@pytest.mark.parametrize('value', [3, 2.5, (1, 2), [4, 5, 6], 'ab', range(3), None],
                         ids=repr)
def test_tuple_parsers(name, value):
    e = outcome(lambda: getattr(ember.nn.modules.utils, name)(value))
    t = outcome(lambda: getattr(torch.nn.modules.utils, name)(value))
    assert e == t


def test_ntuple_and_tensor_items():
    e = ember.nn.modules.utils._ntuple(3)(ember.tensor([1, 2]))
    t = torch.nn.modules.utils._ntuple(3)(torch.tensor([1, 2]))
    assert [x.item() for x in e] == [x.item() for x in t] and len(e) == 2
    assert ember.nn.modules.utils._ntuple(2)(7) == torch.nn.modules.utils._ntuple(2)(7)


@pytest.mark.parametrize('t, n', [((1, 2), 2), ((3,), 1), ((), 3), ((1, 2, 3), 1)], ids=str)
def test_reverse_repeat_tuple(t, n):
    assert ember.nn.modules.utils._reverse_repeat_tuple(t, n) == \
        torch.nn.modules.utils._reverse_repeat_tuple(t, n)


@pytest.mark.parametrize('out_size, shape', [([None, 3], (1, 2, 5, 7)), (4, (1, 2)),
                                             ([None, None], (2, 3, 4)), ([5], (2, 3)),
                                             ([None, 3, 4, 5], (1, 2)), ([1, 2], (3, 4))],
                         ids=str)
def test_list_with_default(out_size, shape):
    e = outcome(lambda: ember.nn.modules.utils._list_with_default(out_size, list(shape)))
    t = outcome(lambda: torch.nn.modules.utils._list_with_default(out_size, list(shape)))
    assert e == t


def test_a_custom_layer_written_with_pair():
    """The way such layers use it: parse the sizes, then call the functional op."""
    outs = []
    for lib in (ember, torch):
        from_utils = lib.nn.modules.utils
        k, s, p = from_utils._pair(3), from_utils._pair(2), from_utils._pair(1)
        w = lib.ones(4, 2, *k)
        x = lib.arange(2 * 2 * 7 * 7, dtype=lib.float32).reshape(2, 2, 7, 7)
        y = lib.nn.functional.conv2d(x, w, stride=s, padding=p)
        conv = lib.nn.Conv2d(2, 4, [3, 3], stride=(2, 2), padding=[1, 1])
        outs.append((y.shape, y.sum().item(), conv.kernel_size, conv.stride, conv.padding))
    assert outs[0] == outs[1]
