"""Play an env over the network: ``genenv serve`` on one side, the ``GenEnv-Remote-v0`` client on the other
(README, "Over a server"; docs/serving.md).

    pip install -e ".[serve]"
    python examples/serve_remote.py                       # starts its own server on 127.0.0.1 for the run
    genenv serve --port 8000 &                            # or play a server you started
    python examples/serve_remote.py --url http://127.0.0.1:8000 --env GenEnv-BFCL-SimplePython-v0

It plays ``--episodes`` episodes through one remote env (each step sends the same ``--action``), then one
step of a 2-copy vector env over the same server, and prints the rewards.
"""

from __future__ import annotations

import argparse
import json
from contextlib import nullcontext
from typing import Any


def play(url: str, env_id: str, episodes: int, action: str) -> dict[str, Any]:
    """Episodes of ``env_id`` played over the server at ``url``."""
    import gymnasium as gym

    import genenv_gym  # noqa: F401  (registers GenEnv-Remote-v0, the client)

    env = gym.make("GenEnv-Remote-v0", url=url, env_id=env_id)  # transport="http" works too
    returns = []
    for episode in range(episodes):
        obs, info = env.reset(seed=episode)  # the served env's observation; info as JSON
        first = {"task_id": info.get("task_id"), "observation": obs[:80]}
        total, done, steps = 0.0, False, 0
        while not done:
            _, reward, terminated, truncated, _ = env.step(action)
            total, done, steps = total + float(reward), terminated or truncated, steps + 1
        returns.append({**first, "steps": steps, "return": total})
    env.close()
    vec = gym.make_vec(
        "GenEnv-Remote-v0", 2, "sync", url=url, env_id=env_id
    )  # url="http://a:8000,http://b:8000"
    vec.reset(seed=0)
    _, rewards, _, _, _ = vec.step([action, action])
    vec.close()
    return {"env_id": env_id, "url": url, "episodes": returns, "vector_rewards": [float(r) for r in rewards]}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="GenEnv-BFCL-MultiTurn-v0", help="the served env id to play")
    parser.add_argument("--url", default=None, help="a running genenv serve (default: start one here)")
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--action", default="[]", help="the action sent at every step")
    args = parser.parse_args(argv)

    if args.url:
        server = nullcontext(args.url)
    else:
        from genenv_gym.serve.app import ServeConfig
        from genenv_gym.serve.catalog import Catalog
        from genenv_gym.serve.server import BackgroundServer

        # `genenv serve --env ID`, here on a free port of 127.0.0.1 for the length of the block
        server = BackgroundServer(ServeConfig(Catalog([args.env])))
    with server as url:
        summary = play(url, args.env, args.episodes, args.action)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
