"""Tensors stashed on ctx in forward (pytorch#58509): torch silently loses their gradient in
double backward; ember raises, naming the Function and the attribute."""
import numpy as np
import pytest

import ember
from ember.autograd import Function, gradcheck, gradgradcheck


class Stashes(Function):
    @staticmethod
    def forward(ctx, inp):
        temp = inp * 2
        ctx.temp = temp          # computed from the input, neither returned nor saved
        return temp * 3

    @staticmethod
    def backward(ctx, g):
        return g * 3 * ctx.temp / ctx.temp * 2


class SavesProperly(Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        ctx.scale = np.float64(6.0)   # constants as NumPy/Python values are fine
        return inp * 6

    @staticmethod
    def backward(ctx, g):
        (inp,) = ctx.saved_tensors
        return g * ctx.scale * (inp / inp)


class KeepsInput(Function):
    @staticmethod
    def forward(ctx, inp, mask):
        ctx.inp, ctx.mask = inp, mask   # inputs stashed directly carry their real history
        return inp * inp * mask

    @staticmethod
    def backward(ctx, g):
        return g * 2 * ctx.inp * ctx.mask, None


def _x():
    return ember.tensor(np.linspace(0.5, 1.5, 5), requires_grad=True)


def test_first_order_is_untouched():
    assert gradcheck(Stashes.apply, (_x(),))


@pytest.mark.parametrize('second', ['grad', 'backward', 'gradgradcheck'])
def test_double_backward_through_a_stashed_tensor_raises(second):
    x = _x()
    with pytest.raises(RuntimeError, match=r"Stashes\.backward used ctx\.temp, a tensor that "
                                           r"Stashes\.forward computed but did not return"):
        if second == 'gradgradcheck':
            gradgradcheck(Stashes.apply, (x,))
        else:
            g, = ember.autograd.grad(Stashes.apply(x).sum(), x, create_graph=True)
            if second == 'grad':
                ember.autograd.grad(g.sum(), x)
            else:
                g.sum().backward()


def test_saved_tensors_constants_and_inputs_are_fine():
    x = _x()
    assert gradgradcheck(SavesProperly.apply, (x,))
    mask = ember.tensor([1., 0., 1., 1., 0.], dtype=ember.float64)
    assert gradgradcheck(lambda t: KeepsInput.apply(t, mask), (x,))


def test_the_stash_is_guarded_only_when_backward_builds_a_graph():
    x = _x()
    y = Stashes.apply(x)
    y.sum().backward(retain_graph=True)
    assert not y.grad_fn.temp.requires_grad       # plain backward left ctx as it was
    ember.autograd.grad(y.sum(), x, create_graph=True)
    assert y.grad_fn.temp.requires_grad           # now guarded
    np.testing.assert_array_equal(y.grad_fn.temp._data, x._data * 2)  # same values
