"""ember.utils.tensorboard: ``SummaryWriter`` logging scalars, histograms and text for
TensorBoard. It writes with the ``tensorboard`` package's own event-file writer and
protocol buffers; without that package, importing this module fails as torch's does
(``ModuleNotFoundError: No module named 'tensorboard'``; ``pip install tensorboard``)."""
import tensorboard  # noqa: F401  (the dependency, checked first, as in torch)

from .writer import SummaryWriter  # noqa: E402,F401

__all__ = ['SummaryWriter']
