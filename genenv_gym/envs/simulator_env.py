"""``GenEnv-Sim-<Domain>-v0``: the generative simulator as an environment."""

from __future__ import annotations

import warnings
from collections import deque
from dataclasses import asdict
from typing import Any

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.domain import Domain
from genenv_gym.envs.text_env import TextEnv, task_info
from genenv_gym.samplers import SAMPLERS, build_standalone, standalone_names
from genenv_gym.simulator import Outcome, ProceduralSimulator, Simulator
from genenv_gym.skill import SkillEstimate, SkillTracker
from genenv_gym.suggest import unknown_choice
from genenv_gym.task import Task

#: The procedural simulator's ``neighbour_prob`` in this env. It learns from each task's ``attempts``
#: outcomes alone, and an agent it has settled on still lands 2 of 4 often enough (at a 75%
#: success, 21% of its tasks) to keep it there: without proposals one level away it does not follow an
#: improving agent.
NEIGHBOUR_PROB = 0.4


class SimulatorEnv(TextEnv):
    """Tasks written by an environment policy at the agent's current skill, on the domain's own verifier.

    ## Description
    ``reset()`` serves a task proposed by the simulator (the environment policy). Each proposed task is
    served for ``curriculum.attempts`` consecutive episodes (default 4); the agent's successes on them
    give the task's empirical success ``p``. Then the simulator is updated with the outcome: its
    alpha-curriculum reward ``R_env(p) = exp(-beta (p - alpha)^2)``, and a reward-weighted regression
    step on the outcomes inside the band ``|p - alpha| <= k_min``. Over episodes the simulator settles
    on tasks the agent solves about ``alpha`` of the time, and follows the agent as it improves. Any RL
    library that only knows ``reset``/``step`` gets this curriculum without knowing about it.

    ## Observation and action spaces
    As the domain's benchmark env: ``UnicodeText`` prompt, ``UnicodeText`` answer. Generated tasks are
    graded by the same verifier as benchmark tasks.

    ## Rewards
    The domain's official metric on the served task (1.0 / 0.0 for single-turn domains).

    ## Episode end
    As the domain's benchmark env (one step for single-turn domains).

    ## Info
    ``reset``: the task (``task_id``, ``category``, ``level``, ``difficulty``, ``messages``, ``tools``),
    ``attempt`` (0-based index of this attempt at the task). ``step``, once the episode ends: the
    verdict (``success``, ``error_type``, ``error``), ``p`` (the task's running success over its
    attempts so far), ``alpha_reward`` (``R_env(p)`` of that running ``p``), ``level``; after the last
    attempt also ``in_band`` and ``sim_update`` (the update's statistics).

    ## Arguments
    - ``domain``: a domain name (``"bfcl"``) or a Domain instance; ``domain_kwargs`` configure it.
    - ``simulator``: ``"procedural"`` (default), ``"llm"`` (an environment LLM writes the tasks:
      ``simulator_kwargs={"backend": "hf:PATH" | "openai:MODEL@URL" | ...}``, see docs/llm_stack.md) or a
      Simulator instance; ``simulator_kwargs`` configure the named one (the procedural one draws
      ``neighbour_prob`` = 0.4 of its tasks one level away from its sampled level, so it follows an
      improving agent; ``{"neighbour_prob": 0.0}`` turns that off). The trainer's samplers that need no
      trainer run here too (``genenv_gym.samplers.STANDALONE``): ``"soft-alpha-rwr"`` (the procedural
      policy without the band filter), ``"learnability"``, ``"learnability-task"``, ``"uniform"``. The
      default is the paper's rule, for reproducing it; on this project's evidence (docs/experiments/) no
      sampler has taught an agent more per sample than ``"uniform"``, and the paper's rule lost to it in
      design 4.
    - ``curriculum``: a CurriculumConfig or a dict of its fields (alpha, beta, k_min, attempts, rwr_lambda);
      the env keeps it as ``curriculum_config``.
    - ``batch_size``: tasks proposed per refill of the queue.
    - ``skill_decay``: forgetting factor of the agent's skill tracker.

    ``reset(seed=s)`` clears the queue of proposals, so the same seed gives the same task for the same
    simulator state (the simulator keeps what it has learned). An episode that ``reset`` cuts short after
    it took steps (a ``TimeLimit`` wrapper truncated it, or it was abandoned) counts as a failed attempt:
    the curriculum never stalls on a task the agent cannot finish in time.
    ``reset(options={"task": Task})`` serves a given task once, outside the curriculum.

    ``join_curriculum(service)`` makes the env propose from and record into a curriculum that other envs
    share (``genenv_gym.curriculum_service``: a ``CurriculumService``, a named Ray actor, or the curriculum
    ``genenv serve`` hosts): each of its proposals is served ``group_size`` times and every episode is
    recorded there; the env's own simulator and tracker then stand idle. A proposal left before its group is
    complete (a seeded reset, a given task) is discarded there: its group no longer waits for outcomes.

    ## Version history
    - v0: initial version (the procedural simulator by default, each task served ``attempts`` = 4 times, RWR
      on the alpha-curriculum reward with alpha 0.5)
    """

    def __init__(
        self,
        domain: str | Domain = "bfcl",
        simulator: str | Simulator = "procedural",
        curriculum: CurriculumConfig | dict | None = None,
        batch_size: int = 8,
        skill_decay: float = 0.95,
        domain_kwargs: dict[str, Any] | None = None,
        simulator_kwargs: dict[str, Any] | None = None,
        render_mode: str | None = None,
    ) -> None:
        from genenv_gym.registry.registration import make_domain

        super().__init__(render_mode)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.domain = make_domain(domain, **(domain_kwargs or {})) if isinstance(domain, str) else domain
        if isinstance(curriculum, dict):
            curriculum = CurriculumConfig(**curriculum)
        self.curriculum_config = curriculum or CurriculumConfig()
        if simulator == "procedural":
            procedural = {"neighbour_prob": NEIGHBOUR_PROB, **(simulator_kwargs or {})}
            simulator = ProceduralSimulator(self.domain, self.curriculum_config, **procedural)
        elif simulator == "llm":
            # an environment LLM writes the tasks: simulator_kwargs={"backend": "<spec>", ...}
            from genenv_gym.llm_simulator import LLMSimulator

            llm_kwargs = dict(simulator_kwargs or {})
            if "backend" not in llm_kwargs:
                raise ValueError(
                    "simulator='llm' needs simulator_kwargs={'backend': 'hf:PATH' | 'openai:MODEL@URL' | ...}"
                )
            simulator = LLMSimulator(self.domain, curriculum=self.curriculum_config, **llm_kwargs)
        elif isinstance(simulator, str):  # a sampler of the table that needs no trainer (genenv_gym/samplers)
            if simulator not in SAMPLERS:
                choices = ["procedural", "llm", *standalone_names()]
                raise ValueError(f"{unknown_choice('simulator', simulator, choices)} or a Simulator")
            settings = dict(simulator_kwargs or {})
            if "neighbour_prob" in SAMPLERS[simulator].settings:  # on the procedural policy: follow the agent
                settings = {"neighbour_prob": NEIGHBOUR_PROB, **settings}
            simulator = build_standalone(simulator, self.domain, self.curriculum_config, **settings)
        self.simulator: Simulator = simulator
        self.tracker = SkillTracker(self.domain.num_levels, self.curriculum_config.alpha, skill_decay)
        self.batch_size = batch_size
        self._queue: deque[tuple[Task, SkillEstimate | None, str | None]] = deque()
        self._context: SkillEstimate | None = None
        self._proposal_id: str | None = None
        self._shared: Any = None
        self._group_size = self.curriculum_config.attempts
        self._in_curriculum = False
        self._attempts = 0
        self._successes = 0
        self._open = False  # the episode has taken steps and has not ended through this env's own step

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        if self._open and self._in_curriculum:
            # The last episode was cut short outside this env (a TimeLimit wrapper, an abandoned episode):
            # it counts as a failed attempt, so the task's attempts still end and the curriculum moves on.
            self._record(False, {})
        if seed is not None or "task" in options:
            self._abandon()
        if seed is not None:
            self._queue.clear()
            self.task = None
        if "task" in options:
            self._serve(options["task"], context=None, in_curriculum=False)
        elif self.task is None or not self._in_curriculum or self._attempts >= self._group_size:
            if not self._queue:
                self._queue.extend(self._propose())
            task, context, self._proposal_id = self._queue.popleft()
            self._serve(task, context, in_curriculum=True)
        self._open = False
        self._runner.close()
        self._runner.start(self.domain.start_episode(self.task))
        info = task_info(self.task, self.domain)
        info["attempt"] = self._attempts
        return self._runner.episode.observation, info

    def _propose(self) -> list[tuple[Task, SkillEstimate | None, str | None]]:
        if self._shared is not None:
            return [(p.task, None, p.proposal_id) for p in self._shared.propose(self.batch_size)]
        context = self.tracker.estimate()
        proposals = self.simulator.propose(self.batch_size, context, self.np_random)
        return [(task, context, None) for task in proposals]

    def join_curriculum(self, service: Any, group_size: int | None = None) -> None:
        """Propose from and record into ``service`` (anything with ``CurriculumService``'s ``propose`` and
        ``record``) from the next task on, serving each proposal ``group_size`` times (default: this env's
        ``curriculum_config.attempts``)."""
        size = self.curriculum_config.attempts if group_size is None else int(group_size)
        if size < 1:
            raise ValueError(f"group_size must be >= 1, got {size}")
        self._abandon()
        self._shared, self._group_size = service, size
        self._queue.clear()
        self.task = None

    def _abandon(self) -> None:
        """The current proposal is left before its group is complete: a shared curriculum drops its group."""
        partial = self.task is not None and self._in_curriculum and 0 < self._attempts < self._group_size
        if partial and self._shared is not None:
            self._shared.discard(self._proposal_id)

    def _serve(self, task: Task, context: SkillEstimate | None, in_curriculum: bool) -> None:
        if not isinstance(task, Task) or task.domain != self.domain.name:
            raise ValueError(f"options['task'] must be a {self.domain.name} Task")
        self.task, self._context, self._in_curriculum = task, context, in_curriculum
        self._attempts = self._successes = 0

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self._runner.step(action)
        info["task_id"] = self.task.id
        info["level"] = self.task.level
        if terminated or truncated:
            self._record(bool(info.get("success", False)), info)
        else:
            self._open = True
        return obs, reward, terminated, truncated, info

    def _record(self, success: bool, info: dict[str, Any]) -> None:
        self._open = False
        self._attempts += 1
        self._successes += int(success)
        p = self._successes / self._attempts
        info["p"] = p
        info["alpha_reward"] = self.curriculum_config.reward(p)
        last = self._in_curriculum and self._attempts == self._group_size
        if last:
            info["in_band"] = self.curriculum_config.in_band(p)
        if self._shared is not None and self._in_curriculum:
            update = self._shared.record(
                self.task, success, proposal_id=self._proposal_id, group_size=self._group_size
            )
            if update is not None:
                info["sim_update"] = update
            return
        self.tracker.update(min(self.task.level, self.domain.num_levels - 1), success)
        if last:
            outcome = Outcome(self.task, self._successes, self._attempts, self._context)
            info["sim_update"] = self.simulator.update([outcome])

    def close(self) -> None:
        """Release what the domain holds (ALFWorld's planner worker and engines)."""
        close = getattr(self.domain, "close", None)
        if callable(close):
            close()
        super().close()

    @property
    def curriculum(self) -> CurriculumConfig:
        """Deprecated: the config, ``curriculum_config`` (``curriculum`` names the service an env joins)."""
        warnings.warn(
            "SimulatorEnv.curriculum is the CurriculumConfig: read curriculum_config",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.curriculum_config

    def curriculum_state(self) -> dict[str, Any]:
        """The simulator's policy, its running counts and the agent's skill estimate (a joined curriculum's
        ``state()`` when the env has joined one)."""
        if self._shared is not None:
            return dict(self._shared.state())
        state: dict[str, Any] = {"skill": self.tracker.estimate().to_dict()}
        if isinstance(self.simulator, ProceduralSimulator):
            state["level_probs"] = self.simulator.probs.tolist()
            state["mean_level"] = self.simulator.mean_level()
            state["stats"] = asdict(self.simulator.stats)
        elif hasattr(self.simulator, "state"):
            state.update(self.simulator.state())
        return state
