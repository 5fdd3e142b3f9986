"""The autograd profiler records the operators torch's operators run inside them (aten::empty
and aten::normal_ inside aten::randn...), nested as torch nests them: the tree of event names
compared with real torch's."""
import pytest

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")
import ember  # noqa: E402

CASES = {
    'randn': lambda lib, x: lib.randn(3, 4), 'rand': lambda lib, x: lib.rand(3, 4),
    'randint': lambda lib, x: lib.randint(0, 5, (3,)),
    'normal': lambda lib, x: lib.normal(0., 1., (3,)),
    'zeros': lambda lib, x: lib.zeros(3), 'ones': lambda lib, x: lib.ones(3),
    'full': lambda lib, x: lib.full((3,), 2.), 'empty': lambda lib, x: lib.empty(3),
    'empty_like': lambda lib, x: lib.empty_like(x), 'randn_like': lambda lib, x: lib.randn_like(x),
    'rand_like': lambda lib, x: lib.rand_like(x), 'zeros_like': lambda lib, x: lib.zeros_like(x),
    'ones_like': lambda lib, x: lib.ones_like(x), 'full_like': lambda lib, x: lib.full_like(x, 2.),
    'clone': lambda lib, x: x.clone(), 't': lambda lib, x: x.t(),
    'transpose': lambda lib, x: x.transpose(0, 1), 'squeeze': lambda lib, x: x.squeeze(),
    'unsqueeze': lambda lib, x: x.unsqueeze(0),
    'expand': lambda lib, x: lib.zeros(1, 4).expand(2, 4),
    'relu': lambda lib, x: lib.relu(x), 'softmax': lambda lib, x: x.softmax(-1),
    'log_softmax': lambda lib, x: x.log_softmax(-1), 'stack': lambda lib, x: lib.stack([x, x]),
    'flatten': lambda lib, x: x.flatten(), 'add': lambda lib, x: x + x,
    'exp': lambda lib, x: x.exp(), 'cat': lambda lib, x: lib.cat([x, x]),
}


def _tree(e):
    return (e.name, [_tree(c) for c in e.cpu_children])


def _profiled_tree(lib, fn):
    x = lib.ones(3, 4)
    with lib.autograd.profiler.profile() as p:
        fn(lib, x)
    return [_tree(e) for e in p.function_events if e.cpu_parent is None]


@pytest.mark.parametrize('case', sorted(CASES))
def test_nested_events_like_torch(case):
    assert _profiled_tree(ember, CASES[case]) == _profiled_tree(torch, CASES[case])


def _seq_and_shares(lib):
    with lib.autograd.profiler.profile() as p:
        lib.randn(2, 2, requires_grad=True)
    (outer,) = [e for e in p.function_events if e.cpu_parent is None]
    return ([(e.name, e.sequence_nr) for e in p.function_events],
            outer.cpu_time_total >= sum(c.cpu_time_total for c in outer.cpu_children))


def test_nested_events_carry_no_sequence_number():
    # (the nested operators record no graph node: -1, as torch's)
    assert _seq_and_shares(ember) == _seq_and_shares(torch)
