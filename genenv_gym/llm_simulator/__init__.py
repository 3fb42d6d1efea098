"""The LLM simulator: an environment LLM writes validated tasks at the agent's skill (see ``simulator``).

``TaskWriter`` (per domain: prompt, strict-JSON parser, fingerprint) and its registry live in ``writer``;
the text screen in ``screening`` (built from ``characters``, ``instructions``, ``language``), duplicates in
``duplicates``, the off-task screen by meaning in ``offtask`` (over ``sentences``), the judge model in
``judge``.
"""

from genenv_gym.llm_simulator.judge import ReadingJudge
from genenv_gym.llm_simulator.offtask import OffTaskScreen
from genenv_gym.llm_simulator.screening import Deduplicator, screen_texts, unsafe_reasons
from genenv_gym.llm_simulator.simulator import GenerationRecord, LLMSimulator, LLMSimulatorStats
from genenv_gym.llm_simulator.writer import (
    TASK_WRITERS,
    Target,
    TaskRejected,
    TaskWriter,
    get_task_writer,
    strict_json_object,
)

__all__ = [
    "TASK_WRITERS",
    "Deduplicator",
    "GenerationRecord",
    "LLMSimulator",
    "LLMSimulatorStats",
    "OffTaskScreen",
    "ReadingJudge",
    "Target",
    "TaskRejected",
    "TaskWriter",
    "get_task_writer",
    "screen_texts",
    "strict_json_object",
    "unsafe_reasons",
]
