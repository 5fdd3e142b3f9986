"""Operators torch exposes only as ``torch.ops.aten.<name>`` (no ``torch.<name>`` function
and no Tensor method): ``ember.ops.aten`` finds them here."""
import numpy as np

__all__ = ['convolution_backward', '_new_zeros_with_same_feature_meta', 'reflection_pad1d',
           'reflection_pad2d', 'reflection_pad3d', 'replication_pad1d', 'replication_pad2d',
           'replication_pad3d']


_CONV_BACKWARD = ("aten::convolution_backward(Tensor grad_output, Tensor input, Tensor weight, "
                  "SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] "
                  "dilation, bool transposed, SymInt[] output_padding, SymInt groups, bool[3] "
                  "output_mask) -> (Tensor, Tensor, Tensor)")


def _schema_error(schema, position, name, expected, value):
    """The dispatcher's RuntimeError for an argument that does not fit ``schema``."""
    op = schema[:schema.index('(')]
    return RuntimeError("Overloaded torch operator invoked from Python failed to match any "
                        f"schema:\n{op}() Expected a value of type '{expected}' for argument "
                        f"'{name}' but instead found type '{type(value).__name__}'.\n"
                        f"Position: {position}\nValue: {value!r}\nDeclaration: {schema}")


def _check_conv_backward_args(args):
    """``convolution_backward``'s arguments against its schema, as torch's dispatcher."""
    from .._tensor import Tensor

    def is_ints(v):
        return isinstance(v, (list, tuple)) and all(isinstance(i, (int, np.integer)) for i in v)
    kinds = ['Tensor'] * 3 + ['Optional[List[int]]'] + ['List[int]'] * 3 + ['bool'] + \
        ['List[int]', 'int', 'List[bool]']
    names = ['grad_output', 'input', 'weight', 'bias_sizes', 'stride', 'padding', 'dilation',
             'transposed', 'output_padding', 'groups', 'output_mask']
    for i, (v, kind, name) in enumerate(zip(args, kinds, names)):
        fits = {'Tensor': lambda: isinstance(v, Tensor),
                'Optional[List[int]]': lambda: v is None or is_ints(v),
                'List[int]': lambda: is_ints(v),
                'bool': lambda: isinstance(v, (int, np.integer)),
                'int': lambda: isinstance(v, (int, np.integer)),
                'List[bool]': lambda: is_ints(v)}[kind]()
        if not fits:
            raise _schema_error(_CONV_BACKWARD, i, name, kind, v)
    if len(args[10]) != 3:
        raise RuntimeError(f"Tried to convert a List with {len(args[10])} elements to a "
                           "fixed-size array of size 3")


def _check_grad_output(grad_output, input, weight, params, want):
    """torch's checks when the input's or the weight's gradient is asked for (the bias's is
    any sum): ``grad_output`` against the convolution's output, in the words of the CPU
    kernel torch picks (a dilated one, or else the plain or transposed one; 1-d runs as 2-d
    of height 1), and the dtypes those kernels take."""
    from ..nn.functional._conv import _out_size, check_output_padding
    from .pointwise import dtype_name
    stride, padding, dilation, transposed, output_padding, groups = params
    if transposed:
        check_output_padding(output_padding, stride, dilation)
    if grad_output.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.kernel_name} but found "
                           f"{grad_output.dtype.kernel_name}")
    ws, xs = weight.shape, input.shape
    if transposed:
        channels = ws[1] * groups
        spatial = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, s, p, d, k, op in
                   zip(xs[2:], stride, padding, dilation, ws[2:], output_padding)]
    else:
        channels = ws[0]
        spatial = list(_out_size([i + 2 * p for i, p in zip(xs[2:], padding)], ws[2:],
                                 stride, dilation))
    got = list(grad_output.shape[2:])
    if len(spatial) == 1:
        spatial, got = [1] + spatial, [1] + got
    dilated = not transposed and any(d > 1 for d in dilation)
    if dilated:
        if grad_output.shape[1] != channels:
            raise RuntimeError(f"grad_output.size(1)={grad_output.shape[1]} must be "
                               f"weight.size(0)={channels}")
        if got != spatial:
            raise RuntimeError(f"grad_output[2:] shape{got} must be equal to output size "
                               + ' '.join(map(str, spatial)))
    else:
        # (one group's channels, then each spatial size)
        expected = [channels // groups] + spatial
        got = [grad_output.shape[1] // groups] + got
        for dim, (e, g) in enumerate(zip(expected, got), start=1):
            if e != g:
                n = len(got) + 1
                raise RuntimeError(f"Expected a tensor of dimension {n} and tensor.size[{dim}] "
                                   f"== {e} but got: dimension {n} and tensor.size[{dim}] = {g}")
        if grad_output.shape[1] != channels:
            # (torch's per-group check misses a count that only differs by less than a group,
            # and it goes on to read past its grad_output; ember refuses it in the same words)
            n = len(got) + 1
            raise RuntimeError(f"Expected a tensor of dimension {n} and tensor.size[1] == "
                               f"{channels} but got: dimension {n} and tensor.size[1] = "
                               f"{grad_output.shape[1]}")
    dt = input._data.dtype
    if dt.kind not in 'fV' and not (dilated and dt == 'int64'):
        d = 3 if len(spatial) == 3 else 2
        kernel = ('slow_conv_dilated<>' if dilated else
                  f'slow_conv_transpose{d}d_backward_out_cpu' if transposed else
                  f"slow_conv{d}d_cpu_grad_{'input' if want[0] else 'weight'}")
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype_name(dt)}\'')


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    """``(grad_input, grad_weight, grad_bias)`` of ``aten.convolution`` at ``input`` and
    ``weight`` for ``grad_output``; the gradients ``output_mask`` does not ask for are None
    (torch's undefined tensors). The bias's gradient is the sum of ``grad_output`` over every
    dim but the channels (``bias_sizes`` is not read, as in torch). The results are
    differentiable (torch's ``ConvolutionBackwardBackward0`` node) when an input requires
    grad."""
    from ..nn.functional._conv import _check, _tuple, differentiable_grads
    args = (grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
            output_padding, groups, output_mask)
    _check_conv_backward_args(args)
    nd = weight.dim() - 2
    if nd < 1:
        raise RuntimeError('weight should have at least three dimensions')
    stride, padding, dilation, output_padding = (
        _tuple(v, nd, n) for v, n in ((stride, 'stride'), (padding, 'padding'),
                                      (dilation, 'dilation'), (output_padding, 'output_padding')))
    if groups <= 0:
        raise RuntimeError(f"expected groups to be greater than 0, but got groups={groups}")
    if not transposed and any(output_padding):
        raise RuntimeError("output_padding is not supported for non-transposed convolutions; "
                           f"got: {' '.join(map(str, output_padding))}")
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {nd + 2}-dimensional input for {nd + 2}-dimensional "
                           f"weight {list(weight.shape)}, but got {input.dim()}-dimensional "
                           f"input of size {list(input.shape)} instead")
    _check(input, weight, None, stride, padding, dilation, groups, transposed, nd)
    if input.dim() != grad_output.dim():
        raise RuntimeError("Expected input and grad_output to have the same number of "
                           f"dimensions, but got: {input.dim()} and {grad_output.dim()}")
    want = tuple(bool(m) for m in output_mask)
    params = (stride, padding, dilation, bool(transposed), output_padding, groups)
    if want[0] or want[1]:
        _check_grad_output(grad_output, input, weight, params, want)

    return differentiable_grads(grad_output, input, weight, params, want)


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
