"""The curriculum service as a named Ray actor under load: records/s and proposals/s with W concurrent
rollout workers, and the latency one record adds to a worker's episode.

    python benchmarks/curriculum_service.py [--workers 8 32] [--seconds 10] [--group-size 8]
        [--env GenEnv-Sim-Digits-v0] [--out benchmarks/results/curriculum_service.json]

One local Ray (``ray.init``, loopback) holds the actor (``shared_curriculum``) and W worker actors
(processes).
Per W, after every worker has started: (1) records: each worker records outcomes as fast as it can for
``--seconds`` (blocking calls, as the agent loop's env thread makes them; groups of ``--group-size`` keyed
per worker, so groups complete and the simulator updates as in training); (2) proposals: each worker asks
for one proposal at a time. Throughput is what the actor served in the window; latency is each call's
round trip seen by a worker (median and 95th percentile). A single worker's record latency is the cost one
episode pays with the actor otherwise idle. Workers and actor share this machine's cores: compare figures
from one run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import ray

from genenv_gym.curriculum_service.ray_actor import shared_curriculum


@ray.remote(num_cpus=0)
class Worker:
    """A rollout worker: records into / proposes from the named curriculum."""

    def __init__(self, name: str, index: int) -> None:
        self.curriculum = shared_curriculum(name)
        self.index = index

    def ready(self) -> bool:
        return True

    def records(self, task, start_at: float, seconds: float, group_size: int) -> list[float]:
        time.sleep(max(0.0, start_at - time.time()))
        latencies, k, end = [], 0, start_at + seconds
        while time.time() < end:
            t = time.perf_counter()
            key = f"w{self.index}-{k // group_size}"
            self.curriculum.record(task, k % 2 == 0, proposal_id=key, group_size=group_size, recorder=key)
            latencies.append(time.perf_counter() - t)
            k += 1
        return latencies

    def proposals(self, start_at: float, seconds: float) -> list[float]:
        time.sleep(max(0.0, start_at - time.time()))
        latencies, end = [], start_at + seconds
        while time.time() < end:
            t = time.perf_counter()
            self.curriculum.propose(1)
            latencies.append(time.perf_counter() - t)
        return latencies


def summary(latencies: list[list[float]], seconds: float) -> dict[str, float]:
    flat = sorted(x for chunk in latencies for x in chunk)
    return {
        "calls": len(flat),
        "per_s": len(flat) / seconds,
        "median_ms": 1000 * statistics.median(flat),
        "p95_ms": 1000 * flat[int(0.95 * (len(flat) - 1))],
    }


def measure(name: str, env_id: str, workers: int, seconds: float, group_size: int) -> dict:
    curriculum = shared_curriculum(name, env_id, group_size=group_size)
    task = curriculum.propose(1)[0].task
    pool = [Worker.remote(name, i) for i in range(workers)]
    ray.get([w.ready.remote() for w in pool])
    start = time.time() + 1.0
    records = summary(ray.get([w.records.remote(task, start, seconds, group_size) for w in pool]), seconds)
    start = time.time() + 1.0
    proposals = summary(ray.get([w.proposals.remote(start, seconds) for w in pool]), seconds)
    for w in pool:
        ray.kill(w)
    state = curriculum.state()
    ray.kill(curriculum.handle)
    return {
        "workers": workers,
        "records": records,
        "proposals": proposals,
        "groups_completed": state["groups_completed"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--env", default="GenEnv-Sim-Digits-v0")
    parser.add_argument("--out", default="benchmarks/results/curriculum_service.json")
    args = parser.parse_args()
    ray.init(include_dashboard=False, log_to_driver=False)
    results = {"env_id": args.env, "seconds": args.seconds, "group_size": args.group_size, "runs": []}
    for count in [1, *args.workers]:
        run = measure(f"bench-{count}", args.env, count, args.seconds, args.group_size)
        results["runs"].append(run)
        r, p = run["records"], run["proposals"]
        print(
            f"{count:3d} workers: records {r['per_s']:8.0f}/s (median {r['median_ms']:.2f} ms, p95 "
            f"{r['p95_ms']:.2f} ms); proposals {p['per_s']:7.0f}/s (median {p['median_ms']:.2f} ms, p95 "
            f"{p['p95_ms']:.2f} ms); groups completed {run['groups_completed']}",
            flush=True,
        )
    ray.shutdown()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
