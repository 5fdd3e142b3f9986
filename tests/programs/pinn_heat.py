"""A physics-informed neural network for u'' = -pi^2 sin(pi x) on [0, 1] with u(0)=u(1)=0 and
for the 1-D heat equation: derivatives of the network output with torch.autograd.grad
(grad_outputs=torch.ones_like, create_graph=True for the second derivative, then backward
through it), collocation points that require grad, Softplus/Tanh MLPs, Adam then LBFGS, and
checks with torch.autograd.functional (jacobian, hessian, hvp, vjp, jvp)."""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vjp

rng = np.random.default_rng(1)
torch.set_default_dtype(torch.float64)


def mlp(sizes, act=nn.Tanh):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(act())
    net = nn.Sequential(*layers)
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.7, size=p.shape)))
    return net


def derivative(y, x, order=1):
    for _ in range(order):
        y = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0]
    return y


net = mlp([1, 16, 16, 1])
x_col = torch.linspace(0, 1, 32).unsqueeze(1).requires_grad_(True)
x_bc = torch.tensor([[0.0], [1.0]])
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for it in range(200):
    u = net(x_col)
    u_xx = derivative(u, x_col, 2)
    residual = u_xx + math.pi ** 2 * torch.sin(math.pi * x_col)
    loss = residual.pow(2).mean() + 10 * net(x_bc).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 50 == 0:
        print(f"adam {it} loss {loss.item():.6f}")

lbfgs = torch.optim.LBFGS(net.parameters(), lr=1.0, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    u = net(x_col)
    res = derivative(u, x_col, 2) + math.pi ** 2 * torch.sin(math.pi * x_col)
    loss = res.pow(2).mean() + 10 * net(x_bc).pow(2).mean()
    loss.backward()
    return loss


lbfgs.step(closure)
with torch.no_grad():
    x_test = torch.linspace(0, 1, 11).unsqueeze(1)
    err = (net(x_test) - torch.sin(math.pi * x_test)).abs().max()
print(f"lbfgs loss {closure().item():.3e} max error {err.item():.3e}")

# heat equation u_t = k u_xx with u(x, 0) = sin(pi x)
k = 0.1
heat = mlp([2, 16, 16, 1], act=nn.Softplus)
xt = torch.from_numpy(rng.uniform(0, 1, size=(64, 2))).requires_grad_()
x0 = torch.from_numpy(rng.uniform(0, 1, size=(16, 1)))
opt = torch.optim.Adam(heat.parameters(), lr=0.01)
for it in range(100):
    u = heat(xt)
    grads = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]
    u_x, u_t = grads[:, 0:1], grads[:, 1:2]
    u_xx = torch.autograd.grad(u_x, xt, torch.ones_like(u_x), create_graph=True)[0][:, 0:1]
    pde = (u_t - k * u_xx).pow(2).mean()
    ic = (heat(torch.cat([x0, torch.zeros_like(x0)], 1)) - torch.sin(math.pi * x0)).pow(2).mean()
    bc = heat(torch.tensor([[0.0, 0.5], [1.0, 0.5]])).pow(2).mean()
    loss = pde + ic + bc
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"heat loss {loss.item():.5f} pde {pde.item():.5f}")

# torch.autograd.functional on a closed-form function
def f(x):
    return torch.stack([x[0] ** 2 * x[1], torch.sin(x[1]) + x[0]])


def g(x):
    return (x ** 3).sum() + x[0] * x[1]


p = torch.tensor([1.0, 2.0])
print("jacobian", [[round(v, 5) for v in r] for r in jacobian(f, p).tolist()])
print("hessian", hessian(g, p).tolist())
val, hv = hvp(g, p, torch.tensor([1.0, 0.0]))
print("hvp", round(val.item(), 4), hv.tolist())
_, vj = vjp(f, p, torch.tensor([1.0, 1.0]))
_, jv = jvp(f, p, torch.tensor([0.0, 1.0]))
print("vjp", [round(v, 5) for v in vj.tolist()], "jvp", [round(v, 5) for v in jv.tolist()])
jac_net = jacobian(lambda z: net(z).squeeze(-1), torch.tensor([[0.25], [0.5]]))
print("net jacobian", tuple(jac_net.shape), jac_net.dtype)
print("double grad", torch.autograd.grad(torch.autograd.grad(g(p.requires_grad_()), p, create_graph=True)[0].sum(), p)[0].tolist())
