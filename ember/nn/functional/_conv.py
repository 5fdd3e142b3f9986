"""Convolutions (exported by ``ember.nn.functional``): conv1d/2d/3d, conv_transpose1d/2d/3d
and conv_tbc.

One op does all of them: ``_convolution`` on 1-, 2- or 3-d spatial inputs, plain or transposed,
with symmetric zero padding. Its forward is im2col on NumPy arrays (one strided copy per
kernel tap, laid out per sample) and a batched GEMM per group; its ``ConvolutionBackward0`` node computes the gradients
by calling ``_convolution`` again (input gradient: the transposed convolution, and back;
weight gradient: a convolution of the input by the output gradient, batch and channels
swapped), so gradients of gradients come out of the same op."""
import warnings

import numpy as np

from ..._ops import _core
from ..._ops._core import Node, make
from ...autograd.graph import name_saved_values
from ..._ops.complex import conj_if_complex as cj
from ...autograd.grad_mode import STATE
from ..._tensor import Tensor
from . import _padding as _misc
from ..._ops._scratch import scratch
from . import _winograd
from ._recompute import RecomputedBackward, recomputed


# -- the array kernels ---------------------------------------------------------------------
def _out_size(sp, ks, stride, dilation):
    return tuple((size - d * (k - 1) - 1) // s + 1 for size, k, s, d in
                 zip(sp, ks, stride, dilation))


def _tap_slices(tap, stride, dilation, sp):
    """Where kernel tap ``tap`` meets the padded input, for every output position."""
    return (Ellipsis,) + tuple(slice(t * d, t * d + s * (m - 1) + 1, s)
                               for t, d, s, m in zip(tap, dilation, stride, sp))


def _im2col(x, ks, stride, dilation, out_sp):
    """(N, C, *ks, *out) from the padded ``x`` (N, C, *sp): for each kernel tap the strided
    slice it meets (one copy per tap). Laid out per sample, so the product with the weight
    comes out in (N, O, *out) order with no transposition. A scratch array: it is rebuilt
    for the weight gradient rather than kept (cheaper than a fresh array each time)."""
    cols = scratch('im2col', x.shape[:2] + tuple(ks) + tuple(out_sp), x.dtype)
    for tap in np.ndindex(*ks):
        cols[(slice(None), slice(None)) + tap] = x[_tap_slices(tap, stride, dilation, out_sp)]
    return cols


