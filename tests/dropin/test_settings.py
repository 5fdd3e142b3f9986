"""Global switches (matmul precision, deterministic algorithms) against torch."""
import pytest

from .compare import same


def _reset(t):
    t.use_deterministic_algorithms(False)
    t.set_float32_matmul_precision('highest')


CALLS = [
    lambda t: t.get_float32_matmul_precision(),
    lambda t: (t.set_float32_matmul_precision('medium'), t.get_float32_matmul_precision()),
    lambda t: (t.set_float32_matmul_precision('high'), t.get_float32_matmul_precision()),
    lambda t: t.set_float32_matmul_precision(3),
    lambda t: (t.use_deterministic_algorithms(True), t.are_deterministic_algorithms_enabled(),
               t.is_deterministic_algorithms_warn_only_enabled(),
               t.get_deterministic_debug_mode()),
    lambda t: (t.use_deterministic_algorithms(True, warn_only=True),
               t.is_deterministic_algorithms_warn_only_enabled(),
               t.get_deterministic_debug_mode()),
    lambda t: (t.use_deterministic_algorithms(False, warn_only=True),
               t.is_deterministic_algorithms_warn_only_enabled(),
               t.get_deterministic_debug_mode()),
    lambda t: t.use_deterministic_algorithms(1),
    lambda t: t.use_deterministic_algorithms(True, warn_only=1),
    lambda t: (t.set_deterministic_debug_mode('warn'), t.get_deterministic_debug_mode(),
               t.are_deterministic_algorithms_enabled()),
    lambda t: (t.set_deterministic_debug_mode(2), t.get_deterministic_debug_mode(),
               t.is_deterministic_algorithms_warn_only_enabled()),
    lambda t: (t.set_deterministic_debug_mode('default'), t.get_deterministic_debug_mode()),
    lambda t: t.set_deterministic_debug_mode('x'), lambda t: t.set_deterministic_debug_mode(5),
    lambda t: t.set_deterministic_debug_mode(1.0),
]


@pytest.mark.parametrize('call', CALLS)
def test_settings(call):
    def run(t):
        try:
            return call(t)
        finally:
            _reset(t)
    same(run)


def test_unknown_precision_warns_and_is_ignored():
    # torch's warning ends with the C++ source location, which ember has not: compare the rest
    from .compare import outcome, ember, torch
    e, t = (outcome(lib, lambda m: (m.set_float32_matmul_precision('x'),
                                    m.get_float32_matmul_precision())) for lib in (ember, torch))
    assert e[0] == t[0] and len(e[1]) == len(t[1]) == 1
    assert t[1][0][1].startswith(e[1][0][1]) and e[1][0][0] == t[1][0][0]
