"""The forward pass of a Llama-family decoder over a static KV cache, without padding masks on the hot path.

The layer math is written here as functions of the layer's weights (the same operations, in the same order
and precision, as transformers' Llama / Qwen2 / Qwen3 / Mistral layers), so that it can be compiled once
and reused by every layer: ``torch.compile`` fuses the element-wise work around the matrix products, which
on a GPU is what a small model's decode step mostly costs. The model's rotary-embedding module gives the
cosines and sines. Three passes:

- ``prefill``: whole prompts (or shared prompt prefixes), right-padded. Causal attention over a
  right-padded batch needs no mask (a padding token comes after every real one), so it runs as
  ``scaled_dot_product_attention(is_causal=True)``: the fused kernel on a GPU. Each prompt's keys and values
  are written into the cache rows that share it.
- ``extend``: the next tokens of a contiguous block of cache rows, each at its own position, attending to
  everything the row holds. With one token per row this is the decode step; with several it prefills the
  suffix a row adds after a shared prefix. The queries of each key-value head attend through one batched
  matrix product (no copy of the cache per query head).

A row's tokens occupy cache positions ``0 .. length - 1`` (no left padding): position ids are the true
positions, as in a forward pass over the row alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

#: ``config.model_type`` values whose decoder layers this forward reproduces.
SUPPORTED_MODEL_TYPES = ("llama", "qwen2", "qwen3", "mistral")
_ACTIVATIONS = ("silu", "swish")


def unsupported_reason(model: Any) -> str | None:
    """Why the fast engine cannot run ``model`` (None when it can)."""
    config = getattr(model, "config", None)
    model_type = getattr(config, "model_type", None)
    if model_type not in SUPPORTED_MODEL_TYPES:
        return f"model type {model_type!r} is not one of {', '.join(SUPPORTED_MODEL_TYPES)}"
    if any(kind != "full_attention" for kind in getattr(config, "layer_types", None) or []):
        return "sliding-window attention layers"
    if model_type == "mistral" and getattr(config, "sliding_window", None):
        return "sliding-window attention"
    if getattr(config, "hidden_act", None) not in _ACTIVATIONS:
        return f"activation {getattr(config, 'hidden_act', None)!r} (only SiLU)"
    rope = getattr(config, "rope_parameters", None) or getattr(config, "rope_scaling", None) or {}
    rope_type = str(rope.get("rope_type", rope.get("type", "default"))) if isinstance(rope, dict) else ""
    if "dynamic" in rope_type or "longrope" in rope_type:
        return f"rope type {rope_type!r} depends on the sequence length"
    try:
        decoder = model.get_decoder()
        for layer in decoder.layers:
            attn, mlp = layer.self_attn, layer.mlp
            for module in (attn.q_proj, attn.k_proj, attn.v_proj, attn.o_proj):
                module.weight  # noqa: B018
            for module in (mlp.gate_proj, mlp.up_proj, mlp.down_proj):
                module.weight  # noqa: B018
            for norm in (layer.input_layernorm, layer.post_attention_layernorm):
                if not type(norm).__name__.endswith("RMSNorm"):
                    return f"norm {type(norm).__name__} (only RMSNorm)"
        decoder.embed_tokens, decoder.norm, decoder.rotary_emb  # noqa: B018
    except (AttributeError, IndexError, TypeError) as exc:
        return f"unexpected module layout ({exc})"
    if model.get_output_embeddings() is None:
        return "no LM head"
    return None


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """transformers' RMSNorm: normalised in float32, cast back, then scaled."""
    x32 = x.to(torch.float32)
    x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
    return weight * x32.to(x.dtype)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin


