"""The extension-ffi example with ember: ``python build_ffi.py && python demo.py``."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))

import ember  # noqa: E402
from ember import nn  # noqa: E402
from modules.add import MyAddModule  # noqa: E402


class MyNetwork(nn.Module):
    """One MyAddModule."""

    def __init__(self):
        super().__init__()
        self.add = MyAddModule()

    def forward(self, input1, input2):
        return self.add(input1, input2)


if __name__ == '__main__':
    model = MyNetwork()
    x = ember.arange(1, 26, dtype=ember.float32).view(5, 5)
    input1, input2 = x, x * 4
    print(model(input1, input2))
    print(input1 + input2)
