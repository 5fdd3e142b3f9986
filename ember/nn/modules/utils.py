"""Helpers for module code and checkpoints (torch.nn.modules.utils)."""

__all__ = ['consume_prefix_in_state_dict_if_present']


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strips ``prefix`` (e.g. ``'module.'`` of a DataParallel checkpoint) from the keys of
    ``state_dict`` that start with it, in place, and from its ``_metadata`` keys (where the
    module named by the prefix itself, ``'module'``, becomes the root ``''``)."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, '_metadata', None)
    if metadata is not None:
        for key in list(metadata.keys()):
            # the root's entry '' stays; the prefix's own module has no trailing dot
            if key and (key == prefix.replace('.', '') or key.startswith(prefix)):
                metadata[key[len(prefix):]] = metadata.pop(key)
