"""A dataset for the spawn-context loader test, in a module that imports neither torch nor
pytest, so a spawned worker starts quickly."""
import ember


class Squares:
    """Sample i is ``ember.tensor([i * i])``."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.tensor([i * i])
