"""The API-Bank domains: API-call samples (official or corrected verdicts) and response samples (ROUGE-L)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from genenv_gym.domain import Domain, Verdict, oracle_transcript, replay_transcript
from genenv_gym.envs.apibank import data
from genenv_gym.envs.apibank.corrected import RENAMED, score_corrected
from genenv_gym.envs.apibank.dialogue import DialogueEpisode, opening_messages
from genenv_gym.envs.apibank.extraction import render_gold_call
from genenv_gym.envs.apibank.generator import NUM_LEVELS, build, config_for_level, knobs
from genenv_gym.envs.apibank.known_defects import OFFICIAL_GOLD_FAILURES
from genenv_gym.envs.apibank.official import score_api_call
from genenv_gym.envs.apibank.prompt import API_CALL_PROMPT, RESPONSE_PROMPT, build_messages, render_messages
from genenv_gym.envs.apibank.rouge_score import rouge_l
from genenv_gym.envs.apibank.signatures import SIGNATURES
from genenv_gym.envs.apibank.world import World, output_json
from genenv_gym.suggest import check_choice
from genenv_gym.task import Task, thaw

LEVELS = tuple(data.LEVEL_FOLDERS)
_WORDS = ("today", "please", "meeting", "token", "account", "2023-03-31", "alarm", "yes", "done", "the")


class _APIBankBase(Domain):
    """What both API-Bank domains share: data location, task construction and rendering."""

    num_levels = NUM_LEVELS
    kind = ""

    def __init__(self) -> None:
        self._data_dir: str | None = None

    def categories(self) -> tuple[str, ...]:
        return LEVELS

    def _fixtures_dir(self) -> str:
        from genenv_gym.fixtures import FIXTURES_DIR

        return str(FIXTURES_DIR)

    def world(self) -> World:
        """A fresh World over the init databases of the loaded data (the fixtures before any load)."""
        root = self._data_dir or self._fixtures_dir()
        return World(data.init_databases(root), data.recordings(root))

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        levels = tuple(categories) if categories else LEVELS
        samples = data.load_samples(levels, data_dir)
        self._data_dir = data_dir if data_dir is not None else str(data.data_root(None))
        return [self.sample_task(s) for s in samples if s.kind == self.kind]

    def sample_task(self, sample: data.Sample) -> Task:
        """One official sample as a Task."""
        apis = sample.apis
        if self.kind == "api" and sample.level == "level-2":
            apis = ("ToolSearcher",)
        return self.make_task(
            sample.task_id,
            sample.history,
            sample.ground_truth,
            apis,
            evaluation={"file": sample.file, "sample_index": sample.index},
            difficulty={"level": 0},
            provenance=f"benchmark:apibank/{data.LEVEL_FOLDERS[sample.level]}",
            category=sample.level,
        )

    def make_task(
        self,
        task_id: str,
        history: Sequence[Mapping[str, Any]],
        truth: Mapping[str, Any],
        apis: Sequence[str],
        evaluation: Mapping[str, Any],
        difficulty: Mapping[str, Any],
        provenance: str,
        category: str,
    ) -> Task:
        """A Task from a dialogue prefix, the turn to produce and the APIs the prompt describes."""
        instruction = API_CALL_PROMPT if self.kind == "api" else RESPONSE_PROMPT
        earlier = [
            {"api_name": t["api_name"], "param_dict": t["param_dict"]} for t in history if t["role"] == "API"
        ]
        return Task(
            id=task_id,
            domain=self.name,
            messages=build_messages(instruction, apis, history),
            tools=[SIGNATURES[n].describe() for n in apis if n in SIGNATURES],
            evaluation={"ground_truth": truth, "earlier_api_turns": earlier, **evaluation},
            difficulty={"history_turns": len(history), **difficulty},
            provenance=provenance,
            category=category,
        )

    def render(self, task: Task) -> str:
        return render_messages(task.messages)

    def validate(self, task: Task) -> list[str]:
        problems = []
        if task.domain != self.name:
            problems.append(f"task domain {task.domain!r} is not {self.name!r}")
        truth = task.evaluation.get("ground_truth")
        if not isinstance(truth, Mapping) or "role" not in truth:
            problems.append("evaluation.ground_truth must be a dialogue turn with a role")
        elif self.kind == "api" and truth.get("api_name") not in SIGNATURES:
            problems.append(f"unknown API {truth.get('api_name')!r}")
        elif not problems and not self.verify(task, self.oracle_action(task)).success:
            problems.append("the reference answer does not pass the verifier")
        return problems

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        if self.kind != "api":
            raise ValueError("API-Bank generates API-call tasks only: use the apibank domain")
        config = config_for_level(level)
        problems: list[str] = []
        for _ in range(20):
            try:
                built = build(config, self.world(), rng)
            except ValueError as error:
                problems = [str(error)]
                continue
            task = self.make_task(
                f"apibank-gen/L{level}/{int(rng.integers(1 << 62)):016x}",
                built["history"],
                built["truth"],
                built["apis"],
                evaluation={"scoring": "corrected", "history": built["history"]},
                difficulty={"level": level, **knobs(config)},
                provenance="procedural",
                category="level-2" if config.retrieval else "level-1",
            )
            problems = self.validate(task)
            if not problems:
                return task
        raise RuntimeError(f"could not generate a valid API-Bank task at level {level}: {problems}")


SCORINGS = ("official", "corrected")


class APIBankDomain(_APIBankBase):
    """API-call samples graded by the official evaluator's rules, or by the corrected ones.

    ``scoring="official"`` (default) is bug-compatible with ``evaluator.py``; ``scoring="corrected"``
    carries state across the dialogue, types parameters and fixes the stale names and rules
    (see :mod:`genenv_gym.envs.apibank.corrected`).
    """

    name = "apibank"
    kind = "api"

    def __init__(self, scoring: str = "official") -> None:
        super().__init__()
        check_choice("scoring", scoring, SCORINGS)
        self.scoring = scoring

    def verify(self, task: Task, action: str) -> Verdict:
        if not isinstance(action, str):
            return Verdict(
                0.0, False, "action_error:not_text", f"the action must be text, got {type(action).__name__}"
            )
        truth = thaw(task.evaluation["ground_truth"])
        if task.evaluation.get("scoring", self.scoring) == "official":
            verdict = score_api_call(self.world(), truth, action)
        else:
            earlier = thaw(task.evaluation.get("earlier_api_turns", []))
            verdict = score_corrected(self.world(), earlier, truth, action)
        details = {
            "api_name": verdict.api_name,
            "api_output": output_json(verdict.result.get("output")) if verdict.result else None,
            "api_exception": verdict.result.get("exception") if verdict.result else None,
            "metrics": {
                "correct": float(verdict.correct),
                "api_name_correct": float(verdict.api_name == truth["api_name"]),
                f"correct@{task.category}": float(verdict.correct),
                f"correct[{truth['api_name']}]": float(verdict.correct),
            },
        }
        return Verdict(float(verdict.correct), verdict.correct, verdict.bucket, verdict.error, details)

    def oracle_action(self, task: Task) -> str:
        truth = task.evaluation["ground_truth"]
        params = thaw(truth["param_dict"])
        if task.evaluation.get("scoring", self.scoring) == "corrected":
            params = {RENAMED.get((truth["api_name"], k), k): v for k, v in params.items()}
        return render_gold_call(truth["api_name"], params)

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        names = [t["name"] for t in task.tools] or list(SIGNATURES)
        signature = SIGNATURES[names[int(rng.integers(len(names)))]]
        params = {
            p.name: _WORDS[int(rng.integers(len(_WORDS)))] for p in signature.params if rng.random() < 0.8
        }
        return render_gold_call(signature.name, params)

    def reference_failures(self) -> Mapping[str, str]:
        return OFFICIAL_GOLD_FAILURES if self.scoring == "official" else {}

    def summarize(self, accuracy: Mapping[str, float], counts: Mapping[str, int]) -> dict[str, float]:
        return {f"{level} API-call accuracy": accuracy[level] for level in LEVELS if level in accuracy}

    def summarize_metrics(self, metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """Accuracy by level (``correct@level-1``) and by API (``correct[AddAlarm]``), over the episodes."""
        groups: dict[str, list[float]] = {}
        for episode in metrics:
            for key, value in episode.items():
                if key.startswith("correct@"):
                    groups.setdefault(f"{key[len('correct@') :]} API-call accuracy", []).append(value)
                elif key.startswith("correct["):
                    groups.setdefault(f"accuracy {key[len('correct') :]}", []).append(value)
        return {name: float(np.mean(values)) for name, values in sorted(groups.items())}


class APIBankResponseDomain(_APIBankBase):
    """Response samples (the AI turn after an API result), graded by ROUGE-L F1 as officially."""

    name = "apibank_response"
    kind = "response"

    def verify(self, task: Task, action: str) -> Verdict:
        if not isinstance(action, str):
            return Verdict(
                0.0, False, "action_error:not_text", f"the action must be text, got {type(action).__name__}"
            )
        score, error = rouge_l(task.evaluation["ground_truth"]["text"], action)
        error_type = None if error is None else "rouge_error"
        return Verdict(score, score >= 0.5, error_type, error, {"metrics": {"rouge_l": score}})

    def oracle_action(self, task: Task) -> str:
        return task.evaluation["ground_truth"]["text"]

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        return " ".join(_WORDS[int(rng.integers(len(_WORDS)))] for _ in range(int(rng.integers(3, 12))))

    def summarize_metrics(self, metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        scores = [m["rouge_l"] for m in metrics if "rouge_l" in m]
        return {"ROUGE-L": float(np.mean(scores))} if scores else {}


class APIBankDialogueDomain(_APIBankBase):
    """Whole recorded dialogues, played turn by turn by the agent (see :mod:`.dialogue`).

    ``verify(task, action)`` grades a whole transcript: ``action`` is a JSON list of the agent's actions,
    played in order on a fresh episode.
    """

    name = "apibank_dialogue"
    kind = "dialogue"

    def __init__(self, max_steps: int | None = None) -> None:
        super().__init__()
        self.max_steps = max_steps

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        levels = tuple(categories) if categories else LEVELS
        dialogues = data.load_dialogues(levels, data_dir)
        self._data_dir = data_dir if data_dir is not None else str(data.data_root(None))
        return [self.dialogue_task(level, name, turns) for level, name, turns in dialogues]

    def dialogue_task(self, level: str, file: str, turns: list[dict]) -> Task:
        """One dialogue as a Task (its recorded turns, the APIs it uses)."""
        apis = data.dialogue_apis(turns)
        shown = ("ToolSearcher",) if level == "level-2" else apis
        return Task(
            id=f"{data.LEVEL_FOLDERS[level]}/{file}",
            domain=self.name,
            messages=opening_messages(turns, shown),
            tools=[SIGNATURES[n].describe() for n in shown if n in SIGNATURES],
            evaluation={"turns": turns, "apis": list(shown)},
            difficulty={"level": 0, "api_turns": sum(t["role"] == "API" for t in turns)},
            provenance=f"benchmark:apibank/{data.LEVEL_FOLDERS[level]}",
            category=level,
        )

    def start_episode(self, task: Task) -> DialogueEpisode:
        non_user = sum(t["role"] != "User" for t in task.evaluation["turns"])
        return DialogueEpisode(task, self.world(), self.max_steps or 2 * non_user + 4)

    def verify(self, task: Task, action: str) -> Verdict:
        unfinished = Verdict(0.0, False, "effects_missing", "the transcript ended before the dialogue did")
        return replay_transcript(self.start_episode(task), action, unfinished)

    def oracle_action(self, task: Task) -> str:
        return oracle_transcript(self.start_episode(task))

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        return json.dumps([self.start_episode(task).random_action(rng)])

    def summarize_metrics(self, metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        reached = [m["effects_reached"] for m in metrics if "effects_reached" in m]
        return {"API effects reached": float(np.mean(reached))} if reached else {}
