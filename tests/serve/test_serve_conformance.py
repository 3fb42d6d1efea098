"""One scripted episode, the same on every transport: in-process, make_vec (sync, async), our server over
WebSocket and HTTP (GenEnv-Remote-v0), OpenEnv's own client (``openenv`` 0.10.0) against our server, and
OpenEnv's ``MCPToolClient`` playing the oracle through the episode's MCP tools; and OpenEnv's validator
(``openenv validate --url <server>/envs/<id>``) passes every required criterion on every id.

The scripts are the oracle and the seeded random agent (the fixed wrong script), played in-process once
per id; every other transport replays their actions and must give the same transcript: observations,
rewards, terminated/truncated and info after ``info_to_json``. Cheap transports run on every registered
id; the async vector env (a process per copy) on one id per family (``ASYNC_SUBSET``), and on every id
under ``pytest -m slow``.
"""

from __future__ import annotations

import asyncio
import importlib.metadata

import gymnasium as gym
import pytest
from packaging.version import Version

pytest.importorskip("fastapi")
pytest.importorskip("websockets")

from genenv_gym.agents.tool_calls import call_format_of
from genenv_gym.serve.app import ServeConfig
from genenv_gym.serve.catalog import Catalog, registered_env_ids
from genenv_gym.serve.server import BackgroundServer
from genenv_gym.serve.transcript import (
    StepRecord,
    Transcript,
    record,
    record_vector,
    scripted_actions,
)
from genenv_gym.serve.wire import info_to_json

ALL_IDS = registered_env_ids()
SCRIPTS = ["oracle", "random"]
SEED = 1
#: One id per family for the async vector env in CI (each copy is a process: seconds per id).
ASYNC_SUBSET = [
    "GenEnv-BFCL-v0",
    "GenEnv-BFCL-MultiTurn-v0",
    "GenEnv-APIBank-Dialogue-v0",
    "GenEnv-ALFWorld-Pick-v0",
    "GenEnv-Bamboogle-v0",
    "GenEnv-TravelPlanner-Tools-v0",
    "GenEnv-Sim-Digits-v0",
]


#: One id per family for OpenEnv's MCPToolClient by default (every other id under ``pytest -m slow``).
MCP_SUBSET = [*ASYNC_SUBSET, "GenEnv-BFCL-SimplePython-v0", "GenEnv-APIBank-v0", "GenEnv-Digits-v0"]


class References:
    """The in-process transcripts, played once per (id, script)."""

    def __init__(self, offline) -> None:
        self.offline = offline
        self.cache: dict[tuple[str, str], Transcript] = {}

    def get(self, env_id: str, script: str) -> Transcript:
        if (env_id, script) not in self.cache:
            env = self.offline.make(env_id)
            self.cache[env_id, script] = scripted_actions(env, script, seed=SEED)
            env.close()
        return self.cache[env_id, script]


@pytest.fixture(scope="module")
def references(offline_envs_for_session) -> References:
    return References(offline_envs_for_session)


@pytest.fixture(scope="module")
def server(offline_envs_for_session):
    """Every registered id on offline data, on a free port of 127.0.0.1, for this module."""
    catalog = Catalog(ALL_IDS, offline_envs_for_session.kwargs)
    background = BackgroundServer(ServeConfig(catalog))
    with background as url:
        yield url, background
    assert not background.manager.sessions


def assert_same(got: Transcript, expected: Transcript) -> None:
    assert (got.observation, got.info) == (expected.observation, expected.info)
    assert len(got.steps) == len(expected.steps)
    for index, (step, reference) in enumerate(zip(got.steps, expected.steps, strict=True)):
        assert step == reference, f"step {index} differs"


def test_the_scripts_end_their_episodes_and_the_oracle_wins(references):
    for env_id in ["GenEnv-BFCL-MultiTurn-v0", "GenEnv-APIBank-Dialogue-v0", "GenEnv-ALFWorld-Pick-v0"]:
        oracle, wrong = references.get(env_id, "oracle"), references.get(env_id, "random")
        assert sum(s.reward for s in oracle.steps) == 1.0 and oracle.steps[-1].terminated
        assert sum(s.reward for s in wrong.steps) < 1.0
        assert wrong.steps[-1].terminated or wrong.steps[-1].truncated


