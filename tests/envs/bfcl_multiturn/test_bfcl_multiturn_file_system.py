"""GorillaFileSystem backend of BFCL multi-turn: navigation, files, official quirks, safety."""

from __future__ import annotations

from genenv_gym.envs.bfcl_multiturn.executor import execute_call
from genenv_gym.envs.bfcl_multiturn.gorilla_file_system import GorillaFileSystem, tree_state
from genenv_gym.envs.bfcl_multiturn.long_context import FILES_TAIL_USED, filler

CONFIG = {
    "root": {
        "alex": {
            "type": "directory",
            "contents": {
                "notes.txt": {"type": "file", "content": "b line\na line\nc line"},
                "log.txt": {"type": "file", "content": "x\ny"},
                "docs": {"type": "directory", "contents": {"r.md": {"type": "file", "content": "hi"}}},
            },
        }
    }
}


def _fs(config: dict = CONFIG, long_context: bool = False) -> GorillaFileSystem:
    fs = GorillaFileSystem()
    fs._load_scenario(config, long_context=long_context)
    return fs


def test_navigation_and_official_path_quirks() -> None:
    fs = _fs()
    assert fs.pwd() == {"current_working_directory": "/alex"}
    assert fs.cd("docs") == {"current_working_directory": "docs"}
    assert fs.pwd() == {"current_working_directory": "/alex/docs"}
    assert fs.cd("..") == {}
    assert fs.cd("..") == {"error": "Current directory is already the root. Cannot go back."}
    assert fs.cd("a/b")["error"].endswith("Only one folder level at a time is supported.")
    assert fs.cd("nope") == {"error": "cd: 'nope': No such file or directory"}
    assert GorillaFileSystem().pwd() == {"current_working_directory": "//"}
    assert fs.ls() == {"current_directory_content": ["notes.txt", "log.txt", "docs"]}


def test_file_operations() -> None:
    fs = _fs()
    assert fs.touch("new.txt") is None
    assert fs.touch("new.txt") == {"error": "touch: cannot touch 'new.txt': File exists"}
    assert fs.mkdir("a:b") == {"error": "mkdir: cannot create directory 'a:b': Invalid character"}
    assert fs.echo("one\ntwo", "new.txt") is None and fs.cat("new.txt") == {"file_content": "one\ntwo"}
    assert fs.echo("hi") == {"terminal_output": "hi"}
    assert fs.cat("docs") == {"error": "cat: 'docs': Is a directory"}
    assert fs.wc("notes.txt", "w") == {"count": 6, "type": "words"}
    assert fs.wc("notes.txt", "q") == {"error": "wc: invalid mode 'q'"}
    assert fs.sort("notes.txt") == {"sorted_content": "a line\nb line\nc line"}
    assert fs.grep("notes.txt", "a ") == {"matching_lines": ["a line"]}
    assert fs.tail("notes.txt", 1) == {"last_lines": "c line"}
    assert fs.tail("notes.txt", 0) == {"last_lines": "b line\na line\nc line"}  # official quirk
    assert fs.diff("notes.txt", "new.txt") == {"diff_lines": "- b line\n+ one\n- a line\n+ two"}
    assert fs.find(name="o") == {"matches": ["./notes.txt", "./log.txt", "./docs"]}
    assert fs.find("docs/", "r.") == {"matches": ["docs/r.md"]}
    assert fs.find("/zz") == {"error": "find: '/zz': No such file or directory"}
    assert fs.du() == {"disk_usage": f"{20 + 3 + 2 + 7} bytes"}
    assert fs.du(human_readable=True) == {"disk_usage": "32.00 B"}


def test_move_copy_remove_and_shared_children() -> None:
    fs = _fs()
    assert fs.cp("docs", "copy") == {"result": "'docs' copied to 'copy'"}
    fs.cd("copy")
    fs.echo("changed", "r.md")
    fs.cd("..")
    fs.cd("docs")
    assert fs.cat("r.md") == {"file_content": "changed"}  # the official shallow copy shares children
    fs.cd("..")
    assert fs.mv("log.txt", "docs") == {"result": "'log.txt' moved to 'docs/log.txt'"}
    assert fs.mv("notes.txt", "copy/x")["error"].startswith("mv: path not allowed")
    assert fs.mv("notes.txt", "n2.txt") == {"result": "'notes.txt' moved to 'n2.txt'"}
    assert fs.rmdir("docs") == {"error": "rmdir: cannot remove 'docs': Directory not empty"}
    assert fs.rm("docs") == {"result": "'docs' removed"}
    assert fs.cp("n2.txt", "n2.txt") == {"error": "cp: cannot copy 'n2.txt' to 'n2.txt': Not a directory"}


def test_long_context_and_config_isolation() -> None:
    fs = _fs(long_context=True)
    assert fs.cat("log.txt") == {"file_content": "x\ny"}  # in FILES_TAIL_USED
    assert "log.txt" in FILES_TAIL_USED
    assert fs.cat("notes.txt")["file_content"].endswith(filler("FILE_CONTENT_EXTENSION"))
    fs.cd("docs")
    assert len(fs.ls()["current_directory_content"]) == 1 + len(filler("POPULATE_FILE_EXTENSION"))
    plain = _fs()
    plain.echo("new", "notes.txt")
    assert CONFIG["root"]["alex"]["contents"]["notes.txt"]["content"] == "b line\na line\nc line"
    assert _fs() == _fs() and _fs() != plain
    assert tree_state(_fs().root) == tree_state(_fs().root)


def test_hostile_inputs_are_outcomes() -> None:
    fs = _fs()
    instances = {"GorillaFileSystem": fs}
    assert "Unsupported path" in execute_call(instances, "cd", {"folder": "../.."})
    assert "No such file" in execute_call(instances, "find", {"path": "../../etc"})
    assert "Invalid character" in execute_call(instances, "cat", {"file_name": "../../etc/passwd"})
    for name, kwargs in [
        ("cd", {"folder": 5}),
        ("echo", {"content": "x", "file_name": "docs"}),
        ("tail", {"file_name": "notes.txt", "lines": "3"}),
        ("find", {"path": None}),
        ("_load_scenario", {"scenario": {}}),
        ("ls", {"bogus": 1}),
    ]:
        assert execute_call(instances, name, kwargs).startswith("Error during execution: ")
    assert fs.mkdir("x" * 1_000_000) is None
    fs.cp("docs", "docs")  # copies a directory into itself: a cycle, as officially
    fs.cd("docs")
    assert execute_call(instances, "du", {}).startswith("Error during execution: ")
