"""torch.utils.data._utils: where torch keeps the DataLoader's internals. Only ``collate`` is
here, because its ``collate``/``default_collate_fn_map``/``collate_tensor_fn`` are the
documented way to extend default collation, imported from this path."""
from . import collate

__all__ = ['collate']
