"""A deep equilibrium layer as in the implicit-layers tutorial: the forward pass finds the
fixed point z* = tanh(W z + U x) by Anderson acceleration under torch.no_grad() (batched
least squares with torch.linalg.solve / bmm), re-attaches one step of f to the graph, and a
hook registered on z (tensor.register_hook) solves the backward fixed point with
torch.autograd.grad; the same gradient from a custom torch.autograd.Function that solves the
implicit-function-theorem linear system directly with the Jacobian, checked with gradcheck."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(17)
torch.set_default_dtype(torch.float64)


def anderson(f, x0, m=5, lam=1e-4, max_iter=50, tol=1e-10, beta=1.0):
    bsz, d = x0.shape
    X = torch.zeros(bsz, m, d, dtype=x0.dtype)
    Fx = torch.zeros(bsz, m, d, dtype=x0.dtype)
    X[:, 0], Fx[:, 0] = x0, f(x0)
    X[:, 1], Fx[:, 1] = Fx[:, 0], f(Fx[:, 0])
    H = torch.zeros(bsz, m + 1, m + 1, dtype=x0.dtype)
    H[:, 0, 1:] = H[:, 1:, 0] = 1
    y = torch.zeros(bsz, m + 1, 1, dtype=x0.dtype)
    y[:, 0] = 1
    res = []
    for k in range(2, max_iter):
        n = min(k, m)
        G = Fx[:, :n] - X[:, :n]
        H[:, 1:n + 1, 1:n + 1] = torch.bmm(G, G.transpose(1, 2)) + lam * torch.eye(n, dtype=x0.dtype)[None]
        alpha = torch.linalg.solve(H[:, :n + 1, :n + 1], y[:, :n + 1])[:, 1:n + 1, 0]
        X[:, k % m] = beta * (alpha[:, None] @ Fx[:, :n])[:, 0] + (1 - beta) * (alpha[:, None] @ X[:, :n])[:, 0]
        Fx[:, k % m] = f(X[:, k % m])
        res.append((Fx[:, k % m] - X[:, k % m]).norm().item() / (1e-5 + Fx[:, k % m].norm().item()))
        if res[-1] < tol:
            break
    return X[:, k % m], res


class TanhFixedPoint(nn.Module):
    def __init__(self, d_in, d):
        super().__init__()
        self.linear = nn.Linear(d, d, bias=False)
        self.inp = nn.Linear(d_in, d)

    def forward(self, z, x):
        return torch.tanh(self.linear(z) + self.inp(x))


class DEQFixedPoint(nn.Module):
    def __init__(self, f, solver, **kwargs):
        super().__init__()
        self.f, self.solver, self.kwargs = f, solver, kwargs

    def forward(self, x):
        with torch.no_grad():
            z, self.forward_res = self.solver(lambda z: self.f(z, x), torch.zeros(x.shape[0], self.f.linear.in_features), **self.kwargs)
        z = self.f(z, x)
        z0 = z.clone().detach().requires_grad_()
        f0 = self.f(z0, x)

        def backward_hook(grad):
            g, self.backward_res = self.solver(
                lambda y: torch.autograd.grad(f0, z0, y, retain_graph=True)[0] + grad, grad, **self.kwargs)
            return g

        if z.requires_grad:
            z.register_hook(backward_hook)
        return z


class ImplicitTanh(torch.autograd.Function):
    """z = tanh(W z + b), differentiated by the implicit function theorem."""

    @staticmethod
    def forward(ctx, W, b):
        z = torch.zeros_like(b)
        for _ in range(200):
            z = torch.tanh(z @ W.T + b)
        ctx.save_for_backward(W, z)
        return z

    @staticmethod
    def backward(ctx, grad_z):
        W, z = ctx.saved_tensors
        d = 1 - z ** 2                                    # tanh'
        eye = torch.eye(W.shape[0], dtype=W.dtype)
        # dz = D (W dz + dW z + db)  =>  (I - D W) dz = D (...)
        J = eye[None] - d[:, :, None] * W[None]           # batch, n, n
        u = torch.linalg.solve(J.transpose(1, 2), grad_z.unsqueeze(-1)).squeeze(-1)
        g = u * d
        return g.T @ z, g


d_in, d = 3, 5
f = TanhFixedPoint(d_in, d)
with torch.no_grad():
    f.linear.weight.copy_(torch.from_numpy(rng.normal(0, 0.3, size=(d, d))))
    f.inp.weight.copy_(torch.from_numpy(rng.normal(0, 1.0, size=(d, d_in))))
    f.inp.bias.copy_(torch.from_numpy(rng.normal(0, 0.1, size=d)))
deq = DEQFixedPoint(f, anderson, tol=1e-10, max_iter=40)
x = torch.from_numpy(rng.normal(size=(4, d_in)))
z = deq(x)
print("forward iters", len(deq.forward_res), "residual < 1e-6", deq.forward_res[-1] < 1e-6)
print("fixed point", torch.allclose(z, f(z, x), atol=1e-8))
target = torch.from_numpy(rng.normal(size=(4, d)))
loss = F.mse_loss(z, target)
loss.backward()
print("backward iters <= 40", len(deq.backward_res) <= 40, "loss", round(loss.item(), 6))
g_hook = f.linear.weight.grad.clone()

# the same gradient through the custom Function (b = U x + c precomputed)
W = f.linear.weight.detach().clone().requires_grad_()
b = f.inp(x).detach().requires_grad_()
z2 = ImplicitTanh.apply(W, b)
F.mse_loss(z2, target).backward()
print("same z", torch.allclose(z2, z, atol=1e-8), "same dW", torch.allclose(W.grad, g_hook, atol=1e-6))
print("dW row", [round(v, 6) for v in W.grad[0].tolist()])
print("gradcheck", torch.autograd.gradcheck(ImplicitTanh.apply, (W.detach().requires_grad_(), b[:2].detach().requires_grad_()), eps=1e-6, atol=1e-5))

# train the DEQ for a few steps
opt = torch.optim.Adam(f.parameters(), lr=0.01)
for step in range(20):
    z = deq(x)
    loss = F.mse_loss(z, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("trained loss", round(loss.item(), 5), "spectral norm", round(torch.linalg.matrix_norm(f.linear.weight, ord=2).item(), 4))
