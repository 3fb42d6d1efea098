"""Text-generation backends behind one interface, built from a spec string.

Specs:

- ``hf:PATH``: transformers (CPU or GPU) loading ``PATH`` (a directory or hub id).
- ``tiny:ARCH``: a tiny random-weight ``qwen2`` or ``llama`` model on the hf backend (tests, demos).
- ``sglang:PATH``: the offline ``sglang.Engine`` (needs the ``sglang`` extra and a GPU).
- ``sglang-server:URL``: a running sglang server's native ``/generate`` route.
- ``openai:MODEL@URL``: an OpenAI-compatible endpoint (``openai:MODEL`` for api.openai.com).

Only the module of the chosen backend is imported, so torch and transformers load only for ``hf``/``tiny``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from genenv_gym.agents.backends.base import (
    HF_ENGINES,
    Backend,
    BackendError,
    Completion,
    Messages,
    Prompt,
    SamplingParams,
    error_completion,
)
from genenv_gym.agents.backends.scripted import ScriptedBackend

KINDS = ("hf", "tiny", "sglang", "sglang-server", "openai")

__all__ = [
    "HF_ENGINES",
    "KINDS",
    "Backend",
    "BackendError",
    "BackendSpec",
    "Completion",
    "Messages",
    "Prompt",
    "SamplingParams",
    "ScriptedBackend",
    "error_completion",
    "make_backend",
    "parse_spec",
]


@dataclass(frozen=True)
class BackendSpec:
    """A parsed spec: the backend kind, its model (path, name or arch) and URL where it has one."""

    kind: str
    model: str = ""
    url: str = ""


def parse_spec(spec: str) -> BackendSpec:
    """Parse ``kind:rest`` (see the module docstring); raises ValueError saying what is expected."""
    kind, sep, rest = spec.partition(":")
    if not sep or kind not in KINDS:
        raise ValueError(f"backend spec {spec!r} must start with one of {', '.join(k + ':' for k in KINDS)}")
    if not rest:
        raise ValueError(f"backend spec {spec!r} names no model or URL after {kind + ':'!r}")
    if kind == "openai":
        model, at, tail = rest.partition("@http")
        if at and not model:
            raise ValueError(f"backend spec {spec!r}: expected openai:MODEL@URL")
        return BackendSpec(kind, model, "http" + tail if at else "")
    if kind == "sglang-server":
        return BackendSpec(kind, "", rest)
    return BackendSpec(kind, rest)


def make_backend(spec: str | Backend, **kwargs: Any) -> Backend:
    """A backend from a spec string (keyword arguments go to its constructor), or ``spec`` if it is one."""
    if isinstance(spec, Backend):
        return spec
    parsed = parse_spec(spec)
    if parsed.kind in ("hf", "tiny"):
        from genenv_gym.registry.extras import require_extra

        require_extra("train", f"the {parsed.kind}: backend", modules=("torch", "transformers"))
    if parsed.kind == "hf":
        from genenv_gym.agents.backends.hf import HFBackend

        return HFBackend(parsed.model, **kwargs)
    if parsed.kind == "tiny":
        from genenv_gym.agents.backends.hf import HFBackend
        from genenv_gym.agents.tiny_model import build_tiny

        build = {k: kwargs.pop(k) for k in ("vocab_size", "seed") if k in kwargs}
        model, tokenizer = build_tiny(parsed.model, **build)
        return HFBackend(model, tokenizer, model_name=f"tiny-{parsed.model}", **kwargs)
    if parsed.kind == "sglang":
        from genenv_gym.agents.backends.sglang import SGLangEngineBackend

        return SGLangEngineBackend(parsed.model, **kwargs)
    if parsed.kind == "sglang-server":
        from genenv_gym.agents.backends.sglang import SGLangServerBackend

        return SGLangServerBackend(parsed.url, **kwargs)
    from genenv_gym.agents.backends.openai import DEFAULT_BASE_URL, OpenAIBackend

    return OpenAIBackend(parsed.model, parsed.url or DEFAULT_BASE_URL, **kwargs)
