"""What a run over several env ids played: each requested id on its own data, on the shipped fixtures, or not
at all and why; the overview with a row per requested id, and the closing line that counts what did not run
on the benchmark data and names the commands that get it."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from genenv_gym.evaluation.report import EvalReport, overview_table

#: What an id ran on, as the overview's last column says it.
ON_DATA = "its data"
ON_FIXTURES = "fixtures, not the benchmark"

#: ``genenv eval --suite``'s exit status when the run finished but some requested id ran on the shipped
#: fixtures or did not run (0: every requested id ran on its data; 1: an error stopped the run or no model
#: request succeeded; 2: a usage error, found before any work; 130: interrupted).
EXIT_NOT_ALL_ON_DATA = 3

_INSTALL_LINE = re.compile(r"pip install '[^']+'")


@dataclass
class SuiteOutcomes:
    """The requested env ids and what each of them ran on, filled in as the run goes."""

    env_ids: Sequence[str]
    data_dir: str | os.PathLike | None = None
    reports: list[EvalReport] = field(default_factory=list)
    #: env id -> why it did not run (one short line).
    not_run: dict[str, str] = field(default_factory=dict)
    #: env id -> the command that gets what it lacked (fetch the data, install an extra).
    fixes: dict[str, str] = field(default_factory=dict)
    #: env id -> the error that kept it from running.
    errors: dict[str, Exception] = field(default_factory=dict)

    def played(self, report: EvalReport) -> None:
        self.reports.append(report)
        if report.on_fixtures:
            self.fixes[report.env_id] = self._fetch(report.on_fixtures)

    def missed(self, env_id: str, error: Exception) -> None:
        """``env_id`` did not run because of ``error`` (missing data or a missing extra)."""
        from genenv_gym.datasets.data_dir import MissingDataError

        self.errors[env_id] = error
        benchmark = getattr(error, "benchmark", None)
        if isinstance(error, MissingDataError) and benchmark:
            self.not_run[env_id] = f"no {benchmark} data"
            self.fixes[env_id] = self._fetch(benchmark)
            return
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        install = _INSTALL_LINE.search(first_line)
        self.not_run[env_id] = first_line[: install.start()].rstrip(": ") if install else first_line
        if install:
            self.fixes[env_id] = install.group(0)

    def _fetch(self, benchmark: str) -> str:
        from genenv_gym.datasets.data_dir import data_root, fetch_command

        return fetch_command(benchmark, data_root(self.data_dir))

    @property
    def on_fixtures(self) -> list[str]:
        return [r.env_id for r in self.reports if r.on_fixtures]

    @property
    def all_on_data(self) -> bool:
        """Whether every requested id ran on its own data."""
        return not self.not_run and not self.on_fixtures

    def overview(self) -> str:
        """One row per requested id: the played ones with what they ran on, then the ones that did not run."""
        data = {r.env_id: ON_FIXTURES if r.on_fixtures else ON_DATA for r in self.reports}
        return overview_table(self.reports, data, self.not_run)

    def closing_line(self) -> str:
        """How many requested ids ran on the fixtures or not at all, and the commands that get what they
        lacked ("" when every id ran on its data)."""
        if self.all_on_data:
            return ""
        parts = []
        if self.on_fixtures:
            parts.append(f"{len(self.on_fixtures)} on the shipped fixtures (not the benchmark)")
        if self.not_run:
            parts.append(f"{len(self.not_run)} not run")
        requested = list(dict.fromkeys(self.env_ids))
        commands = list(dict.fromkeys(self.fixes[i] for i in requested if i in self.fixes))
        ran = len(requested) - len(self.not_run) - len(self.on_fixtures)
        line = f"{ran} of {len(requested)} requested ids ran on their data; " + ", ".join(parts)
        if commands:
            line += "; get what they lack with: " + "; ".join(commands)
        return line
