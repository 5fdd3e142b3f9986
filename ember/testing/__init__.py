"""ember.testing: ``assert_close`` (with torch's tolerances and failure messages) and
``make_tensor``, so test suites written for torch run on ember."""
from ._comparison import assert_close, assert_allclose  # noqa: F401
from ._creation import make_tensor  # noqa: F401

__all__ = ['assert_close', 'assert_allclose', 'make_tensor']
