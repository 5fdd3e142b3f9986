"""What autocast does to an op's arguments, and the per-thread state it reads.

torch's CPU autocast gives some ops a casting policy (its documented lists "CPU Ops that can
autocast to bfloat16", "... to float32" and "... that promote to the widest input type");
inside ``autocast('cpu', dtype=...)`` those ops cast their floating-point tensor arguments
(never float64 ones) before running. ``overrides.overridable`` asks ``policy(public_name)``
once per op when it wraps it; an op with a policy tests ``GATE`` instead of
``overrides.MODES`` on its fast path, so the ops without one, and every op while no autocast
is on, pay nothing. ``GATE`` is non-empty while a TorchFunctionMode is active or a thread
casts; the op then takes its checked path, where ``enter`` casts (after the
``__torch_function__`` modes and subclasses, as torch's dispatcher does) and runs the op
with casting suspended, so the ops it is composed of are not cast again.
"""
import threading

__all__ = ['GATE', 'policy', 'enter', 'state', 'sync_gate', 'LOWER', 'FP32', 'PROMOTE', 'KEEP']

GATE = []

LOWER, FP32, PROMOTE = 'lower', 'fp32', 'promote'

# torch's CPU lists (aten names), spelled as ember's public names without ``ember.`` and
# ``Tensor.`` (a method and the function share an entry).
_F = 'nn.functional.'
_LOWER_OPS = (
    'mm', 'bmm', 'matmul', 'addmm', 'addbmm', 'baddbmm', 'linalg.vecdot', _F + 'linear',
    'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d',
    _F + 'conv1d', _F + 'conv2d', _F + 'conv3d', _F + 'conv_transpose1d',
    _F + 'conv_transpose2d', _F + 'conv_transpose3d', 'conv_tbc', '_convolution',
    'prelu', _F + 'prelu', _F + 'scaled_dot_product_attention', '_addmm_activation',
    '_native_multi_head_attention')
_LOSSES = ('mse_loss', 'cosine_embedding_loss', 'nll_loss', 'hinge_embedding_loss',
           'poisson_nll_loss', 'cross_entropy', 'l1_loss', 'smooth_l1_loss', 'huber_loss',
           'margin_ranking_loss', 'soft_margin_loss', 'triplet_margin_loss',
           'multi_margin_loss', 'ctc_loss', 'kl_div', 'multilabel_margin_loss',
           'binary_cross_entropy', 'binary_cross_entropy_with_logits')
_FP32_OPS = (
    ('polar', 'prod', 'quantile', 'nanquantile', 'stft', 'cdist', 'trace', 'view_as_complex',
     'cholesky_inverse', 'cholesky_solve', 'inverse', 'lu_solve', 'orgqr', 'ormqr',
     'pinverse', 'geqrf', 'qr', 'svd', 'triangular_solve', 'fake_quantize_per_tensor_affine',
     'grid_sampler', 'grid_sampler_2d', 'grid_sampler_3d', 'max_pool3d', 'avg_pool3d',
     'adaptive_max_pool3d', 'fractional_max_pool2d', 'fractional_max_pool3d',
     'cosine_embedding_loss', 'hinge_embedding_loss', 'poisson_nll_loss',
     'margin_ranking_loss', 'triplet_margin_loss', 'ctc_loss', 'kl_div',
     'binary_cross_entropy_with_logits')
    + tuple(_F + n for n in _LOSSES + (
        'grid_sample', 'avg_pool3d', 'max_pool3d', 'max_unpool2d', 'max_unpool3d',
        'adaptive_avg_pool3d', 'adaptive_max_pool3d', 'fractional_max_pool2d',
        'fractional_max_pool3d'))
    + tuple('fft.' + n for n in ('fft', 'ifft', 'fft2', 'ifft2', 'fftn', 'ifftn', 'rfft',
                                 'irfft', 'rfft2', 'irfft2', 'rfftn', 'irfftn', 'hfft',
                                 'ihfft'))
    + tuple('linalg.' + n for n in (
        'cond', 'matrix_rank', 'solve', 'cholesky', 'cholesky_ex', 'svdvals', 'svd', 'eig',
        'eigvals', 'eigh', 'eigvalsh', 'inv', 'inv_ex', 'householder_product', 'tensorinv',
        'tensorsolve', 'qr', 'lstsq')))
_PROMOTE_OPS = ('cat', 'concat', 'concatenate', 'stack', 'index_copy')
# Ops torch composes of listed ones (so they cast as those do) but ember computes directly.
_COMPOSED_LOWER = ('chain_matmul', 'linalg.multi_dot')
# torch's convolution is one unlisted kernel; ember's runs nn.functional's (listed) ones.
KEEP = 'keep'
POLICIES = {**{n: LOWER for n in _LOWER_OPS + _COMPOSED_LOWER}, **{n: FP32 for n in _FP32_OPS},
            **{n: PROMOTE for n in _PROMOTE_OPS}, 'convolution': KEEP}


# Policies decided by the call, as ``f(args, kwargs, low) -> dtype or None``.
def _pad(args, kwargs, low):
    """nn.functional.pad reaches torch's float32 kernels reflection_pad1d/2d and
    replication_pad1d/2d/3d, and only those."""
    mode = kwargs.get('mode', args[2] if len(args) > 2 else 'constant')
    pad = kwargs.get('pad', args[1] if len(args) > 1 else ())
    listed = {'reflect': (1, 2), 'replicate': (1, 2, 3)}.get(mode, ())
    from ._dtype import float32
    return float32 if len(pad) // 2 in listed else None


