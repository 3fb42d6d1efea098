"""The cached engine says exactly what textworld's own PddlEnv says, game after game, reset after reset."""

import sys

import numpy as np
import pytest
from alfworld_transcript import transcript

from genenv_gym.envs.alfworld.data import discover_games
from genenv_gym.envs.alfworld.planner import plan_in_process

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def games(alfworld_data_dir: str):
    games = discover_games(alfworld_data_dir)
    return [games[0], games[40], games[-1]]  # look_at, clean, pick_two


#: The default run compares the engines on one game (clean, the type with the most games); ``pytest -m slow``
#: on all three.
ONE_GAME = [pytest.param(0, marks=pytest.mark.slow), 1, pytest.param(2, marks=pytest.mark.slow)]


@pytest.mark.parametrize("seed", ONE_GAME)
def test_cached_engine_matches_the_raw_engine(games, seed):
    from genenv_gym.envs.alfworld.engine import AlfredEngine, clear_caches

    clear_caches()
    raw, cached = AlfredEngine(cached=False), AlfredEngine()
    game = games[seed]

    # the raw engine diverges from the walkthrough exactly where the cached one does: same rng draws
    def play(engine):
        return transcript(engine, game.path, game.walkthrough, np.random.default_rng(seed), plan_midway=True)

    expected = play(raw)
    assert play(cached) == expected
    assert play(cached) == expected  # warm caches too
    raw.close()
    cached.close()


def test_engine_keeps_sys_argv_and_plans(games):
    from genenv_gym.envs.alfworld.engine import AlfredEngine

    argv = list(sys.argv)
    engine = AlfredEngine()
    engine.load(games[1].path)
    state = engine.reset()
    assert sys.argv == argv  # textworld's translator overwrites sys.argv; the engine puts it back
    assert not state.won and state.moved
    plan = engine.plan()
    assert len(plan) == len(games[1].walkthrough)
    for command in plan:
        state = engine.step(command)
    assert state.won and sys.argv == argv
    nothing = engine.step("fly away")
    assert nothing.feedback == "Nothing happens." and not nothing.moved
    outcome = plan_in_process(engine, {"pddl_domain": "", "grammar": "", "pddl_problem": ""})
    assert outcome.status == "error" and "engine error" in outcome.reason


#: textworld 1.7.0's functions that ``textgen_fast``, ``pddl_state``, ``game_logic`` and the engine's
#: ``_gather_infos`` re-implement (sha256 of their source, first 16 hex digits).
MIRRORED_UPSTREAM = {
    "textgen.ContextSensitiveGrammar.derive": "65bc95319fadbad0",
    "textgen.ContextSensitiveGrammar.replace": "f27034356235ad2d",
    "textgen.ContextSensitiveGrammar.parse": "f9ef39c61f2d979e",
    "textgen.ConditionalSymbol.derive": "38000cd89a5e899a",
    "textgen.ListSymbol.derive": "3817456fa2f7ef30",
    "textgen.EvalSymbol.derive": "ece4891c1afc0c3f",
    "textgen.query": "f7fc025a1b1690b3",
    "textgen.display_list": "9cdfcaa27a00d481",
    "pddl.PddlEnv._gather_infos": "18e60b8a5a6c86c9",
    "pddl.PddlEnv.reset": "a80cae96e20a3b86",
    "logic.PddlState.__init__": "e94c2d7361e302c7",
    "logic.GameLogic.__init__": "8eb1547d426d3913",
    "logic._ModelConverter.walk_PddlDocumentNode": "3725711b5e749b44",
    "textworld.logic.State._all_applicable_assignments": "91b8f7e76f9ffa85",
}


