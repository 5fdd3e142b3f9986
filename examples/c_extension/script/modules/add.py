"""MyAddFunction as a Module."""
from ember.nn import Module

from functions.add import MyAddFunction


class MyAddModule(Module):
    """Adds its two inputs with the C extension."""

    def forward(self, input1, input2):
        return MyAddFunction.apply(input1, input2)
