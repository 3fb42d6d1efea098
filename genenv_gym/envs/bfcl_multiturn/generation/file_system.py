"""How the generator uses ``GorillaFileSystem``: its docs, call samplers (names of the current folder)
and a random file tree of text files."""

from __future__ import annotations

from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.generation.class_spec import (
    BOOLEAN,
    INTEGER,
    STRING,
    ClassSpec,
    FunctionDoc,
)
from genenv_gym.envs.bfcl_multiturn.generation.steps import Sampler, make_step, pick
from genenv_gym.envs.bfcl_multiturn.generation.vocabulary import NAMES, WORDS
from genenv_gym.envs.bfcl_multiturn.gorilla_file_system import Directory, File, GorillaFileSystem

_DOCS: dict[str, FunctionDoc] = {
    "pwd": ("Return the current working directory path.", ()),
    "ls": ("List the contents of the current directory.", (("a", BOOLEAN, "Show hidden files too.", False),)),
    "cd": (
        "Change into a directory of the current directory, or '..'.",
        (("folder", STRING, "Folder.", True),),
    ),
    "mkdir": ("Create a directory in the current directory.", (("dir_name", STRING, "New name.", True),)),
    "touch": ("Create an empty file in the current directory.", (("file_name", STRING, "New name.", True),)),
    "cat": ("Show the content of a file of the current directory.", (("file_name", STRING, "File.", True),)),
    "wc": (
        "Count the lines, words or characters of a file.",
        (
            ("file_name", STRING, "File.", True),
            ("mode", STRING, "'l' lines, 'w' words, 'c' characters.", False),
        ),
    ),
    "grep": (
        "The lines of a file that contain a pattern.",
        (("file_name", STRING, "File.", True), ("pattern", STRING, "Text to look for.", True)),
    ),
    "sort": ("Sort the lines of a file.", (("file_name", STRING, "File.", True),)),
    "tail": (
        "The last lines of a file.",
        (("file_name", STRING, "File.", True), ("lines", INTEGER, "How many lines (default 10).", False)),
    ),
    "echo": (
        "Write content to an existing file of the current directory (or show it).",
        (("content", STRING, "Text.", True), ("file_name", STRING, "File to overwrite.", False)),
    ),
    "cp": (
        "Copy a file to a new name or into a directory.",
        (("source", STRING, "Item to copy.", True), ("destination", STRING, "New name or directory.", True)),
    ),
    "mv": (
        "Move or rename an item of the current directory.",
        (("source", STRING, "Item to move.", True), ("destination", STRING, "New name or directory.", True)),
    ),
    "rm": ("Remove a file of the current directory.", (("file_name", STRING, "File.", True),)),
    "diff": (
        "Line differences between two files.",
        (("file_name1", STRING, "First file.", True), ("file_name2", STRING, "Second file.", True)),
    ),
}


def _items(fs: GorillaFileSystem) -> tuple[list[str], list[str]]:
    files = [n for n, i in fs._current_dir.contents.items() if isinstance(i, File)]
    dirs = [n for n, i in fs._current_dir.contents.items() if isinstance(i, Directory)]
    return files, dirs


def _text_files(fs: GorillaFileSystem) -> list[str]:
    return [n for n, i in fs._current_dir.contents.items() if isinstance(i, File) and i.content.strip()]


def _new_name(rng: np.random.Generator, taken: Any, suffix: str = "") -> str:
    for _ in range(20):
        name = f"{pick(rng, WORDS)}_{int(rng.integers(10, 99))}{suffix}"
        if name not in taken:
            return name
    return f"item_{len(taken)}{suffix}"


