"""The training configs installed with the package, and resolving ``--config`` (a file or a shipped name)."""

from __future__ import annotations

from pathlib import Path

#: Where the shipped configs live (the repository's ``configs/`` links here).
CONFIGS_DIR = Path(__file__).resolve().parents[1] / "configs"


def shipped_configs() -> list[str]:
    """The names of the shipped configs (``demo``, ``paper_bfcl``, ...)."""
    return sorted(path.stem for path in CONFIGS_DIR.glob("*.yaml"))


def resolve_config(name_or_path: str | Path) -> Path:
    """``name_or_path`` if that file exists, else the shipped config of that name (``demo`` or
    ``demo.yaml``, also ``configs/demo.yaml`` from any folder); FileNotFoundError listing them if neither."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    shipped = CONFIGS_DIR / (path.name if path.suffix == ".yaml" else f"{path.name}.yaml")
    if path.parent in (Path("."), Path("configs")) and shipped.is_file():
        return shipped
    raise FileNotFoundError(
        f"config file {path} does not exist; the shipped configs are {', '.join(shipped_configs())} "
        "(e.g. --config demo)"
    )
