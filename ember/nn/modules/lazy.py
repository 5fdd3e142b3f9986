"""LazyModuleMixin: modules whose parameter shapes are inferred from their first input.

A lazy module starts with UninitializedParameters; a forward pre-hook calls its
``initialize_parameters(*input)`` on the first call, which materializes them, after which
the hooks go and the module becomes its ``cls_to_become`` (LazyLinear -> Linear). A
state_dict loaded before that materializes the parameters from the checkpoint's shapes."""
import itertools

from ..parameter import is_lazy

__all__ = ['LazyModuleMixin']


class LazyModuleMixin:
    """Mixed in before a module class: makes its parameters' shapes wait for the first
    input. Subclasses define ``initialize_parameters`` and may set ``cls_to_become``."""
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialized tensor is saved as it is (it cannot be detached)
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
            if t is None or (name in self._buffers and name in self._non_persistent_buffers_set):
                continue
            destination[prefix + name] = t if keep_vars or is_lazy(t) else t.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        # a checkpoint of an initialized module gives the uninitialized tensors their shapes
        from ...autograd.grad_mode import no_grad
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and t is not None and is_lazy(t) \
                    and not is_lazy(state_dict[key]):
                with no_grad():
                    t.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materializes the parameters from the first input (each lazy module defines it)."""
        raise NotImplementedError('initialize_parameters is not implemented for '
                                  f'{type(self).__name__}')

    def has_uninitialized_params(self):
        """Whether some parameter or buffer of this module (not its children) is still
        uninitialized."""
        return any(is_lazy(t) for t in
                   itertools.chain(self._parameters.values(), self._buffers.values()))

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")

    def _infer_parameters(self, module, args, kwargs=None):
        # the forward pre-hook: initializes once, then removes itself and the load hook
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f'module {self._get_name()} has not been fully initialized')
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, '_initialize_hook')
        delattr(module, '_load_hook')
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become
