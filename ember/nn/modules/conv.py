"""Conv1d/2d/3d, ConvTranspose1d/2d/3d and their lazy versions."""
from ... import _ops
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from ._params import register_new, reset_kaiming_default
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _ntuple

__all__ = ['Conv1d', 'Conv2d', 'ConvTranspose2d', 'ConvTranspose1d', 'LazyConv1d', 'LazyConv2d',
           'LazyConvTranspose1d', 'LazyConvTranspose2d', 'Conv3d', 'ConvTranspose3d', 'LazyConv3d',
           'LazyConvTranspose3d']

_MODES = {'zeros', 'reflect', 'replicate', 'circular'}
_PADDING_STRINGS = {'valid', 'same'}


class _ConvNd(Module):
    """What the convolution modules share: torch's checks, parameters, initialisation and
    repr. Non-'zeros' padding modes pad with ``F.pad`` first, as torch does."""

    _nd = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode='zeros', output_padding=0, device=None,
                 dtype=None):
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError('groups must be a positive integer')
        if in_channels % groups != 0:
            raise ValueError('in_channels must be divisible by groups')
        if out_channels % groups != 0:
            raise ValueError('out_channels must be divisible by groups')
        if isinstance(padding, str):
            if padding not in ('valid', 'same'):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_PADDING_STRINGS}")  # a set's order, as torch prints
            if padding == 'same' and any(s != 1 for s in _ntuple(nd)(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _MODES:
            raise ValueError(f"padding_mode must be one of {_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _ntuple(nd)(kernel_size)
        self.stride = _ntuple(nd)(stride)
        self.padding = padding if isinstance(padding, str) else _ntuple(nd)(padding)
        self.dilation = _ntuple(nd)(dilation)
        self.transposed = self._transposed
        self.output_padding = _ntuple(nd)(output_padding)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            pads = [0, 0] * nd
            if padding == 'same':
                for d, k, i in zip(self.dilation, self.kernel_size, range(nd - 1, -1, -1)):
                    total = d * (k - 1)
                    pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
        else:
            pads = [p for p in reversed(self.padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = pads
        shape = ((in_channels, out_channels // groups) if self.transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(_ops.creation.empty(*shape, device=device, dtype=dtype))
        register_new(self, 'bias', bias, out_channels, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """kaiming_uniform_(a=sqrt(5)) for the weight, uniform +-1/sqrt(fan_in) for the bias."""
        reset_kaiming_default(self.weight, self.bias)

    def extra_repr(self):
        s = '{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}'
        if self.padding != (0,) * len(self.padding):
            s += ', padding={padding}'
        if self.dilation != (1,) * len(self.dilation):
            s += ', dilation={dilation}'
        if self.output_padding != (0,) * len(self.output_padding):
            s += ', output_padding={output_padding}'
        if self.groups != 1:
            s += ', groups={groups}'
        if self.bias is None:
            s += ', bias=False'
        if self.padding_mode != 'zeros':
            s += ', padding_mode={padding_mode}'
        return s.format(**self.__dict__)

    def _conv_forward(self, input, weight, bias):
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != 'zeros':
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(input, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """1-d convolution over (N, C, L) or (C, L) inputs; weight (out, in/groups, k)."""

    _nd = 1


class Conv2d(_ConvNd):
    """2-d convolution over (N, C, H, W) or (C, H, W) inputs; weight (out, in/groups, kH,
    kW)."""

    _nd = 2


class ConvTranspose2d(_ConvNd):
    """Transposed 2-d convolution (conv2d's input gradient as a layer); weight (in,
    out/groups, kH, kW). ``output_size`` in forward picks the output padding."""

    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros',
                 device=None, dtype=None):
        if padding_mode != 'zeros':
            raise ValueError('Only "zeros" padding mode is supported for '
                             f'ConvTranspose{self._nd}d')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, output_padding, device, dtype)

    def forward(self, input, output_size=None):
        op = self.output_padding
        if output_size is not None:
            nd = self._nd
            size = list(output_size)[-nd:]
            op = tuple(want - ((i - 1) * s - 2 * p + d * (k - 1) + 1) for want, i, s, p, d, k in
                       zip(size, input.shape[-nd:], self.stride, self.padding, self.dilation,
                           self.kernel_size))
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._nd - 1]
        return fn(input, self.weight, self.bias, self.stride, self.padding, op,
                                  self.groups, self.dilation)


class ConvTranspose1d(ConvTranspose2d):
    """Transposed 1-d convolution (conv1d's input gradient as a layer); weight (in,
    out/groups, k). ``output_size`` in forward picks the output padding."""

    _nd = 1


class Conv3d(_ConvNd):
    """3-d convolution over (N, C, D, H, W) or (C, D, H, W) inputs; weight (out,
    in/groups, kD, kH, kW)."""

    _nd = 3


class ConvTranspose3d(ConvTranspose2d):
    """Transposed 3-d convolution (conv3d's input gradient as a layer); weight (in,
    out/groups, kD, kH, kW). ``output_size`` in forward picks the output padding."""

    _nd = 3


class _LazyConvMixin(LazyModuleMixin):
    """A convolution whose ``in_channels`` is taken from its first input (dim 1 of a
    batched input, dim 0 of an unbatched one)."""

    def __init__(self, out_channels, kernel_size, *args, device=None, dtype=None, bias=True,
                 **kwargs):
        super().__init__(0, 0, kernel_size, *args, bias=False, **kwargs)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """Initialises as the convolution does, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):
        unbatched = self._nd + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f'Expected {unbatched}D (unbatched) or {unbatched + 1}D '
                               f'(batched) input to {type(self).__name__}, but got input of '
                               f'size: {input.shape}')
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        """Materializes weight and bias from the input's channel count, then initialises
        them."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError('in_channels must be divisible by groups')
            shape = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                     else (self.out_channels, self.in_channels // self.groups))
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.weight.materialize(shape + self.kernel_size)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _lazy(conv, doc, signature):
    """The lazy version of the convolution class ``conv`` (it becomes a ``conv``)."""
    def __init__(self, out_channels, kernel_size, *args, **kwargs):
        bound = dict(zip(signature, args), **kwargs)
        _LazyConvMixin.__init__(self, out_channels, kernel_size, **bound)
    return type('Lazy' + conv.__name__, (_LazyConvMixin, conv),
                {'cls_to_become': conv, '__init__': __init__, '__doc__': doc,
                 '__module__': __name__})


_CONV_ARGS = ('stride', 'padding', 'dilation', 'groups', 'bias', 'padding_mode', 'device',
              'dtype')
_TRANSPOSE_ARGS = ('stride', 'padding', 'output_padding', 'groups', 'bias', 'dilation',
                   'padding_mode', 'device', 'dtype')
LazyConv1d = _lazy(Conv1d, 'A Conv1d whose in_channels comes from its first input.',
                   _CONV_ARGS)
LazyConv2d = _lazy(Conv2d, 'A Conv2d whose in_channels comes from its first input.',
                   _CONV_ARGS)
LazyConvTranspose1d = _lazy(ConvTranspose1d, 'A ConvTranspose1d whose in_channels comes '
                            'from its first input.', _TRANSPOSE_ARGS)
LazyConvTranspose2d = _lazy(ConvTranspose2d, 'A ConvTranspose2d whose in_channels comes '
                            'from its first input.', _TRANSPOSE_ARGS)
LazyConv3d = _lazy(Conv3d, 'A Conv3d whose in_channels comes from its first input.',
                   _CONV_ARGS)
LazyConvTranspose3d = _lazy(ConvTranspose3d, 'A ConvTranspose3d whose in_channels comes '
                            'from its first input.', _TRANSPOSE_ARGS)
