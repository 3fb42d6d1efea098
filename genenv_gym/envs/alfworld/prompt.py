"""What an ALFWorld agent reads: the instructions, the goal line, and transcripts of an episode so far."""

from __future__ import annotations

from collections.abc import Sequence

SYSTEM_PROMPT = (
    "You are an agent in a household (ALFWorld, a text version of ALFRED). Reach the goal by typing one "
    "command per turn. Commands:\n"
    "  look | inventory | go to {receptacle} | open {receptacle} | close {receptacle}\n"
    "  take {object} from {receptacle} | move {object} to {receptacle}\n"
    "  (put {object} in/on {receptacle} also works)\n"
    "  examine {something} | use {object} | heat {object} with {receptacle}\n"
    "  clean {object} with {receptacle} | cool {object} with {receptacle} | slice {object} with {object}\n"
    'Name things as the game does ("mug 1", "countertop 2"). A command that does not apply gets '
    '"Nothing happens." and still uses a turn.'
)
STEP_INSTRUCTION = "Answer with the single next command only."


def goal_line(goal: str) -> str:
    """``Your task is to: <goal>.`` as the game writes it."""
    return f"Your task is to: {goal}."


def task_messages(goal: str) -> list[dict[str, str]]:
    """The chat a Task carries: the instructions, then the goal."""
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": goal_line(goal)}]


def with_goal(feedback: str, goal: str) -> str:
    """An observation: the engine's text followed by the goal (the intro already ends with it)."""
    line = goal_line(goal)
    return feedback if feedback.rstrip().endswith(line) else f"{feedback}\n\n{line}"


def transcript_messages(intro: str, actions: Sequence[str], feedbacks: Sequence[str]) -> list[dict[str, str]]:
    """An episode so far as chat: the instructions, the intro, then each command and what the game said."""
    messages = [
        {"role": "system", "content": f"{SYSTEM_PROMPT}\n{STEP_INSTRUCTION}"},
        {"role": "user", "content": intro},
    ]
    for action, feedback in zip(actions, feedbacks, strict=True):
        messages.append({"role": "assistant", "content": action})
        messages.append({"role": "user", "content": feedback})
    return messages


def render_transcript(messages: Sequence[dict[str, str]]) -> str:
    """Chat messages as one observation text: game text as is, the agent's commands as ``> command``."""
    parts = []
    for message in messages:
        content = message["content"]
        parts.append(f"> {content}" if message["role"] == "assistant" else content)
    return "\n\n".join(parts)
