"""The simulator's RWR weighted-SFT loss by hand, and the KL cap of one update."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from genenv_gym.curriculum import CurriculumConfig  # noqa: E402
from genenv_gym.train.rwr_sft import make_sft_batch, rwr_sft_loss, rwr_sft_step  # noqa: E402


def test_weighted_nll_by_hand() -> None:
    lp = torch.tensor([[0.0, -1.0, -2.0], [0.0, -3.0, 0.0]])
    mask = torch.tensor([[0.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
    cfg = CurriculumConfig()
    w = torch.tensor([cfg.rwr_weight(0.5), cfg.rwr_weight(0.6)])  # e and exp(exp(-0.2))
    expected = (w[0] * (1 + 2) + w[1] * 3) / (2 * w[0] + w[1])
    assert rwr_sft_loss(lp, mask, w).item() == pytest.approx(expected.item())
    assert w[0].item() == pytest.approx(math.e)


def test_out_of_band_weights_give_zero_loss_and_kl_term() -> None:
    lp = torch.tensor([[-1.0, -2.0]])
    mask = torch.ones(1, 2)
    assert rwr_sft_loss(lp, mask, torch.tensor([0.0])).item() == 0.0
    ref = torch.tensor([[-1.0, -1.0]])
    # k3 at the second token: exp(1) - 1 - 1; token mean over 2 tokens, times kl_coef 0.5
    loss = rwr_sft_loss(lp, mask, torch.tensor([1.0]), ref, kl_coef=0.5)
    assert loss.item() == pytest.approx(1.5 + 0.5 * (math.e - 2) / 2)


def _tiny_lm() -> torch.nn.Module:
    from micro_model import micro_qwen2

    torch.manual_seed(0)
    return micro_qwen2(max_position_embeddings=64).eval()


def test_kl_cap_limits_one_update() -> None:
    model = _tiny_lm()
    batch = make_sft_batch([([1, 2, 3], [4, 5, 6])] * 2, [1.0, 1.0], pad_id=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=50.0)
    stats = rwr_sft_step(model, optimizer, batch, max_kl=1e-3, grad_clip=100.0)
    assert stats["kl"] <= 1e-3
    assert stats["step_scale"] < 1.0  # the huge step was shrunk
    # an uncapped small step keeps its full size and lowers the loss
    model = _tiny_lm()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    stats = rwr_sft_step(model, optimizer, batch, max_kl=10.0)
    assert stats["step_scale"] == 1.0 and stats["kl"] > 0


def test_all_zero_weights_leave_the_model_unchanged() -> None:
    model = _tiny_lm()
    before = [p.clone() for p in model.parameters()]
    batch = make_sft_batch([([1, 2], [3])], [0.0], pad_id=0)
    stats = rwr_sft_step(model, torch.optim.SGD(model.parameters(), lr=1.0), batch)
    assert stats["step_scale"] == 0.0
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
