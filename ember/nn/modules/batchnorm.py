"""BatchNorm1d, BatchNorm2d and BatchNorm3d."""
from ... import _ops
from ..._dtype import int64
from .. import functional as F
from ._params import register_affine, reset_affine
from .module import Module

__all__ = ['BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d']


class _NormBase(Module):
    """Shared body of the BatchNorm and InstanceNorm layers: a learned per-channel scale
    (ones) and shift (zeros) when ``affine``, and running statistics (``running_mean``
    zeros, ``running_var`` ones, ``num_batches_tracked``) when ``track_running_stats``.
    ``momentum=None`` makes BatchNorm's running statistics a cumulative average."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        register_affine(self, (num_features,), affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer('running_mean', _ops.creation.zeros(num_features,
                                                                     device=device, dtype=dtype))
            self.register_buffer('running_var', _ops.creation.ones(num_features, device=device,
                                                                   dtype=dtype))
            self.register_buffer('num_batches_tracked', _ops.creation.tensor(0, dtype=int64))
        else:
            self.register_buffer('running_mean', None)
            self.register_buffer('running_var', None)
            self.register_buffer('num_batches_tracked', None)
        self.reset_parameters()

    _version = 2  # version 2 added num_batches_tracked

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # a checkpoint older than version 2 has no num_batches_tracked: it loads as 0
        version = local_metadata.get('version', None)
        key = prefix + 'num_batches_tracked'
        if (version is None or version < 2) and self.track_running_stats \
                and key not in state_dict:
            state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None \
                and self.num_batches_tracked.device.type != 'meta' \
                else _ops.creation.tensor(0, dtype=int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def reset_running_stats(self):
        """Running mean to zeros, running variance to ones, batch count to zero."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Resets the running statistics; scale to ones, shift to zeros."""
        self.reset_running_stats()
        reset_affine(self)

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._expected} input (got {input.dim()}D input)")

    def extra_repr(self):
        return (f'{self.num_features}, eps={self.eps}, momentum={self.momentum}, '
                f'affine={self.affine}, bias={self.bias is not None}, '
                f'track_running_stats={self.track_running_stats}')


class _BatchNorm(_NormBase):
    """Batch statistics in training (moving the running ones), running statistics in eval."""

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of ``(N, C)`` or ``(N, C, L)`` input over all dims but channels."""
    _dims, _expected = (2, 3), '2D or 3D'


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of ``(N, C, H, W)`` input over all dims but channels."""
    _dims, _expected = (4,), '4D'


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of ``(N, C, D, H, W)`` input over all dims but channels."""
    _dims, _expected = (5,), '5D'
