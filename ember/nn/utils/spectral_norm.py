"""``nn.utils.spectral_norm`` (the hook-based form): a forward pre-hook divides the
parameter ``w_orig`` by an estimate of its largest singular value, found by power iteration
on the buffers ``w_u`` and ``w_v`` (one step per call in training mode), and sets the plain
attribute ``w``. A state-dict hook records the format version in the metadata, and a
load-state-dict pre-hook converts checkpoints of version None (``w`` saved as a buffer, no
``w_v``) by solving for ``v``."""
from ... import autograd as _autograd
from ..parameter import Parameter, UninitializedParameter

__all__ = ['SpectralNorm', 'spectral_norm', 'remove_spectral_norm']


def _normalize(t, eps):
    from ..functional import normalize
    return normalize(t, dim=0, eps=eps)


class SpectralNorm:
    """The forward pre-hook of one spectrally normalised parameter."""

    # version None: `w` was a buffer and there was no `w_v`; version 1: `w_v` is a buffer
    _version = 1

    def __init__(self, name='weight', n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError('Expected n_power_iterations to be positive, but '
                             f'got n_power_iterations={n_power_iterations}')
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` as a matrix whose rows run along ``dim``."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim,
                                            *[d for d in range(weight_mat.dim()) if d != self.dim])
        return weight_mat.reshape(weight_mat.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        """``w_orig / sigma``; with ``do_power_iteration`` the buffers ``w_u`` and ``w_v`` are
        first advanced in place (the graph then uses copies of them, so that later steps do
        not invalidate it)."""
        weight = getattr(module, self.name + '_orig')
        u = getattr(module, self.name + '_u')
        v = getattr(module, self.name + '_v')
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with _autograd.no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(_normalize(weight_mat.t().mv(u), self.eps))
                    u.copy_(_normalize(weight_mat.mv(v), self.eps))
                u = u.clone()
                v = v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module):
        """Puts ``w_orig / sigma`` back as the parameter ``w`` and drops the buffers."""
        with _autograd.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + '_u')
        delattr(module, self.name + '_v')
        delattr(module, self.name + '_orig')
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # the v with u^T W v = target_sigma that is least-squares closest to W^T u's direction
        from ... import linalg
        v = linalg.multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(),
                              u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Registers spectral normalisation of ``module.<name>``; returns the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with _autograd.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = _normalize(weight.new_empty(h).normal_(0, 1), fn.eps)
            v = _normalize(weight.new_empty(w).normal_(0, 1), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + '_orig', weight)
        # `w` stays a plain attribute (sharing w_orig's memory until the first call) so that
        # loading an old checkpoint, where it was a buffer, does not find it missing
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + '_u', u)
        module.register_buffer(fn.name + '_v', v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a version-None checkpoint (``w`` and ``w_orig`` and ``w_u``, no ``w_v``)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get('spectral_norm', {}).get(fn.name + '.version', None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if version is None and weight_key not in state_dict and \
                all(weight_key + s in state_dict for s in ('_orig', '_u', '_v')):
            return  # a current checkpoint that lost its metadata
        has_missing_keys = False
        for suffix in ('_orig', '', '_u'):
            if weight_key + suffix not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(weight_key + suffix)
        if has_missing_keys:
            return
        with _autograd.no_grad():
            weight_orig = state_dict[weight_key + '_orig']
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + '_u']
            state_dict[weight_key + '_v'] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records ``spectral_norm: {'<name>.version': 1}`` in the module's state-dict
    metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        local_metadata.setdefault('spectral_norm', {})
        key = self.fn.name + '.version'
        if key in local_metadata['spectral_norm']:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata['spectral_norm'][key] = self.fn._version


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Applies spectral normalisation to ``module.<name>`` (see the module docstring).
    ``dim`` defaults to 1 for transposed convolutions (their output channels), else 0.
    Returns ``module``."""
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) \
            else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name='weight'):
    """Undoes ``spectral_norm(module, name)``; returns ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for table, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        for k, hook in table.items():
            if isinstance(hook, kind) and hook.fn.name == name:
                del table[k]
                break
    return module
