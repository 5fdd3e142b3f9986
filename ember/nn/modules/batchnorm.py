"""BatchNorm1d, BatchNorm2d and BatchNorm3d."""
from ... import _ops
from ..._dtype import int64
from .. import functional as F
from ..parameter import UninitializedBuffer, UninitializedParameter
from ._params import register_affine, reset_affine
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ['BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d', 'LazyBatchNorm1d', 'LazyBatchNorm2d',
           'LazyBatchNorm3d', 'SyncBatchNorm']


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


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """A BatchNorm/InstanceNorm whose ``num_features`` is the first input's ``size(1)``: its
    scale, shift and running statistics start uninitialized and take that size on the first
    call (``num_batches_tracked`` exists from the start)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        # built without parameters or statistics: the uninitialized ones replace them
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _ops.creation.tensor(0, dtype=int64, device=device)

    def __init_subclass__(cls, **kwargs):
        # the input ranks accepted are those of the layer the module becomes
        super().__init_subclass__(**kwargs)
        if cls.cls_to_become is not None:
            cls._dims, cls._expected = cls.cls_to_become._dims, cls.cls_to_become._expected

    def reset_parameters(self):
        """Resets as the eager layer does, once the sizes are known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materializes scale, shift and statistics with the input's channel count."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if t is not None:
                    t.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d with ``num_features`` taken from the first input."""
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d with ``num_features`` taken from the first input."""
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d with ``num_features`` taken from the first input."""
    cls_to_become = BatchNorm3d


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over input of any rank >= 2 whose batch statistics, in torch, are reduced
    across the processes of ``process_group``. As in torch's CPU build it normalises like
    BatchNorm on one process and refuses CPU input in training under an initialised
    ``ember.distributed`` (torch's synchronising kernels are GPU-only)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        import sys
        dist = sys.modules.get('ember.distributed')
        if self.training and dist is not None and dist.is_initialized():
            raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or "
                             "privateuseone")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*d layer in it replaced by a SyncBatchNorm sharing
        its parameters, statistics and mode (a BatchNorm itself comes back converted)."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group,
                            bias=module.bias is not None)
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, 'qconfig'):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
