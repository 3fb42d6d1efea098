"""How much one client may move a hosted curriculum: its share of the recent groups, token holders only
where the operator says so, and a flag for outcomes that disagree with the others' on the same levels."""

from __future__ import annotations

import json

import pytest

from genenv_gym.serve.curricula import CurriculumSpec, HostedCurricula
from genenv_gym.serve.curriculum_influence import InfluenceBound, InfluencePolicy

SIM = "GenEnv-Sim-Digits-v0"


def test_a_client_counts_for_about_an_equal_share_of_the_recent_groups_and_its_pull_decays():
    bound = InfluenceBound(InfluencePolicy(window=8))
    bound.joined("net:attacker")
    assert all(bound.admit("net:attacker") for _ in range(20))  # alone: never held back
    bound.joined("net:honest")
    assert bound.admit("net:honest")
    assert not any(bound.admit("net:attacker") for _ in range(20))  # past its half, more than the other
    for _ in range(3):
        assert bound.admit("net:honest")
    assert bound.state()["window_groups"] == {"net:attacker": 4, "net:honest": 4}
    assert bound.state()["held_back_groups"]["net:attacker"] == 20
    for _ in range(20):  # both at their share: it may replace its own oldest groups, and one more
        bound.admit("net:attacker")
        assert bound.state()["window_groups"]["net:attacker"] <= 5
    # the attacker leaves: it constrains no one, its groups age out, the honest client's records decide
    bound.left("net:attacker")
    for _ in range(8):
        assert bound.admit("net:honest")
    assert bound.state()["window_groups"] == {"net:honest": 8}


def test_token_holders_only_and_a_set_share():
    only = InfluenceBound(InfluencePolicy(token_holders_only=True))
    assert only.admit("token:alice") and not only.admit("net:10.0.0.0/24")
    capped = InfluenceBound(InfluencePolicy(window=10, share=0.2))
    capped.joined("net:a")
    capped.joined("net:b")
    assert capped.admit("net:b")
    assert [capped.admit("net:a") for _ in range(4)] == [True, True, False, False]
    with pytest.raises(ValueError, match="share"):
        InfluencePolicy(share=1.5)


def test_outcomes_that_disagree_with_the_others_on_the_same_levels_are_flagged():
    bound = InfluenceBound()
    for level in (3, 12):
        for k in range(16):
            bound.outcome("net:honest", level, level == 3 and k % 2 == 0)
            bound.outcome("net:liar", level, True)
    assert bound.flagged()["net:liar"] > 0.4  # with two clients, each disagrees with the other
    bound.outcome("net:honest-too", 3, True)
    bound.outcome("net:third", 12, False)  # too few records to be compared
    assert "net:third" not in bound.flagged()


def test_held_back_groups_never_reach_the_hosted_curriculum():
    curricula = HostedCurricula(
        [CurriculumSpec("d", SIM)], lambda env_id: {}, policy=InfluencePolicy(window=4)
    )
    curricula.start()
    try:
        service = curricula._hosted["d"].service
        size = curricula._hosted["d"].group_size

        def group(session: str, client: str, success: bool) -> list[dict]:
            ask = {"method": "propose", "n": 1}
            proposal = curricula.answer(session, "d", json.dumps(ask).encode(), client)["proposals"][0]
            record = {"method": "record", "proposal_id": proposal["proposal_id"], "success": success}
            return [curricula.answer(session, "d", json.dumps(record).encode(), client) for _ in range(size)]

        group("honest-session", "net:honest", False)
        completed = service.state()["groups_completed"]
        answers = [group("liar-session", "net:liar", True) for _ in range(4)]
        held = [any(a.get("held_back") for a in answer) for answer in answers]
        assert held == [False, False, True, True]  # two groups of the four the window keeps
        assert service.state()["groups_completed"] == completed + 2
        assert curricula.state("d")["influence"]["held_back_groups"] == {"net:liar": 2}
        curricula.forget("liar-session", "d")
        for _ in range(4):
            group("honest-session", "net:honest", False)
        assert curricula.state("d")["influence"]["window_groups"] == {"net:honest": 4}
    finally:
        curricula.close(checkpoint=False)


