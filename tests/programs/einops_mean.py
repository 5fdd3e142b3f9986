"""einops reductions that check the dtype ('mean' asks backend.is_float_type, which lists
torch.bfloat16): global average pooling with reduce and einops.layers.torch.Reduce."""
import numpy as np
import torch
from einops import reduce
from einops.layers.torch import Reduce

x = torch.from_numpy(np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4))
print("gap", reduce(x, 'b c h w -> b c', 'mean').tolist())
print("layer", Reduce('b c (h 2) (w 2) -> b c h w', 'mean')(x)[0, 0].tolist())
