"""Per env id: does each trainer adapter open an episode with the chat the env's own ``reset`` opens it with
(``genenv eval``'s first prompt)? TRL's dataset row, the row ``genenv export --format verl`` writes, and the
live rollout's first chat (``LiveEpisode.messages``, which TRL's rollout function and verl's agent loop
render), each against ``reset``'s ``info["messages"]`` for the same task.

    PYTHONPATH=. python benchmarks/opening_chat.py [ids...]

With ``PYTHONPATH`` on another checkout, it measures that one. Prints one JSON line per id and a summary.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import genenv_gym
from genenv_gym.agents.chat_session import opening_messages
from genenv_gym.export import export
from genenv_gym.integrations.live_episode import LiveEpisode
from genenv_gym.integrations.live_tasks import LiveTasks


def as_prompt(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"role": str(m.get("role", "user")), "content": str(m.get("content", ""))} for m in messages]


def reset_chat(tasks: LiveTasks, task: Any) -> list[dict[str, str]]:
    observation, info = tasks.env.reset(options={"task": task})
    return as_prompt(opening_messages(observation, info))


def check(env_id: str, folder: Path) -> dict[str, Any]:
    import pyarrow.parquet as pq

    tasks = LiveTasks(env_id, 1)
    try:
        row = tasks.rows(limit=1)[0] if not tasks.simulated else tasks.propose_row(0)
        task = tasks.task_for(row)
        opening = reset_chat(tasks, task)
        trl = as_prompt(row["prompt"]) == opening
        episode = LiveEpisode(tasks, task)
        live = as_prompt(episode.messages) == opening
        episode.stop()
        written = export(env_id, "verl", folder / f"{env_id}.parquet", limit=1, num_tasks=1)
        verl_row = pq.read_table(written.path).to_pylist()[0]
        pin = {"task_id": verl_row["extra_info"]["task_id"], "task": verl_row["reward_model"]["ground_truth"]}
        verl = as_prompt(verl_row["prompt"]) == reset_chat(tasks, tasks.task_for(pin))
        return {"id": env_id, "trl_row": trl, "verl_row": verl, "live_rollout": live}
    finally:
        tasks.close()


def main() -> None:
    ids = sys.argv[1:] or [entry.id for entry in genenv_gym.ENV_ENTRIES]
    folder = Path(tempfile.mkdtemp(prefix="opening-chat-"))
    results = []
    for env_id in ids:
        try:
            result = check(env_id, folder)
        except Exception as error:  # an id that cannot be checked here is reported, not fatal
            result = {"id": env_id, "error": f"{type(error).__name__}: {str(error)[:120]}"}
        results.append(result)
        print(json.dumps(result), flush=True)
    for kind in ("trl_row", "verl_row", "live_rollout"):
        equal = sum(1 for r in results if r.get(kind))
        print(f"{kind}: {equal}/{len(results)} ids open with the env's reset chat")


if __name__ == "__main__":
    main()
