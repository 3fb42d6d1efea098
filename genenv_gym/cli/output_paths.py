"""The files and folders a command will write, checked before it does any work: a path it cannot write is one
line (``OutputPathError``) at the start, not a traceback after the run."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


class OutputPathError(ValueError):
    """An output path that cannot be written; the message names the option, the path and why."""


def output_folder(path: str | os.PathLike, option: str, shown: str | os.PathLike | None = None) -> Path:
    """``path`` as a folder that exists and can be written to (created with its parents when missing);
    messages name ``shown`` (default: ``path``)."""
    folder = Path(path).expanduser()
    path = path if shown is None else shown
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputPathError(f"{option} {path}: {folder} is a file, not a folder") from None
    except OSError as error:
        raise OutputPathError(
            f"{option} {path}: cannot create this folder ({_why(error)}); choose another"
        ) from None
    _probe(folder / f".genenv-write-check-{os.getpid()}", option, path)
    return folder


def output_file(path: str | os.PathLike, option: str) -> Path:
    """``path`` as a file that can be written (its folder created when missing); the file is not left
    behind when it did not exist."""
    file = Path(path).expanduser()
    if file.is_dir():
        raise OutputPathError(f"{option} {path}: this is a folder; give a file name")
    output_folder(file.parent, option, shown=path)
    _probe(file, option, path)
    return file


def _probe(file: Path, option: str, shown: str | os.PathLike) -> None:
    """Open ``file`` for appending (removing it again if it is new), or raise OutputPathError."""
    existed = file.exists()
    try:
        with file.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise OutputPathError(f"{option} {shown}: cannot write it ({_why(error)}); choose another") from None
    if not existed:
        file.unlink(missing_ok=True)


def _why(error: OSError) -> str:
    return (error.strerror or type(error).__name__).lower()


def check_eval_outputs(args: argparse.Namespace) -> None:
    """``genenv eval``'s run folder (``--out``) and report files (``--json``, ``--csv``), before the run."""
    if args.out:
        output_folder(args.out, "--out")
    for option, path in (("--json", args.json), ("--csv", args.csv)):
        if path:
            output_file(path, option)
