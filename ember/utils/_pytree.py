"""Nested containers as trees (torch.utils._pytree's core): ``tree_flatten`` gives the leaves
and a spec of the structure, ``tree_unflatten`` rebuilds it, ``tree_map`` applies a function
to every leaf. Tuples, lists, dicts (keys in insertion order), named tuples and
``collections.OrderedDict``/``defaultdict`` are containers; everything else is a leaf (None
included, as in torch)."""
import collections

__all__ = ['TreeSpec', 'LeafSpec', 'tree_flatten', 'tree_unflatten', 'tree_leaves',
           'tree_map', 'tree_structure']


class TreeSpec:
    """The structure of a flattened tree: the container type, what rebuilding it needs
    (``context``: dict keys, the named tuple's class) and the children's specs."""

    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, children_specs
        self.num_leaves = sum(c.num_leaves for c in children_specs)

    def is_leaf(self):
        """True for the spec of a single leaf."""
        return False

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.is_leaf() == other.is_leaf() and
                self.type is other.type and self.context == other.context and
                self.children_specs == other.children_specs)

    def __repr__(self, indent=0):
        # torch's layout (its messages print specs): one child per line, indented by depth
        if self.is_leaf():
            return '*'
        inner = indent + 2
        children = (',\n' + ' ' * inner).join(c.__repr__(inner) for c in self.children_specs)
        return f'TreeSpec({self.type.__name__}, {self.context}, [{children}])'


class LeafSpec(TreeSpec):
    """The spec of one leaf."""

    def __init__(self):
        super().__init__(None, None, [])
        self.num_leaves = 1

    def is_leaf(self):
        """Always True."""
        return True


def _children(tree):
    """(children, context) of a container, or None for a leaf."""
    t = type(tree)
    if t is tuple or t is list:
        return list(tree), None
    if isinstance(tree, tuple) and hasattr(tree, '_fields'):  # a named tuple
        return list(tree), t
    if isinstance(tree, dict) and t in (dict, collections.OrderedDict,
                                        collections.defaultdict):
        keys = list(tree)
        context = (keys, tree.default_factory) if t is collections.defaultdict else keys
        return [tree[k] for k in keys], context
    return None


def _rebuild(t, context, children):
    if t is tuple or t is list:
        return t(children)
    if isinstance(context, type):  # a named tuple
        return context(*children)
    if t is collections.defaultdict:
        keys, factory = context
        return collections.defaultdict(factory, zip(keys, children))
    return t(zip(context, children))


def tree_flatten(tree):
    """(leaves, spec) of ``tree``."""
    leaves = []

    def walk(node):
        found = _children(node)
        if found is None:
            leaves.append(node)
            return LeafSpec()
        children, context = found
        return TreeSpec(type(node), context, [walk(c) for c in children])
    return leaves, walk(tree)


def tree_unflatten(leaves, treespec):
    """The tree of structure ``treespec`` holding ``leaves`` in order."""
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but "
                         f"the spec refers to a pytree that holds {treespec.num_leaves} items "
                         f"({treespec}).")
    it = iter(leaves)

    def build(spec):
        if spec.is_leaf():
            return next(it)
        return _rebuild(spec.type, spec.context, [build(c) for c in spec.children_specs])
    return build(treespec)


def tree_leaves(tree):
    """The leaves of ``tree``, in order."""
    return tree_flatten(tree)[0]


def tree_structure(tree):
    """The spec of ``tree``."""
    return tree_flatten(tree)[1]


def tree_map(func, tree, *rests):
    """``tree`` with every leaf ``x`` replaced by ``func(x, *same leaves of rests)``."""
    leaves, spec = tree_flatten(tree)
    others = [spec_leaves(r, spec) for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def spec_leaves(tree, spec):
    """The leaves of ``tree``, which must have structure ``spec``."""
    leaves, other = tree_flatten(tree)
    if other != spec:
        raise ValueError(f"Tree structures do not match: {other} vs {spec}")
    return leaves


def _broadcast_to_and_flatten(prefix, treespec):
    """The leaves of ``prefix`` repeated over the subtrees of ``treespec`` they stand for
    (``in_dims=(0, None)`` for the arguments ``(x, (y, z))`` gives ``[0, None, None]``), or
    None when ``prefix`` is not a prefix of that structure."""
    out = []

    def walk(node, spec):
        found = _children(node)
        if found is None:  # a leaf of the prefix covers the whole subtree
            out.extend([node] * spec.num_leaves)
            return True
        if spec.is_leaf() or type(node) is not spec.type:
            return False
        children, context = found
        if isinstance(node, dict):
            keys = context[0] if type(node) is collections.defaultdict else context
            want = spec.context[0] if type(node) is collections.defaultdict else spec.context
            if set(keys) != set(want):
                return False
            children = [node[k] for k in want]
        elif context != spec.context or len(children) != len(spec.children_specs):
            return False
        return all(walk(c, s) for c, s in zip(children, spec.children_specs))
    return out if walk(prefix, treespec) else None
