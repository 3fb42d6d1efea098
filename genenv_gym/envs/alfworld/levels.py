"""ALFWorld difficulty: four knobs (task type, sub-goals, distractors, plan steps) and the level they make.

The same features are computed for benchmark games (plan steps = the length of their expert walkthrough) and
for generated goals (the planner's plan), so levels mean the same thing on both.
"""

from __future__ import annotations

from typing import Any

from genenv_gym.envs.alfworld.task_types import task_type

NUM_LEVELS = 6
#: Scenes with more distractor receptacles than this make search one step harder.
MANY_DISTRACTORS = 20


def difficulty_score(sub_goals: int, distractors: int, plan_steps: int) -> int:
    """Plan steps, plus one per sub-goal beyond two, plus one in a scene with many distractors."""
    return plan_steps + max(0, sub_goals - 2) + int(distractors > MANY_DISTRACTORS)


def level_of(score: int) -> int:
    """Score 4 or less is level 0, 5 is 1, ..., 9 or more is level 5."""
    return min(NUM_LEVELS - 1, max(0, score - 4))


def difficulty_features(task_type_name: str, distractors: int, plan_steps: int) -> dict[str, Any]:
    """The difficulty record of a Task: the knobs and the level."""
    sub_goals = task_type(task_type_name).sub_goals
    score = difficulty_score(sub_goals, distractors, plan_steps)
    return {
        "task_type": task_type_name,
        "sub_goals": sub_goals,
        "distractors": distractors,
        "plan_steps": plan_steps,
        "score": score,
        "level": level_of(score),
    }
