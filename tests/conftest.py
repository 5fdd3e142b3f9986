"""Suite-wide set-up.

Most tests compare ember with real PyTorch 2.13 (the oracle). Its CPU wheel exists for the
main interpreter only, so the run on the oldest supported Python (see .ci/run) has no torch:
there, importing torch skips the importing test module, with the reason, instead of failing
its collection -- every test that needs no oracle still runs.
"""
import importlib.abc
import importlib.util
import sys

import pytest

TORCH_MISSING = importlib.util.find_spec('torch') is None


class _SkipWithoutTorch(importlib.abc.MetaPathFinder):
    """Turns ``import torch`` into a module-level skip when torch is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name == 'torch' or name.startswith('torch.'):
            pytest.skip('needs torch 2.13, the oracle, which is not installed for '
                        f'Python {sys.version_info.major}.{sys.version_info.minor}',
                        allow_module_level=True)
        return None


if TORCH_MISSING:
    sys.meta_path.insert(0, _SkipWithoutTorch())
