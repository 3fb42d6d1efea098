"""The optional extras of genenv-gym: which modules each needs, and the one install line that fixes a gap."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

from genenv_gym.registry.manifest import all_manifests

#: The extras that no benchmark owns -> the top-level modules each provides.
CORE_EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "train": ("torch", "transformers", "yaml"),
    "sb3": ("stable_baselines3", "tokenizers"),
    "export": ("pyarrow",),
    "sglang": ("sglang",),
    "gguf": ("gguf", "accelerate"),
    "serve": ("fastapi", "uvicorn", "websockets"),
    "trl": ("trl", "datasets"),
    "verl": ("verl", "ray", "hydra", "omegaconf", "tensordict"),
    "skyrl": ("skyrl_gym",),
}

#: extra -> the top-level modules it provides: the core extras and each benchmark manifest's own.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    **{m.extra.name: m.extra.modules for m in all_manifests() if m.extra is not None},
    **CORE_EXTRA_MODULES,
}

#: Extras that pull in torch: on a CPU-only machine torch's CPU build should be installed first.
TORCH_EXTRAS = ("train", "sb3")
CPU_TORCH_LINE = "pip install torch --index-url https://download.pytorch.org/whl/cpu"


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message is the install line that fixes it."""


def install_line(extra: str) -> str:
    """The command that installs ``extra`` into the current environment."""
    line = f"pip install 'genenv-gym[{extra}]'"
    if extra in TORCH_EXTRAS:
        line += f"  (on a CPU-only machine first: {CPU_TORCH_LINE})"
    return line


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here."""
    return [m for m in EXTRA_MODULES[extra] if importlib.util.find_spec(m) is None]


def require_extra(extra: str, what: str, modules: Sequence[str] | None = None) -> None:
    """Raise MissingExtraError naming ``what`` needs and the install line, when ``extra`` is incomplete
    (or, given ``modules``, when one of those, which ``extra`` installs, cannot be imported)."""
    if modules is None:
        missing = missing_modules(extra)
    else:
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingExtraError(
            f"{what} needs the '{extra}' extra (missing: {', '.join(missing)}): {install_line(extra)}"
        )
