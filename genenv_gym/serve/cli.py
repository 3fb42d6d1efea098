"""``genenv serve``: every registered env id over the OpenEnv contract (see docs/serving.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

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
        help="JSON object: gymnasium.make kwargs for each id that takes them",
    )
    parser.add_argument("--max-sessions", type=int, default=defaults.max_sessions)
    parser.add_argument(
        "--env-threads",
        type=int,
        default=defaults.env_threads,
        help="threads running env code (default 1: safe for every env; TextWorld's parser is not "
        "thread-safe)",
    )
    parser.add_argument("--idle-timeout", type=float, default=defaults.idle_timeout_s, help="seconds")
    parser.add_argument("--step-timeout", type=float, default=defaults.step_timeout_s, help="seconds")
    parser.add_argument("--max-body-bytes", type=int, default=defaults.max_body_bytes)
    parser.add_argument("--max-action-chars", type=int, default=defaults.max_action_chars)
    parser.add_argument(
        "--token-env",
        default=None,
        metavar="NAME",
        help="require 'Authorization: Bearer <token>', the token read from environment variable NAME",
    )
    parser.add_argument("--access-log", action="store_true", help="log a line per request")
    parser.set_defaults(func=cmd_serve)
    return parser


def cmd_serve(args: argparse.Namespace) -> int:
    from genenv_gym.extras import MissingExtraError, require_extra

    try:
        require_extra("serve", "genenv serve")
    except MissingExtraError as error:
        print(f"genenv serve: {error}", file=sys.stderr)
        return 2
    from genenv_gym.serve.app import ServeConfig
    from genenv_gym.serve.catalog import Catalog
    from genenv_gym.serve.limits import token_from_env
    from genenv_gym.serve.server import uvicorn_server

    try:
        kwargs = json.loads(args.env_kwargs) if args.env_kwargs else {}
        if not isinstance(kwargs, dict):
            raise ValueError("--env-kwargs must be a JSON object")
        catalog = Catalog(args.env, kwargs)
        token = token_from_env(args.token_env)
    except ValueError as error:
        print(f"genenv serve: {error}", file=sys.stderr)
        return 2
    if args.data_dir:
        os.environ["GENENV_DATA_DIR"] = args.data_dir
    catalog = _servable(catalog, kwargs)
    if catalog is None:
        return 1
    limits = ServeLimits(
        max_sessions=args.max_sessions,
        env_threads=args.env_threads,
        idle_timeout_s=args.idle_timeout,
        step_timeout_s=args.step_timeout,
        max_body_bytes=args.max_body_bytes,
        max_action_chars=args.max_action_chars,
    )
    print(
        f"genenv serve: {len(catalog.env_ids)} env ids on http://{args.host}:{args.port}/envs/<env id> "
        f"(WebSocket /envs/<env id>/ws), at most {limits.max_sessions} sessions",
        file=sys.stderr,
    )
    uvicorn_server(
        ServeConfig(catalog, limits, token), args.host, args.port, access_log=args.access_log
    ).run()
    return 0


def _servable(catalog: Any, kwargs: dict) -> Any:
    """The catalog of the ids whose env can be made here (said on stderr); None when there is none."""
    from genenv_gym.data_dir import data_root
    from genenv_gym.serve.catalog import Catalog
    from genenv_gym.serve.data_check import check_served_ids, ids_to_check

    to_check = ids_to_check(catalog)
    if to_check:
        print(
            f"genenv serve: the data dir {data_root(kwargs.get('data_dir'))} does not hold every benchmark "
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
            f"{data_root(kwargs.get('data_dir'))}; not starting",
            file=sys.stderr,
        )
        return None
    return Catalog(check.servable, kwargs) if check.refused else catalog
