"""What a remote client may set on a ``GenEnv-Sim-<Domain>-v0`` env (see
``genenv_gym.registry.client_params``).

The procedural simulator and its curriculum are the client's to tune; the LLM simulator (its backend,
model path, endpoint, key variable) is the operator's: ``genenv serve --env-kwargs``.
"""

from __future__ import annotations

from collections.abc import Mapping

from genenv_gym.registry.client_params import (
    Choice,
    ClientParams,
    Fields,
    Integer,
    Param,
    Real,
    TaskBound,
    TaskData,
)

#: The largest ``batch_size`` (tasks proposed per refill) a client may ask of most simulator envs.
MAX_BATCH = 64

CURRICULUM = Fields(
    {
        "alpha": Real(0.0, 1.0),
        "beta": Real(0.001, 1000.0),
        "k_min": Real(0.0, 1.0),
        "attempts": Integer(1, 64),
        "rwr_lambda": Real(0.0, 100.0),
    }
)


def simulator_env_params(
    domain_kwargs: Mapping[str, Param] | None = None,
    max_batch: int = MAX_BATCH,
    task_bounds: tuple[TaskBound, ...] = (),
) -> ClientParams:
    """The client's choices on a simulator env: the procedural simulator and its curriculum, ``batch_size``
    up to ``max_batch`` (a domain whose proposals are costly declares less), the domain's ``domain_kwargs``
    that are safe to choose, and ``reset(options={"task": ...})`` within the family's ``task_bounds``."""
    return ClientParams(
        kwargs={
            "simulator": Choice(("procedural",)),
            "simulator_kwargs": Fields({"neighbour_prob": Real(0.0, 1.0)}),
            "curriculum": CURRICULUM,
            "batch_size": Integer(1, max_batch),
            "skill_decay": Real(0.0, 1.0),
            "domain_kwargs": Fields(dict(domain_kwargs or {})),
        },
        options={"task": TaskData(bounds=task_bounds)},
    )
