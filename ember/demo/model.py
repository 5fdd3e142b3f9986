"""The demo's network: two 3x3 convolutions, max pooling, and a classifier made of the note's
``Linear`` module (a custom Module whose op is a custom autograd Function)."""
import math

import ember
from ember import nn
from ember.autograd import Function

__all__ = ['LinearFunction', 'Linear', 'DigitsNet']


class LinearFunction(Function):
    """``input @ weight.T + bias`` with a hand-written backward, as in "Extending PyTorch"."""

    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class Linear(nn.Module):
    """A fully connected layer built from ``LinearFunction`` and two Parameters, initialised
    like ``nn.Linear`` (uniform in +-1/sqrt(in_features))."""

    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(ember.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(ember.empty(output_features))
        else:
            self.register_parameter('bias', None)
        bound = 1 / math.sqrt(input_features)
        nn.init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return (f'input_features={self.input_features}, output_features='
                f'{self.output_features}, bias={self.bias is not None}')


class DigitsNet(nn.Module):
    """(N, 1, 8, 8) images -> (N, 10) class scores."""

    def __init__(self, channels=(16, 32), hidden=64, dropout=0.25):
        super().__init__()
        c1, c2 = channels
        self.features = nn.Sequential(
            nn.Conv2d(1, c1, 3, padding=1), nn.ReLU(),
            nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten())
        self.classifier = nn.Sequential(
            Linear(c2 * 4 * 4, hidden), nn.ReLU(), nn.Dropout(dropout), Linear(hidden, 10))

    def forward(self, x):
        return self.classifier(self.features(x))
