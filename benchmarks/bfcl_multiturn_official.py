"""Running official bfcl-eval code beside ours, shared by the ``bfcl_multiturn_*_crosscheck.py`` scripts:
import an official backend from an unpacked wheel, read the real configs, put ours on the official
long-context filler, compare the two backends on the same seeded call sequences (``SequenceCheck``), play
a model's call strings through the official execution loop and ours and compare every result string
(``differing_results``: module calls, positional arguments and broken strings included), and the
scripts' command line (``run_cli``)."""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from genenv_gym.envs.bfcl_multiturn.calls import make_instances, parse_model_call, run_call
from genenv_gym.envs.bfcl_multiturn.executor import format_result
from genenv_gym.envs.bfcl_multiturn.long_context import load_official_filler, reset_filler

#: The data root next to the repository (holding ``bfcl/``).
DATA_ROOT = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
DEFAULT_DATA = DATA_ROOT / "bfcl"
#: Where an unpacked wheel keeps the official backends and their ``long_context.py`` filler.
FUNC_SOURCE = Path("bfcl_eval/eval_checker/multi_turn_eval/func_source_code")

#: Builds, for one config, the function that draws the next call: ``(rng, ours) -> (name, kwargs)``.
CallMaker = Callable[[dict], Callable[[random.Random, object], tuple[str, dict]]]


