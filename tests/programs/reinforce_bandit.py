"""REINFORCE on a 3-armed bandit: a policy network whose logits feed
torch.distributions.Categorical, sampled actions, log_prob, returns normalised with
torch.finfo(torch.float32).eps. Sampling differs between frameworks, so the program prints
what does not depend on it."""
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 3))
optimizer = torch.optim.Adam(policy.parameters(), lr=0.05)
payout = torch.tensor([0.1, 0.2, 0.9])
eps = torch.finfo(torch.float32).eps
state = torch.ones(1, 1)
for episode in range(150):
    dist = Categorical(logits=policy(state))
    actions = dist.sample((16,)).squeeze(-1)
    rewards = (torch.rand(16) < payout[actions]).float()
    returns = (rewards - rewards.mean()) / (rewards.std() + eps)
    loss = -(dist.log_prob(actions.unsqueeze(-1)).squeeze(-1) * returns).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
probs = Categorical(logits=policy(state)).probs
print("probs shape", tuple(probs.shape), "sum to one", bool(torch.isclose(probs.sum(), torch.tensor(1.0))))
print("prefers the best arm", probs.argmax().item() == 2)
