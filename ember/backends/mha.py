"""ember.backends.mha: the switch of torch's fused inference path for multi-head attention
and transformer encoder layers. ember has no fused kernel, but mirrors the one visible
difference of that path: a query that may attend to no key gives NaN there (see
``nn.TransformerEncoderLayer``); with the switch off it does not."""

__all__ = ['get_fastpath_enabled', 'set_fastpath_enabled']

_ENABLED = [True]


def get_fastpath_enabled():
    """Whether the fused inference path may be taken (True by default)."""
    return _ENABLED[0]


def set_fastpath_enabled(value):
    """Allows (True) or forbids (False) the fused inference path."""
    _ENABLED[0] = bool(value)
