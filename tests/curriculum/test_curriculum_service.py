"""The in-process curriculum service: what one simulator and tracker would do, counted across recorders."""

from __future__ import annotations

import json
import random
import threading

import gymnasium as gym
import numpy as np
import pytest

from genenv_gym.curriculum_service.groups import GroupTable
from genenv_gym.curriculum_service.service import CurriculumService, replay
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.samplers import STANDALONE
from genenv_gym.simulator import Outcome

ENV_ID = "GenEnv-Sim-Digits-v0"
N = 4


def outcome(task, attempt: int) -> bool:
    """A deterministic agent that solves easy levels more often than hard ones."""
    return random.Random(f"{task.id}/{attempt}").random() < 1.0 - task.level / 15


def policy(simulator) -> list[float] | None:
    """A learned level distribution (the procedural simulator's), if the sampler holds one."""
    probs = getattr(simulator, "probs", None)
    return probs.tolist() if isinstance(probs, np.ndarray) else None


def reference_run(steps: int, seed: int = 0, simulator: str = "procedural") -> tuple[list[str], dict, list]:
    """One simulator and tracker driven by hand, as one in-process curriculum: propose, play n, update;
    then the ids of 5 more proposals (seeds 99 to 103) and the simulator's probabilities (if it has any)."""
    env = gym.make(ENV_ID, simulator=simulator)
    base = env.unwrapped
    ids = []
    for step in range(steps):
        context = base.tracker.estimate()
        task = base.simulator.propose(1, context, np.random.default_rng(seed + step))[0]
        ids.append(task.id)
        results = [outcome(task, a) for a in range(N)]
        for r in results:
            base.tracker.update(task.level, r)
        base.simulator.update([Outcome(task, sum(results), N, context)])
    context = base.tracker.estimate()
    ids += [base.simulator.propose(1, context, np.random.default_rng(99 + k))[0].id for k in range(5)]
    state = (ids, base.tracker.state_dict(), policy(base.simulator))
    env.close()
    return state


@pytest.mark.parametrize("simulator", ["procedural", *STANDALONE])
def test_the_service_proposes_what_one_in_process_curriculum_proposes(simulator: str) -> None:
    """Every sampler an env can hold (the alpha-RWR simulator and the trainer's standalone samplers) runs
    behind the service unchanged."""
    ids, tracker, probs = reference_run(40, simulator=simulator)
    service = CurriculumService.for_env(ENV_ID, {"simulator": simulator}, group_size=N)
    got = []
    for _ in range(40):
        proposal = service.propose(1)[0]
        got.append(proposal.task.id)
        for a in range(N):
            service.record(proposal.task, outcome(proposal.task, a), proposal_id=proposal.proposal_id)
    got += [p.task.id for p in service.propose(5, seed=99)]
    assert got == ids
    assert service.tracker.state_dict() == tracker
    assert policy(service.simulator) == probs
    assert len(service.updates) == 40
    service.close()


def test_groups_close_at_their_declared_size_across_recorders_and_validation_does_not_count() -> None:
    service = CurriculumService.for_env(ENV_ID, group_size=N)
    a, b = service.propose(2)
    evidence = sum(service.tracker.state_dict()["attempts"])
    service.record(a.task, True, proposal_id=a.proposal_id, validation=True, recorder="val")
    assert sum(service.tracker.state_dict()["attempts"]) == evidence and service.state()["open_groups"] == 0
    # two recorders, interleaved, each with half of each group
    order = [(a, "w0"), (b, "w1"), (a, "w1"), (b, "w0"), (a, "w0"), (b, "w1")]
    assert all(service.record(p.task, True, proposal_id=p.proposal_id, recorder=w) is None for p, w in order)
    assert service.state()["open_groups"] == 2
    assert service.record(a.task, False, proposal_id=a.proposal_id, recorder="w1")["outcomes"] == 1.0
    assert service.state()["open_groups"] == 1 and len(service.updates) == 1
    records = [e for e in service.log() if e["event"] == "record"]
    assert [e["recorder"] for e in records] == ["val", "w0", "w1", "w1", "w0", "w0", "w1", "w1"]
    report = service.end_step()
    assert report["curriculum/validation_records"] == 1.0 and report["curriculum/records"] == 7.0
    assert report["curriculum/groups"] == 1.0 and report["curriculum/open_groups"] == 1.0
    service.close()


