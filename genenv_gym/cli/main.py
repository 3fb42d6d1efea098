"""The ``genenv`` command line: list the registered envs, benchmark an agent on them, export their tasks."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genenv_gym.registry.registration import CLIENT_ENTRIES, ENV_ENTRIES, is_simulator_id
from genenv_gym.suggest import did_you_mean

if TYPE_CHECKING:
    from genenv_gym.datasets.data_dir import MissingDataError


def cmd_list(args: argparse.Namespace) -> int:
    if args.markdown:
        print(env_table_markdown())
        return 0
    entries = (*ENV_ENTRIES, *CLIENT_ENTRIES)
    width = max(len(e.id) for e in entries)
    for entry in entries:
        print(f"{entry.id:<{width}}  {entry.description}")
    return 0


def env_table_markdown() -> str:
    """README's table of env ids, from the registry (``genenv list --markdown``)."""
    rows = ["| env id | what it is |", "|---|---|"]
    rows += [f"| `{e.id}` | {e.description} |" for e in ENV_ENTRIES]
    return "\n".join(rows)


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
    known = [e.id for e in ENV_ENTRIES]
    unknown = [env_id for env_id in env_ids if env_id not in known]
    for env_id in unknown:
        print(
            f"genenv {command}: unknown env id {env_id!r}{did_you_mean(env_id, known)}; "
            "run 'genenv list' to see them",
            file=sys.stderr,
        )
    return bool(unknown)


def _suite_env_ids(suite: str) -> tuple[list[str], list[str]]:
    """(registered env ids to run, paper columns whose env id is not built yet)."""
    known = {e.id for e in ENV_ENTRIES}
    if suite == "all":
        return [e.id for e in ENV_ENTRIES if not is_simulator_id(e.id)], []
    from genenv_gym.cli.paper_table import PAPER_COLUMNS

    return [c.env_id for c in PAPER_COLUMNS if c.env_id in known], [
        c.name for c in PAPER_COLUMNS if c.env_id not in known
    ]


def _warn_ignored_options(args: argparse.Namespace, env_ids: Sequence[str]) -> None:
    for env_id in env_ids:
        if is_simulator_id(env_id) and args.limit is not None:
            print(
                f"genenv eval: --limit counts tasks per category of benchmark envs; {env_id} is a simulator "
                f"env, so it plays --episodes {args.episodes or 100} episodes instead",
                file=sys.stderr,
            )
        if not is_simulator_id(env_id) and args.episodes is not None:
            print(
                f"genenv eval: --episodes applies to simulator envs; {env_id} plays its benchmark tasks "
                "(use --limit N for at most N per category)",
                file=sys.stderr,
            )


def _on_fixtures(
    error: MissingDataError, env_kwargs: dict, args: argparse.Namespace, noticed: set[str]
) -> dict | None:
    """Env kwargs that run on the shipped fixtures when no data dir was chosen and none is installed (never
    for the paper's protocol); the notice is printed once per benchmark (``noticed``)."""
    from genenv_gym.datasets.data_dir import fixtures_instead

    fixtures = None if args.suite == "paper" else fixtures_instead(error, env_kwargs.get("data_dir"))
    if fixtures is None:
        return None
    benchmark = error.benchmark
    if benchmark in noticed:
        return {**env_kwargs, "data_dir": str(fixtures)}
    noticed.add(benchmark)
    print(
        f"genenv eval: no {benchmark} data installed: running on the small fixtures shipped with the "
        f"package, not the benchmark (get the real data with --fetch or 'genenv data fetch {benchmark}')",
        file=sys.stderr,
    )
    return {**env_kwargs, "data_dir": str(fixtures)}


def _fetch_for(error: Exception, env_kwargs: dict) -> bool:
    """Fetch the benchmark a MissingDataError names (``--fetch``); True when it is now complete."""
    from genenv_gym.datasets.download import FetchError, fetch
    from genenv_gym.datasets.sources import SOURCES

    benchmark = getattr(error, "benchmark", None)
    if benchmark not in SOURCES:
        return False
    print(f"genenv eval: fetching {benchmark} ({SOURCES[benchmark].notes})", file=sys.stderr)
    try:
        return fetch(benchmark, env_kwargs.get("data_dir")).complete
    except FetchError as fetch_error:
        print(f"genenv eval: {fetch_error}", file=sys.stderr)
        return False


