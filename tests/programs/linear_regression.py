"""Linear regression three ways, as tutorials write it: gradient descent by hand on tensors
that require grad (updates under torch.no_grad, grad.zero_()), nn.Linear with optim.SGD,
and the closed form with torch.linalg."""
import numpy as np
import torch

rng = np.random.default_rng(3)
x_np = rng.normal(size=(50, 3))
true_w = np.array([[2.0], [-3.4], [1.5]])
y_np = x_np @ true_w + 4.2 + 0.01 * rng.normal(size=(50, 1))
X = torch.from_numpy(x_np).float()
y = torch.from_numpy(y_np).float()

w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
for epoch in range(30):
    y_hat = X @ w + b
    loss = ((y_hat - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if epoch % 10 == 9:
        print(f"manual epoch {epoch + 1}, loss {loss.item():.6f}")
print("manual w", [round(v, 4) for v in w.detach().flatten().tolist()], "b", round(b.item(), 4))

model = torch.nn.Linear(3, 1)
torch.nn.init.zeros_(model.weight)
torch.nn.init.constant_(model.bias, 0.5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
loss_fn = torch.nn.MSELoss(reduction='mean')
for epoch in range(40):
    optimizer.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
print(f"nn.Linear loss {loss.item():.6f}")
print("nn.Linear weight", [round(v, 4) for v in model.weight.data.flatten().tolist()])

A = torch.cat([X, torch.ones(50, 1)], dim=1)
solution = torch.linalg.lstsq(A, y).solution
normal = torch.linalg.solve(A.T @ A, A.T @ y)
print("lstsq", [round(v, 3) for v in solution.flatten().tolist()])
print("normal equations agree", torch.allclose(solution, normal, atol=1e-3))
