"""Structural guards for the hot path (no timings here: benchmarks/ measures speed)."""
import ember


def test_tensor_attribute_writes_stay_on_cpythons_fast_path():
    # A Python-level __setattr__ or __delattr__ on Tensor (CPython gives both one slot) sends
    # every attribute write -- four per new tensor -- through a Python call: small-op chains
    # ran 25 % slower with only a __delattr__ defined.
    for klass in ember.Tensor.__mro__[:-1]:
        assert '__setattr__' not in vars(klass) and '__delattr__' not in vars(klass), klass


def test_node_attribute_reads_stay_on_cpythons_fast_path():
    # A __getattr__ (or __getattribute__) on a graph node class makes CPython route every
    # attribute read of every node through a slower hook: the engine and custom Functions
    # read node attributes constantly (a Node.__getattr__ slowed the note's MulConstant
    # chain by 7 %). Named saved values are properties on their own classes instead.
    from ember.autograd.graph import Node
    from ember.autograd.function import BackwardCFunction
    from ember._ops.pointwise import MulBackward0
    for cls in (Node, BackwardCFunction, MulBackward0):
        for klass in cls.__mro__[:-1]:
            assert '__getattr__' not in vars(klass), klass
            assert '__getattribute__' not in vars(klass), klass
    assert isinstance(vars(MulBackward0)['_saved_self'], property)
