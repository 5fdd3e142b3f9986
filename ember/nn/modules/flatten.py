"""nn.Flatten and nn.Unflatten: reshaping layers for use in Sequential."""
from .module import Module

__all__ = ['Flatten', 'Unflatten']


class Flatten(Module):
    """Merges dims ``start_dim..end_dim`` of the input into one (``input.flatten``).

    >>> ember.nn.Flatten()(ember.ones(32, 1, 5, 5)).shape
    torch.Size([32, 25])
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        """``start_dim=..., end_dim=...``."""
        return f'start_dim={self.start_dim}, end_dim={self.end_dim}'


class Unflatten(Module):
    """Splits dim ``dim`` of the input into ``unflattened_size`` (a tuple, list or Size of
    ints, one of which may be -1), as ``input.unflatten``.

    >>> ember.nn.Unflatten(1, (2, 5, 5))(ember.ones(2, 50)).shape
    torch.Size([2, 2, 5, 5])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        _require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        """``dim=..., unflattened_size=...``."""
        return f'dim={self.dim}, unflattened_size={self.unflattened_size}'


def _require_tuple_int(size):
    if not isinstance(size, (tuple, list)):
        raise TypeError('unflattened_size must be a tuple of ints, but found type '
                        f'{type(size).__name__}')
    for i, elem in enumerate(size):
        if not isinstance(elem, int):
            raise TypeError('unflattened_size must be tuple of ints, but found element of type '
                            f'{type(elem).__name__} at pos {i}')
