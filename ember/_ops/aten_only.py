"""Operators torch exposes only as ``torch.ops.aten.<name>`` (no ``torch.<name>`` function
and no Tensor method): ``ember.ops.aten`` finds them here."""
from .. import autograd as _autograd

__all__ = ['convolution_backward', '_new_zeros_with_same_feature_meta', 'reflection_pad1d',
           'reflection_pad2d', 'reflection_pad3d', 'replication_pad1d', 'replication_pad2d',
           'replication_pad3d']


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    """``(grad_input, grad_weight, grad_bias)`` of ``aten.convolution`` at ``input`` and
    ``weight`` for ``grad_output``; the gradients ``output_mask`` does not ask for are None
    (torch's undefined tensors), and a bias (of ``bias_sizes``) only matters for its own
    gradient, the sum of ``grad_output`` over every dim but the channels."""
    from .nn_entry import convolution
    from .creation import zeros
    want_input, want_weight, want_bias = (bool(m) for m in output_mask)
    x = input.detach().requires_grad_(want_input)
    w = weight.detach().requires_grad_(want_weight)
    b = None
    if want_bias:
        b = zeros(*(bias_sizes or (w.shape[1] * groups if transposed else w.shape[0],)),
                  dtype=grad_output.dtype).requires_grad_()
    wanted = [t for t in (x, w, b) if t is not None and t.requires_grad]
    if not wanted:
        return None, None, None
    with _autograd.grad_mode.enable_grad():
        out = convolution(x, w, b, stride, padding, dilation, transposed, output_padding,
                          groups)
    grads = iter(_autograd.grad(out, wanted, grad_output))
    return tuple(next(grads) if m else None for m in (want_input, want_weight, want_bias))


def _new_zeros_with_same_feature_meta(self, other, *, self_num_batch_dims=0):
    """Zeros laid out as ``other`` (its sizes, strides, storage offset and storage size, in
    ``other``'s dtype) behind ``self``'s first ``self_num_batch_dims`` dims, each batch slice
    a whole copy of ``other``'s storage (forward AD's tangent layout under vmap)."""
    from .creation import zeros
    storage_numel = other.untyped_storage().nbytes() // other.element_size()
    batch = tuple(self.shape[:self_num_batch_dims])
    strides, prod = [], storage_numel
    for size in reversed(batch):  # the batch slices follow one another in memory
        strides.insert(0, prod)
        prod *= size
    flat = zeros(prod, dtype=other.dtype)
    return flat.as_strided(batch + tuple(other.shape), tuple(strides) + other.stride(),
                           other.storage_offset())


def _index_pad(kind, k):
    """aten's ``<kind>_pad<k>d(input, padding)``: ``nn.functional.pad`` in mode 'reflect' or
    'replicate' of exactly ``k`` dims, after aten's checks of the padding's length (which
    comes first) and of the input's rank."""
    mode = 'reflect' if kind == 'reflection' else 'replicate'

    def op(input, padding):
        from ..nn.functional import pad
        from ..nn.functional._padding import check_index_pad_rank
        padding = list(padding)
        if len(padding) != 2 * k:
            got = f", but got: {len(padding)}" if kind == 'reflection' else ''
            raise RuntimeError(f"padding size is expected to be {2 * k}{got}")
        check_index_pad_rank(tuple(input.shape), k)
        return pad(input, padding, mode=mode)
    op.__name__ = op.__qualname__ = f'{kind}_pad{k}d'
    op.__doc__ = (f"``nn.functional.pad(input, padding, mode='{mode}')`` of the last {k} "
                  f"dim{'s' if k > 1 else ''} (aten's ``{op.__name__}``).")
    return op


reflection_pad1d, reflection_pad2d, reflection_pad3d = (_index_pad('reflection', k)
                                                        for k in (1, 2, 3))
replication_pad1d, replication_pad2d, replication_pad3d = (_index_pad('replication', k)
                                                           for k in (1, 2, 3))
