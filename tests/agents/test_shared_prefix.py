"""Prefix sharing in the hf padded engine: the tokens and logprobs of one row per sample, less prefill."""

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from forward_logprobs import forward_logprobs, random_tokens  # noqa: E402

from genenv_gym.agents.backends import SamplingParams  # noqa: E402
from genenv_gym.agents.backends.hf import HFBackend  # noqa: E402
from genenv_gym.agents.backends.shared_prefix import (  # noqa: E402
    padded_prefill_positions,
    plan_shared_prefixes,
)
from genenv_gym.agents.tiny_model import build_tiny  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    return build_tiny("qwen2", seed=4)


def both_ways(tiny, prompts, params, max_batch_size=64):
    model, tokenizer = tiny
    plain = HFBackend(model, tokenizer, engine="padded", share_prefixes=False, max_batch_size=max_batch_size)
    shared = HFBackend(model, tokenizer, engine="padded", max_batch_size=max_batch_size)
    return plain, plain.generate(prompts, params), shared, shared.generate(prompts, params)


def assert_same_and_exact(model, plain_out, shared_out, temperature):
    for plain_row, shared_row in zip(plain_out, shared_out, strict=True):
        for p, s in zip(plain_row, shared_row, strict=True):
            assert s.ok and s.token_ids == p.token_ids and s.finish_reason == p.finish_reason
            assert max(abs(a - b) for a, b in zip(p.logprobs, s.logprobs, strict=True)) < 1e-4
            ref = forward_logprobs(model, s.prompt_token_ids, s, temperature)
            assert max(abs(a - b) for a, b in zip(ref, s.logprobs, strict=True)) < 1e-4


@pytest.mark.parametrize("group_size", [1, 8])
def test_samples_of_a_prompt_match_unshared_rows_and_a_full_forward(tiny, group_size):
    """Left-padded mix (4 lengths, two prompts sharing a head), sampled, G = 1 and G = 8."""
    base = random_tokens(60, 0)
    prompts = [base[:40], [*base[:55], 7, 8], random_tokens(30, 1), random_tokens(12, 2)]
    params = SamplingParams(n=group_size, temperature=0.8, max_new_tokens=8, seed=5, ignore_eos=True)
    plain, plain_out, shared, shared_out = both_ways(tiny, prompts, params)
    assert_same_and_exact(tiny[0], plain_out, shared_out, 0.8)
    if group_size == 8:  # each prompt prefilled once instead of 8 times
        assert shared.prefill_positions * 4 < plain.prefill_positions
        assert len({c.token_ids for c in shared_out[0]}) > 1  # the G samples still differ
    else:  # only base[:40] and base[:57] share their head: a smaller saving
        assert shared.prefill_positions < plain.prefill_positions


def test_early_stops_and_split_micro_batches_match(tiny):
    """Rows that end at an end-of-turn id at different steps; groups cut across micro-batches of 6."""
    model, tokenizer = tiny
    prompts = [random_tokens(50, 3), random_tokens(20, 4), random_tokens(35, 5)]
    params = SamplingParams(n=8, temperature=1.0, max_new_tokens=10, seed=9)
    probe = HFBackend(model, tokenizer, engine="padded", share_prefixes=False, max_batch_size=6)
    sampled = [c.token_ids for r in probe.generate(prompts, params.with_(ignore_eos=True)) for c in r]
    # declare the tokens sampled at steps 2 and 5 of two rows ends of turn, as a checkpoint's eos list does
    saved = model.generation_config.eos_token_id
    model.generation_config.eos_token_id = [tokenizer.eos_token_id, sampled[0][2], sampled[9][5]]
    try:
        plain, plain_out, shared, shared_out = both_ways(tiny, prompts, params, max_batch_size=6)
    finally:
        model.generation_config.eos_token_id = saved
    lengths = {len(c.token_ids) for r in shared_out for c in r}
    assert min(lengths) < 10 and {c.finish_reason for r in shared_out for c in r} >= {"stop"}
    assert_same_and_exact(model, plain_out, shared_out, 1.0)
    assert shared.prefill_positions < plain.prefill_positions


def test_later_turns_share_the_task_prompt(tiny):
    """Chats of one task after a turn: the task's prompt in common, replies of different lengths after it."""
    task = random_tokens(80, 6)
    chats = [task + random_tokens(k, 10 + k) for k in (3, 9, 14, 20, 5, 7, 11, 2)]
    params = SamplingParams(temperature=0.7, max_new_tokens=6, seed=2, ignore_eos=True)
    plain, plain_out, shared, shared_out = both_ways(tiny, chats, params)
    assert_same_and_exact(tiny[0], plain_out, shared_out, 0.7)
    assert shared.prefill_positions * 2 < plain.prefill_positions


def test_plan_groups_rows_by_their_longest_useful_prefix():
    a, b, c = random_tokens(100, 7), random_tokens(100, 8), random_tokens(30, 9)
    system = random_tokens(20, 10)
    rows = [a] * 3 + [system + b[:50]] * 2 + [system + b[:60]] + [c]
    plan = plan_shared_prefixes(rows)
    assert plan is not None and len(plan.prefixes) == 3
    by_row = [plan.prefixes[g] for g in plan.row_group]
    assert by_row[:3] == [tuple(a[:99])] * 3  # identical prompts: all but the last token shared
    assert by_row[3:6] == [tuple(system + b[:49])] * 3  # the longest prefix the three have in common
    assert by_row[6] == tuple(c[:29]) and plan.suffixes[6] == (c[29],)
    for row, g, s in zip(rows, plan.row_group, plan.suffixes, strict=True):
        assert list(plan.prefixes[g]) + list(s) == row
    assert plan.prefill_positions < padded_prefill_positions(rows)


def test_plan_is_none_when_nothing_is_shared():
    assert plan_shared_prefixes([random_tokens(30, 11), random_tokens(30, 12), random_tokens(25, 13)]) is None
    assert plan_shared_prefixes([random_tokens(30, 11)]) is None
    assert plan_shared_prefixes([[5], [5]]) is None  # a one-token prompt has nothing to share


def test_plan_finds_common_prefixes_longer_than_a_comparison_block():
    head = random_tokens(700, 14)
    rows = [head[:600] + random_tokens(40, 15), head[:600] + random_tokens(40, 16), [*head, 1], head]
    plan = plan_shared_prefixes(rows)
    # one group of four sharing 600+ tokens saves more than two pairs sharing 600+ and 699
    assert plan is not None and len(plan.prefixes) == 1
    assert len(plan.prefixes[0]) >= 600 and plan.prefixes[0] == tuple(rows[0][: len(plan.prefixes[0])])
    for row, g, s in zip(rows, plan.row_group, plan.suffixes, strict=True):
        assert list(plan.prefixes[g]) + list(s) == row
    pair = plan_shared_prefixes(rows[2:])
    assert pair is not None and pair.prefixes == (tuple(head[:699]),)  # a prompt and its extension
