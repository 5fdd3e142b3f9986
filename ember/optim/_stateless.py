"""``swap_in_optimizer_params_and_state``: run an optimizer, for the length of a ``with``
block, on other parameter tensors and another state (in ``state_dict`` form), leaving the
live optimizer as it was afterwards."""
import contextlib
from collections import defaultdict

from .._tensor import Tensor

__all__ = ['swap_in_optimizer_params_and_state']

_NAME = 'swap_in_optimizer_params_and_state'


def _check_state(state):
    """The ``'state'`` entry: per-parameter dicts keyed by packed ids."""
    if not isinstance(state, dict):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping "
                           "packed parameter ids to per-param state dicts, got "
                           f"{type(state).__name__}.")
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by "
                           "packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be "
                           "dictionaries.")


def _check_group(idx, live, group):
    """A swap-in group: a dict with the live group's keys and as many packed ids."""
    if not isinstance(group, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = group.get('params')
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style "
                           "param_groups[*]['params'] entries keyed by packed parameter ids.")
    if len(live['params']) != len(ids):
        raise RuntimeError(f"swapin_optim_state param group {idx} has a different number of "
                           "params than the live optimizer param group.")
    only_new = [k for k in group if k not in live]
    only_live = [k for k in live if k not in group]
    if only_new or only_live:
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param group keys "
                           "to exactly match the live optimizer group keys for group "
                           f"{idx}. Keys only in swap-in: {only_new}. Keys only in live: "
                           f"{only_live}.")
    return ids


def _swap_plan(optimizer, parameters, optim_state):
    """Checks the arguments; returns the swap-in state and, per group, (live group,
    swap-in group, its parameters)."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state, groups = optim_state.get('state'), optim_state.get('param_groups')
    _check_state(state)
    if not isinstance(groups, list):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['param_groups'] to be a list "
                           f"of param-group dicts, got {type(groups).__name__}.")
    if len(groups) != len(optimizer.param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups "
                           "than the live optimizer.")
    # The parameters are matched to the groups by order, as state_dict numbers them.
    flat = list(parameters.values())
    plan, seen, offset = [], set(), 0
    for idx, (live, group) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _check_group(idx, live, group)
        seen.update(ids)
        if offset + len(ids) > len(flat):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match "
                               "optimizer.param_groups ordering.")
        plan.append((live, group, flat[offset:offset + len(ids)]))
        offset += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be keyed only by "
                           f"packed parameter ids from param_groups[*]['params']; got extra "
                           f"keys {extra!r}.")
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Within the block, ``optimizer`` (whose state must exist already) works on the
    tensors of ``swapin_parameters`` (a dict, in the order of the optimizer's parameters)
    with the state and group options of ``swapin_optim_state`` (a ``state_dict()``);
    in-place changes of those state tensors reach the caller's dict, everything else is
    undone on exit."""
    state, plan = _swap_plan(optimizer, swapin_parameters, swapin_optim_state)
    live_state = optimizer.state
    # Shallow copies: the groups' own ``params`` lists come back as the same objects.
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for live, group, params in plan:
            live.update({k: v for k, v in group.items() if k != 'params'})
            live['params'] = params
            for p, i in zip(params, group['params']):
                # a copy of the per-parameter dict: new entries stay inside the block,
                # in-place changes of its tensors do not
                swapped[p] = dict(state.get(i, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = live_state
