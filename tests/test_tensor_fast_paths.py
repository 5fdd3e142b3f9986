"""Structural guards for the hot path (no timings here: benchmarks/ measures speed)."""
import ember


def test_tensor_attribute_writes_stay_on_cpythons_fast_path():
    # A Python-level __setattr__ or __delattr__ on Tensor (CPython gives both one slot) sends
    # every attribute write -- four per new tensor -- through a Python call: small-op chains
    # ran 25 % slower with only a __delattr__ defined.
    for klass in ember.Tensor.__mro__[:-1]:
        assert '__setattr__' not in vars(klass) and '__delattr__' not in vars(klass), klass
