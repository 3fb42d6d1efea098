"""GRPO loss against hand-computed values; KL and clipping at their bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from genenv_gym.train.grpo import group_advantages, grpo_loss, low_var_kl  # noqa: E402


def test_group_advantages_by_hand() -> None:
    adv = group_advantages([1.0, 0.0, 1.0, 1.0, 0.5, 0.5], [0, 0, 0, 0, 1, 1], eps=0.0)
    # group 0: mean 0.75, unbiased std sqrt(0.25) = 0.5
    assert adv[:4].tolist() == pytest.approx([0.5, -1.5, 0.5, 0.5])
    assert adv[4:].tolist() == [0.0, 0.0]  # equal rewards: no signal


def test_grpo_loss_hand_computed() -> None:
    # two sequences, three positions; the first position is a prompt token (mask 0)
    lp = torch.tensor([[0.0, math.log(0.5), math.log(0.25)], [0.0, math.log(0.6), 0.0]])
    old = torch.tensor([[0.0, math.log(0.5), math.log(0.5)], [0.0, math.log(0.4), 0.0]])
    mask = torch.tensor([[0.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
    adv = torch.tensor([1.0, -1.0])
    out = grpo_loss(lp, old, adv, mask, ref_logprobs=None, clip_ratio=0.2, kl_coef=0.0)
    # ratios: 1.0 (A=1) -> -1; 0.5 (A=1): min(0.5, 0.8) = 0.5 -> -0.5;
    # 1.5 (A=-1): min(-1.5, -1.2) = -1.5 -> 1.5
    assert out.loss.item() == pytest.approx((-1.0 - 0.5 + 1.5) / 3)
    assert out.clip_fraction == pytest.approx(2 / 3)


def test_kl_term_hand_computed_and_zero_at_reference() -> None:
    lp = torch.tensor([[math.log(0.5)]])
    ref = torch.tensor([[math.log(0.25)]])
    # k3: exp(ref - lp) - (ref - lp) - 1 = 0.5 + log 2 - 1
    assert low_var_kl(lp, ref).item() == pytest.approx(0.5 + math.log(2) - 1)
    assert low_var_kl(lp, lp).item() == 0.0
    # the estimator is clamped at 10
    assert low_var_kl(torch.tensor([[-30.0]]), torch.tensor([[0.0]])).item() == 10.0
    mask = torch.ones(1, 1)
    out = grpo_loss(lp, lp.detach(), torch.tensor([0.0]), mask, ref, kl_coef=0.1)
    assert out.loss.item() == pytest.approx(0.1 * (0.5 + math.log(2) - 1))


def test_clipping_stops_gradient_beyond_the_bound() -> None:
    old = torch.zeros(1, 1)
    mask = torch.ones(1, 1)
    # ratio 1.5 > 1.2 with a positive advantage: the clipped branch is taken, no gradient
    lp = torch.full((1, 1), math.log(1.5), requires_grad=True)
    grpo_loss(lp, old, torch.tensor([1.0]), mask, kl_coef=0.0).loss.backward()
    assert lp.grad.item() == 0.0
    # inside the bound the gradient is -A * ratio / tokens
    lp = torch.full((1, 1), math.log(1.1), requires_grad=True)
    grpo_loss(lp, old, torch.tensor([1.0]), mask, kl_coef=0.0).loss.backward()
    assert lp.grad.item() == pytest.approx(-1.1)
    # a negative advantage is never clipped from below on the pessimistic side (ratio 0.5 < 0.8)
    lp = torch.full((1, 1), math.log(0.5), requires_grad=True)
    grpo_loss(lp, old, torch.tensor([-1.0]), mask, kl_coef=0.0).loss.backward()
    assert lp.grad.item() == 0.0


def test_denominator_makes_micro_batches_add_up() -> None:
    lp = torch.tensor([[0.1, 0.2], [0.3, -0.1]])
    old = torch.zeros(2, 2)
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    adv = torch.tensor([0.5, -2.0])
    whole = grpo_loss(lp, old, adv, mask, clip_ratio=10.0, kl_coef=0.0).loss
    parts = sum(
        grpo_loss(
            lp[i : i + 1],
            old[i : i + 1],
            adv[i : i + 1],
            mask[i : i + 1],
            clip_ratio=10.0,
            kl_coef=0.0,
            denominator=3.0,
        ).loss
        for i in range(2)
    )
    assert parts.item() == pytest.approx(whole.item())


def test_right_padded_rows_need_no_attention_mask() -> None:
    """The trainer's micro-batches pass no mask: real tokens' logprobs equal the masked forward's."""
    from genenv_gym.agents.tiny_model import build_tiny
    from genenv_gym.train.grpo import token_logprobs

    model, _ = build_tiny("qwen2", seed=1)
    ids = torch.randint(3, 400, (3, 12), generator=torch.Generator().manual_seed(0))
    lengths = torch.tensor([12, 7, 4])
    mask = (torch.arange(12).unsqueeze(0) < lengths.unsqueeze(1)).long()
    ids = ids.masked_fill(mask == 0, 0)
    with torch.no_grad():
        masked = token_logprobs(model, ids, mask, chunk_tokens=5)
        unmasked = token_logprobs(model, ids, None, chunk_tokens=5)
    real = mask.bool()
    assert torch.allclose(masked[real], unmasked[real], atol=1e-5)


