"""The BFCL multi-turn LLM task writer: the LLM proposes turns, state and calls; our backends execute them."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genenv_gym.agents.backends import Completion, ScriptedBackend
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain
from genenv_gym.envs.bfcl_multiturn.task_writer import BFCLMultiTurnTaskWriter, task_content
from genenv_gym.llm_simulator import LLMSimulator, Target, TaskRejected
from genenv_gym.skill import SkillTracker
from genenv_gym.task import thaw

DOMAIN = BFCLMultiTurnDomain()
WRITER = BFCLMultiTurnTaskWriter(DOMAIN)
TARGET = Target(3, DOMAIN.num_levels, 0.5, 0.5, 0.0, 0.0)

TICKETS = {
    "ticket_queue": [
        {"id": 1, "title": "printer jam", "description": "paper stuck", "status": "Open", "priority": 2,
         "created_by": "Olga"},
        {"id": 2, "title": "vpn down", "description": "no access", "status": "Open", "priority": 4,
         "created_by": "Olga"},
    ],
    "ticket_counter": 3,
    "current_user": "Olga",
}  # fmt: skip
MESSAGES = {
    "user_count": 2,
    "user_map": {"Olga": "USR001", "Farid": "USR002"},
    "inbox": [],
    "message_count": 0,
    "current_user": "USR001",
}


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


def reply(**changes) -> dict:
    """A good reply: close a ticket, look a user up, then message him with the id the lookup returned."""
    data = {
        "involved_classes": ["TicketAPI", "MessageAPI"],
        "initial_config": {"TicketAPI": TICKETS, "MessageAPI": MESSAGES},
        "turns": [
            {
                "user": "Close ticket 2, the vpn one, and find the user id of 'Farid'.",
                "calls": [call("close_ticket", ticket_id=2), call("get_user_id", user="Farid")],
            },
            {
                "user": "Send him 'the vpn is back' from me.",
                "calls": [call("send_message", receiver_id="USR002", message="the vpn is back")],
            },
        ],
    }
    data.update(changes)
    return data


def parse(data: dict, target: Target = TARGET):
    return WRITER.parse(json.dumps(data), target, "llm:test")


def test_a_good_reply_becomes_an_entry_graded_by_executing_its_calls():
    task = parse(reply())
    assert DOMAIN.validate(task) == [] and WRITER.semantic_problems(task) == []
    assert task.id.startswith("bfcl_multiturn_llm_") and task.provenance == "llm:test"
    truth = thaw(task.evaluation["ground_truth"])
    assert truth == [
        ["close_ticket(ticket_id=2)", "get_user_id(user='Farid')"],
        ["send_message(receiver_id='USR002', message='the vpn is back')"],
    ]
    assert {t["name"] for t in task.tools} >= {"close_ticket", "send_message", "list_users"}  # our docs
    assert task.category == "multi_turn_base" and task.difficulty["target_level"] == TARGET.level
    assert task.level == 3  # two turns of two calls are level 2's knobs; two classes first come at level 3
    assert DOMAIN.verify(task, DOMAIN.oracle_action(task)).success
    wrong = json.dumps(['[close_ticket(ticket_id=1), get_user_id(user="Farid")]', "[]"])
    assert not DOMAIN.verify(task, wrong).success  # the state after the wrong ticket is not the reference's


def test_the_level_is_read_from_the_entry_not_from_the_target():
    one_call = reply(turns=[{"user": "Close ticket 2.", "calls": [call("close_ticket", ticket_id=2)]}])
    task = parse({**one_call, "involved_classes": ["TicketAPI"], "initial_config": {"TicketAPI": TICKETS}})
    assert task.level == 0 and task.difficulty["target_level"] == TARGET.level
    long_context = parse(reply(), Target(8, DOMAIN.num_levels, 0.5, 0.5, 0.0, 0.0))
    assert long_context.category == "multi_turn_long_context" and long_context.level == 8
    assert DOMAIN.verify(long_context, DOMAIN.oracle_action(long_context)).success


def test_procedural_entries_written_in_the_schema_are_accepted():
    rng = np.random.default_rng(3)
    accepted = rejected = 0
    for level in (0, 1, 2, 3, 4, 5, 6, 8) * 8:
        task = DOMAIN.generate(level, rng)
        written = parse(task_content(task), Target(level, DOMAIN.num_levels, 0.5, 0.5, 0.0, 0.0))
        assert thaw(written.evaluation["ground_truth"]) == thaw(task.evaluation["ground_truth"])
        if DOMAIN.validate(written) or WRITER.semantic_problems(written):
            rejected += 1
        else:
            accepted += 1
    assert rejected <= 0.02 * (accepted + rejected)  # false positives on valid entries


def _turn(user: str, *calls: dict) -> dict:
    return {"user": user, "calls": list(calls)}


@pytest.mark.parametrize(
    ("change", "kind", "message"),
    [
        ({"involved_classes": ["TicketAPI", "TravelAPI"]}, "parse", "involved_classes must be"),
        ({"involved_classes": ["TicketAPI", "TicketAPI"]}, "parse", "distinct"),
        ({"initial_config": {"TicketAPI": {"tickets": []}}}, "parse", "unknown key 'tickets'"),
        ({"initial_config": {"TicketAPI": {"ticket_counter": "three"}}}, "parse", "must be number"),
        ({"initial_config": {"MathAPI": {}}}, "parse", "not a stateful involved class"),
        ({"turns": [_turn("Raise 2 to 10.", call("power", base=2, exponent=10))]}, "parse", "not a function"),
        ({"turns": [_turn("Close 2.", call("close_ticket", ticket=2))]}, "parse", "unknown argument"),
        ({"turns": [_turn("Resolve 2.", call("resolve_ticket", ticket_id=2))]}, "parse", "missing"),
        ({"turns": [_turn("Close 2.", call("close_ticket", ticket_id="2"))]}, "parse", "expected integer"),
        ({"turns": [_turn("Add 1 and 2.", call("add", a=10**400, b=2))], "involved_classes": ["MathAPI"],
          "initial_config": {}}, "parse", "out of range"),
        ({"turns": [_turn("Close 2.", *[call("close_ticket", ticket_id=2)] * 4)]}, "parse", "at most 3"),
        ({"turns": [_turn(f"See {i}", call("get_ticket", ticket_id=1)) for i in range(5)]}, "parse", "1..4"),
        ({"turns": [_turn("Close it."), _turn("Close ticket 2.", call("close_ticket", ticket_id=2)),
                    _turn("Show it.")]}, "parse", "at most 1 turn"),
        ({"turns": [_turn("Close ticket 2.", call("close_ticket", ticket_id=2)), _turn("Then?")]},
         "parse", "followed by"),
        ({"turns": [_turn("", call("close_ticket", ticket_id=2))]}, "parse", "non-empty string"),
        ({"turns": [{"user": "Close ticket 2.", "calls": [], "answer": "done"}]}, "parse", "must be"),
        ({"turns": [_turn("Close ticket 9.", call("close_ticket", ticket_id=9))]}, "reference_fails",
         "turn 0 call 0 close_ticket"),
        ({"turns": [_turn("Message 'X'.", call("send_message", receiver_id="USR999", message="X"))]},
         "reference_fails", "fails"),
    ],
)  # fmt: skip
def test_bad_replies_are_rejected_with_their_kind_and_reason(change, kind, message):
    with pytest.raises(TaskRejected, match=message) as caught:
        parse(reply(**change))
    assert caught.value.kind == kind


def test_a_state_the_backend_cannot_load_is_rejected():
    broken = {"GorillaFileSystem": {"root": {"home": {"type": "directory", "contents": {"a.txt": {}}}}}}
    turns = [_turn("Show where I am.", call("pwd"))]
    with pytest.raises(TaskRejected, match="does not load") as caught:
        parse(reply(involved_classes=["GorillaFileSystem"], initial_config=broken, turns=turns))
    assert caught.value.kind == "parse"


def test_values_must_be_stated_by_the_user_or_returned_by_an_earlier_call():
    unstated = parse(reply(turns=[_turn("Close my broken ticket.", call("close_ticket", ticket_id=2))]))
    assert any(
        "no one states the value of close_ticket.ticket_id" in p for p in WRITER.semantic_problems(unstated)
    )
    guessed_id = reply()
    guessed_id["turns"] = [guessed_id["turns"][1]]  # USR002 was returned by get_user_id; now by nothing
    guessed_id["turns"][0]["user"] = "Send Farid 'the vpn is back'."
    problems = WRITER.semantic_problems(parse(guessed_id))
    assert problems == ["turn 0: no one states the value of send_message.receiver_id"]


def test_a_turn_without_calls_must_leave_out_the_value_the_next_turn_gives():
    vague = [
        _turn("Close one of my tickets."),
        _turn("It is ticket 2.", call("close_ticket", ticket_id=2)),
    ]
    task = parse(reply(turns=vague))
    assert task.category == "multi_turn_miss_param" and WRITER.semantic_problems(task) == []
    assert DOMAIN.verify(task, DOMAIN.oracle_action(task)).success
    not_missing = [_turn("Close ticket 2."), _turn("Go on.", call("close_ticket", ticket_id=2))]
    assert any("gives no value" in p for p in WRITER.semantic_problems(parse(reply(turns=not_missing))))


def test_prompts_are_seeded_and_show_the_classes_the_level_and_examples():
    seeds = WRITER.seed_tasks(4, np.random.default_rng(0))
    skill = SkillTracker(DOMAIN.num_levels, 0.5).estimate()
    target = Target(6, DOMAIN.num_levels, 0.5, 0.5, 0.0, 0.0)
    first = BFCLMultiTurnTaskWriter(DOMAIN, seed=7).prompt(seeds, skill, target)
    assert first == BFCLMultiTurnTaskWriter(DOMAIN, seed=7).prompt(seeds, skill, target)
    system, user = first[0]["content"], first[1]["content"]
    assert "- TicketAPI:" in system and "close_ticket(ticket_id: integer)" in system
    assert "State keys: ticket_queue, ticket_counter, current_user" in system
    assert "difficulty level 6 of 9" in user and "leaves a needed value out" in user
    assert "Examples of the format" in user and '"involved_classes"' in user


def test_the_llm_simulator_serves_written_entries_the_oracle_solves():
    unstated = reply(turns=[_turn("Close my broken ticket.", call("close_ticket", ticket_id=2))])
    replies = [json.dumps(reply()), "no json here", json.dumps(unstated), json.dumps(reply())]
    # The off-task screen is off: it reads "Send him 'the vpn is back' from me." as a request for something
    # else (a known false positive, docs/training_llm_simulator.md); this test is about the writer.
    sim = LLMSimulator(
        DOMAIN, ScriptedBackend(replies), writer=WRITER, seeds=[], batch_size=4, seed=0, offtask=None
    )
    tasks = sim.generate_batch(SkillTracker(DOMAIN.num_levels).estimate())
    assert len(tasks) == 1 and tasks[0].provenance == "llm:scripted"
    assert sim.stats.rejected == {"parse": 1, "semantic": 1, "duplicate": 1}
    assert DOMAIN.verify(tasks[0], DOMAIN.oracle_action(tasks[0])).reward == 1.0


def test_the_sim_env_plays_llm_written_entries_with_the_oracle():
    rng = np.random.default_rng(11)
    written = [json.dumps(task_content(DOMAIN.generate(level, rng))) for level in (0, 2, 4, 5)]
    env = gym.make(
        "GenEnv-Sim-BFCL-MultiTurn-v0",
        simulator="llm",
        batch_size=2,
        simulator_kwargs={"backend": ScriptedBackend(written), "seeds": [], "batch_size": 4},
    )
    agent = OracleAgent(env)
    for episode in range(8):
        observation, info = env.reset(seed=0 if episode == 0 else None)
        assert info["provenance"] == "llm:scripted"
        done = False
        while not done:
            observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
            done = terminated or truncated
        assert reward == 1.0
    assert env.unwrapped.simulator.stats.fallback == 0
    env.close()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(["involved_classes", "initial_config", "turns"]), value=_JSON)
def test_any_field_value_parses_or_is_rejected_cleanly(field, value):
    try:
        task = parse(reply(**{field: value}))
    except TaskRejected as rejection:
        assert rejection.kind in ("parse", "reference_fails")
    else:
        assert DOMAIN.validate(task) == []


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(max_size=300)
    | st.builds(lambda cut, tail: json.dumps(reply())[:cut] + tail, st.integers(0, 600), st.text(max_size=20))
)
def test_hostile_replies_never_crash_the_screen(text):
    sim = LLMSimulator(DOMAIN, ScriptedBackend(["unused"]), writer=WRITER, seeds=[], seed=0)
    task = sim.screen(Completion(text), TARGET, {})
    assert task is None or DOMAIN.verify(task, DOMAIN.oracle_action(task)).success
    assert sim.stats.accepted + sum(sim.stats.rejected.values()) == 1
