"""ember.types: the type aliases torch's signatures use (``Number``, ``Device``, ``_size``...),
for code annotating its own functions with them."""
import os
from typing import IO, Union

from ._device import device as _device
from ._dtype import dtype as _dtype  # noqa: F401  (torch.types._dtype: the dtype type)
from ._tensor import Size, Tensor

__all__ = ['Number', 'Device', 'FileLike', 'Size', 'Tensor']

_bool, _int, _float, _complex, _str, _bytes = bool, int, float, complex, str, bytes
_Number = (int, float, bool)
Number = int | float | bool
Device = _device | str | int | None
FileLike = Union[str, os.PathLike, IO[bytes]]
_size = Union[Size, list, tuple]
_TensorOrTensors = Union[Tensor, tuple, list]
