"""Helpers for TorchFunctionMode stacks (torch.utils._mode_utils)."""

__all__ = ['all_same_mode']


def all_same_mode(modes):
    """True if every entry of ``modes`` is the first one (the same mode object)."""
    return all(mode is modes[0] for mode in modes)
