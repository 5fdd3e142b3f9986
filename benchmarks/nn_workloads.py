"""nn.functional workloads of issue 14: grid_sample (every interpolation / padding /
align_corners combination on an 8x16x64x64 float32 batch sampled at a 64x64 grid) and a
3-d convolution, forward alone and forward + backward, side by side with torch.
Target: no slower than 2x torch on one thread."""
import itertools

import numpy as np

from workloads import workload

_RNG = np.random.default_rng(0)
_IMAGES = _RNG.standard_normal((8, 16, 64, 64), dtype=np.float32)
# a grid reaching a little past [-1, 1], so the padding modes matter
_GRID = _RNG.uniform(-1.1, 1.1, (8, 64, 64, 2)).astype(np.float32)
_VOLUMES = _RNG.standard_normal((4, 8, 16, 16, 16), dtype=np.float32)
_KERNELS = (_RNG.standard_normal((16, 8, 3, 3, 3)) * 0.1).astype(np.float32)


def _grid_sample(mode, padding, align, backward):
    def setup(lib):
        x = lib.tensor(_IMAGES, requires_grad=backward)
        grid = lib.tensor(_GRID, requires_grad=backward)
        sample = lib.nn.functional.grid_sample
        if not backward:
            return lambda: sample(x, grid, mode, padding, align)
        g = lib.tensor(np.random.default_rng(1).standard_normal((8, 16, 64, 64),
                                                                dtype=np.float32))

        def run():
            x.grad = grid.grad = None
            sample(x, grid, mode, padding, align).backward(g)
            return x.grad
        return run
    what = 'forward + backward' if backward else 'forward'
    setup.__doc__ = (f"grid_sample({mode}, {padding}, align_corners={align}) of 8x16x64x64 "
                     f"at a 64x64 grid, {what}.")
    return setup


for _mode, _padding, _align, _backward in itertools.product(
        ('bilinear', 'nearest'), ('zeros', 'border', 'reflection'), (False, True),
        (False, True)):
    _name = (f"grid_sample_{_mode}_{_padding}{'_aligned' if _align else ''}"
             f"{'_fwd_bwd' if _backward else ''}")
    workload(target=2.0, name=_name)(_grid_sample(_mode, _padding, _align, _backward))


@workload(target=2.0)
def conv3d_fwd(lib):
    """conv3d of a 4x8x16x16x16 float32 batch by 16x8x3x3x3 (padding 1), forward."""
    x, w = lib.tensor(_VOLUMES), lib.tensor(_KERNELS)
    return lambda: lib.nn.functional.conv3d(x, w, padding=1)


@workload(target=2.0)
def conv3d_fwd_bwd(lib):
    """conv3d of a 4x8x16x16x16 float32 leaf by a 16x8x3x3x3 leaf, forward + backward."""
    x = lib.tensor(_VOLUMES, requires_grad=True)
    w = lib.tensor(_KERNELS, requires_grad=True)

    def run():
        x.grad = w.grad = None
        lib.nn.functional.conv3d(x, w, padding=1).sum().backward()
        return w.grad
    return run
