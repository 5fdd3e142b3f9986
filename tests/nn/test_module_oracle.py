"""nn.Parameter / nn.Module / containers / Linear against torch: reprs, registration,
traversal order, state_dict, errors."""
import collections

import numpy as np
import pytest

import ember
from examples.note_examples import nn_examples
from ..oracle.oracle import torch, arr, assert_same_tensor


def note_linear(lib):
    """The note's Linear module (with its LinearFunction), written against ``lib``."""
    return nn_examples(lib).Linear


@pytest.mark.parametrize('bias', [True, False])
def test_the_notes_linear_module(bias):
    results = []
    for lib in (ember, torch):
        Linear = note_linear(lib)
        m = Linear(3, 2, bias=bias)
        x = lib.tensor(arr(4, 3, dtype=np.float32))
        in_range = (-0.1 <= float(m.bias.min()) <= float(m.bias.max()) <= 0.1) if bias else None
        with lib.no_grad():  # (random streams differ between the libraries: set the values)
            m.weight.copy_(lib.tensor(arr(2, 3, dtype=np.float32, seed=1)))
            if bias:
                m.bias.copy_(lib.tensor(arr(2, dtype=np.float32, seed=2)))
        y = m(x)
        y.sum().backward()
        results.append((repr(m), [n for n, _ in m.named_parameters()],
                        list(m.state_dict()), y, m.weight.grad, in_range))
    e, t = results
    assert e[0] == t[0] and e[1] == t[1] and e[2] == t[2] and e[5] == t[5]
    assert_same_tensor(e[3], t[3], 'output')
    assert_same_tensor(e[4], t[4], 'weight.grad')


def _model(lib):
    nn = lib.nn
    m = nn.Sequential(collections.OrderedDict([
        ('first', nn.Linear(3, 4)), ('act', nn.Identity()),
        ('rest', nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 2, bias=False)]))]))
    m.register_buffer('steps', lib.zeros(1))
    m.register_buffer('scratch', lib.ones(2), persistent=False)
    m.shared = m.first  # a module reachable twice
    return m


def test_traversal_state_dict_and_repr_match_torch():
    e, t = _model(ember), _model(torch)
    assert repr(e) == repr(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert list(e.state_dict()) == list(t.state_dict())
    assert len(list(e.parameters())) == len(list(t.parameters()))
    assert type(e[0]).__name__ == type(t[0]).__name__ == 'Linear'
    assert repr(e[1:]) == repr(t[1:]) and repr(e[-1]) == repr(t[-1])


def _errors(lib):
    nn = lib.nn
    m = nn.Linear(3, 2)
    out = []
    for action in (
        lambda: setattr(m, 'weight', lib.ones(2, 3)),
        lambda: m.register_parameter('a.b', None),
        lambda: m.register_parameter('w', lib.ones(1)),
        lambda: m.load_state_dict({'weight': lib.ones(2, 3)}),
        lambda: m.load_state_dict({'weight': lib.ones(3, 3), 'bias': lib.ones(2)}),
        lambda: m.load_state_dict({'weight': lib.ones(2, 3), 'bias': lib.ones(2), 'x': lib.ones(1)}),
        lambda: m.nonexistent,
        lambda: nn.Module()(1),
        lambda: m.add_module('x', 3),
    ):
        try:
            action()
            out.append('ok')
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            out.append((type(e).__name__, str(e).split('\n')[0]))
    out.append(repr(m.load_state_dict({'weight': lib.ones(2, 3)}, strict=False)))
    return out


def test_errors_and_load_results_match_torch():
    assert _errors(ember) == _errors(torch)


def test_load_state_dict_copies_and_modes_and_dtype():
    for lib in (ember, torch):
        m = lib.nn.Linear(3, 2)
        sd = {'weight': lib.full((2, 3), 0.5), 'bias': lib.zeros(2)}
        res = m.load_state_dict(sd)
        assert repr(res) == '<All keys matched successfully>'
        assert m.weight.tolist() == [[0.5] * 3] * 2 and m.weight.requires_grad
        assert m.eval() is m and not m.training and m.train().training
        m.double()
        assert m.weight.dtype == lib.float64 and isinstance(m.weight, lib.nn.Parameter)
        m(lib.ones(1, 3, dtype=lib.float64)).sum().backward()
        m.zero_grad()
        assert m.weight.grad is None


def test_parameter_semantics_match_torch():
    out = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.ones(2))
        q = lib.nn.Parameter(lib.ones(2), requires_grad=False)
        out.append([repr(p), repr(q), type(p * 2).__name__, p.is_leaf, type(p.data).__name__,
                    type(p.detach()).__name__, isinstance(p, lib.Tensor)])
    assert out[0] == out[1]


def test_forward_hooks_and_apply():
    m = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.Identity())
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append('pre'))
    h2 = m.register_forward_hook(lambda mod, args, out: out * 0)
    assert m(ember.ones(1, 2)).tolist() == [[0., 0.]] and calls == ['pre']
    h1.remove()
    h2.remove()
    assert m(ember.ones(1, 2)).abs().sum().item() > 0 and calls == ['pre']
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ['Linear', 'Identity', 'Sequential']


def test_linear_default_init_follows_torchs_bounds():
    ember.manual_seed(0)
    m = ember.nn.Linear(100, 50)
    bound = 1 / np.sqrt(100)
    assert np.abs(m.weight._data).max() <= bound and np.abs(m.bias._data).max() <= bound
    assert np.abs(m.weight._data).max() > 0.9 * bound  # spread over the whole range
