"""Training steps (issue "Training: optim, lr_scheduler, utils.data"): zero_grad, forward,
backward and an optimizer step, the same model and data in ember and torch."""
import numpy as np

from workloads import workload, _seeded_weights


def _train_step(lib, model, optimizer, x, y):
    loss_fn = lib.nn.CrossEntropyLoss()

    def run():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss
    return run


@workload(target=1.0)
def mlp_train_step(lib):
    """MLP 784-512-512-10 (ReLU), batch 128, CrossEntropyLoss, SGD momentum 0.9: one
    zero_grad/forward/backward/step."""
    nn = lib.nn
    model = _seeded_weights(nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512),
                                          nn.ReLU(), nn.Linear(512, 10)), lib)
    rng = np.random.default_rng(3)
    x = lib.tensor(rng.standard_normal((128, 784), dtype=np.float32))
    y = lib.tensor(rng.integers(0, 10, 128))
    return _train_step(lib, model, lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
                       x, y)


@workload(target=2.0)
def cnn_train_step(lib):
    """Conv(1->16, 3x3) ReLU MaxPool Conv(16->32, 3x3) ReLU MaxPool Linear(32*7*7 -> 10),
    batch 64 of 1x28x28, CrossEntropyLoss, Adam: one zero_grad/forward/backward/step."""
    nn = lib.nn
    model = _seeded_weights(nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10)), lib)
    rng = np.random.default_rng(4)
    x = lib.tensor(rng.standard_normal((64, 1, 28, 28), dtype=np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))
    return _train_step(lib, model, lib.optim.Adam(model.parameters(), lr=1e-3), x, y)
