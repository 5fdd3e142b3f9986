"""Curve fitting with torch.optim.LBFGS: a closure that re-evaluates the loss, strong-Wolfe
line search, fitting the parameters of a damped oscillation to noisy samples."""
import numpy as np
import torch

rng = np.random.default_rng(4)
t = torch.linspace(0, 4, 60, dtype=torch.float64)
target = torch.exp(-0.5 * t) * torch.cos(3.0 * t + 0.3) \
    + 0.01 * torch.from_numpy(rng.normal(size=60))
params = torch.tensor([0.4, 2.8, 0.0], dtype=torch.float64, requires_grad=True)
optimizer = torch.optim.LBFGS([params], lr=1, max_iter=50, history_size=10,
                              line_search_fn="strong_wolfe")


def closure():
    optimizer.zero_grad()
    decay, freq, phase = params
    loss = ((torch.exp(-decay * t) * torch.cos(freq * t + phase) - target) ** 2).mean()
    loss.backward()
    return loss


for outer in range(3):
    loss = optimizer.step(closure)
    print(f"outer {outer}: loss {loss.item():.8f}")
print("fitted", [round(v, 4) for v in params.tolist()])
print("function evaluations", optimizer.state[params]['func_evals'])
