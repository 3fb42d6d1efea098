"""What a training run's numbers depend on beyond its config: library versions, the machine, and
fingerprints of the initial weights and tokenizer. Written to ``run.json`` so a run that does not
reproduce says why (a different torch or tokenizers build changes a random-weight model's init)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import sys
from typing import Any

import torch

#: The packages whose versions can change a run's numbers.
PACKAGES = ("torch", "transformers", "tokenizers", "numpy", "genenv-gym")


def weights_fingerprint(model: torch.nn.Module) -> str:
    """sha256 over the model's parameters and buffers, in name order (first 16 hex digits)."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().to("cpu", torch.float32).contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def tokenizer_fingerprint(tokenizer: Any) -> str:
    """sha256 over the tokenizer's vocabulary (token -> id), first 16 hex digits."""
    vocab = sorted(tokenizer.get_vocab().items())
    return hashlib.sha256(repr(vocab).encode()).hexdigest()[:16]


def versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for package in PACKAGES:
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    return found


def run_provenance(model: torch.nn.Module, tokenizer: Any, device: torch.device) -> dict[str, Any]:
    """The run's provenance record (see the module docstring)."""
    return {
        "versions": versions(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "device": str(device),
        "torch_threads": torch.get_num_threads(),
        # The float kernels: the same code and seed give other numbers under other kernels.
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "mkl_cbwr": os.environ.get("MKL_CBWR"),
        "initial_weights_sha256": weights_fingerprint(model),
        "tokenizer_sha256": tokenizer_fingerprint(tokenizer),
    }
