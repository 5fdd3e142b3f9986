"""torch._C's names that extension code reaches for, as plain Python."""
from .overrides import (DisableTorchFunction, DisableTorchFunctionSubclass,  # noqa: F401
                        _disabled_torch_function_impl)
