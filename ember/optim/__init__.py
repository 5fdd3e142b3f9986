"""ember.optim: optimizers and learning-rate schedulers."""
