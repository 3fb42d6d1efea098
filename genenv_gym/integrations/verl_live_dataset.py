"""verl's train data with a simulator id's rows proposed live by the run's one curriculum.

verl 0.9.1 builds its train and validation datasets from ``data.custom_cls`` (a ``torch`` ``Dataset``
subclass, constructed as ``RLHFDataset`` is); its trainer reads the train dataset through a
``StatefulDataLoader``, one batch per step, and saves that loader's state (which holds a dataset's
``state_dict``) in each checkpoint's ``data.pt``. ``GenEnvLiveDataset`` is that hook::

    data.custom_cls.path=pkg://genenv_gym.integrations.verl_live_dataset
    data.custom_cls.name=GenEnvLiveDataset data.dataloader_num_workers=0 data.val_files=<a table of its own>

Rows of a ``genenv export --format verl`` table are served as ``RLHFDataset`` serves them, except that a
train row of a simulator id (``GenEnv-Sim-*``) is replaced, when the trainer reads it, by a task the shared
curriculum proposes then (``ray_actor.shared_curriculum``, one named Ray actor per id): its prompt, its
``reward_model.ground_truth`` (the Task JSON) and ``extra_info`` (``task_id``, ``level``, ``proposal_id``,
and ``genenv_curriculum``: the actor's name, from which the agent loop records each rollout into the same
curriculum, its group counted by the proposal id at ``rollout.n``). Rows of the validation table keep
their task and are marked ``genenv_validation`` and ``genenv_curriculum``: their rollouts are logged by the
run's curriculum as validation records, and change nothing.

After each training step verl calls the train dataset's ``on_batch_end`` (its experimental hook, after
the step's metrics are logged and on every step but the last): the curriculum's diagnostics of that step
(``CurriculumService.end_step``) are appended to ``genenv_curriculum.metrics_path`` as one JSON line. verl
0.9.1 gives a dataset or an agent loop no way into its own metric logger.

Settings (``+data.genenv_curriculum.<key>=...``): ``name`` (the actor of an id is ``<name>:<env id>``,
default name ``genenv-curriculum``; give each run its own where runs share a Ray cluster),
``seed`` (first proposal seed, default ``data.seed`` or 0), ``max_open_groups``, ``checkpoint_path`` (the
actor's own checkpoint file, for an actor that dies between verl checkpoints), ``log_path`` (the arrival
log of every proposal and record, for ``replay``), ``metrics_path``.

Imports verl and ray (the 'verl' extra).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from genenv_gym.curriculum_service.ray_actor import RayCurriculum, shared_curriculum
from genenv_gym.export.exporter import rows_for
from genenv_gym.integrations.live_tasks import env_kwargs_with
from genenv_gym.registry.extras import require_extra
from genenv_gym.registry.registration import is_simulator_id

require_extra("verl", "genenv_gym.integrations.verl_live_dataset")

from verl.utils.dataset.rl_dataset import RLHFDataset  # noqa: E402

#: The ``extra_info`` keys the agent loop reads.
CURRICULUM_KEY = "genenv_curriculum"
PROPOSAL_KEY = "proposal_id"
VALIDATION_KEY = "genenv_validation"


def _files(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(value)] if isinstance(value, str | os.PathLike) else [str(v) for v in value]


class GenEnvLiveDataset(RLHFDataset):
    """``RLHFDataset`` whose simulator-id train rows are proposed live (see the module docstring)."""

    def __init__(
        self, data_files: Any, tokenizer: Any, config: Any, processor: Any = None, max_samples: int = -1
    ):
        files = _files(data_files)
        train, val = _files(config.get("train_files")), _files(config.get("val_files"))
        if files == train and files == val:
            raise ValueError(
                "GenEnvLiveDataset serves data.train_files live and data.val_files as they stand, and here "
                "they are the same files: give data.val_files a table of its own (genenv export --split val)"
            )
        #: validation data: rows served as exported, their rollouts recorded apart
        self.validation = files == val
        settings = config.get(CURRICULUM_KEY, None) or {}
        self.settings: dict[str, Any] = {k: settings[k] for k in settings}
        self.proposal_seed = int(self.settings.get("seed", config.get("seed", None) or 0))
        self.curricula: dict[str, RayCurriculum] = {}
        self._domain_kwargs: dict[str, dict[str, Any]] = {}
        #: training steps ended (``on_batch_end`` calls)
        self.steps = 0
        super().__init__(data_files, tokenizer, config, processor, max_samples)

    def curriculum(self, env_id: str, domain_kwargs: Mapping[str, Any] | None = None) -> RayCurriculum:
        """The shared curriculum of ``env_id`` (the running actor of its name, else a new one)."""
        if env_id not in self.curricula:
            self._domain_kwargs[env_id] = dict(domain_kwargs or {})
            s = self.settings
            self.curricula[env_id] = shared_curriculum(
                f"{s.get('name') or 'genenv-curriculum'}:{env_id}",
                env_id,
                env_kwargs_with(env_id, domain_kwargs),
                seed=self.proposal_seed,
                max_open_groups=s.get("max_open_groups"),
                checkpoint_path=s.get("checkpoint_path"),
                log_path=s.get("log_path"),
            )
        return self.curricula[env_id]

    def __getitem__(self, item: int) -> dict[str, Any]:
        row = super().__getitem__(item)
        extra = dict(row.get("extra_info") or {})
        env_id = str(extra.get("env_id") or row.get("data_source") or "")
        if not is_simulator_id(env_id):
            return row
        import torch.utils.data

        if torch.utils.data.get_worker_info() is not None:
            raise RuntimeError(
                "GenEnvLiveDataset proposes each row when the trainer reads it, from the driver's Ray "
                "connection: set data.dataloader_num_workers=0"
            )
        raw = extra.get("domain_kwargs") or {}
        domain_kwargs = json.loads(raw) if isinstance(raw, str) else dict(raw)
        curriculum = self.curriculum(env_id, domain_kwargs)
        if self.validation:  # logged by the run's curriculum as validation, changing nothing
            row["extra_info"] = {**extra, VALIDATION_KEY: True, CURRICULUM_KEY: curriculum.name}
            return row
        return self._live(row, env_id, extra, curriculum, domain_kwargs)

    def _live(
        self,
        row: dict[str, Any],
        env_id: str,
        extra: dict[str, Any],
        curriculum: RayCurriculum,
        domain_kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        proposal = curriculum.propose(1)[0]
        split = extra.get("split", "train")
        fresh = rows_for([proposal.task], "verl", env_id, split, domain_kwargs or None)[0]
        row["prompt"] = fresh["prompt"]
        row["reward_model"] = {**dict(row.get("reward_model") or {}), **fresh["reward_model"]}
        row["extra_info"] = {
            **extra,
            **{k: v for k, v in fresh["extra_info"].items() if k != "index"},
            PROPOSAL_KEY: proposal.proposal_id,
            CURRICULUM_KEY: curriculum.name,
        }
        row["raw_prompt"] = self._build_messages(dict(row), key=self.prompt_key)
        return row

    def on_batch_end(self, batch: Any = None) -> None:
        """verl's end-of-step hook: each curriculum's diagnostics of the step, one JSON line each."""
        self.steps += 1
        path = self.settings.get("metrics_path")
        for env_id, curriculum in self.curricula.items():
            line = json.dumps({"step": self.steps, "env_id": env_id, **curriculum.end_step()})
            if path:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(line + "\n")

    # -- verl's checkpoint (the StatefulDataLoader saves a dataset's state with its own) --------------------
    def state_dict(self) -> dict[str, Any]:
        """Each shared curriculum's checkpoint (and the domain arguments it was made with), and the steps
        ended."""
        curricula = {
            env_id: {"domain_kwargs": self._domain_kwargs[env_id], "checkpoint": c.checkpoint()}
            for env_id, c in self.curricula.items()
        }
        return {"steps": self.steps, "curricula": curricula}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.steps = int(state.get("steps", 0))
        for env_id, saved in dict(state.get("curricula") or {}).items():
            self.curriculum(env_id, saved["domain_kwargs"]).restore(saved["checkpoint"])