def _col2im(cols, sp, stride, dilation):
    """The adjoint of ``_im2col``: (N, C, *ks, *out) summed back into a zero (N, C, *sp)."""
    ks, out_sp = cols.shape[2:2 + (cols.ndim - 2) // 2], cols.shape[2 + (cols.ndim - 2) // 2:]
    x = scratch('col2im', cols.shape[:2] + tuple(sp), cols.dtype)
    x.fill(0)
    for tap in np.ndindex(*ks):
        x[_tap_slices(tap, stride, dilation, out_sp)] += cols[(slice(None), slice(None)) + tap]
    return x


def _pad_arr(x, before):
    """``x`` zero-padded by ``before`` on both sides of its spatial dims (a scratch array
    when padded: only im2col reads it)."""
    if not any(before):
        return x
    out = scratch('padded', x.shape[:2] + tuple(m + 2 * a for m, a in zip(x.shape[2:], before)),
                  x.dtype)
    out.fill(0)
    out[(Ellipsis,) + tuple(slice(a, a + m) for a, m in zip(before, x.shape[2:]))] = x
    return out


def _grouped(a, groups, nd):
    """(N, C, ..., *spatial) with ``nd`` spatial dims -> (N, groups, rows, positions): a
    matrix per sample and group, its columns the spatial positions."""
    rows = a.shape[1] // groups * int(np.prod(a.shape[2:a.ndim - nd], dtype=np.int64))
    return a.reshape(a.shape[0], groups, rows, int(np.prod(a.shape[a.ndim - nd:], dtype=np.int64)))


def _conv_arr(x, w, stride, dilation, groups):
    """Cross-correlation of an already padded ``x`` (N, C, *sp) with ``w`` (O, C/g, *k), as
    matrix products: im2col and a GEMM per sample when the kernel is small, or one GEMM per
    output position when the kernel is the larger (a weight gradient's "kernel" is the
    output gradient)."""
    n, c = x.shape[:2]
    o, ks = w.shape[0], w.shape[2:]
    out_sp = _out_size(x.shape[2:], ks, stride, dilation)
    cg, og = c // groups, o // groups
    taps = int(np.prod(ks))
    wm = w.reshape(groups, og, cg * taps)
    if taps <= int(np.prod(out_sp)):
        cols = _im2col(x, ks, stride, dilation, out_sp)
        out = np.matmul(wm, _grouped(cols, groups, len(out_sp)))  # (N, groups, og, L)
        return out.reshape((n, o) + out_sp)
    every = (slice(None), slice(None))
    out = np.empty((n, o) + out_sp, np.result_type(x, w))
    wt = wm.transpose(0, 2, 1)                         # (groups, cg*taps, og)
    for pos in np.ndindex(*out_sp):
        win = x[every + tuple(slice(p * s, p * s + d * (k - 1) + 1, d)
                              for p, s, d, k in zip(pos, stride, dilation, ks))]
        win = win.reshape(n, groups, cg * taps).swapaxes(0, 1)    # (groups, N, cg*taps)
        out[every + pos] = np.matmul(win, wt).swapaxes(0, 1).reshape(n, o)
    return out


def _weight_grad_arr(cols, g, wshape, groups):
    """The weight gradient of a plain convolution on arrays: per sample, the output gradient
    times the forward's im2col matrix, summed over the batch."""
    nd = g.ndim - 2
    gw = np.matmul(_grouped(g, groups, nd), _grouped(cols, groups, nd).swapaxes(2, 3))
    gw = gw.sum(0)
    return gw.reshape(wshape)


def _conv_transpose_arr(x, w, stride, padding, dilation, output_padding, groups):
    """The adjoint of ``_conv_arr``: ``x`` (N, Cin, *sp), ``w`` (Cin, Cout/g, *k). Each input
    position times the weight gives a kernel-sized patch of columns (one GEMM per sample),
    and col2im sums the patches into place."""
    n, cin = x.shape[:2]
    ks, sp = w.shape[2:], x.shape[2:]
    cg, og = cin // groups, w.shape[1]
    wm = w.reshape(groups, cg, -1).swapaxes(1, 2)                  # (groups, og*taps, cg)
    cols = np.matmul(wm, _grouped(x, groups, len(sp))).reshape((n, groups * og) + ks + sp)
    full = [(i - 1) * s + d * (k - 1) + 1 + op for i, s, d, k, op in
            zip(sp, stride, dilation, ks, output_padding)]
    out = _col2im(cols, full, stride, dilation)         # a scratch array: cropped into a copy
    size = [f - 2 * p for f, p in zip(full, padding)]
    # Always a copy (ascontiguousarray would hand back the scratch itself when nothing is
    # cropped, and the next transposed convolution would overwrite this result).
    return np.array(out[(Ellipsis,) + tuple(slice(p, p + m) for p, m in zip(padding, size))])


# -- the op --------------------------------------------------------------------------------
class ConvolutionBackward0(Node):
    """Gradients of a (transposed) convolution, each itself a ``_convolution``."""

    def backward(self, g):
        want = [fn is not None for fn, _ in self.next_functions]
        if self.winograd is not None and not STATE.enabled:
            return self._winograd_backward(*self.saved_tensors, g._data)
        x, w = self.saved_tensors
        params = (self.stride, self.padding, self.dilation, self.transposed,
                  self.output_padding, self.groups)
        if STATE.enabled:   # (a graph of the gradients: torch's node for them)
            return differentiable_grads(g, x, w, params, want)
        return convolution_grads(g, x, w, *params[:4], self.groups, want)

    def _winograd_backward(self, x, w, ga):
        """The gradients through the forward's Winograd transforms (see ``_winograd``)."""
        want = [f is not None for f, _ in self.next_functions]
        return tuple(None if a is None else make(a) for a in
                     _winograd.backward(ga, x._data, self.winograd, w.shape, want))


def convolution_grads(g, x, w, stride, padding, dilation, transposed, groups, want):
    """``(grad_input, grad_weight, grad_bias)`` of the (transposed) convolution of ``x`` by
    ``w`` (arguments as tuples) for the output gradient ``g``, each None unless ``want`` asks
    for it. In ember ops when grad mode is on (so they differentiate again), else straight on
    arrays for the plain convolution (saving the ops' dispatch and graph bookkeeping)."""
    # Each gradient is the other operand times g: conjugated if complex (as in complex.py).
    x, w = cj(x), cj(w)
    nd = len(stride)
    gx = gw = gb = None
    args = (stride, padding, dilation)
    arrays = not STATE.enabled and not transposed
    if want[0]:
        if arrays:
            gx = make(_conv_transpose_arr(g._data, w._data, *args,
                                          _grad_output_padding(x, g, w, *args), groups).astype(
                x._data.dtype, copy=False))
        elif transposed:
            gx = _convolution(g, w, None, *args, False, (0,) * nd, groups)
            gx = gx[(Ellipsis,) + tuple(slice(0, s) for s in x.shape[2:])]
        else:
            gx = _convolution(g, w, None, *args, True, _grad_output_padding(x, g, w, *args),
                              groups)
    if want[1]:
        if arrays:
            cols = _im2col(_pad_arr(x._data, padding), w.shape[2:], stride, dilation,
                           g.shape[2:])
            gw = make(_weight_grad_arr(cols, g._data, w.shape, groups).astype(
                w._data.dtype, copy=False))
        else:
            gw = (_weight_grad(g, x, w.shape, *args, groups) if transposed
                  else _weight_grad(x, g, w.shape, *args, groups))
    if want[2]:
        dims = (0,) + tuple(range(2, 2 + nd))
        gb = make(g._data.sum(dims)) if arrays else g.sum(dims)
    return gx, gw, gb


class ConvolutionBackwardBackward0(RecomputedBackward):
    """Gradient of a convolution's gradients (its second derivative) for the output
    gradient, the input and the weight: ``convolution_grads`` again, in ember ops."""


name_saved_values(ConvolutionBackwardBackward0, names=('grad_output', 'input', 'weight'),
                  attrs={k: k for k in ('stride', 'padding', 'dilation', 'transposed',
                                        'output_padding', 'groups')})


def differentiable_grads(g, x, w, params, want):
    """``convolution_grads`` as the outputs of one ``ConvolutionBackwardBackward0`` node over
    ``(g, x, w)`` (torch's), their value computed without a graph. ``params``: stride,
    padding, dilation, transposed, output_padding, groups."""
    stride, padding, dilation, transposed, output_padding, groups = params

    def compose(g, x, w):
        return convolution_grads(g, x, w, stride, padding, dilation, transposed, groups, want)
    out = recomputed(ConvolutionBackwardBackward0, compose, (g, x, w))
    node = next((o.grad_fn for o in out if o is not None), None)
    if node is not None:
        node.stride, node.padding, node.dilation, node.transposed, node.output_padding, \
            node.groups = params
    return out


def _grad_output_padding(x, g, w, stride, padding, dilation):
    """The output_padding that makes the transposed convolution of ``g`` come back to
    ``x``'s size (the rows a strided forward skipped at the end)."""
    return tuple(i + 2 * p - ((o - 1) * s + d * (k - 1) + 1) for i, o, s, p, d, k in
                 zip(x.shape[2:], g.shape[2:], stride, padding, dilation, w.shape[2:]))


def _weight_grad(x, g, wshape, stride, padding, dilation, groups):
    """d<conv(x, w), g>/dw as a convolution of ``x`` by ``g`` (batch and channels swapped:
    the batch becomes the summed channel dim, stride and dilation trade places)."""
    n, c = x.shape[:2]
    o, nd = g.shape[1], len(stride)
    sp, osp = tuple(x.shape[2:]), tuple(g.shape[2:])
    cg, og = c // groups, o // groups
    rest = tuple(range(3, 3 + nd))
    xs = x.reshape((n, groups, cg) + sp).permute((2, 1, 0) + rest).reshape(
        (cg, groups * n) + sp)
    gs = g.reshape((n, groups, og) + osp).permute((1, 2, 0) + rest).reshape(
        (groups * og, n) + osp)
    out = _convolution(xs, gs, None, dilation, padding, stride, False, (0,) * nd, groups)
    out = out[(Ellipsis,) + tuple(slice(0, k) for k in wshape[2:])]
    return out.transpose(0, 1)


def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups):
    """The one convolution op (arguments already checked and expanded to tuples)."""
    x, w = input._data, weight._data
    n = _core.track(ConvolutionBackward0, (input, weight, bias))
    kept = None
    winograd = not transposed and _winograd.applies(x, w, stride, dilation, groups)
    if winograd:                                      # (adds the bias itself, for free)
        out, kept = _winograd.forward(x, w, None if bias is None else bias._data, padding,
                                      keep=n is not None)
    elif transposed:
        out = _conv_transpose_arr(x, w, stride, padding, dilation, output_padding, groups)
    else:
        out = _conv_arr(_pad_arr(x, padding), w, stride, dilation, groups)
    if bias is not None and not winograd:
        out = out + bias._data.reshape((-1,) + (1,) * len(stride))
    result = _core.result(np.asarray(out, input._data.dtype), n)
    if n is not None:
        n.winograd = kept
        n.save(input, weight)
        n.stride, n.padding, n.dilation, n.groups = stride, padding, dilation, groups
        n.transposed, n.output_padding = transposed, output_padding
    return result


