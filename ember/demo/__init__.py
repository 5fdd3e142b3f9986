"""ember's demo: a small convolutional network learns handwritten digits.

``python -m ember.demo`` trains it (``--help`` for the options). The digits are the 8x8 UCI
optical-recognition set (E. Alpaydin, C. Kaynak; 1,797 images of 10 classes, pixels 0..16,
CC BY 4.0), shipped in ``digits.npz`` (exported once from scikit-learn's copy, which is not a
dependency). The model (``model.py``) uses the extension mechanisms the way "Extending
PyTorch" teaches them: its classifier is the note's ``Linear`` module, a custom ``nn.Module``
with Parameters whose op is the custom ``autograd.Function`` ``LinearFunction``.
"""
import os

import numpy as np

__all__ = ['load_digits']

_DATA = os.path.join(os.path.dirname(__file__), 'digits.npz')


def load_digits():
    """The digits as ``(images, labels)``: float32 tensors (1797, 1, 8, 8) scaled to [0, 1]
    and int64 class indices (1797,)."""
    from .. import tensor
    with np.load(_DATA, allow_pickle=False) as data:
        images = data['images'].astype(np.float32)[:, None] / 16.0
        labels = data['labels'].astype(np.int64)
    return tensor(images), tensor(labels)
