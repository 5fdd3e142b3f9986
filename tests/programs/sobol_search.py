"""A quasi-random hyperparameter search: torch.quasirandom.SobolEngine points (unscrambled,
so every run is the same) mapped to a log-scaled learning rate, a weight decay and a hidden
width, each trial training a small MLP from the same initial seed; the best trial is
retrained. Also draw_base2, fast_forward and reset, which a search that resumes uses."""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.quasirandom import SobolEngine

rng = np.random.default_rng(12)
Xn = rng.uniform(-2, 2, size=(64, 2)).astype(np.float32)
yn = (np.sin(Xn[:, :1] * 1.5) * np.cos(Xn[:, 1:])).astype(np.float32)
X_train, y_train = torch.from_numpy(Xn[:48]), torch.from_numpy(yn[:48])
X_val, y_val = torch.from_numpy(Xn[48:]), torch.from_numpy(yn[48:])

engine = SobolEngine(dimension=3, scramble=False)
first = engine.draw(4)
print("first points", first.dtype, first.tolist())
engine.reset()
pts = engine.draw_base2(3)  # 8 points
print("base2", tuple(pts.shape), [round(v, 4) for v in pts[:, 0].tolist()])
engine.fast_forward(2)
print("after ff", [round(v, 4) for v in engine.draw(1)[0].tolist()], engine.num_generated)

bounds = torch.tensor([[-3.0, -5.0, 4.0], [-1.0, -2.0, 32.0]])
scaled = bounds[0] + pts * (bounds[1] - bounds[0])


def make_model(width, seed):
    g = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(2, width), nn.Tanh(), nn.Linear(width, 1))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(g.normal(0, 0.5, size=p.shape).astype(np.float32)))
    return model


def run_trial(lr, wd, width, epochs=30):
    model = make_model(width, seed=0)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=wd)
    loss_fn = nn.MSELoss()
    for _ in range(epochs):
        for i in range(0, 48, 16):
            opt.zero_grad()
            loss = loss_fn(model(X_train[i:i + 16]), y_train[i:i + 16])
            loss.backward()
            opt.step()
    with torch.no_grad():
        return loss_fn(model(X_val), y_val).item(), model


results = []
for i, (log_lr, log_wd, width) in enumerate(scaled.tolist()):
    lr, wd, width = 10 ** log_lr, 10 ** log_wd, int(round(width))
    val, _ = run_trial(lr, wd, width)
    results.append((val, lr, wd, width))
    print(f"trial {i}: lr={lr:.5f} wd={wd:.2e} width={width:2d} val={val:.5f}")

best = min(results)
print(f"best: lr={best[1]:.5f} width={best[3]} val={best[0]:.5f}")
vals = torch.tensor([r[0] for r in results])
print("ranking", torch.argsort(vals).tolist())
val, model = run_trial(best[1], best[2], best[3], epochs=60)
print(f"retrained val={val:.5f}", "improved", val <= best[0] + 1e-6)

# a scrambled engine: the points depend on the seed's stream, so only their properties print
s = SobolEngine(dimension=2, scramble=True, seed=7).draw(16, dtype=torch.float64)
print("scrambled", s.dtype, tuple(s.shape), bool(((s >= 0) & (s < 1)).all()),
      torch.equal(s, SobolEngine(2, scramble=True, seed=7).draw(16, dtype=torch.float64)))
print("MAXDIM", SobolEngine.MAXDIM, "repr", repr(engine))
