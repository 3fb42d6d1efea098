"""``genenv serve``: every registered env id over the OpenEnv contract (see docs/serving.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from genenv_gym.serve.catalog import registered_env_ids
from genenv_gym.serve.limits import ServeLimits


def add_serve_command(commands: Any) -> argparse.ArgumentParser:
    """Register ``serve`` on the ``genenv`` subparsers object."""
    defaults = ServeLimits()
    parser = commands.add_parser(
        "serve",
        help="serve the env ids over HTTP and WebSocket (the OpenEnv contract)",
        description="Serves every registered env id (or those given with --env) under /envs/<env id>: "
        "OpenEnv's WebSocket session per client (/ws), its HTTP /reset, /step, /state, /schema, /health, "
        "and our HTTP sessions for multi-turn play (docs/serving.md). Binds 127.0.0.1 unless told otherwise.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--env", action="append", help="serve only this env id (repeatable)")
    parser.add_argument("--data-dir", default=None, help="benchmark data root (sets GENENV_DATA_DIR)")
    parser.add_argument(
        "--env-kwargs",
        default=None,
        help="JSON object: the operator's gymnasium.make kwargs for each id that takes them (data dirs, "
        "backends, ...: what clients may not set)",
    )
    parser.add_argument(
        "--env-kwargs-for",
        action="append",
        default=[],
        metavar="ID=JSON",
        help="the operator's kwargs for one env id, over --env-kwargs (repeatable)",
    )
    parser.add_argument("--max-sessions", type=int, default=defaults.max_sessions, help="each is a process")
    parser.add_argument("--max-sessions-per-client", type=int, default=defaults.max_sessions_per_client)
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="env calls running at once, shared fairly between clients (default: twice the usable cores)",
    )
    parser.add_argument(
        "--session-memory-mb",
        type=int,
        default=defaults.session_memory_mb,
        help="data memory a session's process may take beyond what it shares (0: no limit)",
    )
    parser.add_argument(
        "--session-nice",
        type=int,
        default=defaults.session_nice,
        help="niceness of sessions' processes above the server's (0: the same)",
    )
    parser.add_argument("--idle-timeout", type=float, default=defaults.idle_timeout_s, help="seconds")
    parser.add_argument("--step-timeout", type=float, default=defaults.step_timeout_s, help="seconds")
    parser.add_argument("--make-timeout", type=float, default=defaults.make_timeout_s, help="seconds")
    parser.add_argument(
        "--slow-call",
        type=float,
        default=defaults.slow_call_s,
        help="seconds after which a running call drops its session to the lowest CPU priority (0: never)",
    )
    parser.add_argument("--max-body-bytes", type=int, default=defaults.max_body_bytes)
    parser.add_argument(
        "--max-json-values",
        type=int,
        default=defaults.max_json_values,
        help="JSON values a body or WebSocket message may hold, counted before it is decoded",
    )
    parser.add_argument("--max-action-chars", type=int, default=defaults.max_action_chars)
    parser.add_argument("--header-timeout", type=float, default=defaults.header_timeout_s, help="seconds")
    parser.add_argument("--body-timeout", type=float, default=defaults.body_timeout_s, help="seconds")
    parser.add_argument(
        "--keep-alive",
        type=float,
        default=defaults.keep_alive_s,
        help="seconds an idle connection stays open",
    )
    parser.add_argument("--max-connections-per-client", type=int, default=defaults.max_connections_per_client)
    parser.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="ADDRS",
        help="proxies (comma-separated addresses) whose X-Forwarded-For names the client; by default no "
        "header is believed and the client is the connection's peer",
    )
    parser.add_argument(
        "--token-env",
        default=None,
        metavar="NAME",
        help="require 'Authorization: Bearer <token>', the token read from environment variable NAME",
    )
    parser.add_argument(
        "--client-tokens",
        default=None,
        metavar="FILE",
        help="per-client bearer tokens, one 'NAME TOKEN' a line: each client's sessions, workers and "
        "curriculum records are shared by its name instead of its address's network",
    )
    parser.add_argument(
        "--client-prefix-v4",
        type=int,
        default=24,
        metavar="BITS",
        help="IPv4 addresses sharing this prefix count as one client (default 24; 32: each address)",
    )
    parser.add_argument(
        "--client-prefix-v6",
        type=int,
        default=64,
        metavar="BITS",
        help="IPv6 addresses sharing this prefix count as one client (default 64)",
    )
    parser.add_argument(
        "--curriculum",
        action="append",
        default=[],
        metavar="NAME=ID",
        help="host a curriculum NAME of simulator id ID, which sessions of ID join with env_kwargs "
        '{"shared_curriculum": NAME} (repeatable; docs/serving.md)',
    )
    parser.add_argument(
        "--curriculum-dir",
        default=None,
        metavar="DIR",
        help="where hosted curricula write their logs, diagnostics and checkpoints, and restart from",
    )
    parser.add_argument(
        "--curriculum-checkpoint-every",
        type=int,
        default=50,
        metavar="GROUPS",
        help="completed groups between two checkpoints of a hosted curriculum",
    )
    parser.add_argument(
        "--curriculum-share",
        type=float,
        default=None,
        metavar="FRACTION",
        help="the largest share of a hosted curriculum's recent groups one client may count for (default: "
        "an equal share of the clients active on it)",
    )
    parser.add_argument(
        "--curriculum-token-holders-only",
        action="store_true",
        help="hosted curricula count the records of clients named by --client-tokens only",
    )
    parser.add_argument(
        "--curriculum-keep-flagged",
        action="store_true",
        help="count the records of clients whose outcomes disagree with the others' (default: held back "
        "while they are a minority)",
    )
    parser.add_argument(
        "--curriculum-half-life",
        type=float,
        default=64,
        metavar="GROUPS",
        help="counted groups over which a group's pull on a hosted curriculum's level policy halves (the "
        "policy relaxes toward its prior, so a client that stops stops holding it; 0: never)",
    )
    parser.add_argument("--access-log", action="store_true", help="log a line per request")
    parser.set_defaults(func=cmd_serve)
    return parser


def cmd_serve(args: argparse.Namespace) -> int:
    from genenv_gym.registry.extras import MissingExtraError, require_extra

    try:
        require_extra("serve", "genenv serve")
    except MissingExtraError as error:
        print(f"genenv serve: {error}", file=sys.stderr)
        return 2
    from genenv_gym.serve.app import ServeConfig
    from genenv_gym.serve.catalog import Catalog
    from genenv_gym.serve.curricula import CurriculumSpec
    from genenv_gym.serve.curriculum_influence import InfluencePolicy
    from genenv_gym.serve.identity import ClientIdentity, read_client_tokens
    from genenv_gym.serve.limits import token_from_env
    from genenv_gym.serve.server import uvicorn_server

    try:
        catalog = Catalog(args.env, operator_kwargs(args.env_kwargs, args.env_kwargs_for))
        token = token_from_env(args.token_env)
        tokens = read_client_tokens(args.client_tokens) if args.client_tokens else {}
        identity = ClientIdentity(args.client_prefix_v4, args.client_prefix_v6, tokens)
        policy = InfluencePolicy(
            share=args.curriculum_share,
            token_holders_only=args.curriculum_token_holders_only,
            hold_flagged=not args.curriculum_keep_flagged,
            half_life=args.curriculum_half_life or None,
        )
        if policy.token_holders_only and not tokens:
            raise ValueError("--curriculum-token-holders-only needs --client-tokens (who holds a token)")
        curricula = tuple(CurriculumSpec.parse(text) for text in args.curriculum)
    except ValueError as error:
        print(f"genenv serve: {error}", file=sys.stderr)
        return 2
    if args.data_dir:
        os.environ["GENENV_DATA_DIR"] = args.data_dir
    catalog = _servable(catalog)
    if catalog is None:
        return 1
    unserved = [spec.env_id for spec in curricula if spec.env_id not in catalog.env_ids]
    if unserved:
        print(f"genenv serve: --curriculum names ids this server does not serve: {unserved}", file=sys.stderr)
        return 2
    limits = ServeLimits(
        max_sessions=args.max_sessions,
        max_sessions_per_client=args.max_sessions_per_client,
        workers=args.workers,
        idle_timeout_s=args.idle_timeout,
        step_timeout_s=args.step_timeout,
        make_timeout_s=args.make_timeout,
        slow_call_s=args.slow_call,
        session_memory_mb=args.session_memory_mb,
        session_nice=args.session_nice,
        max_body_bytes=args.max_body_bytes,
        max_json_values=args.max_json_values,
        max_action_chars=args.max_action_chars,
        header_timeout_s=args.header_timeout,
        body_timeout_s=args.body_timeout,
        keep_alive_s=args.keep_alive,
        max_connections_per_client=args.max_connections_per_client,
    )
    print(
        f"genenv serve: {len(catalog.env_ids)} env ids on http://{args.host}:{args.port}/envs/<env id> "
        f"(WebSocket /envs/<env id>/ws), at most {limits.max_sessions} sessions "
        f"({limits.max_sessions_per_client} per client), {limits.workers} env calls at once",
        file=sys.stderr,
    )
    config = ServeConfig(
        catalog,
        limits,
        token,
        args.forwarded_allow_ips,
        curricula,
        args.curriculum_dir,
        args.curriculum_checkpoint_every,
        identity,
        policy,
    )
    try:
        server = uvicorn_server(config, args.host, args.port, access_log=args.access_log)
    except ValueError as error:  # a hosted curriculum that cannot be built
        print(f"genenv serve: {error}", file=sys.stderr)
        return 2
    if curricula:
        names = ", ".join(f"{spec.name} ({spec.env_id})" for spec in curricula)
        print(f"genenv serve: hosting curricula {names}", file=sys.stderr)
    server.run()
    if not server.started:  # the app did not start (uvicorn said why above)
        print("genenv serve: the server did not start", file=sys.stderr)
        return 1
    return 0


def _servable(catalog: Any) -> Any:
    """The catalog of the ids whose env can be made here (said on stderr); None when there is none."""
    from genenv_gym.datasets.data_dir import data_root
    from genenv_gym.serve.data_check import check_served_ids, ids_to_check

    to_check = ids_to_check(catalog)
    if to_check:
        print(
            f"genenv serve: the data dir {data_root(None)} does not hold every benchmark "
            f"complete: playing one episode start of {len(to_check)} env ids to see which can be served "
            "(seconds to a minute)",
            file=sys.stderr,
        )
    check = check_served_ids(catalog, to_check)
    for line in check.lines():
        print(f"genenv serve: {line}", file=sys.stderr)
    if not check.servable:
        print(
            f"genenv serve: none of the {len(catalog.env_ids)} env ids can be served with the data dir "
            f"{data_root(None)}; not starting",
            file=sys.stderr,
        )
        return None
    return catalog.only(check.servable) if check.refused else catalog


def operator_kwargs(everywhere: str | None, per_id: list[str]) -> Callable[[str], dict[str, Any]]:
    """The operator's kwargs of each env id: ``--env-kwargs`` (for each id that takes the key) with the
    id's own ``--env-kwargs-for ID=JSON`` over them; ValueError for JSON that is not an object."""
    common = _json_object(everywhere, "--env-kwargs") if everywhere else {}
    own: dict[str, dict[str, Any]] = {}
    for item in per_id:
        env_id, sep, text = item.partition("=")
        env_id = env_id.strip()
        if not sep:
            raise ValueError(f"--env-kwargs-for {item!r}: expected ID=JSON")
        if env_id not in registered_env_ids():
            raise ValueError(f"--env-kwargs-for: not a servable env id: {env_id!r}")
        own[env_id] = _json_object(text, f"--env-kwargs-for {env_id}")

    def kwargs(env_id: str) -> dict[str, Any]:
        from genenv_gym.registry.env_kwargs import env_parameters
        from genenv_gym.serve.client_kwargs import merge_kwargs

        accepted = env_parameters(env_id)
        shared = {k: v for k, v in common.items() if k in accepted or "kwargs" in accepted}
        return merge_kwargs(shared, own.get(env_id, {}))

    return kwargs


def _json_object(text: str, flag: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as error:
        raise ValueError(f"{flag}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{flag} must be a JSON object")
    return value
