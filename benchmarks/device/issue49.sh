#!/usr/bin/env bash
# Issue 49's checks on a lent GPU machine (README.md beside this file says how the calls carry what it needs).
#
#   bash benchmarks/device/issue49.sh receive                 # call 1, carry .device/wheels .device/model_a
#   bash benchmarks/device/issue49.sh run gap train           # call 2, carry .device/model_b
#   bash benchmarks/device/issue49.sh run train-tis roofline  # a later call on the same warm machine
#
# Stages of 'run' (each under its own time limit; a failed stage does not stop the next):
#   gap        logprob_gap.py on SmolLM2 in bfloat16: fast and padded engines, G = 1 and 8, turns 1 and 2;
#              then the fast engine again with model.float32_logits=true
#   train      genenv train --config smollm2_digits on the GPU for TRAIN_SECONDS (default 270) of epochs,
#              stopped by SIGTERM (the epoch finishes); the learning-curve table from its metrics.jsonl
#   train-tis  the same run with agent.tis_cap=2
#   roofline   rollout_throughput.py at batch 512, ragged prompts, fast engine eager and compiled beside
#              plain generate; train_epoch_gpu.py's paper-shape epochs after the first (steady state)
# Everything printed goes to $OUT/<stage>.log too (OUT: the device tool's folder; else runs/device49/out).
# DRY=1 runs every stage at tiny sizes on whatever machine this is (the CPU dry run of README.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
state=runs/device49 # ignored: kept between calls while the machine stays warm
out=${OUT:-$state/out}
mkdir -p "$state" "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/$state/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
model=$state/SmolLM2-135M-Instruct.Q4_1.gguf
dry=${DRY:-0}
train_seconds=${TRAIN_SECONDS:-270}
[ "$dry" = 1 ] && train_seconds=${TRAIN_SECONDS:-150}

describe() {
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no GPU"
    python3 -c 'import sys, torch, transformers; print("python", sys.version.split()[0], "torch", torch.__version__,
"transformers", transformers.__version__, "cuda", torch.cuda.is_available())'
}

receive() {
    cp .device/model_a/part "$state/model.part_a"
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$state/site" \
        .device/wheels/*.whl || return 1
    describe
    python3 -c 'import gymnasium, gguf, genenv_gym.train.loop; print("imports ok")'
    ls -la "$state"
}

join_model() { # the halves of calls 1 and 2 as one file, checked against pack.sh's sha256
    if [ ! -f "$model" ]; then
        cat "$state/model.part_a" .device/model_b/part >"$model.tmp" && mv "$model.tmp" "$model" || return 1
        cp .device/model_b/sha256 "$state/model.sha256"
    fi
    echo "$(cat "$state/model.sha256")  $model" | sha256sum -c
}

stage() { # stage NAME SECONDS COMMAND...: the command's output on the screen and in $OUT/NAME.log
    local name=$1 seconds=$2
    shift 2
    echo "=== $name ($(date -u +%T), limit ${seconds}s): $*"
    timeout -k 30 "$seconds" "$@" 2>&1 | grep -v -e "Converting and de-quantizing" -e "Loading weights:" \
        | tee -a "$out/$name.log"
    echo "=== $name: exit ${PIPESTATUS[0]} ($(date -u +%T))"
}

gap() {
    local tasks=64 engines=(fast padded)
    [ "$dry" = 1 ] && tasks=4
    stage gap 240 python3 benchmarks/logprob_gap.py "model.source=$model" --tasks "$tasks" --groups 1 8 --turns 2 \
        --engines "${engines[@]}"
    stage gap 120 python3 benchmarks/logprob_gap.py "model.source=$model" model.float32_logits=true \
        --tasks "$tasks" --groups 8 --turns 2 --engines fast
}

train() { # train NAME [overrides...]
    local name=$1
    shift
    local dir=$state/$name size=(agent.tasks_per_epoch=32 agent.rollout_batch_size=256 agent.mini_batch_size=32
        agent.micro_batch_size=32 run.eval_tasks=200 run.eval_every=5)
    [ "$dry" = 1 ] && size=(agent.tasks_per_epoch=4 agent.mini_batch_size=4 agent.micro_batch_size=4
        run.eval_tasks=8 run.eval_every=1 warmstart.steps=2)
    # SIGTERM after train_seconds: the trainer finishes its epoch, writes its checkpoint and stops.
    stage "$name" $((train_seconds + 240)) timeout -s TERM "$train_seconds" python3 -m genenv_gym.cli train \
        --config smollm2_digits "run.out_dir=$dir" "model.source=$model" model.dtype=auto run.epochs=100000 \
        run.checkpoint_every=100000 run.tensorboard=false run.plots=false run.progress=false run.threads=0 \
        agent.rollout_engine=auto "${size[@]}" "$@"
    stage "$name" 60 python3 benchmarks/train_run_table.py "$dir"
    cp "$dir/metrics.jsonl" "$out/$name.metrics.jsonl"
}

roofline() {
    local bandwidth=3.35e12 # H100 SXM datasheet; the H200's is 4.8e12
    nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | grep -q H200 && bandwidth=4.8e12
    local matrix=(--batch-sizes 512 --prompt-tokens 1024 --new-tokens 128 --warmup-new-tokens 16)
    local epoch=(--tasks 8 --new-tokens 256 --rollout-batch 64 --epochs 3)
    if [ "$dry" = 1 ]; then
        matrix=(--size tiny --hidden-size 64 --layers 2 --batch-sizes 16 --prompt-tokens 32 --new-tokens 4
            --warmup-new-tokens 2)
        epoch=(--shape tiny --tasks 2 --new-tokens 8 --rollout-batch 8 --epochs 2)
    fi
    stage roofline 200 python3 benchmarks/rollout_throughput.py --lengths ragged --group-size 8 \
        --engines fast fast-compiled --prefix-sharing on --loop-max-batch 0 --max-run-seconds 6 \
        --hbm-bandwidth "$bandwidth" "${matrix[@]}"
    stage roofline 240 python3 benchmarks/train_epoch_gpu.py --engine fast "${epoch[@]}" \
        agent.gradient_checkpointing=false
}

case "${1:-}" in
receive) receive 2>&1 | tee -a "$out/receive.log" ;;
run)
    shift
    describe | tee -a "$out/machine.log"
    join_model || exit 1
    for name in "$@"; do
        case $name in
        gap) gap ;;
        train) train train ;;
        train-tis) train train-tis agent.tis_cap=2 ;;
        roofline) roofline ;;
        *) echo "unknown stage $name (gap, train, train-tis, roofline)" ;;
        esac
    done
    ;;
*)
    echo "usage: issue49.sh receive | run STAGE..." >&2
    exit 2
    ;;
esac