@pytest.mark.parametrize("transport", ["ws", "http"])
@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_server_transports_replay_the_script(env_id, script, transport, server, references):
    expected = references.get(env_id, script)
    env = gym.make("GenEnv-Remote-v0", url=server[0], env_id=env_id, transport=transport)
    try:
        assert_same(record(env, expected.actions, seed=SEED), expected)
    finally:
        env.close()


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_sync_vector_env_replays_the_script(env_id, script, offline_envs_for_session, references):
    expected = references.get(env_id, script)
    vector = gym.make_vec(env_id, 1, "sync", **offline_envs_for_session.kwargs(env_id))
    try:
        assert_same(record_vector(vector, expected.actions, seed=SEED), expected)
    finally:
        vector.close()


def _async_vector(env_id, script, offline, references):
    expected = references.get(env_id, script)
    # text observations do not fit Gymnasium's shared memory (it keeps a fixed charset): pass them by pipe
    vector = gym.make_vec(env_id, 1, "async", {"shared_memory": False}, **offline.kwargs(env_id))
    try:
        assert_same(record_vector(vector, expected.actions, seed=SEED), expected)
    finally:
        vector.close()


@pytest.mark.parametrize("env_id", ASYNC_SUBSET)
def test_async_vector_env_replays_the_script(env_id, offline_envs_for_session, references):
    for script in SCRIPTS:
        _async_vector(env_id, script, offline_envs_for_session, references)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", [i for i in ALL_IDS if i not in ASYNC_SUBSET])
def test_async_vector_env_replays_the_script_on_every_id(env_id, offline_envs_for_session, references):
    for script in SCRIPTS:
        _async_vector(env_id, script, offline_envs_for_session, references)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_an_unmodified_openenv_client_plays_the_script(env_id, server, references):
    """openenv-core's GenericEnvClient over our /ws: the observation payload carries text, info,
    terminated and truncated; reward and done are OpenEnv's own fields."""
    client_module = pytest.importorskip("openenv.core.generic_client")

    async def play(expected: Transcript) -> Transcript:
        client = client_module.GenericEnvClient(base_url=f"{server[0]}/envs/{env_id}")
        async with client:
            first = await client.reset(seed=SEED)
            steps = []
            for action in expected.actions:
                result = await client.step({"text": action})
                observation = result.observation
                assert result.done == (observation["terminated"] or observation["truncated"])
                steps.append(
                    StepRecord(
                        action,
                        observation["text"],
                        result.reward,
                        observation["terminated"],
                        observation["truncated"],
                        observation["info"],
                    )
                )
            state = await client.state()
            assert state["step_count"] == len(expected.actions) and state["env_id"] == env_id
        return Transcript(first.observation["text"], first.observation["info"], tuple(steps))

    for script in SCRIPTS:
        expected = references.get(env_id, script)
        assert_same(asyncio.run(play(expected)), expected)


def test_reset_options_travel_unchanged(server, offline_envs_for_session):
    """``options={"task_id": ...}`` and ``options={"task": Task}`` pick the same task remotely."""
    env_id = "GenEnv-BFCL-MultiTurn-v0"
    local = offline_envs_for_session.make(env_id)
    task = local.unwrapped.tasks[-1]
    remote = gym.make("GenEnv-Remote-v0", url=server[0], env_id=env_id)
    try:
        for options in ({"task_id": task.id}, {"task": task}):
            obs, info = remote.reset(options=options)
            assert (obs, info) == (lambda o, i: (o, info_to_json(i)))(*local.reset(options=options))
            assert info["task_id"] == task.id
    finally:
        remote.close()
        local.close()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_openenvs_validator_passes_every_required_criterion(env_id, server):
    """``openenv validate --url <server>/envs/<id> --json``: per-id /openapi.json with a version, /health,
    /metadata, /schema, POST /mcp answering JSON-RPC, and the simulation mode's /reset, /step, /state."""
    validation = pytest.importorskip("openenv.cli._validation")
    report = validation.validate_running_environment(f"{server[0]}/envs/{env_id}")
    failed = [c["id"] for c in report["criteria"] if c["required"] and not c["passed"]]
    assert report["passed"] and not failed, failed
    assert report["mode"] == "simulation" and report["summary"]["required_passed_count"] == 6


