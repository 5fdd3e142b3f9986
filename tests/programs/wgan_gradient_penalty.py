"""A WGAN-GP critic step and a custom autograd.Function: the gradient penalty takes
torch.autograd.grad(create_graph=True) of the critic's output at interpolates and
backpropagates through it (double backward); a straight-through clamp is written as a
torch.autograd.Function with ctx.save_for_backward, checked with torch.autograd.gradcheck."""
import numpy as np
import torch
import torch.nn as nn
from torch import autograd


class StraightThroughClamp(autograd.Function):
    @staticmethod
    def forward(ctx, input, low, high):
        ctx.save_for_backward(input)
        ctx.low, ctx.high = low, high
        return input.clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        inside = ((input > ctx.low - 1) & (input < ctx.high + 1)).to(grad_output.dtype)
        return grad_output * inside, None, None


critic = nn.Sequential(nn.Linear(3, 16), nn.Softplus(), nn.Linear(16, 16), nn.Tanh(),
                       nn.Linear(16, 1))
rng = np.random.default_rng(9)
with torch.no_grad():
    for p in critic.parameters():
        p.copy_(torch.as_tensor(rng.normal(0, 0.4, size=tuple(p.shape)), dtype=torch.float32))
optimizer = torch.optim.RMSprop(critic.parameters(), lr=1e-3)


def gradient_penalty(critic, real, fake, alpha):
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interpolates = critic(interpolates)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones_like(d_interpolates),
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


for step in range(6):
    real = torch.from_numpy(rng.normal(1.0, 0.5, size=(16, 3)).astype(np.float32))
    fake = StraightThroughClamp.apply(
        torch.from_numpy(rng.normal(0.0, 1.5, size=(16, 3)).astype(np.float32)), -2.0, 2.0)
    alpha = torch.from_numpy(rng.uniform(size=(16, 1)).astype(np.float32))
    optimizer.zero_grad()
    gp = gradient_penalty(critic, real, fake, alpha)
    loss = critic(fake).mean() - critic(real).mean() + 10 * gp
    loss.backward()
    optimizer.step()
    print(f"step {step}: critic loss {loss.item():.5f} gradient penalty {gp.item():.5f}")

print("gradcheck", autograd.gradcheck(lambda t: StraightThroughClamp.apply(t, -1.0, 1.0) * 1.0,
                                      (torch.linspace(-0.9, 0.9, 5, dtype=torch.double,
                                                      requires_grad=True),)))
y = StraightThroughClamp.apply(torch.tensor([-3.0, 0.5, 2.5], requires_grad=True), -2.0, 2.0)
print("clamped", y.tolist(), "grad_fn", type(y.grad_fn).__name__)
