#!/usr/bin/env python3
"""Training with discards gives the parameters of training without them.

usage: discard_train.py [--device cuda|cpu] [--colocctl PATH] [--steps N] [--seed S]

Trains a small CNN (convolutions, batch norm, dropout) with
python/coloc/train.py's MicroBatchTrainer on fixed random data, batches of
32 in micro-batches of 8, and posts discard requests (`colocctl discard
PID`) at random points: inside forward (a module's forward), inside backward
(a parameter's gradient), and inside the optimizer step.  Then compares,
bit for bit, parameters, batch-norm statistics and optimizer state:

  replay   discards replayed at the same size   == the run without discards
  shrink   discards replayed at half the size, growing back after an
           undisturbed batch == a run without discards told the same sizes
  plain    the same without batch norm and dropout: shrink against the run
           without discards, equal to rounding (a split sums in another order)

and that every run kept every sample once, left no gradient behind, and
left no request outstanding.  Exit 0 when all hold.

On the GPU machine, from the build directory (CUDA_HOME and PyTorch with
CUDA needed):
    COLOC_ROLE=best-effort LD_PRELOAD=$PWD/libcoloc.so PYTHONPATH=../python \\
        python3 ../testsuite/gpu/discard_train.py --device cuda --colocctl ./colocctl
With --device cpu it runs on the fake driver (testsuite/python/discard-train.test),
which gives the protocol its CUDA context (testsuite/python/Inputs/cudactx.py).
"""
import argparse
import os
import random
import subprocess
import sys

# Deterministic cuBLAS; must be set before CUDA starts.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch  # noqa: E402

from coloc import Discard, MicroBatchTrainer  # noqa: E402

BATCH, MICRO = 32, 8


class GlobalMean(torch.nn.Module):
    """Average over height and width (AdaptiveAvgPool2d's CUDA backward is not deterministic)."""

    def forward(self, x):
        return x.mean((2, 3))


def model_for(kind, device):
    torch.manual_seed(1)
    norm = (lambda c: torch.nn.BatchNorm2d(c)) if kind == "bn" else (lambda c: torch.nn.Identity())
    drop = torch.nn.Dropout(0.2) if kind == "bn" else torch.nn.Identity()
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), norm(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 16, 3, stride=2, padding=1), norm(16), torch.nn.ReLU(), drop,
        GlobalMean(), torch.nn.Linear(16, 10)).to(device)


def loss_fn(model, x, y):
    """Cross-entropy through a one-hot product: every backward kernel is deterministic."""
    logp = torch.nn.functional.log_softmax(model(x), 1)
    return -(logp * torch.nn.functional.one_hot(y, 10).to(logp.dtype)).sum(1).mean()


class Injector:
    """Posts a discard request at chosen calls of a module's forward, a
    parameter's gradient hook and the optimizer's step (counted over the run)."""

    def __init__(self, model, optimizer, colocctl, rng, steps):
        self.colocctl, self.posted = colocctl, 0
        modules = [m for m in model.modules() if not isinstance(m, torch.nn.Sequential)]
        params = list(model.parameters())
        # Calls before the last step's (replays only bring calls earlier), so
        # that every request is handled before the run ends.
        calls = (steps - 1) * BATCH // MICRO
        self.at = {"forward": set(rng.sample(range(calls), 3)),
                   "backward": set(rng.sample(range(calls), 3)),
                   "optimizer": set(rng.sample(range(steps - 1), 2))}
        self.seen = {k: 0 for k in self.at}
        self.hooks = [rng.choice(modules[1:]).register_forward_pre_hook(
                          lambda *_: self.hit("forward")),
                      rng.choice(params[1:-1]).register_hook(lambda *_: self.hit("backward"))]
        step = optimizer.step

        def step_with_request(*a, **k):
            self.hit("optimizer")
            return step(*a, **k)
        optimizer.step = step_with_request

    def hit(self, where):
        if self.seen[where] in self.at[where]:
            subprocess.run([self.colocctl, "discard", str(os.getpid())], check=True,
                           stdout=subprocess.DEVNULL)
            self.posted += 1
        self.seen[where] += 1


