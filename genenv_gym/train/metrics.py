"""Per-epoch metrics: a JSONL file, an optional TensorBoard log, and a one-line table row per epoch."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from genenv_gym.atomic_write import write_atomically

#: Columns of the terminal table: (metric key, header, format).
TABLE = (
    ("epoch", "epoch", "{:>5d}"),
    ("agent_samples", "samples", "{:>8d}"),
    ("gen_success", "p_gen", "{:>6.3f}"),
    ("in_band_share", "in_band", "{:>7.3f}"),
    ("r_env", "R_env", "{:>6.3f}"),
    ("task_level", "level", "{:>6.2f}"),
    ("response_tokens", "resp_tok", "{:>8.1f}"),
    ("heldout_acc", "heldout", "{:>7.3f}"),
    ("seconds", "sec", "{:>6.1f}"),
)


class MetricsLogger:
    """Appends one JSON object per epoch to ``metrics.jsonl`` and mirrors scalars to TensorBoard."""

    def __init__(
        self, out_dir: str | Path, tensorboard: bool = True, echo: bool = True, enabled: bool = True
    ) -> None:
        self.path = Path(out_dir) / "metrics.jsonl"
        self.enabled = enabled  # False: every call is a no-op (the non-zero ranks of a torchrun job)
        self.echo = echo
        self.writer: Any = None
        if enabled:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if tensorboard and enabled:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.writer = SummaryWriter(str(Path(out_dir) / "tensorboard"))
            except ImportError:
                print(
                    "genenv train: TensorBoard logging is off (pip install tensorboard to enable it); "
                    "metrics.jsonl and the PNG plots are written anyway",
                    file=sys.stderr,
                )
        self._header_done = False

    def truncate_after(self, epoch: int) -> None:
        """Drop rows after ``epoch`` (a resumed run rewrites the epochs it repeats)."""
        if not self.enabled or not self.path.exists():
            return
        rows = [r for r in read_metrics(self.path) if r.get("epoch", 0) <= epoch]
        self._write(rows)

    def _write(self, rows: list[dict[str, Any]]) -> None:
        write_atomically(self.path, "".join(json.dumps(r) + "\n" for r in rows).encode())

    def log(self, row: dict[str, Any]) -> None:
        if not self.enabled:
            return
        # The whole file is rewritten and renamed into place: a crash or a reader never sees half a row.
        self._write([*(read_metrics(self.path) if self.path.exists() else []), row])
        if self.writer is not None:
            for key, value in tensorboard_scalars(row).items():
                self.writer.add_scalar(key, value, row["epoch"])
            self.writer.flush()
        if self.echo:
            if not self._header_done:
                print(
                    " ".join(f"{h:>{len(f.format(0) if 'd' in f else f.format(0.0))}}" for _, h, f in TABLE)
                )
                self._header_done = True
            cells = []
            for key, _, fmt in TABLE:
                value = row.get(key)
                width = len(fmt.format(0) if "d" in fmt else fmt.format(0.0))
                cells.append(fmt.format(value) if value is not None else "-".rjust(width))
            print(" ".join(cells), flush=True)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def tensorboard_scalars(row: dict[str, Any]) -> dict[str, float]:
    """The scalars of a metrics row as TensorBoard tags: numbers as they are, lists of numbers per index
    (``level_p`` -> ``level_p/0``, ``level_p/1``, ...; None entries left out); not ``epoch`` (the step)."""
    out: dict[str, float] = {}
    for key, value in row.items():
        if key == "epoch":
            continue
        if isinstance(value, int | float):
            out[key] = float(value)
        elif isinstance(value, list):
            out |= {f"{key}/{i}": float(v) for i, v in enumerate(value) if isinstance(v, int | float)}
    return out


class DamagedMetricsError(ValueError):
    """A ``metrics.jsonl`` line other than the last one is not JSON."""


def read_metrics(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a ``metrics.jsonl``; a torn last line (a write cut short by a kill) is dropped, with a
    note on stderr. Any other unreadable line raises ValueError naming the file and the line."""
    path = Path(path)
    lines = [(n, line) for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip()]
    rows = []
    for position, (number, line) in enumerate(lines):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as error:
            if position < len(lines) - 1:
                raise DamagedMetricsError(
                    f"{path}: line {number} is not a JSON row ({error}); the metrics file is damaged: "
                    "remove that line, or start afresh with --overwrite"
                ) from error
            print(f"genenv train: {path}: dropped a torn last line (line {number}, {error})", file=sys.stderr)
    return rows
