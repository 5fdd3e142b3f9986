"""ember.utils: data loading (``ember.utils.data``), C++ extensions
(``ember.utils.cpp_extension``), C extensions (``ember.utils.ffi``), DLPack
(``ember.utils.dlpack``), safetensors files (``ember.utils.safetensors``), activation
checkpointing (``ember.utils.checkpoint``), TensorBoard logging (``ember.utils.tensorboard``)
hook handles (``ember.utils.hooks``), ``model_zoo.load_url`` and statement timing
(``ember.utils.benchmark``), each imported on first use so ``import ember`` stays fast;
and ``swap_tensors``."""
import importlib

_SUBMODULES = ('data', 'cpp_extension', 'ffi', 'dlpack', 'safetensors', 'checkpoint',
               'tensorboard', 'hooks', 'model_zoo', 'benchmark')


def swap_tensors(t1, t2):
    """Swaps the contents of two tensor objects, keeping their identities (see
    ``ember.utils._swap``)."""
    from ._swap import swap_tensors as swap
    swap(t1, t2)


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module(f'{__name__}.{name}')
        globals()[name] = module
        return module
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
