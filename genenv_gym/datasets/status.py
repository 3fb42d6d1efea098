"""What of each benchmark is present in a data directory, checked against what a complete copy holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from genenv_gym.registry.data_source import Source


@dataclass
class BenchmarkStatus:
    """One benchmark's folder: what is there and what is missing or off."""

    name: str
    folder: Path
    present: bool
    files: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.present and not self.problems

    def line(self) -> str:
        if not self.present:
            return f"{self.name:<14} missing     {self.folder}"
        state = "complete" if self.complete else "incomplete"
        extra = "" if self.complete else f" — {'; '.join(self.problems[:3])}"
        more = f" (+{len(self.problems) - 3} more)" if len(self.problems) > 3 else ""
        return f"{self.name:<14} {state:<11} {self.folder} ({self.files} files){extra}{more}"


def count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def benchmark_status(source: Source, root: Path) -> BenchmarkStatus:
    """Check ``root/<name>/`` against ``source``'s required files, record counts and globs."""
    folder = root / source.name
    if not folder.is_dir():
        return BenchmarkStatus(source.name, folder, False)
    status = BenchmarkStatus(source.name, folder, True, sum(1 for p in folder.rglob("*") if p.is_file()))
    for relative, records in source.required.items():
        path = folder / relative
        if not path.is_file():
            status.problems.append(f"no {relative}")
        elif records is not None and (found := count_lines(path)) != records:
            status.problems.append(f"{relative} has {found} records, the official release {records}")
    for pattern, minimum in source.required_globs.items():
        found = len(list(folder.glob(pattern)))
        if found < minimum:
            status.problems.append(f"{found} files match {pattern}, expected {minimum}")
    return status