def _samplers() -> list[Sampler]:
    def ls(fs, rng):
        return make_step("ls", {"a": True}, "list everything in the current folder, hidden entries too")

    def pwd(fs, rng):
        return make_step("pwd", {}, "tell me the path of the folder I am in")

    def cd(fs, rng):
        _, dirs = _items(fs)
        if not dirs:
            return None
        return make_step(
            "cd", {"folder": pick(rng, dirs)}, "go into the folder {folder}", "go into the folder", "folder"
        )

    def mkdir(fs, rng):
        name = _new_name(rng, fs._current_dir.contents)
        return make_step(
            "mkdir",
            {"dir_name": name},
            "create a folder named {dir_name} here",
            "create a new folder here",
            "folder name",
        )

    def touch(fs, rng):
        name = _new_name(rng, fs._current_dir.contents, ".txt")
        return make_step(
            "touch",
            {"file_name": name},
            "create an empty file called {file_name}",
            "create an empty file",
            "file name",
        )

    def cat(fs, rng):
        files = _text_files(fs)
        if not files:
            return None
        return make_step(
            "cat",
            {"file_name": pick(rng, files)},
            "show me the content of {file_name}",
            "show me the content of my file",
            "file",
        )

    def wc(fs, rng):
        files = _text_files(fs)
        if not files:
            return None
        mode = pick(rng, ("l", "w", "c"))
        what = {"l": "lines", "w": "words", "c": "characters"}[mode]
        return make_step(
            "wc", {"file_name": pick(rng, files), "mode": mode}, f"count the {what} of {{file_name}}"
        )

    def grep(fs, rng):
        files = _text_files(fs)
        if not files:
            return None
        name = pick(rng, files)
        words = fs._current_dir.contents[name].content.split()
        return make_step(
            "grep",
            {"file_name": name, "pattern": pick(rng, words)},
            "find the lines of {file_name} that contain {pattern}",
            "find the lines of {file_name} that contain the word I need",
            "word",
        )

    def sort(fs, rng):
        files = _text_files(fs)
        if not files:
            return None
        return make_step("sort", {"file_name": pick(rng, files)}, "sort the lines of {file_name}")

    def tail(fs, rng):
        files = _text_files(fs)
        if not files:
            return None
        kwargs = {"file_name": pick(rng, files), "lines": int(rng.integers(1, 4))}
        return make_step("tail", kwargs, "show the last {lines} lines of {file_name}")

    def echo(fs, rng):
        files, _ = _items(fs)
        if not files:
            return None
        text = " ".join(pick(rng, WORDS) for _ in range(3))
        return make_step(
            "echo",
            {"content": text, "file_name": pick(rng, files)},
            "write {content} into {file_name}, replacing what it holds",
            "write some text into {file_name}, replacing what it holds",
            "text",
        )

    def cp(fs, rng):
        files, dirs = _items(fs)
        if not files or not dirs:
            return None
        source, target = pick(rng, files), pick(rng, dirs)
        if source in fs._current_dir.contents[target].contents:
            return None
        return make_step(
            "cp",
            {"source": source, "destination": target},
            "copy {source} into the folder {destination}",
            "copy {source} into another folder",
            "folder",
        )

    def mv(fs, rng):
        files, _ = _items(fs)
        if not files:
            return None
        new = _new_name(rng, fs._current_dir.contents, ".txt")
        return make_step(
            "mv",
            {"source": pick(rng, files), "destination": new},
            "rename {source} to {destination}",
            "rename {source}",
            "new name",
        )

    def rm(fs, rng):
        files, _ = _items(fs)
        if not files:
            return None
        return make_step("rm", {"file_name": pick(rng, files)}, "delete the file {file_name}")

    def diff(fs, rng):
        files = _text_files(fs)
        if len(files) < 2:
            return None
        a, b = (files[i] for i in rng.choice(len(files), 2, replace=False))
        return make_step("diff", {"file_name1": a, "file_name2": b}, "compare {file_name1} with {file_name2}")

    return [ls, pwd, cd, cd, mkdir, touch, cat, wc, grep, sort, tail, echo, cp, mv, rm, diff]


def _text(rng: np.random.Generator) -> str:
    lines = [
        " ".join(pick(rng, WORDS) for _ in range(int(rng.integers(2, 6))))
        for _ in range(int(rng.integers(2, 6)))
    ]
    return "\n".join(lines)


def _config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    def folder(depth: int) -> dict[str, Any]:
        contents: dict[str, Any] = {}
        for _ in range(int(rng.integers(1, size + 2))):
            contents[_new_name(rng, contents, ".txt")] = {"type": "file", "content": _text(rng)}
        if depth < 2:
            for _ in range(int(rng.integers(1, size + 1))):
                contents[_new_name(rng, contents)] = {"type": "directory", "contents": folder(depth + 1)}
        return contents

    user = pick(rng, NAMES).lower()
    return {"root": {user: {"type": "directory", "contents": folder(0)}}}


SPEC = ClassSpec(
    "GorillaFileSystem",
    "This tool belongs to a simple in-memory file system.",
    _DOCS,
    _config,
    _samplers(),
)
