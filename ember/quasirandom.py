"""``torch.quasirandom``: ``SobolEngine``, low-discrepancy points in the unit cube.

The points come from SciPy's Sobol' generator (``pip install scipy``, the ``scipy`` extra),
whose direction numbers are torch's too: unscrambled sequences equal torch's. Scrambled ones
are Owen-scrambled by SciPy from ``seed``, so they differ from torch's (as ember's random
numbers do).
"""
import warnings

__all__ = ['SobolEngine']


class SobolEngine:
    """Draws Sobol' points of ``dimension`` coordinates in [0, 1), optionally scrambled
    (``scramble``, from ``seed``)."""

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if not 1 <= dimension <= self.MAXDIM:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is "
                             f"[1, {self.MAXDIM}]")
        try:
            from scipy.stats import qmc
        except ImportError:
            raise ImportError("ember.quasirandom.SobolEngine needs SciPy: "
                              "pip install scipy (or ember[scipy])") from None
        self.dimension, self.scramble, self.seed = dimension, scramble, seed
        if scramble and seed is None:
            from ._ops.random import _rng
            seed = int(_rng(None).integers(1 << 62))
        self._make = lambda: qmc.Sobol(dimension, scramble=scramble, seed=seed)
        self.reset()

    def _tensor(self, points, dtype, out):
        from . import _dtype, tensor
        dtype = _dtype.DEFAULT.float if dtype is None else dtype
        result = tensor(points.astype(dtype.np), dtype=dtype)
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw(self, n=1, out=None, dtype=None):
        """The next ``n`` points, an ``(n, dimension)`` tensor (default float dtype)."""
        if n <= 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n - 1}: "
                               f"[{n - 1}, {self.dimension}]")
        with warnings.catch_warnings():  # (SciPy warns of unbalanced draws; torch does not)
            warnings.filterwarnings('ignore', message="The balance properties")
            points = self._engine.random(n)
        self.num_generated += n
        return self._tensor(points, dtype, out)

    def draw_base2(self, m, out=None, dtype=None):
        """The next ``2 ** m`` points, keeping the sequence's balance: the points drawn so
        far and these must number a power of two."""
        total = self.num_generated + 2 ** m
        if total & (total - 1):
            raise ValueError(f"The balance properties of Sobol' points require n to be a power "
                             f"of 2. {self.num_generated} points have been previously "
                             f"generated, then: n={self.num_generated}+2**{m}={total}. If you "
                             "still want to do this, please use 'SobolEngine.draw()' instead.")
        return self.draw(2 ** m, out, dtype)

    def reset(self):
        """Back to the first point."""
        self._engine = self._make()
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skips the next ``n`` points."""
        self._engine.fast_forward(n)
        self.num_generated += n
        return self

    def __repr__(self):
        extra = f', scramble=True, seed={self.seed}' if self.scramble else ''
        return f'SobolEngine(dimension={self.dimension}{extra})'

