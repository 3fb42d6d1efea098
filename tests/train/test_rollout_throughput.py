"""``benchmarks/rollout_throughput.py`` runs its whole GPU matrix at tiny sizes on the CPU."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location(
        "rollout_throughput", ROOT / "benchmarks" / "rollout_throughput.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_engine_length_mix_batch_and_sharing_gets_a_row_with_its_roofline(script, tmp_path):
    out = tmp_path / "matrix.json"
    argv = ["--size", "tiny", "--batch-sizes", "2", "4", "--group-size", "2", "--prompt-tokens", "12"]
    argv += ["--new-tokens", "2", "--engines", "fast", "padded", "static", "continuous"]
    argv += ["--lengths", "ragged", "same", "--warmup-new-tokens", "1"]
    argv += ["--prefix-sharing", "on", "off", "--repeats", "2", "--loop-max-batch", "0", "--out", str(out)]
    rows = script.main(argv)
    assert json.loads(out.read_text())["rows"] == rows
    hf = {
        (r["method"], r["prefix_sharing"], r["prompts"], r["batch"])
        for r in rows
        if r["method"].startswith("hf:")
    }
    assert hf == {
        (f"hf:{e}", s, p, b)
        for e in ("fast", "padded", "continuous")
        for s in ("on", "off")
        for p in ("ragged", "same")
        for b in (2, 4)
    } | {("hf:static", "-", p, b) for p in ("ragged", "same") for b in (2, 4)}
    methods = {"hf:fast", "hf:padded", "hf:static", "hf:continuous", "generate:batched"}
    assert {r["method"] for r in rows} == methods
    for r in rows:
        assert r["tokens"] == r["batch"] * 2 and r["runs"] == 2
        assert 0 < r["roofline_fraction"] < 1 and r["tokens_per_s"] > 0
    for engine in ("hf:padded", "hf:fast"):
        same = {(r["prefix_sharing"], r["prompts"], r["batch"]): r for r in rows if r["method"] == engine}
        for (sharing, prompts, batch), r in same.items():
            if sharing == "on":  # two rows per task prompt: it is prefilled once
                assert (
                    r["prefill_positions_per_task"]
                    < same[("off", prompts, batch)]["prefill_positions_per_task"]
                )


def test_roofline_of_the_qwen_shape_matches_the_issue_arithmetic(script):
    """Issue 25: batch 512, ~1,100-token contexts, bf16 Qwen2.5-0.5B: ~1 GB weights + ~6.9 GB KV per step."""
    from genenv_gym.agents.tiny_model import model_config

    with torch.device("meta"):
        from transformers import Qwen2ForCausalLM

        model = Qwen2ForCausalLM(model_config("qwen2", "qwen2.5-0.5b")).to(torch.bfloat16)
    assert script.weight_bytes(model) == pytest.approx(0.99e9, rel=0.01)
    assert script.kv_bytes_per_token(model) == 24 * 2 * 2 * 64 * 2
    per_s = script.roofline_tokens_per_s(model, 512, 1100, 3.35e12)
    assert per_s == pytest.approx(512 / ((0.99e9 + 512 * 1100 * 12288) / 3.35e12), rel=0.01)
    assert 200_000 < per_s < 225_000


def test_a_later_turn_shares_the_task_prompt_across_the_diverged_chats(script):
    argv = ["--size", "tiny", "--batch-sizes", "4", "--group-size", "4", "--prompt-tokens", "40"]
    argv += ["--reply-tokens", "6", "--new-tokens", "2", "--prefix-sharing", "on", "off", "--repeats", "1"]
    rows = script.main([*argv, "--no-baseline"])
    by_sharing = {r["prefix_sharing"]: r for r in rows}
    assert (
        by_sharing["on"]["prefill_positions_per_task"] < by_sharing["off"]["prefill_positions_per_task"] / 2
    )
