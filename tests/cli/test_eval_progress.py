"""``genenv eval``'s progress moves with the work: the tokens a local model generates and the requests an
endpoint answers are shown while a step (or a batch of episodes) is still running, not only when an episode
ends."""

from __future__ import annotations

import sys

import pytest
from fake_llm_server import FakeLLMServer

import genenv_gym.progress
from genenv_gym.agents.backends import SamplingParams, make_backend
from genenv_gym.agents.backends.progress import generation_listener, reporting_generation
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.progress import Progress

pytest.importorskip("transformers")


class Notes:
    def __init__(self) -> None:
        self.tokens: list[int] = []
        self.requests = 0

    def __call__(self, tokens: int = 0, requests: int = 0) -> None:
        self.tokens.append(tokens)
        self.requests += requests


@pytest.mark.parametrize("engine", ["padded", "fast"])
def test_the_hf_backend_reports_each_decoding_step_of_a_batch(engine):
    backend = make_backend("tiny:qwen2", engine=engine)
    params = SamplingParams(temperature=0.0, max_new_tokens=6, ignore_eos=True, logprobs=False)
    notes = Notes()
    with reporting_generation(notes):
        out = backend.generate([[5, 6, 7], [8, 9]], params)
    assert [len(c[0].token_ids) for c in out] == [6, 6]
    assert notes.tokens == [2] * 6  # one note per step, one token per row of the batch
    assert generation_listener() is None
    backend.generate([[5, 6, 7]], params)  # outside a block nobody is told, and nothing breaks
    assert notes.tokens == [2] * 6


def test_the_openai_backend_reports_each_request_as_it_finishes():
    server = FakeLLMServer()
    try:
        backend = make_backend(f"openai:test-model@{server.url}")
        notes = Notes()
        with reporting_generation(notes):
            backend.chat([[{"role": "user", "content": f"q{i}"}] for i in range(5)], SamplingParams(n=1))
        assert notes.requests == 5 and len(notes.tokens) == 5
        backend.close()
    finally:
        server.close()


def test_the_bar_shows_the_tokens_of_a_batch_before_its_first_episode_ends(capsys, monkeypatch):
    from genenv_gym.evaluation import evaluate

    monkeypatch.setattr(genenv_gym.progress, "NOTE_REFRESH_S", 0.0)
    report = evaluate(
        "GenEnv-BFCL-SimplePython-v0",
        "tiny:qwen2",
        limit=2,
        env_kwargs={"data_dir": str(FIXTURES_DIR)},
        llm_kwargs={"params": SamplingParams(temperature=0.0, max_new_tokens=8, ignore_eos=True)},
        batch_size=2,
    )
    assert report.episodes == 2
    frames = capsys.readouterr().err.replace("\n", "\r").split("\r")
    first_token_frame = next((i for i, f in enumerate(frames) if " tokens (" in f and "0/2" in f), None)
    assert first_token_frame is not None, frames
    first_episode_frame = next(i for i, f in enumerate(frames) if "1/2" in f or "2/2" in f)
    assert first_token_frame < first_episode_frame, frames
    assert "16 tokens (" in frames[-2] or "16 tokens (" in "".join(frames[-3:])  # 2 rows x 8 steps in all


def test_the_plain_counter_shows_the_tokens_too(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # tqdm not installed
    bar = Progress(3, "env agent", refresh_s=0.0)
    bar.note(tokens=40)
    bar.note(requests=2)
    list(bar.iterate(range(3)))
    err = capsys.readouterr().err
    assert "env agent 0/3" in err and "40 tokens (" in err and "2 requests" in err
    assert "env agent 3 done in" in err
