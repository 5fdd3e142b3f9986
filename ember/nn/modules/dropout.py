"""Dropout."""
from .. import functional as F
from .module import Module

__all__ = ['Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout',
           'FeatureAlphaDropout']


class Dropout(Module):
    """Zeroes each element with probability ``p`` while training (scaling the rest by
    ``1 / (1 - p)``); the identity in eval mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f'p={self.p}, inplace={self.inplace}'


class Dropout1d(Dropout):
    """Zeroes whole channels of ``(N, C, L)`` or ``(C, L)`` inputs with probability ``p``
    while training (scaling the rest by ``1 / (1 - p)``); the identity in eval mode."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zeroes whole channels of ``(N, C, H, W)`` inputs with probability ``p`` while
    training (scaling the rest by ``1 / (1 - p)``); the identity in eval mode."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zeroes whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs with
    probability ``p`` while training; the identity in eval mode."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout for SELU networks, keeping the mean and variance of its input while
    training; the identity in eval mode."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels (one draw per sample and channel) while training;
    the identity in eval mode."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
