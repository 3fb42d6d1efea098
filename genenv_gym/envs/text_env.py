"""What every genenv-gym env shares: text spaces, the ``ansi`` render mode, and one Episode at a time."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym

from genenv_gym.domain import Domain, Episode
from genenv_gym.spaces import UnicodeText
from genenv_gym.task import Task, thaw

#: Longest observation text (characters); BFCL's largest live_multiple prompt is ~60k.
MAX_OBSERVATION_CHARS = 1_000_000
#: Longest action text accepted; longer actions are graded as errors, never parsed.
MAX_ACTION_CHARS = 100_000


def task_info(task: Task, domain: Domain | None = None) -> dict[str, Any]:
    """What every env's ``reset`` puts in ``info`` about the task (its opening chat as ``domain`` opens it;
    the task's messages without one)."""
    return {
        "task_id": task.id,
        "category": task.category,
        "level": task.level,
        "difficulty": thaw(task.difficulty),
        "provenance": task.provenance,
        "messages": domain.opening_chat(task) if domain is not None else thaw(task.messages),
        "tools": thaw(task.tools),
    }


class EpisodeRunner:
    """Gymnasium bookkeeping around one Episode: refuses ``step`` before ``reset`` or after the end."""

    def __init__(self) -> None:
        self.episode: Episode | None = None

    def start(self, episode: Episode) -> None:
        self.episode = episode

    def close(self) -> None:
        """Close the episode in progress (it gives back what it holds, e.g. ALFWorld's engine)."""
        if self.episode is not None:
            self.episode.close()

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        if self.episode.done:
            raise RuntimeError("the episode has ended: call reset() to start a new one")
        if isinstance(action, str) and len(action) > MAX_ACTION_CHARS:
            result = self.episode.invalid_action(
                "action_error:too_long",
                f"action has {len(action)} characters, more than the limit of {MAX_ACTION_CHARS}",
            )
        else:
            result = self.episode.step(action)
        self.episode.observation = result.observation
        return result.observation, result.reward, result.terminated, result.truncated, result.info


class TextEnv(gym.Env):
    """A Gymnasium env whose observations and actions are text and whose episodes are a domain's.

    Subclasses set ``self.domain`` and start each episode with ``self._runner.start(...)``; this class
    declares the ``UnicodeText`` spaces, checks ``render_mode`` (None or ``"ansi"``: ``render()`` returns
    the current observation text), and exposes the episode in progress as ``episode``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    domain: Domain

    def __init__(self, render_mode: str | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        self.task: Task | None = None
        self._runner = EpisodeRunner()

    @property
    def episode(self) -> Episode | None:
        """The episode in progress (None before the first reset)."""
        return self._runner.episode

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._runner.episode.observation if self._runner.episode else ""
        return None

    def close(self) -> None:
        self._runner.close()
        super().close()
