#!/usr/bin/env python3
"""A best-effort tenant of stock PyTorch training: a small causal transformer
language model learning a synthetic token stream.

usage: torch_train.py --seconds S --out FILE.json [--steps N] [--bf16] [--seed N]

Model: token and learned position embeddings, 6 pre-LayerNorm
nn.TransformerEncoderLayer (d 512, 8 heads, FFN 2048, GELU, no dropout) under
a causal mask, a final LayerNorm and a linear head over the 512-token vocab;
about 20 M parameters.  AdamW (lr 1e-3, weight decay 0.01), gradients clipped
at norm 1.  A work unit is one training step on a batch of 16 sequences of
256 tokens, ending with a synchronize (about 17 ms alone on an H100).  fp32
by default (PyTorch's defaults, so no TF32 for matmuls); --bf16 runs forward
and loss under bf16 autocast.

Its kernels are PyTorch's and cuBLAS's, loaded as compiled code without
PTX, so colocc can only hold them back (gate them), not slice them: under
libcoloc on an H100, 1 of the 36 modules it loads had PTX (a cuBLAS helper
kernel) and every launch ran in its original form.

Data: a fixed-seed order-1 Markov chain over the vocab, each token having 4
possible successors with probabilities 0.6, 0.25, 0.1, 0.05 (entropy 1.03
nats, against ln 512 = 6.24 for a uniform guess).  4096 sequences of 257
tokens are made at startup on the CPU and used in turn, 16 a step.

Self-check: every loss is finite, and the mean loss of the last 10 steps is
at least 0.5 nats below that of the first 10 and below 4.0 nats.  The
chain's token frequencies alone have an entropy of about 5.9 nats, so only
a model that learned the successors passes.  On an H100 the first 10 steps
average 3.34 and steps 31 to 40 1.34.  Fewer than 40 steps is a failure,
since learning cannot be judged.

Stops after S seconds (or N steps) or on SIGTERM/SIGINT (the step in flight
is finished), writes the JSON result to FILE and prints it as the last line
of standard output; the exit status is 0 only if the check is ok.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from betenant import stop_on_signals, stopped_by, timeseries  # noqa: E402

NAME = "torch_train"
VOCAB, D, LAYERS, HEADS, FFN = 512, 512, 6, 8, 2048
SEQ, BATCH = 256, 16
SEQUENCES = 4096
SUCCESSOR_P = (0.6, 0.25, 0.1, 0.05)
WINDOW, MARGIN, MIN_STEPS = 10, 0.5, 40
# Token frequencies alone leave about 5.9 nats; only the successors go lower.
LOSS_BOUND = 4.0


class Lm(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(SEQ, D)
        layer = nn.TransformerEncoderLayer(D, HEADS, FFN, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(SEQ),
                             persistent=False)

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos.weight[:tokens.shape[1]]
        x = self.body(x, mask=self.causal, is_causal=True)
        return self.head(self.norm(x))


def markov_sequences(seed):
    """SEQUENCES x (SEQ + 1) tokens of the fixed-seed chain, as int64."""
    g = torch.Generator().manual_seed(seed)
    succ = torch.randint(0, VOCAB, (VOCAB, len(SUCCESSOR_P)), generator=g)
    p = torch.tensor(SUCCESSOR_P)
    picks = torch.multinomial(p, SEQUENCES * SEQ, replacement=True, generator=g)
    picks = picks.view(SEQUENCES, SEQ)
    seq = torch.empty(SEQUENCES, SEQ + 1, dtype=torch.long)
    seq[:, 0] = torch.randint(0, VOCAB, (SEQUENCES,), generator=g)
    for t in range(SEQ):
        seq[:, t + 1] = succ[seq[:, t], picks[:, t]]
    return seq


def judge(losses):
    if not all(math.isfinite(x) for x in losses):
        bad = next(i for i, x in enumerate(losses) if not math.isfinite(x))
        return f"FAIL: loss of step {bad} is {losses[bad]}"
    if len(losses) < MIN_STEPS:
        return f"FAIL: only {len(losses)} steps, {MIN_STEPS} are needed to judge learning"
    first = sum(losses[:WINDOW]) / WINDOW
    last = sum(losses[-WINDOW:]) / WINDOW
    if last > first - MARGIN or last > LOSS_BOUND:
        return (f"FAIL: the loss did not fall by {MARGIN} nats to below {LOSS_BOUND}: "
                f"{first:.3f} over the first {WINDOW} steps, {last:.3f} over the last {WINDOW}")
    return "ok"


def main(argv=None):
    p = argparse.ArgumentParser(prog="torch_train.py",
                                description="Best-effort tenant: PyTorch transformer LM training.")
    p.add_argument("--seconds", type=float, required=True, help="run this long at most")
    p.add_argument("--out", required=True, help="JSON result file")
    p.add_argument("--steps", type=int, default=0, help="stop after N steps too (0: no limit)")
    p.add_argument("--bf16", action="store_true", help="bf16 autocast (default fp32)")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    if a.seconds <= 0:
        p.error("--seconds must be positive")
    if not torch.cuda.is_available():
        print("torch_train.py: error: no CUDA device", file=sys.stderr)
        return 2

    stop = stop_on_signals()

    t_setup = time.perf_counter()
    dev = torch.device("cuda")
    torch.manual_seed(a.seed)
    model = Lm().to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    data = markov_sequences(a.seed + 1).to(dev)
    params = sum(t.numel() for t in model.parameters())

    def step(unit):
        rows = (unit * BATCH) % SEQUENCES
        batch = data[rows:rows + BATCH]
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=a.bf16):
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()  # synchronizes

    # Two steps before the clock: kernels load, AdamW makes its state.
    step(SEQUENCES // BATCH - 1)
    step(SEQUENCES // BATCH - 2)
    setup_s = time.perf_counter() - t_setup
    print(f"torch_train.py: {NAME} ready after {setup_s:.1f} s, {params / 1e6:.1f} M parameters",
          file=sys.stderr, flush=True)

    losses, done = [], []
    start = time.perf_counter()
    while (not stop and time.perf_counter() - start < a.seconds
           and (a.steps <= 0 or len(losses) < a.steps)):
        losses.append(step(len(losses)))
        done.append(time.perf_counter() - start)
    elapsed = time.perf_counter() - start
    check = judge(losses)

    head = losses[:WINDOW]
    tail = losses[-WINDOW:]
    result = {"workload": NAME, "units": len(done), "seconds": round(elapsed, 3),
              "throughput": round(len(done) / elapsed, 3) if elapsed > 0 else 0.0,
              "timeseries": timeseries(done, elapsed), "check": check,
              "dtype": "bf16-autocast" if a.bf16 else "fp32", "parameters": params,
              "tokens_per_step": BATCH * SEQ,
              "loss_first": round(sum(head) / len(head), 4) if head else None,
              "loss_last": round(sum(tail) / len(tail), 4) if tail else None,
              "gpu_mem_mib": round(torch.cuda.max_memory_reserved() / 2**20),
              "setup_s": round(setup_s, 3),
              "stopped_by": ("steps" if not stop and len(losses) == a.steps else
                             stopped_by(stop))}
    text = json.dumps(result)
    with open(a.out, "w") as f:
        f.write(text + "\n")
    print(text, flush=True)
    return 0 if check == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
