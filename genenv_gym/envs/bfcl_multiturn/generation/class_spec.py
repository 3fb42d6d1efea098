"""How the generator uses one backend class (``ClassSpec``), and its function docs in BFCL's JSON schema
format."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.generation.steps import Sampler

STRING, INTEGER, FLOAT, BOOLEAN, ARRAY, DICT = "string", "integer", "float", "boolean", "array", "dict"

#: One method's doc: (description, ((param, type, description, required), ...)).
FunctionDoc = tuple[str, tuple[tuple[str, str, str, bool], ...]]


@dataclass(frozen=True)
class ClassSpec:
    """How the generator uses one backend class: our own short docs of the methods it calls (``intro``
    opens each description; ``array_items`` is the item type of array parameters), a random
    ``initial_config`` part (None: the class has no state) and call samplers."""

    name: str
    intro: str
    docs: dict[str, FunctionDoc]
    config: Callable[[np.random.Generator, int], dict[str, Any]] | None
    samplers: list[Sampler]
    array_items: str = STRING

    def function_docs(self) -> list[dict[str, Any]]:
        """The function docs of the class's generated methods (BFCL's JSON schema format)."""
        docs = []
        for name, (description, params) in self.docs.items():
            properties: dict[str, Any] = {}
            for param, kind, text, _ in params:
                properties[param] = {"type": kind, "description": text}
                if kind == ARRAY:
                    properties[param]["items"] = {"type": self.array_items}
            docs.append(
                {
                    "name": name,
                    "description": f"{self.intro} Tool description: {description}",
                    "parameters": {
                        "type": "dict",
                        "properties": properties,
                        "required": [p for p, _, _, required in params if required],
                    },
                }
            )
        return docs