def test_fused_logit_reading_gives_the_same_logprobs_and_gradients() -> None:
    """The compiled reading of the logits (used on GPUs) against the eager one, forward and backward.

    On a CPU the compiled graph becomes C++ kernels; their scalar form (no SIMD, a CPU path the trainer never
    takes: ``fused`` is for GPUs) compiles in about half the time of the vectorized one (a fresh CI machine
    has no compile cache) and checks the same graph, decompositions and backward."""
    import torch._inductor.config

    from genenv_gym.train.grpo import chosen_logprobs

    generator = torch.Generator().manual_seed(0)
    with torch._inductor.config.patch({"cpp.vec_isa_ok": False}):
        for shape in ((2, 7, 50), (3, 11, 50)):  # a second shape reuses the dynamic-shape compilation
            logits = torch.randn(*shape, generator=generator, requires_grad=True)
            target = torch.randint(0, 50, shape[:2], generator=generator)
            eager = chosen_logprobs(logits, target)
            (eager_grad,) = torch.autograd.grad((eager * torch.arange(shape[1])).sum(), logits)
            fused = chosen_logprobs(logits, target, fused=True)
            (fused_grad,) = torch.autograd.grad((fused * torch.arange(shape[1])).sum(), logits)
            assert torch.allclose(eager, fused, atol=1e-5)
            assert torch.allclose(eager_grad, fused_grad, atol=1e-5)


@pytest.mark.parametrize("chunk_tokens", [0, 3])
def test_the_update_reads_the_rollout_temperature_so_a_fresh_ratio_is_one(chunk_tokens: int) -> None:
    """The engines report the tempered distribution's logprobs (the "old" policy); the update's must be the
    same distribution's, else every ratio of a run at temperature != 1 is off before any step."""
    from genenv_gym.agents.backends import SamplingParams
    from genenv_gym.agents.backends.hf import HFBackend
    from genenv_gym.agents.tiny_model import build_tiny
    from genenv_gym.train.grpo import token_logprobs

    model, tokenizer = build_tiny("qwen2", seed=2)
    prompt = torch.randint(3, 400, (9,), generator=torch.Generator().manual_seed(1)).tolist()
    params = SamplingParams(n=2, temperature=0.5, max_new_tokens=8, seed=0, ignore_eos=True)
    for completion in HFBackend(model, tokenizer, engine="padded").generate([prompt], params)[0]:
        ids = torch.tensor([prompt + list(completion.token_ids)])
        reply = slice(len(prompt), ids.shape[1])
        with torch.no_grad():
            tempered = token_logprobs(model, ids, None, chunk_tokens, temperature=0.5)[0, reply]
            plain = token_logprobs(model, ids, None, chunk_tokens)[0, reply]
        engine = torch.tensor(completion.logprobs)
        assert torch.allclose(tempered, engine, atol=1e-4)
        assert not torch.allclose(plain, engine, atol=1e-2)


