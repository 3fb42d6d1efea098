"""The disjoint ladder (domain ``ladder-disjoint``, the fifth efficacy design's family): every step its own
8 symbols, the exhaustive 64-task held-out set, the warm start at chance 1/8 on the secret steps, every symbol
one token of the efficacy learner's tokenizer, and the warm start's stop loss above the floor it can reach."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.ladder.domain import DISJOINT_POOL, LadderDomain, disjoint_alphabets
from genenv_gym.registry.registration import make_domain

CONFIG = "configs/efficacy_v5.yaml"
SEED_1 = make_domain("ladder-disjoint", seed=1)


def test_every_step_writes_symbols_of_its_own_alphabet() -> None:
    domain = make_domain("ladder-disjoint", seed=4)
    alphabets = domain.alphabets
    assert len(alphabets) == 9 and all(len(a) == 8 for a in alphabets)
    assert sorted("".join(alphabets)) == sorted(DISJOINT_POOL[:72])  # a partition: no symbol at two steps
    assert alphabets == make_domain("ladder-disjoint", seed=4).alphabets != disjoint_alphabets(8, 8, 5)
    tasks = domain.load_tasks()
    assert len(tasks) == 64
    assert {(t.level, t.messages[0]["content"][-1]) for t in tasks} == {
        (level, s) for level in range(8) for s in alphabets[0]
    }
    for task in tasks:
        answer = domain.oracle_action(task)
        assert all(item[1] in alphabets[k] for k, item in enumerate(answer.split(), start=1))
        assert domain.validate(task) == [] and domain.verify(task, answer).success
    for k in range(1, 9):  # each step maps the 8 symbols before it one-to-one onto its own 8
        assert {domain.chain(s, k)[-1] for s in alphabets[0]} == set(alphabets[k])
    # a symbol of another step's alphabet is not a well-formed step
    task = domain.make_task(alphabets[0][0], 1, "t")
    first = domain.oracle_action(task).split()[0]
    assert domain.verify(task, f"{first} 2{alphabets[1][0]}").error_type == "wrong_format"
    assert LadderDomain(seed=4).alphabets == ("ABCD",) * 9  # the shared ladder is unchanged
    with pytest.raises(ValueError, match="fewer symbols"):
        LadderDomain(num_symbols=9, disjoint=True)


def test_the_warm_start_is_at_chance_one_eighth_on_every_secret_step() -> None:
    domain = make_domain("ladder-disjoint", seed=2)
    task = domain.make_task(domain.symbols[3], 7, "t")
    gold = domain.oracle_action(task).split()
    rng = np.random.default_rng(0)
    replies = [domain.warmstart_action(task, rng).split() for _ in range(800)]
    assert all(r[:2] == gold[:2] and [s[0] for s in r] == [s[0] for s in gold] for r in replies)
    for k in range(2, 8):
        alphabet = domain.alphabets[k + 1]
        counts = np.bincount([alphabet.index(r[k][1]) for r in replies], minlength=8) / len(replies)
        assert np.abs(counts - 1 / 8).max() < 0.05, (k, counts)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40), st.integers(0, 7), st.integers(0, 7))
def test_any_text_is_graded_without_raising_and_only_the_answer_passes(
    text: str, level: int, start: int
) -> None:
    domain = SEED_1
    task = domain.make_task(domain.symbols[start], level, "t")
    verdict = domain.verify(task, text)
    assert verdict.success == (" ".join(text.split()) == domain.oracle_action(task))
    assert verdict.error_type in (None, "wrong_answer", "wrong_format")


# --- the efficacy learner's tokenizer --------------------------------------------------------------------
pytest.importorskip("transformers")

from genenv_gym.agents.tiny_model import build_tokenizer  # noqa: E402
from genenv_gym.train.config import load_config  # noqa: E402
from genenv_gym.train.rwr_sft import encode_chat_example  # noqa: E402


def test_each_symbol_is_one_token_beside_a_label_digit_and_a_space() -> None:
    tokenizer = build_tokenizer(load_config(CONFIG).model.vocab_size)
    for symbol in DISJOINT_POOL:
        for k in range(1, 9):
            for text in (f"{k}{symbol}", f"{k}{symbol} {k + 1}", f" {k}{symbol} {k + 1}", f" {k}{symbol}"):
                pieces = [tokenizer.decode([i]) for i in tokenizer.encode(text, add_special_tokens=False)]
                assert symbol in pieces, (text, pieces)
    domain = make_domain("ladder-disjoint", seed=0)
    for task in domain.load_tasks():  # whole replies as the trainer encodes them: one token per symbol
        answer = domain.oracle_action(task)
        _, target = encode_chat_example(tokenizer, task.messages, answer)
        pieces = [tokenizer.decode([i]) for i in target]
        assert pieces[1::3] == [item[1] for item in answer.split()]


def test_the_warm_start_stop_loss_sits_just_above_the_floor_of_eight_random_symbols() -> None:
    cfg = load_config(CONFIG)
    tokenizer = build_tokenizer(cfg.model.vocab_size)
    domain = make_domain(cfg.run.domain, seed=0)
    tokens, secret = [], []
    for task in domain.load_tasks():  # levels uniform, as the warm start draws them (level_decay 1.0)
        tokens.append(len(encode_chat_example(tokenizer, task.messages, domain.oracle_action(task))[1]))
        secret.append(task.difficulty["secret"])
    floor = np.mean(secret) * math.log(8) / np.mean(tokens)
    assert floor == pytest.approx(2.625 * math.log(8) / 13.5)
    assert cfg.warmstart.level_decay == 1.0 and floor < cfg.warmstart.stop_loss <= floor + 0.02