def train(kind, device, data, steps, *, colocctl=None, seed=0, shrink=True, sizes=None):
    """Returns (state, trainer, per-step sizes)."""
    torch.manual_seed(1234)
    if device == "cuda":
        torch.cuda.manual_seed_all(1234)
    model = model_for(kind, device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    trainer = MicroBatchTrainer(model, opt, loss_fn, MICRO, coloc=Discard(), shrink=shrink,
                                grow_after=1)
    inj = Injector(model, opt, colocctl, random.Random(seed), steps) if colocctl else None
    kept = []
    for i in range(steps):
        x, y = data[i % len(data)]
        trainer.step(x, y, sizes=sizes[i] if sizes else None)
        kept.append(list(trainer.last_sizes))
        assert sum(kept[-1]) == BATCH, f"step {i} kept {kept[-1]}"
        assert all(p.grad is None for p in model.parameters()), "a gradient was left behind"
    if device == "cuda":
        torch.cuda.synchronize()
    with trainer.coloc.unit(10 ** 6):
        assert trainer.coloc.pending() is None, "a request is still outstanding"
    state = {f"model.{k}": v.detach().clone() for k, v in model.state_dict().items()}
    for i, s in enumerate(opt.state.values()):
        state.update({f"opt.{i}.{k}": v.clone() for k, v in s.items() if torch.is_tensor(v)})
    trainer.close()
    if inj:
        assert inj.posted > 0, "no request was posted"
        print(f"  {kind} shrink={shrink}: {inj.posted} requests, {trainer.discards} micro-batches "
              f"discarded, {trainer.acks} acknowledged; sizes per step: "
              + " | ".join(runs(s) for s in kept))
    return state, trainer, kept


def runs(sizes):
    """[8, 8, 2, 1, 1] as "8x2 2 1x2"."""
    out = []
    for s in sizes:
        if out and out[-1][0] == s:
            out[-1][1] += 1
        else:
            out.append([s, 1])
    return " ".join(f"{s}x{n}" if n > 1 else str(s) for s, n in out)


def differ(a, b, exact=True):
    """The names whose tensors differ (bit for bit, or beyond rounding)."""
    bad = []
    for k in a:
        same = torch.equal(a[k], b[k]) if exact else torch.allclose(a[k].double(), b[k].double(),
                                                                     rtol=1e-4, atol=1e-5)
        if not same:
            bad.append(f"{k} (max diff {(a[k].double() - b[k].double()).abs().max().item():.3g})")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--colocctl", default="colocctl")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    if args.device == "cpu":
        # The fake driver's context, made as the runtime's tests make it.
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        "python", "Inputs"))
        from cudactx import make_context
        make_context()
    else:
        torch.cuda.init()
        torch.zeros(1, device="cuda")  # the context the protocol binds to
    g = torch.Generator().manual_seed(99)
    data = [(torch.randn(BATCH, 3, 16, 16, generator=g).to(args.device),
             torch.randint(0, 10, (BATCH,), generator=g).to(args.device)) for _ in range(3)]
    failures = []
    run = dict(device=args.device, data=data, steps=args.steps)
    ctl = dict(colocctl=args.colocctl, seed=args.seed)

    print("replay: discards replayed at the same size")
    ref, _, _ = train("bn", **run)
    got, t, _ = train("bn", shrink=False, **run, **ctl)
    failures += [f"replay: {d}" for d in differ(ref, got)]
    if not t.discards:
        failures.append("replay: no micro-batch was discarded")

    print("shrink: discards replayed at half the size, against the same sizes without them")
    got, t, sizes = train("bn", **run, **ctl)
    again, _, _ = train("bn", sizes=sizes, **run)
    failures += [f"shrink: {d}" for d in differ(again, got)]
    if all(s == [MICRO] * (BATCH // MICRO) for s in sizes):
        failures.append("shrink: no micro-batch ran smaller")
    if not any(max(later) > min(earlier) for i, earlier in enumerate(sizes) for later in sizes[i:]):
        failures.append("shrink: the micro-batches never grew back")

    print("plain: without batch norm and dropout, shrinking changes only the rounding")
    ref, _, _ = train("plain", **run)
    got, _, _ = train("plain", **run, **ctl)
    failures += [f"plain: {d}" for d in differ(ref, got, exact=False)]
    print(f"  plain: bitwise equal too: {not differ(ref, got)}")

    for f in failures:
        print("FAIL:", f)
    print("discard_train:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