HONEST = ["net:h1", "net:h2", "net:h3"]


def join_three_honest_clients_and_a_liar(bound: InfluenceBound) -> list[str]:
    """Three honest clients that solve level 3 and fail level 12, and ``net:liar`` reporting wins on both
    (16 outcomes each per level); the honest clients' names."""
    for client in [*HONEST, "net:liar"]:
        bound.joined(client)
    for level in (3, 12):
        for _ in range(16):
            for client in HONEST:
                bound.outcome(client, level, level == 3)
            bound.outcome("net:liar", level, True)
    return HONEST


@pytest.mark.parametrize("hold", [True, False])
def test_a_flagged_minority_client_is_held_back_unless_the_operator_only_flags(hold):
    bound = InfluenceBound(InfluencePolicy(hold_flagged=hold))
    join_three_honest_clients_and_a_liar(bound)
    for _ in range(8):
        assert bound.admit("net:h1")  # the flags are looked at every 8 counted groups
    assert bound.admit("net:liar") is not hold
    assert list(bound.flagged()) == ["net:liar"]
    assert bound.state()["held_as_flagged"] == (["net:liar"] if hold else [])


def test_a_captured_curriculum_comes_back_once_the_attacker_leaves():
    """The capture of #45: 4 honest clients (an agent that solves up to 4 digits: every group all solved or
    all failed, never in band) and one attacker session reporting 2 of 4 wins on levels >= 12 (in band) and
    4 of 4 below. It pulls the shared policy up while it plays; once it leaves, the honest clients' counted
    groups bring the policy back near where it was (before the decay it stayed captured). The attacker is
    only flagged here, never held back (the worst case: it pulls for as long as it plays)."""
    policy = InfluencePolicy(hold_flagged=False)  # the default half-life
    curricula = HostedCurricula([CurriculumSpec("d", SIM)], lambda env_id: {}, policy=policy).start()
    try:
        hosted = curricula._hosted["d"]
        size, simulator = hosted.group_size, hosted.service.simulator

        def group(session: str, client: str, wins_at) -> None:
            ask = {"method": "propose", "n": 1}
            proposal = curricula.answer(session, "d", json.dumps(ask).encode(), client)["proposals"][0]
            wins = wins_at(json.loads(proposal["task"]))
            for k in range(size):
                record = {"method": "record", "proposal_id": proposal["proposal_id"], "success": k < wins}
                curricula.answer(session, "d", json.dumps(record).encode(), client)

        def honest(task: dict) -> int:
            return size if len(task["evaluation"]["answer"]) <= 4 else 0

        def attacker(task: dict) -> int:
            return size // 2 if int(task["difficulty"]["level"]) >= 12 else size

        def hard_share() -> float:
            return float(simulator.probs[12:].sum())

        before = hard_share()
        for _ in range(60):
            for k in range(4):
                group(f"honest-{k}", f"net:honest-{k}", honest)
            group("attacker", "net:attacker", attacker)
        assert hard_share() > before + 0.2  # one session in five, within its share: it moved the policy
        curricula.forget("attacker", "d")
        for _ in range(60):  # 240 honest groups: nearly four half-lives of the default 64
            for k in range(4):
                group(f"honest-{k}", f"net:honest-{k}", honest)
        assert hard_share() < before + 0.1
    finally:
        curricula.close(checkpoint=False)


def test_a_client_held_as_flagged_that_stays_does_not_freeze_the_others():
    """Its groups left in the window count as no one's recording: the others go on counting at their
    share (before, each honest client was held back for holding more than the flagged one, and nothing
    counted while it stayed)."""
    bound = InfluenceBound(InfluencePolicy(window=16))
    honest = join_three_honest_clients_and_a_liar(bound)
    for _ in range(2):
        for client in [*honest, "net:liar"]:
            assert bound.admit(client)  # the flags are looked at every 8 counted groups
    assert bound.state()["held_as_flagged"] == ["net:liar"]
    for _ in range(20):
        assert [bound.admit(client) for client in honest] == [True] * 3
    assert not bound.admit("net:liar")
    window = bound.state()["window_groups"]
    assert set(window) == set(honest) and sum(window.values()) == 16
