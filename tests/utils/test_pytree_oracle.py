"""ember.utils._pytree against torch.utils._pytree: the same leaves, the same rebuilt trees."""
import collections

import pytest
import torch.utils._pytree as torch_pytree

import ember.utils._pytree as ember_pytree

Point = collections.namedtuple('Point', 'x y')

TREES = [
    1,
    None,
    (1, [2, 3], {'a': 4, 'b': (5, None)}),
    [Point(1, 2), Point((3, 4), [5])],
    collections.OrderedDict([('z', 1), ('a', [2, 3])]),
    {'b': 1, 'a': 2},
    (),
    [[], {}, ()],
]


@pytest.mark.parametrize('tree', TREES, ids=range(len(TREES)))
def test_flatten_map_and_unflatten_match_torch(tree):
    leaves, spec = ember_pytree.tree_flatten(tree)
    assert leaves == torch_pytree.tree_flatten(tree)[0]
    assert ember_pytree.tree_unflatten(leaves, spec) == tree
    assert ember_pytree.tree_leaves(tree) == torch_pytree.tree_leaves(tree)

    def f(x):
        return ('leaf', x)
    mapped = ember_pytree.tree_map(f, tree)
    want = torch_pytree.tree_map(f, tree)
    assert mapped == want and type(mapped) is type(want)


def test_map_over_two_trees_and_a_leaf_count_mismatch():
    a, b = (1, [2, 3]), (10, [20, 30])
    assert ember_pytree.tree_map(lambda x, y: x + y, a, b) == \
        torch_pytree.tree_map(lambda x, y: x + y, a, b)
    _, spec = ember_pytree.tree_flatten(a)
    _, tspec = torch_pytree.tree_flatten(a)
    with pytest.raises(ValueError) as t:
        torch_pytree.tree_unflatten([1, 2], tspec)
    with pytest.raises(ValueError) as e:
        ember_pytree.tree_unflatten([1, 2], spec)
    assert str(e.value).split(' (')[0] == str(t.value).split(' (')[0]


class Pair:
    """A class libraries register as a pytree node (as transformers' ModelOutput is)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        return type(other) is Pair and (self.a, self.b) == (other.a, other.b)


def _pair_flatten(p):
    return [p.a, p.b], 'ctx'


def _pair_unflatten(values, context):
    assert context == 'ctx'
    return Pair(*values)


@pytest.fixture
def pair_registered():
    # (registered for this test only: both registries are global)
    for lib in (ember_pytree, torch_pytree):
        lib.register_pytree_node(Pair, _pair_flatten, _pair_unflatten,
                                 serialized_type_name='tests.Pair')
    yield
    for lib in (ember_pytree, torch_pytree):
        lib.SUPPORTED_NODES.pop(Pair)


def test_registered_nodes_flatten_and_rebuild(pair_registered):
    tree = {'x': Pair(1, (2, 3)), 'y': collections.deque([4, 5], maxlen=3),
            'z': collections.defaultdict(int, a=6)}
    for lib in (ember_pytree, torch_pytree):
        leaves, spec = lib.tree_flatten(tree)
        assert leaves == [1, 2, 3, 4, 5, 6]
        again = lib.tree_unflatten(leaves, spec)
        assert again == tree and again['y'].maxlen == 3
        assert lib.tree_map(lambda v: v * 10, tree)['x'] == Pair(10, (20, 30))
    assert repr(ember_pytree.tree_structure(Pair(1, 2))) == \
        repr(torch_pytree.tree_structure(Pair(1, 2)))
    with pytest.raises(ValueError) as e:
        ember_pytree.register_pytree_node(Pair, _pair_flatten, _pair_unflatten)
    with pytest.raises(ValueError) as t:
        torch_pytree.register_pytree_node(Pair, _pair_flatten, _pair_unflatten)
    assert str(e.value) == str(t.value)


@pytest.mark.parametrize('call', [
    lambda p: p.tree_map_only(int, lambda x: x * 10, (1, 2.0, [3])),
    lambda p: p.tree_map_only((int, float), lambda x: -x, (1, 2.0, ['s'])),
    lambda p: p.tree_map_only(lambda x: x == 2, lambda x: 0, [1, 2, (2,)]),
    lambda p: p.tree_flatten((1, [2, 3]), is_leaf=lambda x: isinstance(x, list))[0],
    lambda p: p.tree_map(lambda x: len(x), ([1], [2, 3]), is_leaf=lambda x: isinstance(x, list)),
    lambda p: (p.tree_any(lambda x: x > 2, (1, [2, 3])), p.tree_all(lambda x: x > 0, (1, [0]))),
    lambda p: list(p.tree_iter((1, [2, {'a': 3}]))),
    lambda p: (p.tree_is_leaf([1]), p.tree_is_leaf(1), p.tree_is_leaf([1], is_leaf=bool)),
    lambda p: (p.is_namedtuple(Point(1, 2)), p.is_namedtuple(Point), p.is_namedtuple((1,))),
], ids=['map_only_type', 'map_only_types', 'map_only_pred', 'is_leaf', 'map_is_leaf',
        'any_all', 'iter', 'is_leaf_fn', 'namedtuple'])
def test_helpers_match_torch(call):
    assert call(ember_pytree) == call(torch_pytree)
