"""Nested containers as trees (torch.utils._pytree): ``tree_flatten`` gives the leaves and a
spec of the structure, ``tree_unflatten`` rebuilds it, ``tree_map`` applies a function to
every leaf. Tuples, lists, dicts (keys in insertion order), named tuples,
``collections.OrderedDict``/``defaultdict``/``deque`` and the classes registered with
``register_pytree_node`` are containers; everything else is a leaf (None included, as in
torch)."""
import collections

__all__ = ['TreeSpec', 'LeafSpec', 'tree_flatten', 'tree_unflatten', 'tree_leaves',
           'tree_map', 'tree_structure', 'register_pytree_node', 'tree_map_only',
           'tree_iter', 'tree_any', 'tree_all', 'tree_is_leaf', 'is_namedtuple',
           'SUPPORTED_NODES']


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


NodeDef = collections.namedtuple('NodeDef', ['type', 'flatten_fn', 'unflatten_fn'])
# container type -> how to take it apart (``flatten_fn(x) -> (children, context)``) and put
# it back together (``unflatten_fn(children, context)``)
SUPPORTED_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Makes instances of ``cls`` containers: ``flatten_fn(x)`` returns ``(children,
    context)`` and ``unflatten_fn(children, context)`` rebuilds ``x`` (the serialization
    arguments are accepted; ember does not serialize specs)."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None,
                          maybe_from_str_fn=None, **kwargs):
    """The older spelling of ``register_pytree_node`` that libraries still call."""
    register_pytree_node(cls, flatten_fn, unflatten_fn, **kwargs)


def _dict_items(d):
    keys = list(d)
    return [d[k] for k in keys], keys


register_pytree_node(tuple, lambda t: (list(t), None), lambda v, c: tuple(v))
register_pytree_node(list, lambda t: (list(t), None), lambda v, c: list(v))
register_pytree_node(dict, _dict_items, lambda v, c: dict(zip(c, v)))
register_pytree_node(collections.OrderedDict, _dict_items,
                     lambda v, c: collections.OrderedDict(zip(c, v)))
register_pytree_node(collections.defaultdict,
                     lambda d: ([d[k] for k in d], (list(d), d.default_factory)),
                     lambda v, c: collections.defaultdict(c[1], zip(c[0], v)))
register_pytree_node(collections.deque, lambda d: (list(d), d.maxlen),
                     lambda v, c: collections.deque(v, maxlen=c))


def is_namedtuple(obj):
    """Whether ``obj`` (an instance or a class) is a named tuple."""
    cls = obj if isinstance(obj, type) else type(obj)
    return issubclass(cls, tuple) and hasattr(cls, '_fields')


def _node(tree):
    """The NodeDef of ``tree``'s container type, or None for a leaf (a named tuple is one
    container kind for all its classes)."""
    found = SUPPORTED_NODES.get(type(tree))
    if found is None and is_namedtuple(tree):
        return _NAMEDTUPLE
    return found


_NAMEDTUPLE = NodeDef(None, lambda t: (list(t), type(t)), lambda v, c: c(*v))


def _children(tree):
    """(children, context) of a container, or None for a leaf."""
    node = _node(tree)
    return None if node is None else node.flatten_fn(tree)


def _rebuild(t, context, children):
    node = SUPPORTED_NODES.get(t)
    return (node or _NAMEDTUPLE).unflatten_fn(children, context)


def tree_is_leaf(tree, is_leaf=None):
    """Whether ``tree`` is a leaf (not a container, or ``is_leaf(tree)``)."""
    return (is_leaf is not None and is_leaf(tree)) or _node(tree) is None


def tree_flatten(tree, is_leaf=None):
    """(leaves, spec) of ``tree`` (``is_leaf(x)`` True stops at ``x``)."""
    leaves = []

    def walk(node):
        found = None if is_leaf is not None and is_leaf(node) else _children(node)
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


def tree_leaves(tree, is_leaf=None):
    """The leaves of ``tree``, in order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree, is_leaf=None):
    """An iterator over the leaves of ``tree``."""
    return iter(tree_leaves(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    """The spec of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``tree`` with every leaf ``x`` replaced by ``func(x, *same leaves of rests)``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec_leaves(r, spec, is_leaf) for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def _matcher(type_or_types_or_pred):
    if isinstance(type_or_types_or_pred, (type, tuple)) or \
            type(type_or_types_or_pred).__name__ == 'UnionType':
        return lambda x: isinstance(x, type_or_types_or_pred)
    return type_or_types_or_pred


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """``tree_map`` applying ``func`` only to the leaves of the given types (or for which
    the predicate holds); the other leaves stay as they are."""
    match = _matcher(type_or_types_or_pred)
    return tree_map(lambda x: func(x) if match(x) else x, tree, is_leaf=is_leaf)


def tree_any(pred, tree, is_leaf=None):
    """Whether ``pred`` holds for some leaf."""
    return any(map(pred, tree_leaves(tree, is_leaf)))


def tree_all(pred, tree, is_leaf=None):
    """Whether ``pred`` holds for every leaf."""
    return all(map(pred, tree_leaves(tree, is_leaf)))


def spec_leaves(tree, spec, is_leaf=None):
    """The leaves of ``tree``, which must have structure ``spec``."""
    leaves, other = tree_flatten(tree, is_leaf)
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
