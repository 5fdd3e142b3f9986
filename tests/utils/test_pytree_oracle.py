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