def _evaluate_with_data(
    env_id: str, env_kwargs: dict, args: argparse.Namespace, noticed: set[str], **kwargs
) -> Any:
    """``evaluate``, fetching missing data (``--fetch``) or falling back to the fixtures (see README; the
    report's ``on_fixtures`` then names the benchmark)."""
    from genenv_gym.datasets.data_dir import MissingDataError, without_fixture_fallback
    from genenv_gym.evaluation import evaluate

    try:
        with without_fixture_fallback():  # this command chooses: fetch, the fixtures, or report it missing
            return evaluate(env_id, env_kwargs=env_kwargs, **kwargs)
    except MissingDataError as error:
        if args.fetch and _fetch_for(error, env_kwargs):
            return evaluate(env_id, env_kwargs=env_kwargs, **kwargs)
        fixtures = None if args.fetch else _on_fixtures(error, env_kwargs, args, noticed)
        if fixtures is None:
            raise
        report = evaluate(env_id, env_kwargs=fixtures, **kwargs)
        report.on_fixtures = error.benchmark
        return report


def cmd_eval(args: argparse.Namespace) -> int:
    from genenv_gym.agents.backends import BackendError, SamplingParams
    from genenv_gym.cli.output_paths import OutputPathError, check_eval_outputs
    from genenv_gym.datasets.data_dir import MissingDataError
    from genenv_gym.evaluation import ResumeError, check_agent, make_backend_once, write_csv
    from genenv_gym.evaluation.agents import is_llm_agent
    from genenv_gym.evaluation.pass_at_k import check_samples, greedy_samples_warning
    from genenv_gym.evaluation.suite_overview import EXIT_NOT_ALL_ON_DATA, SuiteOutcomes
    from genenv_gym.registry.env_kwargs import check_env_kwargs, explain_make_error

    not_built: list[str] = []
    if args.suite:
        env_ids, not_built = _suite_env_ids(args.suite)
        env_ids += args.env or []
    else:
        env_ids = list(args.env or [])
    if not env_ids:
        print("genenv eval: give --env ID (repeatable) or --suite paper|all", file=sys.stderr)
        return 2
    if _unknown_envs(env_ids, "eval"):
        return 2
    try:
        check_agent(args.agent)
        check_samples(args.samples, env_ids)
        env_kwargs = _env_kwargs(args) or {}
        for env_id in env_ids:
            check_env_kwargs(env_id, env_kwargs)
    except ValueError as error:
        print(f"genenv eval: {error}", file=sys.stderr)
        return 2
    _warn_ignored_options(args, env_ids)
    greedy = greedy_samples_warning(args.samples, is_llm_agent(args.agent), args.temperature)
    if greedy:
        print(f"genenv eval: {greedy}", file=sys.stderr)
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
    elif args.resume:
        print("genenv eval: --resume needs --out DIR (the run's folder)", file=sys.stderr)
        return 2
    try:
        check_eval_outputs(args)
    except OutputPathError as error:
        print(f"genenv eval: {error}", file=sys.stderr)
        return 2
    if args.out:
        (out_dir / "run.json").write_text(json.dumps(vars(args), default=str, indent=2), encoding="utf-8")
    llm_kwargs = {
        "params": SamplingParams(
            temperature=args.temperature, max_new_tokens=args.max_new_tokens, seed=args.seed
        )
    }
    outcomes = SuiteOutcomes(env_ids, env_kwargs.get("data_dir"))
    reports, missing, noticed = outcomes.reports, outcomes.not_run, set()
    env_id = ""
    try:
        backend = make_backend_once(args.agent)
        for env_id in env_ids:
            try:
                report = _evaluate_with_data(
                    env_id,
                    env_kwargs,
                    args,
                    noticed,
                    agent_name=args.agent,
                    limit=args.limit,
                    episodes=args.episodes or 100,
                    seed=args.seed,
                    show_progress=not args.no_progress,
                    results_path=results_path,
                    resume=args.resume,
                    backend=backend,
                    llm_kwargs=llm_kwargs if backend is not None else None,
                    batch_size=args.batch_size,
                    samples=args.samples,
                )
            except (MissingDataError, ImportError) as error:
                if not args.suite:
                    raise
                outcomes.missed(env_id, error)
                continue
            resumed = f" ({report.resumed} episodes from the earlier run)" if report.resumed else ""
            print(f"\n{env_id} — agent {args.agent}{resumed}")
            print(report.table())
            outcomes.played(report)
    except (MissingDataError, BackendError, ResumeError, ImportError) as error:
        print(f"genenv eval: {error}", file=sys.stderr)
        return 1
    except (TypeError, ValueError) as error:  # an env constructor refused an argument's value
        print(f"genenv eval: {explain_make_error(env_id, env_kwargs, error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ngenenv eval: {_where_interrupted(env_id, env_ids, reports, args)}", file=sys.stderr)
        return 130
    if len(dict.fromkeys(env_ids)) > 1:
        print("\n" + outcomes.overview())
    failed = _failed_requests_summary(reports)
    if args.suite == "paper":
        missing = {env_id: _missing_line(error, env_kwargs) for env_id, error in outcomes.errors.items()}
        _print_paper_table(args.agent, reports, missing, not_built)
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
    if failed:
        print(f"genenv eval: {failed}", file=sys.stderr)
        if all(r.failed_requests == r.requests for r in reports if r.requests):
            return 1
    if not outcomes.all_on_data and len(dict.fromkeys(env_ids)) > 1:
        print(f"genenv eval: {outcomes.closing_line()}", file=sys.stderr)
    return EXIT_NOT_ALL_ON_DATA if args.suite and not outcomes.all_on_data else 0


