"""GorillaFileSystem: BFCL multi-turn's in-memory file-system backend, official behaviour.

State: ``root``, a tree of :class:`Directory` and :class:`File` objects loaded from an
``initial_config`` entry (``{"root": {<root name>: {"type": "directory", "contents":
{...}}}}``), the current directory ``_current_dir`` (private, as officially) and the
``long_context`` flag. Return values and error dicts match BFCL's ``GorillaFileSystem``,
including its quirks, which change what an episode observes and so are kept:

- ``pwd`` always includes the root's name (``"/"`` gives ``"//"``, root ``alex`` gives
  ``"/alex/..."``) and ``cd`` answers with the bare name of the new directory;
- ``mv``/``cp`` of a directory make a new directory object that takes over (``mv``) or
  shallow-copies (``cp``) the children dict, so children of a copied directory are shared
  by both copies, and the children of a moved directory still name the old object as parent.

In long-context mode file contents (except the names in ``FILES_TAIL_USED``) get the filler
text appended and every loaded directory without subdirectories gets the filler image files.
"""

from __future__ import annotations

from typing import Any

from genenv_gym.envs.bfcl_multiturn.long_context import FILES_TAIL_USED, filler

_INVALID_CHARS = '|/\\?%*:"><'


class File:
    """A file: a name and text content (equal when both are equal)."""

    def __init__(self, name: str, content: str = "") -> None:
        """A file named ``name`` holding ``content``."""
        self.name = name
        self.content = content

    def _write(self, new_content: str) -> None:
        self.content = new_content

    def _read(self) -> str:
        return self.content

    def __repr__(self) -> str:
        return f"<<File: {self.name}, Content: {self.content}>>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, File) and self.name == other.name and self.content == other.content

    __hash__ = None  # type: ignore[assignment]


class Directory:
    """A directory: a name, a parent (None for the root) and an ordered name -> item dict."""

    def __init__(self, name: str, parent: Directory | None = None) -> None:
        """An empty directory ``name`` under ``parent``."""
        self.name = name
        self.parent = parent
        self.contents: dict[str, File | Directory] = {}

    def _add_file(self, file_name: str, content: str = "") -> None:
        if file_name in self.contents:
            raise ValueError(f"File '{file_name}' already exists in directory '{self.name}'.")
        self.contents[file_name] = File(file_name, content)

    def _add_directory(self, dir_name: str) -> None:
        if dir_name in self.contents:
            raise ValueError(f"Directory '{dir_name}' already exists in directory '{self.name}'.")
        self.contents[dir_name] = Directory(dir_name, self)

    def _get_item(self, item_name: str) -> File | Directory | None:
        if item_name == ".":
            return self
        return self.contents.get(item_name)

    def __repr__(self) -> str:
        parent = self.parent.name if self.parent else None
        return f"<Directory: {self.name}, Parent: {parent}, Contents: {self.contents}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Directory) and self.name == other.name and self.contents == other.contents

    __hash__ = None  # type: ignore[assignment]


def _valid_name(name: str) -> bool:
    """False when a file/directory name holds a character the official code forbids."""
    return not any(c in name for c in _INVALID_CHARS)


