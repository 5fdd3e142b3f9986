"""Nodes whose backward reruns a composition of ember ops (``_recompute``: grid sampling, a
convolution's second derivative...) give the partial derivative along each input, also when
their inputs share history (a grid computed from the input, an output gradient that depends
on the input): against torch, to second order."""
import numpy as np

from ..oracle.oracle import arr, check


def test_grid_from_the_input_to_second_order():
    base = arr(1, 3, 3, 2, low=-1, high=1, seed=1)

    def f(lib, x):
        grid = lib.tensor(base) + x.sum() * 0.01
        return lib.nn.functional.grid_sample(x, grid, align_corners=False) ** 2
    check(f, arr(1, 1, 4, 4, seed=0), double=True)


def test_convolution_gradient_through_its_output_to_second_order():
    """The output gradient reaching the convolution depends on its input (through tanh)."""
    def f(lib, x, w):
        return lib.nn.functional.conv2d(x, w).tanh()
    check(f, arr(1, 2, 5, 5, seed=3), arr(3, 2, 3, 3, seed=4), double=True)
    check(f, arr(1, 2, 5, 5, seed=3).astype(np.float32),
          arr(3, 2, 3, 3, seed=4).astype(np.float32), double=True)