# -- the public functions: torch's argument handling and checks ----------------------------
def _tuple(v, nd, name):
    if isinstance(v, (tuple, list)):
        v = tuple(int(i) for i in v)
        if len(v) == 1:
            v = v * nd
        if len(v) != nd:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {nd} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(v)}")
        return v
    return (int(v),) * nd


def _params(weight, groups, **params):
    """torch's first checks in its convolution (the weight's dims, then ``groups``), then
    ``params`` (stride, padding, dilation, output_padding: in that order) each expanded to
    the weight's spatial dims: ``(dims, [tuples])``."""
    nd = weight.dim() - 2
    if nd < 1:
        raise RuntimeError('weight should have at least three dimensions')
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    return nd, [_tuple(v, nd, name) for name, v in params.items()]


def _check(input, weight, bias, stride, padding, dilation, groups, transposed, nd,
           output_padding=()):
    """torch's checks of a convolution's shapes (``check_shape_forward``), in its order, and
    its later refusals of a zero dilation and of mixed dtypes."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    ws, xs = list(weight.shape), list(input.shape)
    if len(ws) != len(xs):
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional "
                           f"weight {ws}, but got {len(xs)}-dimensional input of size {xs} "
                           "instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {ws} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{ws}] instead")
    if not transposed:
        if xs[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{xs}"
                               f" to have {ws[1] * groups} channels, but got {xs[1]} channels "
                               "instead")
        if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[0]):
            raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional "
                               f"with {ws[0]} elements, but got bias of size "
                               f"{list(bias.shape)} instead")
        padded = [i + 2 * p for i, p in zip(xs[2:], padding)]
        kernel = [d * (k - 1) + 1 for d, k in zip(dilation, ws[2:])]
        if any(k > i for k, i in zip(kernel, padded)):
            raise RuntimeError(f"Calculated padded input size per channel: "
                               f"({' x '.join(map(str, padded))}). Kernel size: "
                               f"({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                               "than actual input size")
    else:
        if xs[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{xs} to "
                               f"have {ws[0]} channels, but got {xs[1]} channels instead")
        if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be "
                               f"1-dimensional with {ws[1] * groups} elements, but got bias of "
                               f"size {list(bias.shape)} instead")
    if any(d == 0 for d in dilation) or input.dtype != weight.dtype or \
            bias is not None and input.dtype != bias.dtype:  # (else nothing more to refuse)
        _backend_refusals(input, weight, bias, stride, dilation, groups, transposed)


def _backend_refusals(input, weight, bias, stride, dilation, groups, transposed):
    """What torch's convolution refuses once its backend is picked: a zero dilation and
    parameters of another dtype than the input, in that backend's words."""
    onednn = None if input.dtype.is_complex else _onednn(input, weight, stride, dilation,
                                                        groups)
    if any(d == 0 for d in dilation):
        _zero_dilation(input, dilation, transposed, onednn)
    _same_types(input, weight, 'weight', onednn)
    if bias is not None:
        _same_types(input, bias, 'bias', onednn)


