"""PyTorch's test/autograd/test_logging.py, class TestAutogradLogging (which
test/test_autograd.py imports and runs), adapted to run on ember and torch.

The test keeps its name and its assertions; ``torch.`` became ``lib.``, and upstream's
``make_logging_test(autograd=logging.DEBUG)`` (torch._logging.set_logs) is done with the
standard logging module: the ``<lib>.autograd`` logger at DEBUG, its records captured. It
runs twice (``[ember]`` and ``[torch]``).
"""
import contextlib
import logging

from ._upstream import lib_fixture, eq

XFAIL = {}

lib = lib_fixture(XFAIL)


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


@contextlib.contextmanager
def _autograd_debug_records(lib):
    logger = logging.getLogger(f"{lib.__name__}.autograd")
    handler = _Records()
    level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_logging(lib):
    with _autograd_debug_records(lib) as records:
        a = lib.rand(10, requires_grad=True)
        b = a.mul(2).div(3).sum()
        c = b.clone()
        lib.autograd.backward((b, c))

    eq(len(records), 5)
    expected = [
        "CloneBackward0",
        "SumBackward0",
        "DivBackward0",
        "MulBackward0",
        "AccumulateGrad",
    ]

    for i, record in enumerate(records):
        assert expected[i] in record.getMessage()