def attention_inputs(
    hidden: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    weights: tuple,
    eps: float,
    shape: tuple[int, int, int],
    q_scale: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Queries ``[b, heads, s, d]`` times ``q_scale`` (contiguous); keys, values ``[b, kv_heads, s, d]``."""
    ln1, wq, bq, wk, bk, wv, bv, q_norm, k_norm = weights
    heads, kv_heads, head_dim = shape
    b, s, _ = hidden.shape
    x = rms_norm(hidden, ln1, eps)
    q = F.linear(x, wq, bq).view(b, s, heads, head_dim)
    k = F.linear(x, wk, bk).view(b, s, kv_heads, head_dim)
    v = F.linear(x, wv, bv).view(b, s, kv_heads, head_dim)
    if q_norm is not None:  # Qwen3 normalises each head before the rotation
        q, k = rms_norm(q, q_norm, eps), rms_norm(k, k_norm, eps)
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    q = _rotate(q.transpose(1, 2), cos, sin)
    if q_scale != 1.0:
        q = q * q_scale
    return q.contiguous(), _rotate(k.transpose(1, 2), cos, sin), v.transpose(1, 2)


def layer_output(hidden: torch.Tensor, attended: torch.Tensor, weights: tuple, eps: float) -> torch.Tensor:
    """The layer's output: ``attended`` (``[b, heads, s, d]``) through ``o_proj``, the residual, the MLP."""
    wo, bo, ln2, wg, bg, wu, bu, wd, bd = weights
    b, _, s, _ = attended.shape
    hidden = hidden + F.linear(attended.transpose(1, 2).reshape(b, s, -1), wo, bo)
    x = rms_norm(hidden, ln2, eps)
    return hidden + F.linear(F.silu(F.linear(x, wg, bg)) * F.linear(x, wu, bu), wd, bd)


class DecoderForward:
    """Prefill and extend passes of ``model`` over a ``StaticKVCache`` (see the module docstring).

    Args:
        model: a causal LM that ``unsupported_reason`` accepts.
        compile: run the layer functions through ``torch.compile`` (dynamic shapes: one compilation serves
            every layer, batch and length).
    """

    def __init__(self, model: Any, compile: bool = False) -> None:
        reason = unsupported_reason(model)
        if reason is not None:
            raise ValueError(f"the fast engine cannot run this model: {reason}")
        config = model.config
        decoder = model.get_decoder()
        self.model = model
        self.embed = decoder.embed_tokens
        self.norm = decoder.norm
        self.rotary = decoder.rotary_emb
        self.head = model.get_output_embeddings()
        self.layers = list(decoder.layers)
        self.heads = config.num_attention_heads
        self.kv_heads = getattr(config, "num_key_value_heads", None) or self.heads
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // self.heads
        self.groups = self.heads // self.kv_heads
        self.eps = float(config.rms_norm_eps)
        self.scaling = [float(layer.self_attn.scaling) for layer in self.layers]
        self.compiled = compile
        self._inputs: Callable = attention_inputs
        self._output: Callable = layer_output
        if compile:
            self._inputs = torch.compile(attention_inputs, dynamic=True)
            self._output = torch.compile(layer_output, dynamic=True)

    @property
    def num_layers(self) -> int:
        return len(self.layers)

    def _weights(self, index: int) -> tuple[tuple, tuple]:
        """The layer's parameters, read afresh (a trainer updates them in place or replaces them)."""
        layer = self.layers[index]
        attn, mlp = layer.self_attn, layer.mlp
        q_norm, k_norm = getattr(attn, "q_norm", None), getattr(attn, "k_norm", None)
        inputs = (
            layer.input_layernorm.weight,
            attn.q_proj.weight,
            attn.q_proj.bias,
            attn.k_proj.weight,
            attn.k_proj.bias,
            attn.v_proj.weight,
            attn.v_proj.bias,
            None if q_norm is None else q_norm.weight,
            None if k_norm is None else k_norm.weight,
        )
        output = (
            attn.o_proj.weight,
            attn.o_proj.bias,
            layer.post_attention_layernorm.weight,
            mlp.gate_proj.weight,
            mlp.gate_proj.bias,
            mlp.up_proj.weight,
            mlp.up_proj.bias,
            mlp.down_proj.weight,
            mlp.down_proj.bias,
        )
        return inputs, output

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """LM-head logits of final hidden states (the last norm applied here)."""
        return self.head(rms_norm(hidden, self.norm.weight, self.eps))

    # ------------------------------------------------------------------------------------------------
    def prefill(
        self,
        cache: Any,
        input_ids: torch.Tensor,
        rows: torch.Tensor,
        sources: torch.Tensor,
    ) -> None:
        """Run right-padded prompts ``[m, w]`` and write their keys and values to the cache.

        Cache row ``rows[j]`` receives the keys and values of prompt ``sources[j]`` at positions
        ``0 .. w - 1``. Positions past a prompt's own length hold padding keys: the caller overwrites them
        (suffix, decode) before any query can attend to them.
        """
        m, w = input_ids.shape
        positions = torch.arange(w, device=input_ids.device).unsqueeze(0).expand(m, w)
        hidden = self.embed(input_ids)
        cos, sin = self.rotary(hidden, positions)
        shape = (self.heads, self.kv_heads, self.head_dim)
        for index in range(self.num_layers):
            inputs, output = self._weights(index)
            q, k, v = self._inputs(hidden, cos, sin, inputs, self.eps, shape, 1.0)
            cache.k[index][rows, :, :w] = k[sources]
            cache.v[index][rows, :, :w] = v[sources]
            if self.groups > 1:
                k = k.repeat_interleave(self.groups, dim=1)
                v = v.repeat_interleave(self.groups, dim=1)
            attended = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=self.scaling[index])
            hidden = self._output(hidden, attended, output, self.eps)

    def extend(
        self,
        cache: Any,
        start: int,
        input_ids: torch.Tensor,
        positions: torch.Tensor,
        kv_length: int,
    ) -> torch.Tensor:
        """Hidden states ``[b, s, hidden]`` of tokens ``[b, s]`` appended to cache rows ``start .. start+b``.

        ``positions[r, i]`` is where token ``i`` of row ``r`` goes; it attends to the row's positions up to
        its own. ``kv_length`` bounds the positions read (more than every row's last position).
        """
        b, s = input_ids.shape
        hidden = self.embed(input_ids)
        cos, sin = self.rotary(hidden, positions)
        keys = torch.arange(kv_length, device=input_ids.device)
        hidden_mask = (keys.view(1, 1, 1, kv_length) > positions.view(b, 1, s, 1)).unsqueeze(1)
        scatter_at = positions.view(b, 1, s, 1).expand(b, self.kv_heads, s, self.head_dim)
        shape = (self.heads, self.kv_heads, self.head_dim)
        for index in range(self.num_layers):
            inputs, output = self._weights(index)
            q, k, v = self._inputs(hidden, cos, sin, inputs, self.eps, shape, self.scaling[index])
            layer_k = cache.k[index][start : start + b]
            layer_v = cache.v[index][start : start + b]
            layer_k.scatter_(2, scatter_at, k)
            layer_v.scatter_(2, scatter_at, v)
            attended = self._attend(q, layer_k[:, :, :kv_length], layer_v[:, :, :kv_length], hidden_mask)
            hidden = self._output(hidden, attended, output, self.eps)
        return hidden

    def _attend(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, hidden: torch.Tensor
    ) -> torch.Tensor:
        """Grouped-query attention of scaled queries; query head ``g * groups + j`` reads kv head ``g``.

        ``hidden`` is True where a key lies past the query's position (``[b, 1, 1, s, kv]``).
        """
        b, _, s, d = q.shape
        grouped = q.view(b, self.kv_heads, self.groups * s, d)
        scores = torch.matmul(grouped, k.transpose(-1, -2)).view(b, self.kv_heads, self.groups, s, -1)
        scores.masked_fill_(hidden, float("-inf"))
        # softmax accumulates in float32 whatever its input's dtype: one pass over the scores, not three
        weights = torch.softmax(scores, dim=-1)
        return torch.matmul(weights.view(b, self.kv_heads, self.groups * s, -1), v).view(b, self.heads, s, d)
