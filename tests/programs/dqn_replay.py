"""A DQN on a small chain MDP, as in the PyTorch RL tutorial: a namedtuple Transition and a
deque replay memory (sampled with NumPy's generator), an epsilon-greedy policy with a decay,
policy/target networks with a soft update through state_dict(), Q(s, a) gathered with
.gather(1, action), max(1).values of the target on non-final states under torch.no_grad(),
SmoothL1Loss, AdamW(amsgrad=True) and clip_grad_value_; finally the greedy policy."""
import math
from collections import deque, namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

rng = np.random.default_rng(3)
Transition = namedtuple('Transition', ('state', 'action', 'next_state', 'reward'))
N_STATES, N_ACTIONS = 6, 2


class ChainEnv:
    """Move left/right along a chain; the right end pays 1 and ends the episode."""

    def reset(self):
        self.s = 0
        return self.obs()

    def obs(self):
        return torch.nn.functional.one_hot(torch.tensor(self.s), N_STATES).float()

    def step(self, a):
        self.s = max(0, self.s - 1) if a == 0 else self.s + 1
        done = self.s == N_STATES - 1
        return (None if done else self.obs()), (1.0 if done else -0.01), done


class ReplayMemory(object):
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        idx = rng.choice(len(self.memory), batch_size, replace=False)
        return [self.memory[i] for i in idx]

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super(DQN, self).__init__()
        self.layer1 = nn.Linear(n_observations, 32)
        self.layer2 = nn.Linear(32, 32)
        self.layer3 = nn.Linear(32, n_actions)

    def forward(self, x):
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return self.layer3(x)


BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TAU, LR = 16, 0.9, 0.9, 0.05, 100, 0.05, 1e-3
policy_net = DQN(N_STATES, N_ACTIONS)
with torch.no_grad():
    for p in policy_net.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, size=p.shape).astype(np.float32)))
target_net = DQN(N_STATES, N_ACTIONS)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(500)
steps_done = 0


def select_action(state):
    global steps_done
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
    steps_done += 1
    if rng.random() > eps_threshold:
        with torch.no_grad():
            return policy_net(state).max(1).indices.view(1, 1)
    return torch.tensor([[int(rng.integers(N_ACTIONS))]], dtype=torch.long)


def optimize_model():
    if len(memory) < BATCH_SIZE:
        return None
    transitions = memory.sample(BATCH_SIZE)
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss.item()


env = ChainEnv()
for i_episode in range(25):
    state = env.reset().unsqueeze(0)
    losses = []
    for t in range(30):
        action = select_action(state)
        observation, reward, done = env.step(action.item())
        reward = torch.tensor([reward])
        next_state = None if done else observation.unsqueeze(0)
        memory.push(state, action, next_state, reward)
        state = next_state
        loss = optimize_model()
        if loss is not None:
            losses.append(loss)
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        for key in policy_net_state_dict:
            target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
        target_net.load_state_dict(target_net_state_dict)
        if done:
            break
    if i_episode % 5 == 4:
        print(f"episode {i_episode} length {t + 1} mean loss {np.mean(losses) if losses else 0:.5f}")

with torch.no_grad():
    states = torch.eye(N_STATES)
    q = policy_net(states)
print("greedy actions", q.argmax(1).tolist())
print("q-values", [[round(v, 3) for v in row] for row in q[:3].tolist()])
print("memory", len(memory), "steps", steps_done)
