"""Random-weight causal LMs and a locally trained tokenizer: offline stand-ins for real checkpoints.

Tests, the README demo, the throughput benchmark and the trainer's miniature all need a model that can be
built without any download. ``build_tokenizer`` trains a small byte-level BPE in memory (every string
round-trips through it: bytes it has no merge for stay single-byte tokens) and gives it a Qwen2-style
chat template (native tool calls rendered as Qwen2.5 renders them) and a response template that parses
them (TRL's tool loop needs both); ``build_model`` instantiates a Qwen2 or Llama architecture from a
config with random weights, tiny or shaped like Qwen2.5-0.5B / 1.5B; ``save_tiny`` writes both to a
directory that the ``hf:PATH`` backend spec (or ``from_pretrained``) loads.

Imports torch and transformers: import this module only where they are installed (``genenv-gym[train]``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import torch
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

from genenv_gym.suggest import check_choice, unknown_choice

#: Special tokens of the tiny tokenizer (Qwen2's names, so chat-template code paths are exercised as in Qwen).
PAD_TOKEN = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
SPECIAL_TOKENS = (PAD_TOKEN, IM_START, IM_END)

#: A Qwen2.5-style chat template (tools are listed in the system turn as Qwen2.5 does).
CHAT_TEMPLATE = (
    "{%- if tools %}"
    "{{- '<|im_start|>system\\n' }}"
    "{%- if messages[0]['role'] == 'system' %}{{- messages[0]['content'] + '\\n\\n' }}{%- endif %}"
    "{{- '# Tools\\n<tools>' }}{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}"
    "{{- '\\n</tools><|im_end|>\\n' }}"
    "{%- elif messages[0]['role'] != 'system' %}"
    "{{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if not (loop.first and message['role'] == 'system' and tools) %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + (message['content'] or '') }}"
    "{%- for call in message.get('tool_calls') or [] %}"
    "{%- set call = call['function'] if call['function'] is defined else call %}"
    "{%- if message['content'] or not loop.first %}{{- '\\n' }}{%- endif %}"
    "{{- '<tool_call>\\n{\"name\": \"' + call['name'] + '\", \"arguments\": ' }}"
    "{{- call['arguments'] if call['arguments'] is string else call['arguments'] | tojson }}"
    "{{- '}\\n</tool_call>' }}"
    "{%- endfor %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

#: How ``tokenizer.parse_response`` reads a reply of that template (transformers' response-template format,
#: as for Qwen3): ``<tool_call>{json}</tool_call>`` blocks are tool calls, the rest up to ``<|im_end|>`` is
#: content.
RESPONSE_TEMPLATE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "tool_calls": {
            "open": "<tool_call>",
            "close_pattern": r"</tool_call>\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}

_CORPUS = (
    "You are an expert in composing functions. You are given a question and a set of possible functions.",
    "Here is a list of functions in json format that you can invoke.",
    '{"name": "get_weather", "description": "Get the weather", "parameters": {"type": "dict", "properties": '
    '{"city": {"type": "string", "description": "The city"}}, "required": ["city"]}}',
    "[get_weather(city='Paris', unit='celsius'), convert_currency(amount=10.5, from_currency='EUR')]",
    '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "What is the weather in Paris? Convert 100 US dollars to euros. Book a flight from Boston to Tokyo.",
    "None of the provided functions can be used to answer this question.",
    "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 2.",
    "Your task is to: put a clean mug in the coffeemachine. go to countertop 1. take mug 1.",
    '{"category": "simple_python", "question": "...", "functions": [], "ground_truth": []}',
    "the of and to in is that for it with as was on be by this are at from or an which true false null",
    "0123456789 ()[]{}<>=:;,.'\"_-+*/\\|!?@#$%^&~` \n\t",
)

SIZES: dict[str, dict[str, Any]] = {
    # Small enough for unit tests on one CPU thread.
    "tiny": {
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "max_position_embeddings": 8192,
    },
    # The shapes of Qwen2.5-0.5B and Qwen2.5-1.5B (vocab_size 151936, tied embeddings).
    "qwen2.5-0.5b": {
        "hidden_size": 896,
        "intermediate_size": 4864,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "max_position_embeddings": 32768,
        "vocab_size": 151936,
        "rope_theta": 1_000_000.0,
    },
    "qwen2.5-1.5b": {
        "hidden_size": 1536,
        "intermediate_size": 8960,
        "num_hidden_layers": 28,
        "num_attention_heads": 12,
        "num_key_value_heads": 2,
        "max_position_embeddings": 32768,
        "vocab_size": 151936,
        "rope_theta": 1_000_000.0,
    },
}


@lru_cache(maxsize=4)
def _trained_tokenizer_json(vocab_size: int) -> str:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(list(_CORPUS) * 4, trainer)
    return tokenizer.to_str()


def build_tokenizer(vocab_size: int = 512) -> PreTrainedTokenizerFast:
    """A byte-level BPE of at most ``vocab_size`` tokens (>= 259), trained here, with a chat template.

    ``<|im_end|>`` is the end-of-turn (eos) token and ``<|endoftext|>`` the pad token, as in Qwen2.
    Deterministic: the same ``vocab_size`` always gives the same vocabulary.
    """
    if vocab_size < 256 + len(SPECIAL_TOKENS):
        raise ValueError(
            f"vocab_size must be >= {256 + len(SPECIAL_TOKENS)} for a byte-level BPE, got {vocab_size}"
        )
    from tokenizers import Tokenizer

    backend = Tokenizer.from_str(_trained_tokenizer_json(vocab_size))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token=IM_END,
        pad_token=PAD_TOKEN,
        additional_special_tokens=[IM_START],
        clean_up_tokenization_spaces=False,
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.response_template = RESPONSE_TEMPLATE
    tokenizer.padding_side = "left"
    return tokenizer


def model_config(
    arch: str = "qwen2",
    size: str = "tiny",
    vocab_size: int | None = None,
    tokenizer: Any = None,
    **overrides: Any,
) -> Qwen2Config | LlamaConfig:
    """A config of ``arch`` (``qwen2`` or ``llama``) with the shape ``size`` (a key of ``SIZES``).

    ``vocab_size`` defaults to the size's own (151936 for the Qwen2.5 shapes) or else to the tokenizer's;
    ``overrides`` replace fields of the shape (``hidden_size=32``...).
    """
    check_choice("size", size, sorted(SIZES))
    shape = {**SIZES[size], **overrides}
    shape["vocab_size"] = (
        vocab_size or shape.get("vocab_size") or (len(tokenizer) if tokenizer is not None else 512)
    )
    special: dict[str, Any] = {}
    if tokenizer is not None:
        special = {
            "eos_token_id": tokenizer.eos_token_id,
            "pad_token_id": tokenizer.pad_token_id,
            "bos_token_id": tokenizer.pad_token_id,
        }
    common = {"tie_word_embeddings": True, "use_cache": True, **special}
    if arch == "qwen2":
        return Qwen2Config(**shape, **common)
    if arch == "llama":
        shape.pop("rope_theta", None)
        return LlamaConfig(**shape, **common)
    raise ValueError(unknown_choice("arch", arch, ("qwen2", "llama")))


def build_model(
    arch: str = "qwen2",
    size: str = "tiny",
    tokenizer: Any = None,
    vocab_size: int | None = None,
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
    device: str | torch.device = "cpu",
    **overrides: Any,
) -> torch.nn.Module:
    """A causal LM with random weights (seeded), in eval mode; ``overrides`` as ``model_config``'s."""
    config = model_config(arch, size, vocab_size, tokenizer, **overrides)
    torch.manual_seed(seed)
    cls = Qwen2ForCausalLM if arch == "qwen2" else LlamaForCausalLM
    with torch.device(device):
        model = cls(config).to(dtype)
    model.generation_config.eos_token_id = config.eos_token_id
    model.generation_config.pad_token_id = config.pad_token_id
    return model.eval()


def build_tiny(arch: str = "qwen2", vocab_size: int = 512, seed: int = 0) -> tuple[torch.nn.Module, Any]:
    """The unit-test pair: a tiny random model and its tokenizer (hidden 64, 2 layers)."""
    tokenizer = build_tokenizer(vocab_size)
    return build_model(arch, "tiny", tokenizer, vocab_size=len(tokenizer), seed=seed), tokenizer


def save_tiny(path: str | Path, arch: str = "qwen2", vocab_size: int = 512, seed: int = 0) -> Path:
    """Write a tiny random model and its tokenizer to ``path`` (loadable with the ``hf:PATH`` spec)."""
    path = Path(path)
    model, tokenizer = build_tiny(arch, vocab_size, seed)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