def _onednn(input, weight, stride, dilation, groups):
    """Whether torch's CPU convolution would run on oneDNN, whose errors are worded apart:
    bfloat16 inputs always (on CPUs with bfloat16 support, as the ones ember is tested on),
    float32 ones by its heuristic (a 1-d convolution counts as 2-d of height 1). The
    heuristic reads torch's thread count; ember's BLAS threads stand in for it."""
    if input.dtype.name == 'bfloat16':
        return True
    if input.dtype.name != 'float32':
        return False
    xs, ws = list(input.shape), list(weight.shape)
    if len(ws) == 3:
        xs, ws = xs[:2] + [1] + xs[2:], ws[:2] + [1] + ws[2:]
    if not (any(v != 1 for v in stride) or any(v != 1 for v in dilation) or xs[0] >= 16 or
            ws[-1] != 1 or ws[-2] != 1):
        from ..._threads import get_num_threads
        if get_num_threads() <= 1:
            return False
    return groups > 1 or ws[-1] > 3 and ws[-2] > 3 or xs[0] > 1 or \
        xs[0] * xs[1] * xs[2] * xs[3] > 20480


def _zero_dilation(input, dilation, transposed, onednn):
    """torch's refusal of a zero dilation, in the words of the backend it picks: oneDNN's
    (``onednn``, or a complex input, None; a transposed convolution's is oneDNN's own
    failure, not reproduced) or the slow kernels' (a 1-d convolution runs as 2-d)."""
    if onednn is not False:
        raise RuntimeError("non-positive dilation is not supported")
    d = (1,) + tuple(dilation) if len(dilation) == 1 else tuple(dilation)
    if transposed:
        names = ('depth', 'height', 'width')[3 - len(d):]
        raise RuntimeError("dilation should be greater than zero, but got " + ', '.join(
            f"dilation_{n}: {v}" for n, v in zip(names, d)))
    raise RuntimeError(f"dilation should be greater than zero, but got {list(d)}")


