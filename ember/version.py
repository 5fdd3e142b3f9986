"""ember.version: what scripts read from ``torch.version``; ember is built for the CPU only,
so every accelerator toolkit version is None."""
from . import __version__  # noqa: F401

__all__ = ['__version__', 'cuda', 'hip', 'rocm', 'xpu', 'debug', 'git_version']

cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = 'unknown'