def test_the_open_group_table_is_bounded_and_counts_what_it_drops() -> None:
    table = GroupTable(max_open=2)
    assert table.add("a", True, 2) is None and table.add("b", True, 2) is None
    assert table.add("c", False, 2) is None  # "a" is pushed out: its worker never finished it
    assert len(table) == 2 and table.dropped == 1
    assert table.add("a", True, 2) is None  # a late rollout of "a" starts a new group
    assert table.add("c", True, 2) == [False, True]
    with pytest.raises(ValueError, match="declared with size 2, now 3"):
        table.add("a", True, 3)


def test_step_diagnostics_count_signal_easy_hard_and_in_band_groups() -> None:
    service = CurriculumService.for_env(ENV_ID, group_size=N)
    for successes in ([True] * 4, [False] * 4, [True, False, True, False], [True, True, True, False]):
        proposal = service.propose(1)[0]
        service.record_group(proposal.task, successes, proposal_id=proposal.proposal_id)
    report = service.end_step()
    assert report["curriculum/groups"] == 4.0
    assert report["curriculum/too_easy_share"] == 0.25 and report["curriculum/too_hard_share"] == 0.25
    assert report["curriculum/signal_share"] == 0.5
    assert report["curriculum/in_band_share"] == 0.25  # only p = 0.5 is within k_min = 0.1 of alpha
    assert report["curriculum/simulator_updated"] == 1.0
    assert service.end_step()["curriculum/groups"] == 0.0  # a new step starts empty
    service.close()


def test_checkpoint_restore_goes_on_as_the_original_with_a_group_open() -> None:
    first = CurriculumService.for_env(ENV_ID, group_size=N, seed=7)
    for _ in range(10):
        proposal = first.propose(1)[0]
        first.record_group(
            proposal.task, [outcome(proposal.task, a) for a in range(N)], proposal_id=proposal.proposal_id
        )
    open_one = first.propose(1)[0]
    first.record(open_one.task, True, proposal_id=open_one.proposal_id)
    saved = json.loads(json.dumps(first.checkpoint()))
    second = CurriculumService.for_env(ENV_ID, group_size=N)
    second.restore(saved)
    for service in (first, second):
        for _ in range(N - 1):
            service.record(open_one.task, False, proposal_id=open_one.proposal_id)
    assert [p.task.id for p in first.propose(5)] == [p.task.id for p in second.propose(5)]
    assert first.state() == second.state()
    assert first.simulator.stats == second.simulator.stats
    first.close()
    second.close()