def test_the_engine_is_the_pinned_one_our_fast_paths_mirror(alfworld_data_dir):
    """A textworld upgrade must fail here first: the fast paths copy its 1.7.0 semantics."""
    import hashlib
    import importlib.metadata
    import inspect

    import textworld.logic
    from textworld.envs.pddl import logic, pddl, textgen

    assert importlib.metadata.version("textworld") == "1.7.0"
    assert importlib.metadata.version("alfworld") == "0.4.2"
    scope = {"textgen": textgen, "pddl": pddl, "logic": logic, "textworld": textworld}
    for name, digest in MIRRORED_UPSTREAM.items():
        head, *rest = name.split(".")
        obj = scope[head]
        for part in rest:
            obj = getattr(obj, part)
        source = hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()[:16]
        assert source == digest, f"{name} changed upstream: re-check genenv_gym/envs/alfworld's fast paths"


def raw_alfworld_env(game_file: str):
    """The gym env ALFWorld's own loader builds for one game, on the unchanged engine."""
    import textworld
    import textworld.gym
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos

    infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
    wrappers = [AlfredDemangler(shuffle=False), AlfredInfos]
    env_id = textworld.gym.register_games([game_file], infos, max_episode_steps=50, wrappers=wrappers)
    return textworld.gym.make(env_id)


@pytest.mark.parametrize("index", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_random_trajectories_match_the_raw_alfworld_env_step_by_step(games, alfworld_data_dir, index):
    import gymnasium as gym

    import genenv_gym  # noqa: F401

    ours = gym.make("GenEnv-ALFWorld-v0", data_dir=alfworld_data_dir)
    rng = np.random.default_rng(7)
    compared = 0
    for game in games[index : index + 1]:
        raw = raw_alfworld_env(str(game.path))
        raw_text, raw_info = raw.reset()
        ours.reset(options={"game": game.id})
        state = ours.unwrapped.episode.engine.state
        assert state.feedback == raw_text
        admissible = list(state.admissible_commands)
        assert admissible == raw_info["admissible_commands"]
        for _ in range(20):
            command = str(rng.choice(admissible))
            raw_text, score, _, raw_info = raw.step(command)
            _, reward, terminated, _, info = ours.step(command)
            assert info["feedback"] == raw_text
            assert info["admissible_commands"] == raw_info["admissible_commands"]
            assert (reward, info["won"]) == (float(score), bool(raw_info["won"]))
            admissible, compared = info["admissible_commands"], compared + 1
            if terminated:
                break
        raw.close()
    ours.close()
    assert compared >= 10


def derivation(derive, grammar, start, context):
    """What a derivation gives: its text, or the type of the error it raises."""
    try:
        return derive(grammar, start, context)
    except Exception as error:
        return type(error).__name__


def test_fast_text_generation_matches_textgen_on_every_rule_and_binding(games):
    from textworld.envs.pddl import textgen

    from genenv_gym.envs.alfworld import textgen_fast
    from genenv_gym.envs.alfworld.engine import AlfredEngine

    engine, game = AlfredEngine(), games[1]
    engine.load(game.path)
    engine.reset()
    for command in game.walkthrough[:3]:  # holding something, somewhere: non-empty lists
        engine.step(command)
    backend = engine._backend
    grammar, infos, pddl_state = backend._logic.grammar, backend._entity_infos, backend._pddl_state
    starts = [f"#{name}#" for name in grammar._rules] + [
        "#no_such_rule#",  # unknown symbol
        "{nobody.name}",  # unbound variable
        "[{o.name | inreceptacle(o:object, r:receptacle)}] and [{r.name | atlocation(a:agent, l:location)}]",
        "[{#overview(o)# | holds(a:agent, o:object)}]",
    ]
    actions = backend.state["_valid_actions"]
    for action in actions[:: max(1, len(actions) // 4)]:
        context = {
            "state": pddl_state,
            "facts": list(pddl_state.facts),
            "variables": {ph.name: infos[var.name] for ph, var in action.mapping.items()},
            "mapping": action.mapping,
            "entity_infos": infos,
        }
        for start in starts:
            expected = derivation(textgen.ContextSensitiveGrammar.derive, grammar, start, context)
            assert derivation(textgen_fast.derive, grammar, start, context) == expected, start
    engine.close()