def _missing_line(error: Exception, env_kwargs: dict) -> str:
    """One line on why a suite's env did not run, with the command that fixes it."""
    from genenv_gym.datasets.data_dir import MissingDataError, data_root, fetch_command

    line = str(error).splitlines()[0]
    if isinstance(error, MissingDataError) and error.benchmark:
        line += f"; get it with: {fetch_command(error.benchmark, data_root(env_kwargs.get('data_dir')))}"
    return line


def _where_interrupted(env_id: str, env_ids: list[str], reports: list, args: argparse.Namespace) -> str:
    """Where an interrupted ``genenv eval`` stopped, and how to go on from there."""
    from genenv_gym.evaluation import read_results

    finished = f"{len(reports)} of {len(env_ids)} envs finished"
    if not env_id:
        return f"interrupted before the first env started ({finished})"
    if not args.out:
        return (
            f"interrupted during {env_id} ({finished}); nothing was saved: run with --out DIR to keep "
            "each episode as it ends, then an interrupted run continues with --resume"
        )
    results = Path(args.out) / "episodes.jsonl"
    saved = sum(r.get("env_id") == env_id and r.get("agent") == args.agent for r in read_results(results))
    return (
        f"interrupted during {env_id} ({finished}; {saved} of its episodes saved in {results}); "
        "continue with the same command plus --resume"
    )


def _failed_requests_summary(reports: list) -> str:
    """What to say about model requests that failed ("" if none did)."""
    requests = sum(r.requests for r in reports)
    failed = sum(r.failed_requests for r in reports)
    if not failed:
        return ""
    error = next(r.request_error for r in reports if r.request_error)
    if failed == requests:
        return (
            f"no model request succeeded ({failed} failed; first error: {error}): the scores above measure "
            "nothing. Check the agent's URL, port, model name and API key"
        )
    return f"{failed} of {requests} model requests failed (first error: {error}); their tasks count as wrong"


def _print_paper_table(agent: str, reports: list, missing: dict[str, str], not_built: list[str]) -> None:
    from genenv_gym.cli.paper_table import PAPER_COLUMNS, paper_table

    by_id = {r.env_id: r for r in reports}
    scores: dict[str, float | None] = {}
    print("\nThe paper's protocol (Table 1):")
    for column in PAPER_COLUMNS:
        report = by_id.get(column.env_id)
        if report is not None:
            value = report.overall if column.metric == "overall" else report.summary.get(column.metric)
            scores[column.name] = value
            shown = f"{100 * value:.1f}" if value is not None else f"no {column.metric} in the report"
        elif column.name in not_built:
            scores[column.name], shown = None, f"missing: {column.env_id} is not built yet"
        else:
            scores[column.name] = None
            shown = f"missing: {missing.get(column.env_id, 'not run')}"
        print(f"  {column.name:<14} {column.env_id:<34} {shown}   [{column.protocol}]")
    print()
    print(paper_table(f"this run ({agent})", scores))


