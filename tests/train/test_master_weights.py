"""MasterWeightAdamW: small steps on a bfloat16 model accumulate; float32 models step exactly as AdamW."""

from __future__ import annotations

import copy

import pytest
import torch

from genenv_gym.train.master_weights import MasterWeightAdamW


def _model(dtype: torch.dtype, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4)).to(dtype)


def _steps(model: torch.nn.Module, optimizer: torch.optim.Optimizer, n: int, first: int = 0) -> None:
    dtype = next(model.parameters()).dtype
    for k in range(first, first + n):
        g = torch.Generator().manual_seed(k)
        x, y = torch.randn(8, 16, generator=g).to(dtype), torch.randn(8, 4, generator=g).to(dtype)
        optimizer.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(model(x).float(), y.float()).backward()
        optimizer.step()


def _weights(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().float().clone() for p in model.parameters()]


def test_small_steps_on_a_bfloat16_model_accumulate_where_plain_adamw_loses_them() -> None:
    start = _model(torch.float32).to(torch.bfloat16)
    reference, plain, master = copy.deepcopy(start).float(), copy.deepcopy(start), copy.deepcopy(start)
    lr, n = 1e-5, 40
    _steps(reference, torch.optim.AdamW(reference.parameters(), lr=lr), n)
    _steps(plain, torch.optim.AdamW(plain.parameters(), lr=lr), n)
    optimizer = MasterWeightAdamW(master.parameters(), lr=lr)
    _steps(master, optimizer, n)
    initial = _weights(start)

    def displacement(weights: list[torch.Tensor]) -> torch.Tensor:
        return torch.cat([(w.float() - w0).flatten() for w, w0 in zip(weights, initial, strict=True)])

    target = displacement(_weights(reference))
    lost = float((displacement(_weights(plain)) - target).norm() / target.norm())
    kept = float((displacement(optimizer.param_groups[0]["params"]) - target).norm() / target.norm())
    assert lost > 0.5  # plain AdamW on bfloat16 weights: most of the fp32 run's movement rounded away
    assert kept < 0.05  # the float32 masters follow the fp32 run
    moved = float((displacement(_weights(master)) != 0).float().mean())
    assert moved > 3 * float((displacement(_weights(plain)) != 0).float().mean())


def test_a_float32_model_steps_exactly_as_adamw() -> None:
    a, b = _model(torch.float32), _model(torch.float32)
    _steps(a, torch.optim.AdamW(a.parameters(), lr=1e-3, weight_decay=0.05), 5)
    optimizer = MasterWeightAdamW(b.parameters(), lr=1e-3, weight_decay=0.05)
    _steps(b, optimizer, 5)
    assert all(torch.equal(x, y) for x, y in zip(_weights(a), _weights(b), strict=True))
    assert "master_weights" not in optimizer.state_dict()


def test_the_model_holds_its_masters_rounded_and_zero_grad_clears_its_gradients() -> None:
    model = _model(torch.bfloat16)
    optimizer = MasterWeightAdamW(model.parameters(), lr=1e-3)
    _steps(model, optimizer, 3)
    masters = optimizer.param_groups[0]["params"]
    assert all(m.dtype == torch.float32 for m in masters)
    assert all(torch.equal(p, m.to(torch.bfloat16)) for p, m in zip(model.parameters(), masters, strict=True))
    model(torch.ones(2, 16, dtype=torch.bfloat16)).sum().backward()
    optimizer.zero_grad(set_to_none=True)
    assert all(p.grad is None for p in model.parameters())


def test_a_weight_changed_by_another_optimizer_is_taken_from_the_model() -> None:
    model = _model(torch.bfloat16)
    optimizer = MasterWeightAdamW(model.parameters(), lr=1e-3)
    _steps(model, optimizer, 2)
    _steps(model, MasterWeightAdamW(model.parameters(), lr=1e-1), 1, first=50)  # a warm start, say
    changed = _weights(model)
    optimizer.zero_grad(set_to_none=True)
    optimizer.step()  # no gradients: AdamW moves nothing, the masters take the model's values
    assert all(torch.equal(w, c) for w, c in zip(_weights(model), changed, strict=True))
    masters = optimizer.param_groups[0]["params"]
    assert all(torch.equal(m, c) for m, c in zip(masters, changed, strict=True))


def test_a_resumed_optimizer_continues_with_the_same_float32_weights() -> None:
    whole = _model(torch.bfloat16)
    whole_opt = MasterWeightAdamW(whole.parameters(), lr=1e-5)
    _steps(whole, whole_opt, 10)

    first = _model(torch.bfloat16)
    first_opt = MasterWeightAdamW(first.parameters(), lr=1e-5)
    _steps(first, first_opt, 6)
    saved_model, saved_opt = copy.deepcopy(first.state_dict()), copy.deepcopy(first_opt.state_dict())
    resumed = _model(torch.bfloat16, seed=1)
    resumed.load_state_dict(saved_model)
    resumed_opt = MasterWeightAdamW(resumed.parameters(), lr=1e-5)
    resumed_opt.load_state_dict(saved_opt)
    _steps(resumed, resumed_opt, 4, first=6)
    assert all(torch.equal(x, y) for x, y in zip(_weights(whole), _weights(resumed), strict=True))
    for x, y in zip(whole_opt.param_groups[0]["params"], resumed_opt.param_groups[0]["params"], strict=True):
        assert torch.equal(x, y)


def test_masters_saved_for_another_model_are_refused() -> None:
    saved = MasterWeightAdamW(_model(torch.bfloat16).parameters(), lr=1e-3).state_dict()
    saved["master_weights"] = saved["master_weights"][:-1]
    with pytest.raises(ValueError, match="another dtype or shape"):
        MasterWeightAdamW(_model(torch.bfloat16).parameters(), lr=1e-3).load_state_dict(saved)