def tool_form(actions: list[str], domain) -> list[tuple[str, dict | None]]:
    """Each action as ``(text, call)``: an action that makes one call of the domain's call format becomes
    that call (and the text the call format writes for it, which an MCP call plays); any other stays text
    (``call`` None: played through ``act``)."""
    calls_of, action_format = call_format_of(domain.name), getattr(domain, "action_format", None)
    formed = []
    for action in actions:
        calls = calls_of.from_action(action, action_format) or []
        if len(calls) == 1:
            formed.append((calls_of.to_action(calls, action_format), calls[0]))
        else:
            formed.append((action, None))
    return formed


def mcp_play(env_id: str, url: str, script: list[tuple[str, dict | None]]) -> Transcript:
    """``script`` played with OpenEnv's MCPToolClient: each call through its tool, each text through
    ``act``."""
    try:
        installed = Version(importlib.metadata.version("openenv"))
    except importlib.metadata.PackageNotFoundError:  # openenv-core 0.3.0: the same modules, an older client
        installed = None
    if installed is None or installed < Version("0.10.0"):
        pytest.skip("needs openenv 0.10.0's MCPToolClient (the test extra: pip install openenv==0.10.0)")
    mcp_client = pytest.importorskip("openenv.core.mcp_client")

    async def play() -> Transcript:
        async with mcp_client.MCPToolClient(base_url=f"{url}/envs/{env_id}") as client:
            first = (await client.reset(seed=SEED)).observation
            steps = []
            for text, call in script:
                tools = {t.name for t in await client.list_tools(use_cache=False)}  # they may change
                if call is None:
                    data = await client.call_tool("act", text=text)
                else:
                    assert call["name"] in tools, (call["name"], tools)
                    data = await client.call_tool(call["name"], **call["arguments"])
                observation = data["observation"]
                assert data["done"] == (observation["terminated"] or observation["truncated"])
                steps.append(
                    StepRecord(
                        text,
                        observation["text"],
                        data["reward"],
                        observation["terminated"],
                        observation["truncated"],
                        observation["info"],
                    )
                )
            assert (await client.state()).step_count == len(script)
        return Transcript(first.text, first.info, tuple(steps))

    return asyncio.run(play())


#: Ids whose oracle makes single tool calls (some of the others answer in text, or several calls at once).
NAMED_TOOL_IDS = {
    "GenEnv-BFCL-SimplePython-v0",
    "GenEnv-BFCL-MultiTurn-v0",
    "GenEnv-APIBank-v0",
    "GenEnv-Bamboogle-v0",
    "GenEnv-TravelPlanner-Tools-v0",
}


@pytest.mark.parametrize(
    "env_id", [pytest.param(i, marks=() if i in MCP_SUBSET else pytest.mark.slow) for i in ALL_IDS]
)
def test_mcp_tool_client_plays_the_oracle_through_the_episodes_tools(env_id, server, references):
    """The oracle's actions, each single call made through its MCP tool (the rest through ``act``), give
    the transcript that the same calls' action texts give in process."""
    env = references.offline.make(env_id)
    try:
        formed = tool_form(references.get(env_id, "oracle").actions, env.unwrapped.domain)
        expected = record(env, [text for text, _ in formed], seed=SEED)
    finally:
        env.close()
    script = formed[: len(expected.steps)]
    assert_same(mcp_play(env_id, server[0], script), expected)
    through_tools = sum(call is not None for _, call in script)
    reward = sum(s.reward for s in expected.steps)
    print(f"MCP {env_id}: {len(script)} steps, {through_tools} through named tools, return {reward:g}")
    if env_id in NAMED_TOOL_IDS:
        assert through_tools > 0, "no oracle step went through a named tool"