def cmd_export(args: argparse.Namespace) -> int:
    from genenv_gym.cli.output_paths import output_file
    from genenv_gym.datasets.data_dir import MissingDataError, without_fixture_fallback
    from genenv_gym.export import export

    if _unknown_envs([args.env], "export"):
        return 2
    try:
        if args.out:
            output_file(args.out, "--out")
        with without_fixture_fallback():  # training data is the benchmark's or nothing, never the fixtures
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
        from genenv_gym.integrations import VERL_AGENT_LOOP_CONFIG

        print(
            "verl agent loop (rows' agent_name=genenv_agent, the env played live): "
            f"actor_rollout_ref.rollout.agent.agent_loop_config_path={VERL_AGENT_LOOP_CONFIG}"
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
    list_parser.add_argument("--markdown", action="store_true", help="as README's Markdown table")
    list_parser.set_defaults(func=cmd_list)

    eval_parser = commands.add_parser(
        "eval",
        help="benchmark an agent on envs with their official metrics",
        description="Benchmark an agent: per-category accuracy and the benchmark's summaries per env, a "
        "table in the terminal, JSON/CSV on disk; with --out the run can be resumed. A simulator env "
        '(GenEnv-Sim-*) whose tasks an environment LLM writes (--env-kwargs \'{"simulator": "llm", '
        '"simulator_kwargs": {"backend": "openai:MODEL@URL"}}\') also reports the tasks that LLM wrote, '
        "how many were rejected by kind and the top rejection reasons (under the table and in the JSON).",
        epilog="Exit status: 0 every requested id ran (with --suite: on its own data); 1 an error stopped "
        "the run or no model request succeeded; 2 a usage error, found before any work (an unknown id or "
        "agent, bad --env-kwargs, an output path that cannot be written); 3 a --suite run finished but some "
        "ids ran on the shipped fixtures or did not run (its last line names the commands that get them); "
        "130 interrupted.",
    )
    eval_parser.add_argument("--env", action="append", help="env id (repeat for several)")
    eval_parser.add_argument(
        "--suite",
        choices=("paper", "all"),
        help="paper: the GenEnv paper's protocol for its five benchmarks, one Table-1 row with the "
        "published rows beside it (a benchmark without data is missing); all: every registered benchmark id "
        "(on a fresh install an id without data plays the shipped fixtures, as with --env)",
    )
    eval_parser.add_argument(
        "--agent",
        default="oracle",
        help="oracle, random, or an LLM backend spec: hf:PATH, openai:MODEL@URL, sglang:PATH, "
        "sglang-server:URL, tiny:ARCH (default: oracle)",
    )
    eval_parser.add_argument("--limit", type=int, default=None, help="at most N tasks per category")
    eval_parser.add_argument("--episodes", type=int, default=None, help="episodes on simulator envs (100)")
    eval_parser.add_argument(
        "--samples",
        type=int,
        default=1,
        metavar="K",
        help="benchmark envs: K independent tries of every task; reports pass@K, pass^K (all K tries "
        "succeed) and the per-task success rate with its spread (default: 1)",
    )
    eval_parser.add_argument(
        "--fetch",
        action="store_true",
        help="fetch a benchmark's data first when it is missing (genenv data fetch); without it, a fresh "
        "install with no data dir runs on the package's small fixtures and says so",
    )
    eval_parser.add_argument(
        "--seed", type=int, default=0, help="seeds the envs and the sampling (default: 0)"
    )
    eval_parser.add_argument(
        "--env-kwargs",
        metavar="JSON",
        help="gymnasium.make arguments, as a JSON object; e.g. an environment LLM writing a simulator "
        'env\'s tasks: \'{"simulator": "llm", "simulator_kwargs": {"backend": "openai:MODEL@URL"}}\'',
    )
    eval_parser.add_argument(
        "--temperature", type=float, default=0.0, help="LLM agents: sampling temperature (default: 0, greedy)"
    )
    eval_parser.add_argument(
        "--max-new-tokens",
        type=int,
        default=512,
        help="LLM agents: the most tokens of one reply (default: 512); on a CPU the time of a step grows "
        "with it",
    )
    eval_parser.add_argument(
        "--batch-size",
        type=int,
        default=1,
        help="LLM agents on benchmark envs: episodes played at once, one batched model call per step "
        "(default: 1); faster with an endpoint or a GPU, not on a CPU; the progress bar counts the tokens "
        "generated meanwhile",
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
    from genenv_gym.cli.compare import add_compare_command
    from genenv_gym.cli.data import add_data_command
    from genenv_gym.cli.rescore import add_rescore_command
    from genenv_gym.cli.train import add_train_command
    from genenv_gym.serve.cli import add_serve_command

    add_train_command(commands)
    add_data_command(commands)
    add_serve_command(commands)
    add_rescore_command(commands)
    add_compare_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)