def _same_types(input, param, name, onednn):
    """torch's refusal of a weight or bias of another dtype than the input, in the words of
    the backend it picks: the complex path's (``onednn`` None), oneDNN's, else the slow
    kernels' (which add a bias in place: any dtype that casts into the input's goes)."""
    it, pt = input.dtype, param.dtype
    if it == pt:
        return
    if onednn is not False:
        tail = '' if onednn is None else \
            f" or input should be a MKLDNN tensor and {name} is a dense tensor"
        raise RuntimeError(f"Input type ({it.type_string}) and {name} type ({pt.type_string}) "
                           f"should be the same{tail}")
    if name == 'weight':
        raise RuntimeError(f"expected scalar type {it.kernel_name} but found {pt.kernel_name}")
    from ... import _dtype
    if not _dtype.can_cast(_dtype.promote_types(it, pt), it):
        raise RuntimeError(f"result type {pt.kernel_name} can't be cast to the desired output "
                           f"type {it.kernel_name}")


def check_output_padding(output_padding, stride, dilation):
    """torch's transposed kernels: each output_padding below its stride or its dilation (a
    1-d convolution reported as the 2-d one torch runs, of height 1)."""
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        if len(stride) == 1:
            output_padding, stride, dilation = (0,) + output_padding, (1,) + stride, \
                (1,) + dilation
        names = ['depth', 'height', 'width'][3 - len(stride):]
        parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)]
        parts += [f"stride_{n}: {v}" for n, v in zip(names, stride)]
        parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + ' '.join(parts))


def _batched(input, nd, fname):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, ...)")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{fname}, but got input of size: {list(input.shape)}")
    return input.dim() == nd + 2


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, fname):
    if not isinstance(padding, str) and bias is not None and bias.dtype != input.dtype:
        # (torch's conv<n>d checks this before anything else, in C++'s type names)
        raise RuntimeError(f"Input type ({input.dtype.cpp_name}) and bias type "
                           f"({bias.dtype.cpp_name}) should be the same")
    batched = _batched(input, nd, fname)
    x = input if batched else input.unsqueeze(0)
    if isinstance(padding, str):
        if padding not in ('valid', 'same'):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == 'same':
            x, padding = _same_padding(x, weight, stride, dilation, groups)
        else:
            padding = 0
    wnd, (stride, padding, dilation) = _params(weight, groups, stride=stride, padding=padding,
                                               dilation=dilation)
    _check(x, weight, bias, stride, padding, dilation, groups, False, wnd)
    out = _convolution(x, weight, bias, stride, padding, dilation, False, (0,) * wnd, groups)
    return out if batched else out.squeeze(0)


