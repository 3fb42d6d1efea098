"""The smallest Qwen2 model the trainer tests use (one layer, hidden 16, vocabulary 32)."""

from __future__ import annotations


def micro_qwen2(max_position_embeddings: int = 32):
    """A randomly initialised one-layer Qwen2 causal LM; seed torch before calling for fixed weights."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(
        vocab_size=32,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=max_position_embeddings,
    )
    return Qwen2ForCausalLM(config)