def test_a_logged_concurrent_run_replays_to_the_same_state(tmp_path) -> None:
    log_path = tmp_path / "arrivals.jsonl"
    service = CurriculumService.for_env(ENV_ID, group_size=N, seed=3, log_path=str(log_path))
    proposals = service.propose(12)

    def worker(index: int) -> None:  # each thread plays one rollout of every group, in its own order
        mine = list(proposals)
        random.Random(index).shuffle(mine)
        for p in mine:
            service.record(p.task, outcome(p.task, index), proposal_id=p.proposal_id, recorder=f"w{index}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(N)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(service.updates) == 12
    logged = [json.loads(line) for line in log_path.read_text().splitlines()]
    assert logged == service.log() and [e["seq"] for e in logged] == list(range(1 + 12 * N))
    assert all("task" not in e for e in logged)  # records of its own proposals name them by id
    fresh = CurriculumService.for_env(ENV_ID, group_size=N, seed=3)
    replay(fresh, logged)
    assert fresh.state() == service.state()
    assert [p.task.id for p in fresh.propose(4)] == [p.task.id for p in service.propose(4)]
    service.close()
    fresh.close()


def test_live_tasks_rows_carry_their_proposal_and_record_into_the_curriculum() -> None:
    tasks = LiveTasks(ENV_ID, group_size=2)
    row = tasks.propose_row(5)
    task = tasks.task_for(row)
    assert row["proposal_id"].endswith(task.id) and row["seed"] == 5
    assert tasks.record(task, True, row["proposal_id"]) is None
    assert tasks.record(task, True, row["proposal_id"], validation=True) is None
    assert tasks.record(task, False, row["proposal_id"])["outcomes"] == 1.0
    assert len(tasks.updates) == 1
    # a row without a proposal id (an exported table's) is grouped by its task, and still replays
    other = tasks.task_for(tasks.propose_row(6))
    assert tasks.record(other, True) is None and tasks.record(other, True)["outcomes"] == 1.0
    stranger = CurriculumService.for_env(ENV_ID, seed=1).propose(1)[0].task  # not proposed by this one
    tasks.record(stranger, False)
    fresh = CurriculumService.for_env(ENV_ID, group_size=2)
    replay(fresh, tasks.curriculum.log())
    assert fresh.state() == tasks.curriculum.state()
    tasks.close()


def test_the_llm_simulator_runs_behind_the_service_and_survives_a_checkpoint() -> None:
    import pickle

    from bfcl_replies import GOOD

    from genenv_gym.agents.backends import ScriptedBackend

    kwargs = {
        "simulator": "llm",
        "simulator_kwargs": {"backend": ScriptedBackend(GOOD), "seeds": [], "batch_size": 4, "offtask": None},
    }
    # a host's decay does not apply: the LLM simulator has no prior to relax toward, and says so
    service = CurriculumService.for_env("GenEnv-Sim-BFCL-v0", kwargs, group_size=N, prior_half_life=8)
    assert service.state()["prior_half_life"] is None
    proposal = service.propose(1)[0]
    assert proposal.task.provenance == "llm:scripted"
    stats = service.record_group(proposal.task, [True] * N, proposal_id=proposal.proposal_id)
    assert stats["matched"] == 1.0 and service.state()["simulator"]["stats"]["outcomes"] >= 1
    restored = CurriculumService.for_env("GenEnv-Sim-BFCL-v0", kwargs, group_size=N)
    restored.restore(pickle.loads(pickle.dumps(service.checkpoint())))
    assert restored.state() == service.state()
    service.close()
    restored.close()


def test_a_discarded_group_leaves_the_open_groups_and_replays() -> None:
    service = CurriculumService.for_env(ENV_ID, group_size=N)
    a, b = service.propose(2)
    service.record(a.task, True, proposal_id=a.proposal_id, recorder="w0")
    service.record(b.task, False, proposal_id=b.proposal_id, recorder="w1")
    assert service.discard(a.proposal_id, recorder="w0") is True
    assert service.discard(a.proposal_id) is False  # nothing open under that id any more
    assert service.state()["open_groups"] == 1 and service.state()["dropped_groups"] == 1
    for _ in range(N - 1):
        service.record(b.task, True, proposal_id=b.proposal_id, recorder="w1")
    assert len(service.updates) == 1
    fresh = CurriculumService.for_env(ENV_ID, group_size=N)
    replay(fresh, service.log())
    assert fresh.checkpoint() == service.checkpoint()
    service.close()
    fresh.close()


def test_with_a_prior_half_life_the_policy_relaxes_back_and_replays() -> None:
    """A hosted curriculum's pull fades (``prior_half_life``): after ``h`` completed groups that teach the
    simulator nothing (all solved: out of band), half of its distance to the prior is left; the log replays
    into a service with the same half-life; without one (training's default) nothing fades."""
    fading = CurriculumService.for_env(ENV_ID, group_size=N, prior_half_life=8)
    still = CurriculumService.for_env(ENV_ID, group_size=N)
    try:
        for service in (fading, still):
            pulled = np.full_like(service.simulator.prior, 0.01)
            pulled[-1] = 1.0 - 0.01 * (len(pulled) - 1)
            service.simulator.probs = pulled.copy()
            for proposal in service.propose(8):
                service.record_group(proposal.task, [True] * N, proposal_id=proposal.proposal_id)
        prior = fading.simulator.prior
        assert np.allclose(fading.simulator.probs - prior, (pulled - prior) / 2)
        assert np.allclose(still.simulator.probs, pulled)
        assert fading.state()["prior_half_life"] == 8 and still.state()["prior_half_life"] is None
        again = CurriculumService.for_env(ENV_ID, group_size=N, prior_half_life=8)
        again.simulator.probs = pulled.copy()
        replay(again, fading.log())
        assert np.allclose(again.simulator.probs, fading.simulator.probs)
        again.close()
        with pytest.raises(ValueError, match="prior_half_life"):
            CurriculumService(fading.simulator, fading.tracker, prior_half_life=0)
    finally:
        fading.close()
        still.close()
