"""The names torch.utils.data._utils.collate gives the collation pieces; the pieces
themselves live in ember.utils.data.collate."""
from ..collate import (_COLLATE_ERROR, _NOT_NUMERIC, _collate_arrays, _collate_floats,
                       _collate_ints, _collate_numpy_scalars, _collate_tensors, _keep, collate,
                       default_collate, default_collate_fn_map, default_convert)

__all__ = ['collate', 'collate_float_fn', 'collate_int_fn', 'collate_numpy_array_fn',
           'collate_numpy_scalar_fn', 'collate_str_fn', 'collate_tensor_fn',
           'default_collate', 'default_collate_err_msg_format', 'default_collate_fn_map',
           'default_convert', 'np_str_obj_array_pattern']

collate_tensor_fn = _collate_tensors
collate_numpy_array_fn = _collate_arrays
collate_numpy_scalar_fn = _collate_numpy_scalars
collate_float_fn = _collate_floats
collate_int_fn = _collate_ints
collate_str_fn = _keep
np_str_obj_array_pattern = _NOT_NUMERIC
default_collate_err_msg_format = _COLLATE_ERROR
