"""DataParallel as torch's CPU build has it: with no GPU to split the batch over, it wraps
the module and runs it unchanged (``module.``-prefixed state_dict keys, as torch)."""
from ..modules.module import Module


class DataParallel(Module):
    """Wraps ``module``; on the CPU a forward is just ``module``'s (no device to scatter the
    batch to). ``device_ids``, ``output_device`` and ``dim`` are accepted."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.dim = dim
        self.output_device = None

    def forward(self, *inputs, **kwargs):
        """``module(*inputs, **kwargs)``."""
        return self.module(*inputs, **kwargs)
