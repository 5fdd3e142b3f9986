"""An MLP regressor: TensorDataset and DataLoader batches, Adam, MSELoss, a validation pass
under torch.no_grad(), best-model checkpointing with torch.save / torch.load of the
state_dict into a buffer, and an evaluation of the restored model."""
import copy
import io

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(42)
X = rng.uniform(-2, 2, size=(96, 3)).astype(np.float32)
y = (np.sin(X[:, :1]) + 0.5 * X[:, 1:2] ** 2 - X[:, 2:3]).astype(np.float32)
X_train, y_train = torch.from_numpy(X[:64]), torch.from_numpy(y[:64])
X_val, y_val = torch.from_numpy(X[64:]), torch.from_numpy(y[64:])

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=16, shuffle=False)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=32)

model = nn.Sequential(
    nn.Linear(3, 32),
    nn.Tanh(),
    nn.Linear(32, 32),
    nn.ReLU(),
    nn.Linear(32, 1),
)
state = model.state_dict()
for k in state:
    state[k] = torch.tensor(rng.normal(0, 0.3, size=tuple(state[k].shape)), dtype=torch.float32)
model.load_state_dict(state)

loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
best_loss, best_state = float('inf'), None

for epoch in range(8):
    model.train()
    running = 0.0
    for xb, yb in train_loader:
        pred = model(xb)
        loss = loss_fn(pred, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item() * xb.size(0)
    model.eval()
    with torch.no_grad():
        val_loss = sum(loss_fn(model(xb), yb).item() * len(xb) for xb, yb in val_loader)
    val_loss /= len(val_loader.dataset)
    if val_loss < best_loss:
        best_loss = val_loss
        best_state = copy.deepcopy(model.state_dict())
    print(f"Epoch {epoch + 1:02d} | train {running / len(train_loader.dataset):.5f} | "
          f"val {val_loss:.5f}")

buffer = io.BytesIO()
torch.save(best_state, buffer)
buffer.seek(0)
restored = nn.Sequential(nn.Linear(3, 32), nn.Tanh(), nn.Linear(32, 32), nn.ReLU(),
                         nn.Linear(32, 1))
restored.load_state_dict(torch.load(buffer))
restored.eval()
with torch.no_grad():
    print(f"best val {best_loss:.5f} restored val {loss_fn(restored(X_val), y_val).item():.5f}")
    print("first predictions", [round(v, 4) for v in restored(X_val[:4]).squeeze(1).tolist()])