def test_token_weights_scale_each_tokens_policy_gradient() -> None:
    old, mask = torch.zeros(1, 2), torch.ones(1, 2)
    lp = torch.full((1, 2), math.log(1.1), requires_grad=True)
    grpo_loss(
        lp, old, torch.tensor([1.0]), mask, kl_coef=0.0, token_weights=torch.tensor([[2.0, 0.5]])
    ).loss.backward()
    # inside the clip bound: -A * ratio * weight / tokens
    assert lp.grad[0].tolist() == pytest.approx([-1.1 * 2.0 / 2, -1.1 * 0.5 / 2])


def _tis_update(tis_cap: float, engine_shift: float) -> dict[str, float]:
    """One GRPO update of a tiny model on 2 groups x 2 hand-made rows whose rollout logprobs are the model's
    own shifted by ``engine_shift`` (the engine's numerics off by a constant factor)."""
    from genenv_gym.agents.tiny_model import build_tiny
    from genenv_gym.task import Task
    from genenv_gym.train.config import AgentConfig
    from genenv_gym.train.distributed import DistInfo
    from genenv_gym.train.grpo_update import GRPOUpdater
    from genenv_gym.train.master_weights import MasterWeightAdamW
    from genenv_gym.train.rollout import Trajectory

    model, tokenizer = build_tiny("qwen2", seed=3)
    agent = AgentConfig(tis_cap=tis_cap, group_size=2, mini_batch_size=2, micro_batch_size=2, kl_coef=0.0)
    optimizer = MasterWeightAdamW(model.parameters(), lr=1e-3)
    cpu = torch.device("cpu")
    updater = GRPOUpdater(model, optimizer, tokenizer.pad_token_id, cpu, agent, DistInfo())
    generator = torch.Generator().manual_seed(4)
    rows = []
    for group in range(2):
        for sample, (reply, reward) in enumerate([(3, 1.0), (5, 0.0)]):
            ids = torch.randint(3, 400, (6 + reply,), generator=generator).tolist()
            mask = [0] * 6 + [1] * reply
            task = Task(id=f"t{group}", domain="digits", messages=[{"role": "user", "content": "x"}])
            rows.append(Trajectory(task, group, sample, token_ids=ids, mask=mask, rewards=[reward]))
    with torch.no_grad():
        own = updater.policy_logprobs(model, updater.padded_ids(rows))
    for i, t in enumerate(rows):
        t.logprobs = [
            float(v) + engine_shift * m for v, m in zip(own[i, : len(t.token_ids)], t.mask, strict=True)
        ]
    return updater.update(rows, None, np.random.default_rng(0))


def test_truncated_importance_sampling_ratios_against_the_update_and_weights_by_the_capped_gap() -> None:
    plain = _tis_update(0.0, 0.0)
    assert plain["clip_fraction"] == 0.0 and plain["pg_loss"] != 0.0
    # the engine gave every sampled token a third of the update's probability: without the correction every
    # ratio is 3 and the positive-advantage tokens are clipped (no gradient)
    off = _tis_update(0.0, -math.log(3.0))
    assert off["clip_fraction"] > 0.0
    # with it the ratio is taken against the update's own logprobs (1 before the step), and each token's
    # weight is min(3, cap = 2)
    on = _tis_update(2.0, -math.log(3.0))
    assert on["clip_fraction"] == 0.0
    assert on["tis_weight"] == pytest.approx(2.0) and on["tis_capped"] == 1.0
    assert on["pg_loss"] == pytest.approx(2.0 * plain["pg_loss"], rel=1e-5)
    # a gap below the cap is corrected exactly: weight 1.5, nothing capped
    below = _tis_update(2.0, -math.log(1.5))
    assert below["tis_weight"] == pytest.approx(1.5) and below["tis_capped"] == 0.0
    assert below["pg_loss"] == pytest.approx(1.5 * plain["pg_loss"], rel=1e-5)
    assert "tis_weight" not in plain


def test_a_tis_cap_between_0_and_1_is_refused() -> None:
    from genenv_gym.train.config import load_config

    with pytest.raises(ValueError, match=r"agent.tis_cap must be 0 \(off\) or >= 1"):
        load_config(None, ["agent.tis_cap=0.5"])
