"""model.float32_logits: a bfloat16 model's LM head computed in float32, its weight still the model's."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from test_train_loop import tiny_config  # noqa: E402

from genenv_gym.agents.tiny_model import build_tiny  # noqa: E402
from genenv_gym.train.float32_head import Float32Head, use_float32_head  # noqa: E402
from genenv_gym.train.loop import Trainer  # noqa: E402


def test_the_head_reads_the_models_own_weight_and_returns_unrounded_logits() -> None:
    model, _ = build_tiny("qwen2", seed=1)
    model = model.to(torch.bfloat16)
    head = model.get_output_embeddings()
    tied = head.weight is model.get_input_embeddings().weight
    hidden = torch.randn(3, model.config.hidden_size).to(torch.bfloat16)
    assert use_float32_head(model)
    new = model.get_output_embeddings()
    assert isinstance(new, Float32Head) and new.weight is head.weight
    assert (new.weight is model.get_input_embeddings().weight) == tied
    logits = new(hidden)
    assert logits.dtype == torch.float32
    assert torch.allclose(logits, hidden.float() @ head.weight.float().T, atol=1e-5)
    ids = torch.tensor([[5, 6, 7]])
    assert model(input_ids=ids).logits.dtype == torch.float32
    assert not use_float32_head(model)  # once is enough


def test_a_float32_model_keeps_its_head() -> None:
    model, _ = build_tiny("qwen2", seed=1)
    head = model.get_output_embeddings()
    assert not use_float32_head(model)
    assert model.get_output_embeddings() is head


def test_a_bfloat16_run_with_float32_logits_trains_and_saves_the_same_keys(tmp_path: Path) -> None:
    common = ("model.dtype=bfloat16", "run.epochs=1", "warmstart.steps=2")
    plain = Trainer(tiny_config(tmp_path / "plain", *common))
    fp32 = Trainer(tiny_config(tmp_path / "fp32", *common, "model.float32_logits=true"))
    assert isinstance(fp32.model.get_output_embeddings(), Float32Head)
    assert set(fp32.model.state_dict()) == set(plain.model.state_dict())
    assert [r["epoch"] for r in fp32.run()] == [0, 1]