def _einsum(args, kwargs, low):
    """torch's einsum reaches bmm (listed) when an index is summed between operands."""
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and type(operands[0]) in (list, tuple):
        operands = operands[0]
    if not isinstance(equation, str) or len(operands) < 2:
        return None
    lhs, _, rhs = equation.replace(' ', '').partition('->')
    terms = [set(t) - {'.'} for t in lhs.split(',')]
    counts = {c: sum(c in t for t in terms) for c in set().union(*terms)}
    out = set(rhs) if '->' in equation else {c for c, n in counts.items() if n == 1}
    return low if any(n > 1 and c not in out for c, n in counts.items()) else None


def _inner(args, kwargs, low):
    """torch's inner of two matrices (or more dims) is a listed matmul; of vectors a dot."""
    a, b = (list(args) + [kwargs.get('other')])[:2]
    return low if a.dim() >= 2 and b.dim() >= 2 else None


def _matrix_power(args, kwargs, low):
    """torch's matrix_power multiplies (a listed matmul) from the second power on."""
    n = args[1] if len(args) > 1 else kwargs.get('n')
    return low if isinstance(n, int) and abs(n) >= 2 else None


POLICIES.update({_F + 'pad': _pad, 'einsum': _einsum, 'inner': _inner,
                 'linalg.matrix_power': _matrix_power, 'matrix_power': _matrix_power})


def policy(public_name):
    """The casting policy of the op torch names ``public_name`` (``'ember.Tensor.mm'``),
    or None."""
    name = public_name[6:] if public_name.startswith('ember.') else public_name
    if name.startswith('Tensor.'):
        name = name[7:]
    return POLICIES.get(name)


class _State(threading.local):
    """One thread's autocast settings (torch keeps them per thread too)."""

    def __init__(self):
        self.devices = {}     # device type -> [enabled, dtype]
        self.casting = None   # the dtype CPU ops cast to now, or None
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}       # id(float32 leaf) -> (leaf, version, its cast), per region


state = _State()


def sync_gate():
    """Recomputes this thread's ``casting`` from its CPU settings and keeps the thread's
    token in ``GATE`` exactly while it casts."""
    from ._dtype import bfloat16, float16
    s = state
    cpu = s.devices.get('cpu')
    s.casting = cpu[1] if cpu is not None and cpu[0] and cpu[1] in (bfloat16, float16) \
        else None
    present = any(t is s for t in GATE)
    if s.casting is not None and not present:
        GATE.append(s)
    elif s.casting is None and present:
        for i, t in enumerate(GATE):
            if t is s:
                del GATE[i]
                break


def enter(kind, args, kwargs):
    """``(args, kwargs, low)``: the arguments cast by policy ``kind`` for this thread's
    autocast dtype ``low``, with casting suspended until the caller sets ``state.casting``
    back to ``low``; ``low`` is None (and nothing changed) when nothing casts, as for
    ``out=`` calls, which torch leaves alone."""
    s = state
    low = s.casting
    if low is None or kwargs.get('out') is not None:
        return args, kwargs, None
    target = _target(kind, low, args, kwargs)
    if target is not None:
        args = tuple(_cast(a, target, low) for a in args)
        kwargs = {k: _cast(v, target, low) for k, v in kwargs.items()}
    s.casting = None
    return args, kwargs, low


def _tensors(values):
    from ._tensor import Tensor
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif type(v) in (list, tuple):
            yield from (t for t in v if isinstance(t, Tensor))


def _target(kind, low, args, kwargs):
    """The dtype the floating arguments go to (None: leave them)."""
    from ._dtype import float32, float64
    if kind is LOWER:
        return low
    if kind is FP32:
        return float32
    if kind is KEEP:
        return None
    if callable(kind):
        return kind(args, kwargs, low)
    # PROMOTE, as torch's prioritize: float32 wins over the autocast dtype, float64 tensors
    # are left out, and any other floating dtype is an error
    widest = low
    for t in _tensors(list(args) + list(kwargs.values())):
        dtype = t.dtype
        if not dtype.is_floating_point or dtype is float64:
            continue
        if widest is float32 or dtype is float32:
            widest = float32
        elif dtype is not low:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return widest


def _cast(value, target, low):
    from ._tensor import Tensor
    if type(value) in (list, tuple):
        return type(value)(_cast(v, target, low) for v in value)
    if not isinstance(value, Tensor):
        return value
    dtype = value.dtype
    if not dtype.is_floating_point or dtype is target or dtype.name == 'float64':
        return value
    s = state
    if target is low and dtype.name == 'float32' and s.cache_enabled and \
            value._gfn is None and value.requires_grad and value._base is None:
        # (a weight cast once per region, as torch caches it: one ToCopyBackward0 node; a
        # weight changed in place since is cast again, where torch would reuse the old cast)
        hit = s.cache.get(id(value))
        if hit is None or hit[0] is not value or hit[1] != value._version:
            hit = s.cache[id(value)] = (value, value._version, value.to(target))
        return hit[2]
    return value.to(target)
