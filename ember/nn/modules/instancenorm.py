"""InstanceNorm1d, InstanceNorm2d and InstanceNorm3d."""
import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ['InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d', 'LazyInstanceNorm1d',
           'LazyInstanceNorm2d', 'LazyInstanceNorm3d']


class _InstanceNorm(_NormBase):
    """Shared body of the InstanceNorm layers: each channel of each sample normalised over
    its spatial dims; unbatched input (one dim fewer) is taken as a batch of one. Unlike
    BatchNorm, no scale/shift and no running statistics by default; with
    ``track_running_stats`` eval mode uses them (``num_batches_tracked`` is kept but never
    counted, as torch)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _get_no_batch_dim(self):
        """The rank of an unbatched input (torch's name)."""
        return self._dims[0]

    def forward(self, input):
        self._check_input_dim(input)
        unbatched = self._dims[0]
        feature_dim = input.dim() - unbatched
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. "
                          "You can silence this warning by not passing in num_features, "
                          "which is not used because affine=False", stacklevel=2)
        x = input.unsqueeze(0) if input.dim() == unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              0.0 if self.momentum is None else self.momentum, self.eps)
        return out.squeeze(0) if input.dim() == unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of ``(N, C, L)`` or unbatched ``(C, L)`` input."""
    _dims, _expected = (2, 3), '2D or 3D'


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of ``(N, C, H, W)`` or unbatched ``(C, H, W)`` input."""
    _dims, _expected = (3, 4), '3D or 4D'


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` input."""
    _dims, _expected = (4, 5), '4D or 5D'


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm1d with ``num_features`` taken from the first input's ``size(1)``."""
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm2d with ``num_features`` taken from the first input's ``size(1)``."""
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm3d with ``num_features`` taken from the first input's ``size(1)``."""
    cls_to_become = InstanceNorm3d
