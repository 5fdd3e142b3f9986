"""torch.quasirandom.SobolEngine on ember and torch: unscrambled sequences (equal), drawing,
fast-forwarding, resetting, draw_base2's balance rule, dtypes, and the errors; scrambled
sequences differ (SciPy scrambles them) but keep their shape and range."""
import pytest

pytest.importorskip('scipy', reason='ember.quasirandom uses SciPy (the scipy extra)')

from tests.dropin.compare import same, plain, ember  # noqa: E402


@pytest.mark.parametrize('call', [
    lambda lib: plain(lib.quasirandom.SobolEngine(3).draw(8)),
    lambda lib: plain(lib.quasirandom.SobolEngine(2).draw(4, dtype=lib.float64)),
    lambda lib: (lambda e: (plain(e.draw(3)), plain(e.fast_forward(2).draw(1)), e.num_generated,
                            plain(e.reset().draw(2))))(lib.quasirandom.SobolEngine(2)),
    lambda lib: plain(lib.quasirandom.SobolEngine(5).draw_base2(3)),
    lambda lib: (lambda e: (e.draw(3).shape, e.draw_base2(2)))(lib.quasirandom.SobolEngine(2)),
    lambda lib: (lambda e: (e.draw(4).shape, plain(e.draw_base2(2))))(
        lib.quasirandom.SobolEngine(2)),
    lambda lib: lib.quasirandom.SobolEngine(0), lambda lib: lib.quasirandom.SobolEngine(21202),
    lambda lib: lib.quasirandom.SobolEngine(2).draw(0),
    lambda lib: repr(lib.quasirandom.SobolEngine(2)),
    lambda lib: repr(lib.quasirandom.SobolEngine(2, scramble=True, seed=3)),
    lambda lib: (lib.quasirandom.SobolEngine.MAXBIT, lib.quasirandom.SobolEngine.MAXDIM),
    lambda lib: (lambda out: (lib.quasirandom.SobolEngine(2).draw(3, out=out) is out,
                              plain(out)))(lib.empty(0)),
])
def test_sobol(call):
    same(call)


def test_scrambled_points_are_seeded_and_in_the_cube():
    a = ember.quasirandom.SobolEngine(4, scramble=True, seed=5).draw(16)
    b = ember.quasirandom.SobolEngine(4, scramble=True, seed=5).draw(16)
    assert a.shape == (16, 4) and a.dtype == ember.float32
    assert ember.equal(a, b) and bool(((a >= 0) & (a < 1)).all())
    assert not ember.equal(a, ember.quasirandom.SobolEngine(4).draw(16))
