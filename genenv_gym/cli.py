"""The ``genenv`` command line: list the registered envs, benchmark an agent on them, export their tasks."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from genenv_gym.registration import ENV_ENTRIES


def cmd_list(args: argparse.Namespace) -> int:
    width = max(len(e.id) for e in ENV_ENTRIES)
    for entry in ENV_ENTRIES:
        print(f"{entry.id:<{width}}  {entry.description}")
    return 0


def _env_kwargs(args: argparse.Namespace) -> dict | None:
    """``--env-kwargs`` as a dict (None when not given); raises ValueError on bad JSON."""
    if not args.env_kwargs:
        return None
    try:
        value = json.loads(args.env_kwargs)
    except json.JSONDecodeError as error:
        raise ValueError(f"--env-kwargs is not JSON: {error}") from error
    if not isinstance(value, dict):
        raise ValueError('--env-kwargs must be a JSON object, e.g. \'{"data_dir": "/data"}\'')
    return value


def _unknown_envs(env_ids: Sequence[str], command: str) -> bool:
    known = {e.id for e in ENV_ENTRIES}
    unknown = [env_id for env_id in env_ids if env_id not in known]
    if unknown:
        print(
            f"genenv {command}: unknown env id(s) {unknown}; run 'genenv list' to see them", file=sys.stderr
        )
    return bool(unknown)


def cmd_eval(args: argparse.Namespace) -> int:
    from genenv_gym.agents.backends import BackendError, SamplingParams
    from genenv_gym.data_dir import MissingDataError
    from genenv_gym.evaluation import (
        ResumeError,
        check_agent,
        evaluate,
        make_backend_once,
        overview_table,
        write_csv,
    )

    if _unknown_envs(args.env, "eval"):
        return 2
    try:
        check_agent(args.agent)
        env_kwargs = _env_kwargs(args)
    except ValueError as error:
        print(f"genenv eval: {error}", file=sys.stderr)
        return 2
    results_path = None
    if args.out:
        out_dir = Path(args.out)
        results_path = out_dir / "episodes.jsonl"
        if results_path.exists() and not args.resume:
            print(
                f"genenv eval: {results_path} exists; pass --resume to continue that run "
                "or choose another --out",
                file=sys.stderr,
            )
            return 2
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "run.json").write_text(json.dumps(vars(args), default=str, indent=2), encoding="utf-8")
    elif args.resume:
        print("genenv eval: --resume needs --out DIR (the run's folder)", file=sys.stderr)
        return 2
    llm_kwargs = {
        "params": SamplingParams(
            temperature=args.temperature, max_new_tokens=args.max_new_tokens, seed=args.seed
        )
    }
    reports = []
    try:
        backend = make_backend_once(args.agent)
        for env_id in args.env:
            report = evaluate(
                env_id,
                args.agent,
                args.limit,
                args.episodes,
                args.seed,
                not args.no_progress,
                env_kwargs=env_kwargs,
                results_path=results_path,
                resume=args.resume,
                backend=backend,
                llm_kwargs=llm_kwargs if backend is not None else None,
                batch_size=args.batch_size,
            )
            resumed = f" ({report.resumed} episodes from the earlier run)" if report.resumed else ""
            print(f"\n{env_id} — agent {args.agent}{resumed}")
            print(report.table())
            reports.append(report)
    except (MissingDataError, BackendError, ResumeError) as error:
        print(f"genenv eval: {error}", file=sys.stderr)
        return 1
    if len(reports) > 1:
        print("\n" + overview_table(reports))
    written = []
    json_paths = [args.json] + ([Path(args.out) / "report.json"] if args.out else [])
    csv_paths = [args.csv] + ([Path(args.out) / "report.csv"] if args.out else [])
    for path in filter(None, json_paths):
        Path(path).write_text(json.dumps([r.to_dict() for r in reports], indent=2), encoding="utf-8")
        written.append(str(path))
    for path in filter(None, csv_paths):
        write_csv(reports, path)
        written.append(str(path))
    if written:
        print("\nwrote " + ", ".join(written))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from genenv_gym.data_dir import MissingDataError
    from genenv_gym.export import export

    if _unknown_envs([args.env], "export"):
        return 2
    try:
        result = export(
            args.env,
            args.format,
            args.out,
            limit=args.limit,
            num_tasks=args.num_tasks,
            seed=args.seed,
            split=args.split,
            env_kwargs=_env_kwargs(args),
        )
    except ValueError as error:
        print(f"genenv export: {error}", file=sys.stderr)
        return 2
    except (MissingDataError, ImportError) as error:
        print(f"genenv export: {error}", file=sys.stderr)
        return 1
    print(f"wrote {result.rows} {result.format} rows ({result.split}) of {result.env_id} to {result.path}")
    from genenv_gym.export import rewards

    if result.format == "verl":
        print(
            f"verl reward: custom_reward_function.path={rewards.__file__} "
            "custom_reward_function.name=compute_score"
        )
    elif result.format == "trl":
        print("TRL reward: from genenv_gym.export.rewards import trl_reward  # GRPOTrainer(reward_funcs=...)")
    else:
        print("grade: from genenv_gym.export.rewards import score; score(task_json_line, completion)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="genenv", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    list_parser = commands.add_parser("list", help="registered env ids with one-line descriptions")
    list_parser.set_defaults(func=cmd_list)

    eval_parser = commands.add_parser(
        "eval",
        help="benchmark an agent on envs with their official metrics",
        description="Benchmark an agent: per-category accuracy and the benchmark's summaries per env, a "
        "table in the terminal, JSON/CSV on disk; with --out the run can be resumed.",
    )
    eval_parser.add_argument("--env", action="append", required=True, help="env id (repeat for several)")
    eval_parser.add_argument(
        "--agent",
        default="oracle",
        help="oracle, random, or an LLM backend spec: hf:PATH, openai:MODEL@URL, sglang:PATH, "
        "sglang-server:URL, tiny:ARCH (default: oracle)",
    )
    eval_parser.add_argument("--limit", type=int, default=None, help="at most N tasks per category")
    eval_parser.add_argument("--episodes", type=int, default=100, help="episodes on simulator envs")
    eval_parser.add_argument("--seed", type=int, default=0)
    eval_parser.add_argument(
        "--env-kwargs", metavar="JSON", help="gymnasium.make arguments, as a JSON object"
    )
    eval_parser.add_argument(
        "--temperature", type=float, default=0.0, help="LLM agents: sampling temperature"
    )
    eval_parser.add_argument("--max-new-tokens", type=int, default=512, help="LLM agents: reply length limit")
    eval_parser.add_argument(
        "--batch-size",
        type=int,
        default=1,
        help="LLM agents on benchmark envs: episodes played at once, one batched model call per step",
    )
    eval_parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    eval_parser.add_argument("--csv", metavar="PATH", help="also write the results as CSV")
    eval_parser.add_argument(
        "--out",
        metavar="DIR",
        help="run folder: episodes.jsonl (every episode as it ends), report.json, report.csv, run.json",
    )
    eval_parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out DIR: finished episodes are not replayed",
    )
    eval_parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    eval_parser.set_defaults(func=cmd_eval)

    export_parser = commands.add_parser(
        "export",
        help="write an env's tasks as training data for verl, TRL or as jsonl Tasks",
        description="Benchmark envs export their tasks; simulator envs export --num-tasks proposals of "
        "their environment policy. Rows carry the whole Task, which genenv_gym.export.rewards grades.",
    )
    export_parser.add_argument("--env", required=True, help="env id")
    export_parser.add_argument("--format", required=True, choices=("verl", "trl", "jsonl"))
    export_parser.add_argument(
        "--out",
        metavar="PATH",
        help="output file (default <env>.<format>.parquet|jsonl; trl: .parquet or .jsonl)",
    )
    export_parser.add_argument(
        "--limit", type=int, default=None, help="benchmark envs: at most N per category"
    )
    export_parser.add_argument("--num-tasks", type=int, default=100, help="simulator envs: tasks to generate")
    export_parser.add_argument("--seed", type=int, default=0, help="simulator envs: generator seed")
    export_parser.add_argument("--split", default=None, help="split name in the rows (default train/test)")
    export_parser.add_argument(
        "--env-kwargs", metavar="JSON", help="gymnasium.make arguments, as a JSON object"
    )
    export_parser.set_defaults(func=cmd_export)
    from genenv_gym.cli_train import add_train_command

    add_train_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