class GorillaFileSystem:
    """The file-system backend: navigate, create, read, write, search, move, copy, remove."""

    METHODS = (
        "pwd",
        "ls",
        "cd",
        "mkdir",
        "touch",
        "echo",
        "cat",
        "find",
        "wc",
        "sort",
        "grep",
        "du",
        "tail",
        "diff",
        "mv",
        "rm",
        "rmdir",
        "cp",
    )
    STATE_ATTRIBUTES = ("root", "long_context")

    def __init__(self, scenario: dict | None = None, long_context: bool = False) -> None:
        """Create a backend in the official default state, or loaded from ``scenario`` (the same as
        ``_load_scenario(scenario, long_context)`` after construction)."""
        self._load_scenario(scenario or {}, long_context=long_context)
        self._api_description = (
            "This tool belongs to the Gorilla file system. It is a simple file system that allows "
            "users to perform basic file operations such as navigating directories, creating files "
            "and directories, reading and writing to files, etc."
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GorillaFileSystem) and self.root == other.root

    __hash__ = None  # type: ignore[assignment]

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Build the tree from an ``initial_config`` entry (the config is never aliased)."""
        self.long_context = long_context
        self.root = Directory("/", None)
        if "root" in scenario:
            root_name = next(iter(scenario["root"]))
            self.root = self._load_directory(
                scenario["root"][root_name]["contents"], Directory(root_name, None)
            )
        self._current_dir = self.root

    def _load_directory(self, current: dict, parent: Directory) -> Directory:
        """Fill ``parent`` from a ``contents`` dict (recursively); returns ``parent``."""
        has_subdirectory = False
        for name, data in current.items():
            if data["type"] == "directory":
                has_subdirectory = True
                parent.contents[name] = self._load_directory(data["contents"], Directory(name, parent))
            elif data["type"] == "file":
                content = data["content"]
                if self.long_context and name not in FILES_TAIL_USED:
                    content += filler("FILE_CONTENT_EXTENSION")
                parent.contents[name] = File(name, content)
        if self.long_context and not has_subdirectory:
            for name in filler("POPULATE_FILE_EXTENSION"):
                parent._add_file(name)
        return parent

    def _local_file(self, name: str) -> File | None:
        """The file ``name`` in the current directory, else None (also for directories)."""
        if name in self._current_dir.contents:
            item = self._current_dir._get_item(name)
            if isinstance(item, File):
                return item
        return None

    def _navigate_to_directory(self, path: str | None) -> Directory | dict:
        """The directory at a relative or absolute path (``.`` steps allowed), or an error dict."""
        if path is None or path == ".":
            return self._current_dir
        if path == "/":
            return self.root
        directory = self.root if path.startswith("/") else self._current_dir
        for part in path.strip("/").split("/"):
            step = directory._get_item(part)
            if not isinstance(step, Directory):
                return {"error": f"cd: '{path}': No such file or directory"}
            directory = step
        return directory

    def pwd(self) -> dict:
        """The current directory path (the root's own name is part of it, as officially)."""
        names = []
        directory = self._current_dir
        while directory is not None:
            names.append(directory.name)
            directory = directory.parent
        return {"current_working_directory": "/" + "/".join(reversed(names))}

    def ls(self, a: bool = False) -> dict:
        """Names in the current directory; hidden (dot) names only when ``a``."""
        contents = list(self._current_dir.contents.keys())
        if not a:
            contents = [name for name in contents if not name.startswith(".")]
        return {"current_directory_content": contents}

    def cd(self, folder: str) -> dict:
        """Go to a child directory, ``..``, ``.`` or ``/`` (one level at a time)."""
        folder = folder.rstrip("/")
        if folder == "":
            folder = "/"
        if folder not in {".", "..", "/"} and "/" in folder:
            return {"error": f"cd: {folder}: Unsupported path. Only one folder level at a time is supported."}
        if folder == "..":
            if self._current_dir.parent:
                self._current_dir = self._current_dir.parent
            elif self.root == self._current_dir:
                return {"error": "Current directory is already the root. Cannot go back."}
            else:
                return {"error": "cd: ..: No such directory"}
            return {}
        target = self._navigate_to_directory(folder)
        if isinstance(target, dict):
            return target
        self._current_dir = target
        return {"current_working_directory": target.name}

    def mkdir(self, dir_name: str) -> dict | None:
        """Create a directory in the current directory."""
        if not _valid_name(dir_name):
            return {"error": f"mkdir: cannot create directory '{dir_name}': Invalid character"}
        if dir_name in self._current_dir.contents:
            return {"error": f"mkdir: cannot create directory '{dir_name}': File exists"}
        self._current_dir._add_directory(dir_name)
        return None

    def touch(self, file_name: str) -> dict | None:
        """Create an empty file in the current directory."""
        if not _valid_name(file_name):
            return {"error": f"touch: cannot touch '{file_name}': Invalid character"}
        if file_name in self._current_dir.contents:
            return {"error": f"touch: cannot touch '{file_name}': File exists"}
        self._current_dir._add_file(file_name)
        return None

    def echo(self, content: str, file_name: str | None = None) -> dict | None:
        """Show ``content``, or overwrite an existing file in the current directory with it."""
        if file_name is None:
            return {"terminal_output": content}
        if not _valid_name(file_name):
            return {"error": f"echo: cannot write to '{file_name}': Invalid character"}
        if not file_name:
            return {"terminal_output": content}
        if file_name not in self._current_dir.contents:
            return {"error": f"echo: cannot write to '{file_name}': No such file"}
        # a directory has no _write: AttributeError, as officially
        self._current_dir._get_item(file_name)._write(content)  # type: ignore[union-attr]
        return None

    def cat(self, file_name: str) -> dict:
        """The content of a file in the current directory."""
        if not _valid_name(file_name):
            return {"error": f"cat: '{file_name}': Invalid character"}
        if file_name not in self._current_dir.contents:
            return {"error": f"cat: '{file_name}': No such file or directory"}
        item = self._current_dir._get_item(file_name)
        if isinstance(item, File):
            return {"file_content": item._read()}
        return {"error": f"cat: '{file_name}': Is a directory"}

    def find(self, path: str = ".", name: str | None = None) -> dict:
        """Paths under ``path`` (recursively) whose last component contains ``name``."""
        target = self._navigate_to_directory(path)
        if isinstance(target, dict):
            message = target.get("error", "")
            if message.startswith("cd:"):
                return {"error": message.replace("cd:", "find:", 1)}
            return target
        matches: list[str] = []

        def walk(directory: Directory, base: str) -> None:
            for item_name, item in directory.contents.items():
                item_path = f"{base}/{item_name}"
                if name is None or name in item_name:
                    matches.append(item_path)
                if isinstance(item, Directory):
                    walk(item, item_path)

        walk(target, path.rstrip("/"))
        return {"matches": matches}

    def wc(self, file_name: str, mode: str = "l") -> dict:
        """Count lines (``l``), words (``w``) or characters (``c``) of a local file."""
        if mode not in ["l", "w", "c"]:
            return {"error": f"wc: invalid mode '{mode}'"}
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"wc: {file_name}: No such file or directory"}
        content = file._read()
        if mode == "l":
            return {"count": len(content.splitlines()), "type": "lines"}
        if mode == "w":
            return {"count": len(content.split()), "type": "words"}
        return {"count": len(content), "type": "characters"}

    def sort(self, file_name: str) -> dict:
        """The lines of a local file, sorted."""
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"sort: {file_name}: No such file or directory"}
        return {"sorted_content": "\n".join(sorted(file._read().splitlines()))}

    def grep(self, file_name: str, pattern: str) -> dict:
        """Lines of a local file containing ``pattern`` (plain substring)."""
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"grep: {file_name}: No such file or directory"}
        return {"matching_lines": [line for line in file._read().splitlines() if pattern in line]}

    def du(self, human_readable: bool = False) -> dict:
        """UTF-8 size of all files under the current directory."""

        def size(item: File | Directory) -> int:
            if isinstance(item, File):
                return len(item._read().encode("utf-8"))
            return sum(size(child) for child in item.contents.values())

        total: float = size(self._current_dir)
        if not human_readable:
            return {"disk_usage": f"{total} bytes"}
        for unit in ["B", "KB", "MB", "GB", "TB"]:
            if total < 1024:
                return {"disk_usage": f"{total:.2f} {unit}"}
            total /= 1024
        return {"disk_usage": f"{total:.2f} PB"}

    def tail(self, file_name: str, lines: int = 10) -> dict:
        """The last ``lines`` lines of a local file (0 gives all lines, as officially)."""
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"tail: {file_name}: No such file or directory"}
        content = file._read().splitlines()
        if lines > len(content):
            lines = len(content)
        return {"last_lines": "\n".join(content[-lines:])}

    def diff(self, file_name1: str, file_name2: str) -> dict:
        """Pairs of differing lines of two local files (up to the shorter one's length)."""
        contents = self._current_dir.contents
        if file_name1 in contents and file_name2 in contents:
            file1 = self._current_dir._get_item(file_name1)
            file2 = self._current_dir._get_item(file_name2)
            if isinstance(file1, File) and isinstance(file2, File):
                pairs = zip(file1._read().splitlines(), file2._read().splitlines(), strict=False)
                lines = [f"- {a}\n+ {b}" for a, b in pairs if a != b]
                return {"diff_lines": "\n".join(lines)}
        return {"error": f"diff: {file_name1} or {file_name2}: No such file or directory"}

    def _copy_into(self, target: Directory, name: str, item: File | Directory, share: bool) -> None:
        """Add a copy of ``item`` named ``name`` to ``target``; a directory copy takes over
        (``share``) or shallow-copies the children dict, as officially."""
        if isinstance(item, File):
            target._add_file(name, item.content)
        else:
            target._add_directory(name)
            target.contents[name].contents = item.contents if share else item.contents.copy()  # type: ignore[union-attr]

    def mv(self, source: str, destination: str) -> dict:
        """Rename a local item, or move it into a local directory."""
        if source not in self._current_dir.contents:
            return {"error": f"mv: cannot move '{source}': No such file or directory"}
        item = self._current_dir._get_item(source)
        if not isinstance(item, (File, Directory)):
            return {"error": f"mv: cannot move '{source}': Not a file or directory"}
        if "/" in destination:
            return {"error": "mv: path not allowed in destination. Provide only a file or directory name."}
        if destination in self._current_dir.contents:
            target = self._current_dir._get_item(destination)
            if not isinstance(target, Directory):
                return {"error": f"mv: cannot move '{source}' to '{destination}': Not a directory"}
            if source in target.contents:
                return {"error": f"mv: cannot move '{source}' to '{destination}/{source}': File exists"}
            self._current_dir.contents.pop(source)
            self._copy_into(target, source, item, share=True)
            return {"result": f"'{source}' moved to '{destination}/{source}'"}
        self._current_dir.contents.pop(source)
        self._copy_into(self._current_dir, destination, item, share=True)
        return {"result": f"'{source}' moved to '{destination}'"}

    def rm(self, file_name: str) -> dict:
        """Remove a local file or directory (non-empty directories too)."""
        if file_name not in self._current_dir.contents:
            return {"error": f"rm: cannot remove '{file_name}': No such file or directory"}
        item = self._current_dir._get_item(file_name)
        if not isinstance(item, (File, Directory)):
            return {"error": f"rm: cannot remove '{file_name}': Not a file or directory"}
        self._current_dir.contents.pop(file_name)
        return {"result": f"'{file_name}' removed"}

    def rmdir(self, dir_name: str) -> dict:
        """Remove an empty local directory."""
        if dir_name not in self._current_dir.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': No such file or directory"}
        item = self._current_dir._get_item(dir_name)
        if not isinstance(item, Directory):
            return {"error": f"rmdir: cannot remove '{dir_name}': Not a directory"}
        if item.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': Directory not empty"}
        self._current_dir.contents.pop(dir_name)
        return {"result": f"'{dir_name}' removed"}

    def cp(self, source: str, destination: str) -> dict:
        """Copy a local item to a new local name, or into a local directory."""
        if source not in self._current_dir.contents:
            return {"error": f"cp: cannot copy '{source}': No such file or directory"}
        item = self._current_dir._get_item(source)
        if not isinstance(item, (File, Directory)):
            return {"error": f"cp: cannot copy '{source}': Not a file or directory"}
        if "/" in destination:
            return {"error": "cp: path not allowed in destination. Provide only a file or directory name."}
        if destination in self._current_dir.contents:
            target = self._current_dir._get_item(destination)
            if not isinstance(target, Directory):
                return {"error": f"cp: cannot copy '{source}' to '{destination}': Not a directory"}
            if f"{destination}/{source}" in target.contents:
                return {"error": f"cp: cannot copy '{source}' to '{destination}/{source}': File exists"}
            self._copy_into(target, source, item, share=False)
            return {"result": f"'{source}' copied to '{destination}/{source}'"}
        self._copy_into(self._current_dir, destination, item, share=False)
        return {"result": f"'{source}' copied to '{destination}'"}


def tree_state(directory: Any, depth: int = 0) -> Any:
    """A plain nested representation of a file tree (ours or the official one), for
    comparisons in tests and cross-checks; cycles/very deep trees end in ``"..."``."""
    if depth > 200:
        return "..."
    if hasattr(directory, "contents") and isinstance(directory.contents, dict):
        return [directory.name, [(k, tree_state(v, depth + 1)) for k, v in directory.contents.items()]]
    return [directory.name, directory.content]
