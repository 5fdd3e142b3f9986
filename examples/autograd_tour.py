"""A short tour of ember's autograd: a least-squares fit, gradients of gradients, hooks.

Run: python examples/autograd_tour.py
"""
import ember as torch

# A tiny least-squares fit, y = 3x + 2, with plain autograd and a hand-written SGD step.
torch.manual_seed(0)
x = torch.linspace(-1, 1, 64).unsqueeze(1)
y = 3 * x + 2 + 0.05 * torch.randn(64, 1)

w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(200):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    w.grad = None
    b.grad = None
print(f"fit: w={w.item():.3f} b={b.item():.3f} loss={loss.item():.5f}")
print("loss carries its history:", loss.grad_fn)

# Gradients of gradients: d2/dx2 of x**3 is 6x.
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(dx,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
(d2x,) = torch.autograd.grad(dx.sum(), x)
print("first derivative 3x^2:", dx)
print("second derivative 6x: ", d2x)

# Hooks see (and may change) gradients as they flow.
h = x.register_hook(lambda g: g * 10)
(x * x).sum().backward()
h.remove()
print("hooked grad (2x * 10):", x.grad)
