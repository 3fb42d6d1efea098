"""The ladder domain: the chain, the per-seed secret permutations, the exhaustive held-out set, validation,
the warm start's hidden secret steps, and hostile answers."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.ladder.domain import LadderDomain, secret_permutations


def test_level_l_writes_the_first_l_plus_one_labelled_steps() -> None:
    domain = LadderDomain(seed=0)
    pi = domain.permutations
    for start in "ABCD":
        x, expected = "ABCD".index(start), []
        for k in range(domain.num_levels):
            x = pi[k][x]
            expected.append(f"{k + 1}{'ABCD'[x]}")
            task = domain.make_task(start, k, "t")
            assert task.messages[0]["content"] == f"climb {k + 1} from {start}"
            assert domain.oracle_action(task) == " ".join(expected)
            assert domain.validate(task) == [] and domain.verify(task, domain.oracle_action(task)).success
    # level l + 1's answer extends level l's: each level is the stepping stone to the next
    tasks = [domain.make_task("C", level, "t") for level in range(domain.num_levels)]
    for easier, harder in itertools.pairwise(tasks):
        assert domain.oracle_action(harder).startswith(domain.oracle_action(easier) + " ")


def test_every_seed_draws_its_own_distinct_permutations() -> None:
    first, again, other = (secret_permutations(4, 8, s) for s in (0, 0, 1))
    assert first == again and first != other
    for perms in (first, other, secret_permutations(4, 8, 7)):
        assert len(set(perms)) == 8 and all(sorted(p) == [0, 1, 2, 3] for p in perms)
    assert len(secret_permutations(2, 8, 0)) == 8  # 2! < 8: repeats allowed
    assert LadderDomain(seed=3).permutations == secret_permutations(4, 8, 3)
    answers = {
        LadderDomain(seed=s).oracle_action(LadderDomain(seed=s).make_task("A", 7, "t")) for s in range(6)
    }
    assert len(answers) > 1


def test_the_heldout_set_is_every_start_at_every_level() -> None:
    domain = LadderDomain(seed=5)
    tasks = domain.load_tasks()
    assert len(tasks) == 32 and tasks == LadderDomain(seed=5).load_tasks()
    assert {(t.level, t.messages[0]["content"][-1]) for t in tasks} == {
        (level, s) for level in range(8) for s in "ABCD"
    }
    assert [t.level for t in domain.load_tasks(["level_3"])] == [3, 3, 3, 3]
    rng = np.random.default_rng(0)
    for level in range(8):
        task = domain.generate(level, rng)
        assert task.level == level and domain.validate(task) == []
    with pytest.raises(ValueError, match="level must be in"):
        domain.generate(8, rng)


def test_validate_names_a_wrong_prompt_answer_or_level() -> None:
    domain = LadderDomain()
    task = domain.make_task("B", 2, "t")
    wrong = type(task).from_dict({**task.to_dict(), "evaluation": {"answer": "1A 2A 3A"}})
    assert domain.validate(wrong) == ["the reference answer is not the ladder's steps"]
    bad = type(task).from_dict(
        {**task.to_dict(), "messages": [{"role": "user", "content": "climb 3 from Z"}]}
    )
    assert "prompt must be" in domain.validate(bad)[0]
    moved = type(task).from_dict({**task.to_dict(), "difficulty": {"level": 4}})
    assert domain.validate(moved) == ["level 4 climbs 5 steps, not 3"]
    for kwargs in ({"num_steps": 10}, {"num_symbols": 1}, {"public_steps": 9}):
        with pytest.raises(ValueError):
            LadderDomain(**kwargs)


def test_the_warm_start_reply_keeps_the_public_steps_and_randomises_the_secret_ones() -> None:
    domain = LadderDomain(seed=2, public_steps=2)
    task = domain.make_task("D", 7, "t")
    gold = domain.oracle_action(task).split()
    rng = np.random.default_rng(0)
    replies = [domain.warmstart_action(task, rng).split() for _ in range(400)]
    assert all(r[:2] == gold[:2] and [s[0] for s in r] == [s[0] for s in gold] for r in replies)
    for k in range(2, 8):  # every secret step is uniform over the 4 symbols, whatever the gold one
        counts = np.bincount(["ABCD".index(r[k][1]) for r in replies], minlength=4) / len(replies)
        assert np.abs(counts - 0.25).max() < 0.08, (k, counts)
    assert domain.verify(task, " ".join(replies[0])).error_type in (None, "wrong_answer")


@pytest.mark.parametrize(
    "action",
    [
        None,
        7,
        ["1A"],
        "",
        "1A 2B",
        "1A 2B 3C 4D",
        "A B C",
        "1a 2b 3c",
        "2A 1B 3C",
        "1AB 2C 3D",
        "1" * 100_000,
        "\x00\ud800",
    ],
)
def test_hostile_answers_score_zero_without_giving_the_answer_away(action) -> None:
    domain = LadderDomain(seed=0)
    task = domain.make_task("B", 2, "t")
    verdict = domain.verify(task, action)
    assert verdict.reward == 0.0 and not verdict.success
    assert domain.oracle_action(task) not in (verdict.error or "")
    assert domain.verify(task, "  " + domain.oracle_action(task).replace(" ", "\t\n ") + "\n").success


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.integers(0, 7), st.sampled_from("ABCD"))
def test_any_text_is_graded_without_raising_and_only_the_answer_passes(
    text: str, level: int, start: str
) -> None:
    domain = LadderDomain(seed=1)
    task = domain.make_task(start, level, "t")
    verdict = domain.verify(task, text)
    assert verdict.success == (" ".join(text.split()) == domain.oracle_action(task))
    assert verdict.error_type in (None, "wrong_answer", "wrong_format")