def _same_padding(x, weight, stride, dilation, groups):
    """``padding='same'``: torch's own checks of it, and the padding that keeps the input's
    size (an odd total pads the input once more at the end, with a warning)."""
    k = weight.dim()
    if k <= 2:
        raise RuntimeError('weight should have at least three dimensions')
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if k != x.dim():  # (no space before the weight's sizes, as torch)
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight"
                           f"{list(weight.shape)}, but got {x.dim()}-dimensional input of size "
                           f"{list(x.shape)} instead")
    nd = k - 2
    stride = (stride,) if isinstance(stride, (int, np.integer)) else tuple(stride)
    dilation = (dilation,) if isinstance(dilation, (int, np.integer)) else tuple(dilation)
    for name, v in (('stride', stride), ('dilation', dilation)):
        if len(v) not in (1, nd):
            raise RuntimeError(f"{name} cannot broadcast to {nd} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = dilation * nd if len(dilation) == 1 else dilation
    total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    padding = tuple(t // 2 for t in total)
    extra = [t - 2 * p for t, p in zip(total, padding)]
    if any(extra):
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                      "require a zero-padded copy of the input be created", UserWarning,
                      stacklevel=4)
        pads = []
        for e in reversed(extra):
            pads += [0, e]
        x = _misc.pad(x, pads)
    return x, padding


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d cross-correlation of ``input`` (N, C, L) or (C, L) with ``weight`` (O, C/groups,
    k); ``padding`` an int, a tuple, 'valid' or 'same'."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, 'conv1d')


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d cross-correlation of ``input`` (N, C, H, W) or (C, H, W) with ``weight``
    (O, C/groups, kH, kW); ``padding`` an int, a tuple, 'valid' or 'same'."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, 'conv2d')


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    nd, fname):
    if isinstance(padding, str):
        raise TypeError(f"{fname}(): argument 'padding' must be tuple of ints, not str")
    batched = _batched(input, nd, fname)
    x = input if batched else input.unsqueeze(0)
    wnd, (stride, padding, dilation, output_padding) = _params(
        weight, groups, stride=stride, padding=padding, dilation=dilation,
        output_padding=output_padding)
    _check(x, weight, bias, stride, padding, dilation, groups, True, wnd, output_padding)
    check_output_padding(output_padding, stride, dilation)
    out = _convolution(x, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return out if batched else out.squeeze(0)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transposed 2-d convolution (the gradient of conv2d with respect to its input):
    ``weight`` is (Cin, Cout/groups, kH, kW)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2, 'conv_transpose2d')


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transposed 1-d convolution (the gradient of conv1d with respect to its input):
    ``weight`` is (Cin, Cout/groups, k)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1, 'conv_transpose1d')


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d cross-correlation of ``input`` (N, C, D, H, W) or (C, D, H, W) with ``weight``
    (O, C/groups, kD, kH, kW); ``padding`` an int, a tuple, 'valid' or 'same'."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, 'conv3d')


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transposed 3-d convolution (the gradient of conv3d with respect to its input):
    ``weight`` is (Cin, Cout/groups, kD, kH, kW)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3, 'conv_transpose3d')


class ConvTbcBackward0(RecomputedBackward):
    """Gradient of ``conv_tbc``: the gradients of the conv1d it is."""


def _tbc_as_conv1d(x, w, b, pad):
    """``conv_tbc`` as a conv1d: (T, B, C) -> (B, C, T), weight (k, Cin, Cout) -> (Cout, Cin, k)."""
    out = _convolution(x.permute(1, 2, 0), w.permute(2, 1, 0), b, (1,), (pad,), (1,), False,
                       (0,), 1)
    return out.permute(2, 0, 1)


def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution of a time-major ``input`` (T, B, C) with ``weight`` (k, C, O) and
    ``bias`` (O), zero-padded by ``pad`` steps on each side: (T + 2 pad - k + 1, B, O)."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    return recomputed(ConvTbcBackward0, lambda x, w, b: _tbc_as_conv1d(x, w, b, pad),
                      (input, weight, bias))


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``).
name_saved_values(ConvolutionBackward0, ('input', 'weight'), inputs=('input', 'weight', 'bias'),
                  sizes=('bias_sym_sizes_opt',),
                  attrs={k: k for k in ('stride', 'padding', 'dilation', 'groups', 'transposed',
                                        'output_padding')})
