"""``torch.functional``: the module torch writes some of its top-level functions in (``einsum``,
``stft``, ``unique``...). They are ember's top-level functions themselves."""
import ember as _ember

__all__ = ['atleast_1d', 'atleast_2d', 'atleast_3d', 'broadcast_shapes', 'broadcast_tensors',
           'cartesian_prod', 'block_diag', 'cdist', 'chain_matmul', 'einsum', 'istft', 'lu',
           'norm', 'meshgrid', 'pca_lowrank', 'split', 'stft', 'svd_lowrank', 'tensordot',
           'unique', 'unique_consecutive', 'unravel_index']

globals().update({name: getattr(_ember, name) for name in __all__})