def load_official(path: str) -> ModuleType:
    """Import an official backend module as ``official_<file stem>`` (its wheel root goes on sys.path for
    its imports)."""
    source = Path(path).resolve()
    sys.path.insert(0, str(source.parents[len(FUNC_SOURCE.parts)]))
    spec = importlib.util.spec_from_file_location(f"official_{source.stem}", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def official_filler(path: Path) -> Iterator[None]:
    """Ours runs on the official long-context filler (a wheel's ``long_context.py``) inside the block."""
    load_official_filler(path)
    try:
        yield
    finally:
        reset_filler()


def real_configs(data_dir: Path, cls: str) -> list[dict]:
    """Every distinct ``initial_config[cls]`` of the multi-turn files in ``data_dir``."""
    seen: dict[str, dict] = {}
    for path in sorted(data_dir.glob("BFCL_v4_multi_turn_*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                config = json.loads(line).get("initial_config", {}).get(cls)
                if config is not None:
                    seen.setdefault(json.dumps(config, sort_keys=True), config)
    return list(seen.values())


def official_executor(root: Path) -> tuple[Callable[..., tuple[list[str], dict]], dict[str, Any]]:
    """The official ``execute_multi_turn_func_call`` of an unpacked wheel, and its module's globals (where
    it caches the instances)."""
    sys.path.insert(0, str(root))
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    return multi_turn_utils.execute_multi_turn_func_call, vars(multi_turn_utils)


def differing_results(
    execute: Callable[..., tuple[list[str], dict]],
    namespace: dict[str, Any],
    model_name: str,
    playback: tuple[dict, list[str], str, bool],
    steps_per_turn: Sequence[Sequence[Sequence[str]]],
) -> list[tuple[str, str, str]]:
    """(call, official result, ours) for every call string whose recorded results differ, the calls played
    step by step through the official loop (``execute``, instances cached under ``model_name``) and through
    ours (``run_call`` on ``parse_model_call``); ``playback`` is (initial_config, involved_classes, entry id,
    long_context). The official instance cache is emptied afterwards."""
    config, classes, entry_id, long = playback
    instances = make_instances(classes, config, long)
    differing = []
    try:
        for steps in steps_per_turn:
            for step in steps:
                theirs, _ = execute(
                    list(step), config, classes, model_name, entry_id, long_context=long, is_evaL_run=True
                )
                ours = [run_call(instances, parse_model_call(call)) for call in step]
                differing += [(c, a, b) for c, a, b in zip(step, theirs, ours, strict=True) if a != b]
    finally:
        for name in [n for n in namespace if n.startswith(f"{model_name}_eval_")]:
            del namespace[name]
    return differing


def render(api: object, name: str, kwargs: dict) -> str:
    """A call's result as the official loop renders it."""
    try:
        return format_result(getattr(api, name)(**kwargs))
    except Exception as e:
        return f"Error during execution: {e}"


def attribute_diff(attributes: Sequence[str]) -> Callable[[object, object], list[str]]:
    """A state comparison: the names of ``attributes`` whose values differ between the two backends."""
    return lambda official, ours: [a for a in attributes if getattr(official, a) != getattr(ours, a)]


def rng_only(random_call: Callable[[random.Random], tuple[str, dict]]) -> CallMaker:
    """The CallMaker of calls drawn from the rng alone (not from the config or the backend's state)."""
    return lambda config: lambda rng, ours: random_call(rng)


def run_cli(main: Callable[..., int], max_args: int) -> NoReturn:
    """Call ``main`` with the command line's arguments (the first required, at most ``max_args``) and exit 1
    when it counts a mismatch; ``-h`` / ``--help`` print the script's docstring."""
    args = sys.argv[1 : 1 + max_args]
    if not args or args[0] in ("-h", "--help"):
        print(sys.modules["__main__"].__doc__, file=sys.stdout if args else sys.stderr)
        sys.exit(0 if args else 2)
    sys.exit(1 if main(*args) else 0)


@dataclass(frozen=True)
class SequenceCheck:
    """One backend's cross-check: ``sequences`` seeded sequences of ``length`` calls on the official class
    and ``ours`` (same name), each backend loading the same config and getting its own copy of each call's
    arguments; after every call the rendered results (the official one through ``normalise``) and the
    state (``state_diff``, default: ``ours.STATE_ATTRIBUTES``) must be equal.

    Configs, cycled by sequence: with ``real_configs`` the data dir's ``initial_config``s of the class,
    then ``configs``; with ``default_every`` every n-th sequence loads the default state instead. With
    ``long_context`` odd sequences run in long-context mode, ours on the official filler. With
    ``public_attributes`` the official instance's public attributes must be exactly
    ``ours.STATE_ATTRIBUTES``. ``pristine_globals`` are official module globals restored before every
    sequence (the official class mutates them)."""

    ours: type
    call_maker: CallMaker
    configs: Sequence[dict] = ()
    real_configs: bool = False
    default_every: int = 0
    long_context: bool = False
    state_diff: Callable[[object, object], list[str]] | None = None
    public_attributes: bool = False
    normalise: Callable[[str], str] = str
    pristine_globals: Sequence[str] = ()
    sequences: int = 400
    length: int = 30

    def cli(self) -> NoReturn:
        """The script's command line: ``OFFICIAL_FILE`` (and ``[BFCL_DATA_DIR]`` with real configs)."""
        run_cli(self.run, 2 if self.real_configs else 1)

    def run(self, path: str, data_dir: str | None = None) -> int:
        """Compare the official class of the file at ``path`` with ours; print the mismatches and a summary
        line, and return their count."""
        module = load_official(path)
        pristine = {name: copy.deepcopy(getattr(module, name)) for name in self.pristine_globals}
        configs = [*self.configs]
        if self.real_configs:
            configs[:0] = real_configs(Path(data_dir) if data_dir else DEFAULT_DATA, self.ours.__name__)

        def restore_globals() -> None:
            for name, value in pristine.items():
                setattr(module, name, copy.deepcopy(value))

        filler = Path(path).with_name("long_context.py")
        with official_filler(filler) if self.long_context else nullcontext():
            bad = self._compare(getattr(module, self.ours.__name__), configs, restore_globals)
        where = ""
        if self.real_configs:
            where = f" on {len(configs)} {'' if self.configs else 'real '}configs"
        print(f"{self.sequences} sequences x {self.length} calls{where}: {bad} mismatches")
        return bad

    def _compare(self, official_class: type, configs: list[dict], before_sequence: Callable[[], None]) -> int:
        """Play the sequences on both backends; print every difference and return their count."""
        state_diff = self.state_diff or attribute_diff(self.ours.STATE_ATTRIBUTES)
        bad = 0
        for seed in range(self.sequences):
            before_sequence()
            rng = random.Random(seed)
            default = self.default_every and seed % self.default_every == 0
            config = {} if default else configs[seed % len(configs)]
            long_context = self.long_context and seed % 2 == 1
            official, ours = official_class(), self.ours()
            official._load_scenario(copy.deepcopy(config), long_context=long_context)
            ours._load_scenario(config, long_context=long_context)
            next_call = self.call_maker(config)
            for step in range(self.length):
                name, kwargs = next_call(rng, ours)
                a = self.normalise(render(official, name, copy.deepcopy(kwargs)))
                b = render(ours, name, copy.deepcopy(kwargs))
                if a != b:
                    bad += 1
                    print(f"seed {seed} step {step} MISMATCH {name}({kwargs}): {a[:200]!r} vs {b[:200]!r}")
                for what in state_diff(official, ours):
                    bad += 1
                    print(f"seed {seed} step {step} STATE MISMATCH {what} after {name}({kwargs})")
            public = {k for k in vars(official) if not k.startswith("_")}
            if self.public_attributes and public != set(self.ours.STATE_ATTRIBUTES):
                bad += 1
                print("public attributes differ from STATE_ATTRIBUTES")
        return bad
