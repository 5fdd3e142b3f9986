"""Recurrent layers: RNN, LSTM, GRU and their single-step cells.

Each step is composed from ember ops (linear, sigmoid, tanh, chunk, stack) in a loop over
time, so gradients and double backward come from the ops' own nodes -- except an LSTM layer
without projections, which runs as one op over the whole sequence (``functional._rnn``:
a few GEMMs per step instead of a dozen nodes). Parameter names,
shapes (gates stacked i,f,g,o for LSTM and r,z,n for GRU), initialisation, reprs and error
messages follow torch.
"""
import math
import numbers
import warnings

import numpy as np

from ... import _ops
from .. import functional as F, init
from ..functional._rnn import lstm_layer
from ..parameter import Parameter
from .module import Module

__all__ = ['RNN', 'LSTM', 'GRU', 'RNNCell', 'LSTMCell', 'GRUCell']

_GATES = {'LSTM': 4, 'GRU': 3, 'RNN_TANH': 1, 'RNN_RELU': 1}


# -- one time step of each kind ------------------------------------------------------------
def _rnn_step(act):
    def step(x_proj, h, w_hh, b_hh):
        return act(x_proj + F.linear(h, w_hh, b_hh))
    return step


def _lstm_step(x_proj, state, w_hh, b_hh, w_hr=None):
    h, c = state
    i, f, g, o = (x_proj + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _gru_step(x_proj, h, w_hh, b_hh):
    ir, iz, in_ = x_proj.chunk(3, -1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = (ir + hr).sigmoid()
    z = (iz + hz).sigmoid()
    n = (in_ + r * hn).tanh()
    return n + z * (h - n)


_STEPS = {'LSTM': _lstm_step, 'GRU': _gru_step,
          'RNN_TANH': _rnn_step(lambda t: t.tanh()), 'RNN_RELU': _rnn_step(lambda t: t.relu())}
# the public whole-sequence op of each mode (what torch's modules call through _VF)
_SEQUENCE_OPS = {mode: _ops._core.OPS[name] for mode, name in (
    ('LSTM', 'lstm'), ('GRU', 'gru'), ('RNN_TANH', 'rnn_tanh'), ('RNN_RELU', 'rnn_relu'))}


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU: parameters per layer and direction
    (``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}``, for an LSTM
    with ``proj_size`` also ``weight_hr_l{k}``, with ``_reverse`` for the backward
    direction), argument checks and the loop over time."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: "
                            f"{type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else self._out_size * num_directions
            for direction in range(num_directions):
                suffix = '_reverse' if direction == 1 else ''
                shapes = [('weight_ih', (gate_size, layer_input)),
                          ('weight_hh', (gate_size, self._out_size))]
                if bias:
                    shapes += [('bias_ih', (gate_size,)), ('bias_hh', (gate_size,))]
                if proj_size:
                    shapes.append(('weight_hr', (proj_size, hidden_size)))
                for kind, shape in shapes:
                    name = f'{kind}_l{layer}{suffix}'
                    setattr(self, name, Parameter(_ops.creation.empty(*shape, device=device,
                                                                      dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self):
        """Every parameter uniform in +-1/sqrt(hidden_size), as torch."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _out_size(self):
        """Features of each direction's output and hidden state: proj_size when set."""
        return self.proj_size or self.hidden_size

    def flatten_parameters(self):
        """Does nothing and returns None. torch packs the weights into one cuDNN buffer
        here on a GPU and does nothing on the CPU; ember runs on the CPU."""

    @property
    def _flat_weights(self):
        """The parameters in ``_flat_weights_names`` order (torch keeps this list)."""
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters grouped per layer and direction, as torch's ``all_weights``."""
        per = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        flat = self._flat_weights
        return [flat[i:i + per] for i in range(0, len(flat), per)]

    def extra_repr(self):
        s = f'{self.input_size}, {self.hidden_size}'
        if self.proj_size != 0:
            s += f', proj_size={self.proj_size}'
        if self.num_layers != 1:
            s += f', num_layers={self.num_layers}'
        if self.bias is not True:
            s += f', bias={self.bias}'
        if self.batch_first is not False:
            s += f', batch_first={self.batch_first}'
        if self.dropout != 0:
            s += f', dropout={self.dropout}'
        if self.bidirectional is not False:
            s += f', bidirectional={self.bidirectional}'
        return s

    def _check_hidden(self, hx, expected, msg='Expected hidden size {}, got {}'):
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def forward(self, input, hx=None):
        """Runs the sequence ``input`` ((L, N, H_in), (N, L, H_in) with batch_first, or
        unbatched (L, H_in), or a PackedSequence) from ``hx`` (zeros by default); returns
        ``(output, h_n)``, for LSTM ``(output, (h_n, c_n))``. A packed input gives a packed
        output, and each sequence's final state is taken at its own last step."""
        from ..utils.rnn import PackedSequence
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        lstm = self.mode == 'LSTM'
        name = 'RNN' if self.mode.startswith('RNN') else self.mode
        if input.dim() not in (2, 3):
            tail = ' tensor' if name == 'RNN' else ''
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{tail} instead")
        batched = input.dim() == 3
        states = None if hx is None else (list(hx) if lstm else [hx])
        if states is not None:
            want = 3 if batched else 2
            if any(s.dim() != want for s in states):
                kind = 'batched 3-D' if batched else 'unbatched 2-D'
                if lstm:
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D "
                                       f"but got ({states[0].dim()}-D, {states[1].dim()}-D) "
                                       "tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                   f"{states[0].dim()}-D tensor")
            if not batched:
                states = [s.unsqueeze(1) for s in states]
        if not batched:
            input = input.unsqueeze(1 if not self.batch_first else 0)
        states = self._initial_states(input, states, input.shape[0 if self.batch_first else 1])
        # the whole sequence goes through the public op, as torch's module calls _VF.lstm...,
        # so a tensor-like input's __torch_function__ sees torch.lstm / torch.rnn_tanh
        out = _SEQUENCE_OPS[self.mode](input, tuple(states) if lstm else states[0],
                                       self._flat_weights, self.bias, self.num_layers,
                                       self.dropout, self.training, self.bidirectional,
                                       self.batch_first)
        output, h_n = (out[0], out[1:]) if lstm else out
        if not batched:
            output = output.squeeze(1 if not self.batch_first else 0)
            h_n = tuple(s.squeeze(1) for s in h_n) if lstm else h_n.squeeze(1)
        return output, h_n

    def _forward_packed(self, packed, hx):
        """``forward`` of a PackedSequence: the data runs time step by time step over the
        sequences still running (``batch_sizes``); ``hx`` and ``h_n`` are in the caller's
        order of the sequences, the packing's sorted order inside."""
        lstm = self.mode == 'LSTM'
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        states = None if hx is None else (list(hx) if lstm else [hx])
        if states is not None and sorted_indices is not None:
            states = [s.index_select(1, sorted_indices) for s in states]
        sizes = [int(b) for b in batch_sizes._data]
        # torch's LSTM checks a packed input's shapes only when given hx (unchecked, a
        # wrong feature size fails in the input projection instead)
        states = self._initial_states(data, states, sizes[0],
                                      check=not (lstm and states is None))
        output, h_n = self._run(data, states, sizes)
        output = type(packed)(output, batch_sizes, sorted_indices, unsorted_indices)
        if unsorted_indices is not None:
            h_n = (tuple(s.index_select(1, unsorted_indices) for s in h_n) if lstm
                   else h_n.index_select(1, unsorted_indices))
        return output, h_n

    def _initial_states(self, input, states, batch, check=True):
        """Checks the input's features (if ``check``) and the given states' shapes for a
        batch of ``batch`` sequences; zeros where no states are given."""
        if check and input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        num_directions = 2 if self.bidirectional else 1
        expected = (self.num_layers * num_directions, batch, self._out_size)
        cell = expected[:2] + (self.hidden_size,)
        lstm = self.mode == 'LSTM'
        if states is None:
            return [_ops.creation.zeros(*shape, dtype=input.dtype, device=input.device)
                    for shape in ((expected, cell) if lstm else (expected,))]
        if lstm:
            self._check_hidden(states[0], expected, 'Expected hidden[0] size {}, got {}')
            self._check_hidden(states[1], cell, 'Expected hidden[1] size {}, got {}')
        else:
            self._check_hidden(states[0], expected)
        return states

    def _run(self, input, states, batch_sizes):
        """All layers and directions over ``input``, time-major: (T, N, H_in) with
        ``batch_sizes`` all N, or packed data whose time step ``t`` is the next
        ``batch_sizes[t]`` rows. Returns the last layer's output (time-major, or packed like the input) and the
        final states (h_n, or (h_n, c_n) for LSTM). An LSTM layer without projections over a
        padded batch runs as one op (``functional._rnn.lstm_layer``)."""
        lstm = self.mode == 'LSTM'
        num_directions = 2 if self.bidirectional else 1
        step = _STEPS[self.mode]
        starts = [0]
        for b in batch_sizes[:-1]:
            starts.append(starts[-1] + b)
        packed = input.dim() == 2
        layer_input, finals = input, []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                suffix = '_reverse' if direction == 1 else ''
                w_ih, w_hh = (getattr(self, f'{k}_l{layer}{suffix}')
                              for k in ('weight_ih', 'weight_hh'))
                b_ih, b_hh = ((getattr(self, f'{k}_l{layer}{suffix}')
                               for k in ('bias_ih', 'bias_hh')) if self.bias else (None, None))
                w_hr = (getattr(self, f'weight_hr_l{layer}{suffix}'),) if self.proj_size else ()
                k = layer * num_directions + direction
                state = tuple(s[k] for s in states) if lstm else states[0][k]
                x_proj = F.linear(layer_input, w_ih, b_ih)  # all time steps at once
                if lstm and not w_hr and not packed:
                    # the whole sequence as one op (see functional._rnn)
                    out, h, c = lstm_layer(x_proj, *state, w_hh, b_hh, reverse=direction == 1)
                    if out._data.dtype != np.float32 and out.requires_grad:
                        # torch's own (non-oneDNN) kernel stacks the steps: same grad_fn
                        out = _ops.shape.stack(out.unbind(0))
                    outs.append(out)
                    finals.append((h, c))
                    continue
                seq_len = len(batch_sizes)
                times = range(seq_len - 1, -1, -1) if direction == 1 else range(seq_len)
                hs = [None] * seq_len
                for t in times:
                    b = batch_sizes[t]
                    x_t = x_proj[starts[t]:starts[t] + b] if packed else x_proj[t]
                    state, hs[t] = _advance(step, x_t, state, b, lstm, w_hh, b_hh, *w_hr)
                outs.append(_ops.shape.cat(hs) if packed else _ops.shape.stack(hs))
                finals.append(state)
            layer_input = outs[0] if num_directions == 1 else _ops.shape.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, training=True)
        if lstm:
            h_n = (_ops.shape.stack([s[0] for s in finals]),
                   _ops.shape.stack([s[1] for s in finals]))
        else:
            h_n = _ops.shape.stack(finals)
        return layer_input, h_n


def _advance(step, x_t, state, b, lstm, *weights):
    """One time step for the first ``b`` sequences of the batch (those still running, in a
    packed batch sorted by length); the others keep their state. Returns the new state of
    the whole batch and the output of the ``b`` running sequences."""
    whole = (state[0] if lstm else state).shape[0]
    if b == whole:
        state = step(x_t, state, *weights)
        return state, (state[0] if lstm else state)
    if lstm:
        part = step(x_t, tuple(s[:b] for s in state), *weights)
        merged = tuple(_ops.shape.cat([p, s[b:]]) for p, s in zip(part, state))
        return merged, part[0]
    part = step(x_t, state[:b], *weights)
    return _ops.shape.cat([part, state[b:]]), part


_NO_PROJ = object()  # proj_size not passed: RNN and GRU refuse the keyword, whatever its value


def _refuse_proj_size(proj_size):
    """RNN and GRU take no projection; as torch, naming ``proj_size`` at all is an error."""
    if proj_size is not _NO_PROJ:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(RNNBase):
    """Elman RNN: ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` with act tanh or relu
    (``nonlinearity``), over ``num_layers`` stacked layers, optionally bidirectional."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None,
                 *, proj_size=_NO_PROJ):
        _refuse_proj_size(proj_size)
        if nonlinearity == 'tanh':
            mode = 'RNN_TANH'
        elif nonlinearity == 'relu':
            mode = 'RNN_RELU'
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory over ``num_layers`` stacked layers (gates i, f, g, o);
    returns ``(output, (h_n, c_n))``. With ``proj_size`` > 0 each hidden state is projected
    by ``weight_hr_l{k}`` to ``proj_size`` features (outputs and h_n too; c_n keeps
    ``hidden_size``)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__('LSTM', input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device=device, dtype=dtype)


class GRU(RNNBase):
    """Gated recurrent unit over ``num_layers`` stacked layers (gates r, z, n):
    ``h' = (1 - z) * n + z * h``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, *,
                 proj_size=_NO_PROJ):
        _refuse_proj_size(proj_size)
        super().__init__('GRU', input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


# -- cells ---------------------------------------------------------------------------------
class RNNCellBase(Module):
    """Shared parameters (weight_ih, weight_hh, bias_ih, bias_hh), init and checks of the
    single-step cells."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = dict(device=device, dtype=dtype)
        self.weight_ih = Parameter(_ops.creation.empty(num_chunks * hidden_size, input_size,
                                                       **kw))
        self.weight_hh = Parameter(_ops.creation.empty(num_chunks * hidden_size, hidden_size,
                                                       **kw))
        if bias:
            self.bias_ih = Parameter(_ops.creation.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(_ops.creation.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter('bias_ih', None)
            self.register_parameter('bias_hh', None)
        self.reset_parameters()

    def extra_repr(self):
        s = f'{self.input_size}, {self.hidden_size}'
        if self.bias is not True:
            s += f', bias={self.bias}'
        if getattr(self, 'nonlinearity', 'tanh') != 'tanh':
            s += f', nonlinearity={self.nonlinearity}'
        return s

    def reset_parameters(self):
        """Every parameter uniform in +-1/sqrt(hidden_size), as torch."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _run(self, input, hx, n_states, step):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None:
            states = list(hx) if n_states == 2 else [hx]
            for i, s in enumerate(states):
                if s.dim() not in (1, 2):
                    what = f'hx[{i}]' if n_states == 2 else 'hidden'
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got "
                                     f"{s.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _ops.creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype,
                                        device=input.device)
            states = [zeros] * n_states
        elif not batched:
            states = [s.unsqueeze(0) for s in states]
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.input_size}")
        for i, s in enumerate(states):
            if s.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match "
                                   f"hidden{i} batch size {s.shape[0]}")
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got "
                                   f"{s.shape[1]}, expected {self.hidden_size}")
        x_proj = F.linear(input, self.weight_ih, self.bias_ih)
        out = step(x_proj, tuple(states) if n_states == 2 else states[0], self.weight_hh,
                   self.bias_hh)
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if n_states == 2 else out.squeeze(0)
        return out


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = act(W_ih x + b_ih + W_hh h + b_hh)``, act tanh or relu."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """One step from ``hx`` (zeros by default); returns ``h'``."""
        if self.nonlinearity not in ('tanh', 'relu'):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._run(input, hx, 1, _STEPS['RNN_' + self.nonlinearity.upper()])


class LSTMCell(RNNCellBase):
    """One LSTM step (gates i, f, g, o); ``hx`` is ``(h, c)``; returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        """One step from ``hx = (h, c)`` (zeros by default); returns ``(h', c')``."""
        return self._run(input, hx, 2, _lstm_step)


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n); returns ``h'``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        """One step from ``hx`` (zeros by default); returns ``h'``."""
        return self._run(input, hx, 1, _gru_step)
