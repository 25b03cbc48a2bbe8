#!/usr/bin/env python3
"""Open-loop arrival traces for the latency tenant.

usage: traffic.py poisson (--rate R | --load L --service-ms M) --seconds S --seed K -o FILE
       traffic.py bursty  (--rate R | --load L --service-ms M) --seconds S --seed K
                          [--peak-ratio 50] [--on-mean-s 0.5] [--off-ratio 0.1]
                          [--fit-load] -o FILE

An open-loop client sends each request at its arrival time whether or not the
previous ones have finished, so a trace is just the list of arrival times.
--load L --service-ms M sets the rate to L / (M / 1000): the share of time the
latency tenant would be busy if it ran alone and each request took M ms.  A
load above 1 is accepted (with a warning): the tenant cannot keep up even alone.

poisson: exponential gaps with mean 1/R.

bursty: an on/off Markov-modulated Poisson process, after the per-function
invocation bursts of the Azure Functions traces.  The source alternates
between OFF periods, with arrivals at off-ratio x R, and ON periods, each with
its own rate h x R where h is drawn log-uniformly from [1, peak-ratio] (bursts
of every size, none above peak-ratio x R).  Period lengths are exponential: ON
with mean on-mean-s, OFF with mean

    off_mean = on_mean x (1 - f) / f,    f = (1 - off_ratio) / (E[h] - off_ratio),
    E[h] = (peak_ratio - 1) / ln(peak_ratio),

so that the source is ON a share f of the time and the long-run mean rate is
f E[h] R + (1 - f) off_ratio R = R.  The first period is ON with probability f
and (lengths being memoryless) the trace starts in the steady state: the
expected count over any S seconds is R x S.  With the defaults, E[h] = 12.5,
f = 7.3%, and a burst every 6.9 s on average.  A short trace holds few bursts,
so its count varies far more than a Poisson trace's (over 60 s, sd about 18%
of R S): the header's mean_rate says what a trace holds.  A trace of a few
seconds often holds no burst at all, only OFF arrivals at off-ratio x R.

--fit-load fits one trace to its rate: the periods (lengths and levels) are
drawn first, then every level becomes min(c x level, peak-ratio x R), with c
chosen so that sum(level x length) = R S: this trace's expected count is R S
whatever bursts it drew, and no level passes peak-ratio x R; then the
arrivals are drawn.  c > 1 for a trace that drew less burst than average
(bursts grow, the highest capped), c < 1 for one that drew more, and a trace
without any burst becomes Poisson at R.  The header records c as fit_scale.  The colocation suite fits its bursty traces, so that a cell at
load L loads the latency tenant L whatever its length.

Trace format: '#' lines are comments; the header records the generator, every
parameter, the seed, the resulting count and mean rate as '# key: value'.
Every other line is one arrival time in seconds from the start, ascending and
below S, with 6 decimals.  The same arguments give the same bytes: all
randomness comes from random.Random(seed).

As a module: poisson(), bursty(), bursty_fitted(), write_trace(), read_trace().
"""
import argparse
import math
import os
import random
import sys

FORMAT = "colocc-trace 1"


def _keep(t, seconds):
    """Arrival times are kept at the microsecond, as written, so that a trace
    read back equals the one generated; rounding must not reach S."""
    t = round(t, 6)
    return t if t < seconds else None


def _arrivals(rng, rate, start, end, seconds, out):
    """Poisson arrivals at RATE in [START, END), appended to OUT."""
    if rate <= 0:
        return
    t = start + rng.expovariate(rate)
    while t < end:
        kept = _keep(t, seconds)
        if kept is not None:
            out.append(kept)
        t += rng.expovariate(rate)


def poisson(rate, seconds, seed):
    """Arrival times (s) of a Poisson process at RATE per second over SECONDS."""
    rng = random.Random(seed)
    out = []
    _arrivals(rng, rate, 0.0, seconds, seconds, out)
    return out


def burst_shape(peak_ratio, off_ratio):
    """(E[h], f): the mean ON rate as a multiple of R and the share of time ON."""
    mean_h = (peak_ratio - 1.0) / math.log(peak_ratio)
    return mean_h, (1.0 - off_ratio) / (mean_h - off_ratio)


def off_mean_s(peak_ratio, on_mean_s, off_ratio):
    _, f = burst_shape(peak_ratio, off_ratio)
    return on_mean_s * (1.0 - f) / f


def _periods(rng, rate, seconds, peak_ratio, on_mean_s, off_ratio):
    """The on/off periods as (start, end, level), drawn from RNG one at a time
    (lazily, so that a caller may draw each period's arrivals in between)."""
    _, f = burst_shape(peak_ratio, off_ratio)
    off_mean = off_mean_s(peak_ratio, on_mean_s, off_ratio)
    t = 0.0
    on = rng.random() < f
    while t < seconds:
        if on:
            level = rate * math.exp(rng.uniform(0.0, math.log(peak_ratio)))
            length = rng.expovariate(1.0 / on_mean_s)
        else:
            level = rate * off_ratio
            length = rng.expovariate(1.0 / off_mean)
        yield t, min(t + length, seconds), level
        t += length
        on = not on


def bursty(rate, seconds, seed, peak_ratio=50.0, on_mean_s=0.5, off_ratio=0.1):
    """Arrival times (s) of the on/off process described in the module's
    docstring, with long-run mean RATE per second, over SECONDS."""
    rng = random.Random(seed)
    out = []
    for start, end, level in _periods(rng, rate, seconds, peak_ratio, on_mean_s, off_ratio):
        _arrivals(rng, level, start, end, seconds, out)
    return out


def bursty_fitted(rate, seconds, seed, peak_ratio=50.0, on_mean_s=0.5, off_ratio=0.1):
    """(arrivals, c): the on/off process with its levels scaled by c so that
    the trace's expected count is RATE x SECONDS, none above PEAK_RATIO x
    RATE (--fit-load): every period is drawn before any arrival."""
    rng = random.Random(seed)
    periods = list(_periods(rng, rate, seconds, peak_ratio, on_mean_s, off_ratio))
    peak = peak_ratio * rate

    def expected(c):
        return sum((end - start) * min(level * c, peak) for start, end, level in periods)

    if expected(1.0) <= 0:  # off-ratio 0 and no burst: nothing to scale
        return [], 1.0
    # expected(c) grows with c up to peak x S >= R S: bisect for R S.
    lo, hi = 0.0, 1.0
    while expected(hi) < rate * seconds:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if expected(mid) < rate * seconds:
            lo = mid
        else:
            hi = mid
    out = []
    for start, end, level in periods:
        _arrivals(rng, min(level * hi, peak), start, end, seconds, out)
    return out, hi


def write_trace(f, arrivals, params, seconds):
    """Writes ARRIVALS to the open text file F after a header recording PARAMS
    (ordered key -> value; 'generator' first), the count and the mean rate."""
    f.write(f"# {FORMAT}\n")
    for key, value in params.items():
        f.write(f"# {key}: {value}\n")
    f.write(f"# count: {len(arrivals)}\n")
    f.write(f"# mean_rate: {len(arrivals) / seconds:.6f}\n")
    for t in arrivals:
        f.write(f"{t:.6f}\n")


def read_trace(path):
    """(header, arrivals): the '# key: value' comments as a dict of strings and
    the arrival times in seconds.  Raises ValueError on a malformed trace."""
    header, arrivals = {}, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line.startswith("#"):
                key, sep, value = line[1:].partition(":")
                if sep:
                    header[key.strip()] = value.strip()
                continue
            if not line:
                continue
            try:
                t = float(line)
            except ValueError:
                raise ValueError(f"{path}:{n}: expected an arrival time in seconds, got '{line}'")
            if arrivals and t < arrivals[-1]:
                raise ValueError(f"{path}:{n}: arrival {line} comes before the previous one")
            arrivals.append(t)
    return header, arrivals


def _number(text, ok, what):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value) or math.isinf(value) or not ok(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'")
    return value


def _positive(text):
    return _number(text, lambda v: v > 0, "a positive number")


def _above_one(text):
    return _number(text, lambda v: v > 1, "a number above 1")


def _share(text):
    return _number(text, lambda v: 0 <= v < 1, "a number in [0, 1)")


def _parser():
    p = argparse.ArgumentParser(
        prog="traffic.py", description="Open-loop arrival traces for the latency tenant.")
    sub = p.add_subparsers(dest="generator", required=True, metavar="{poisson,bursty}")
    subs = {}
    for name in ("poisson", "bursty"):
        s = subs[name] = sub.add_parser(name)
        how = s.add_mutually_exclusive_group(required=True)
        how.add_argument("--rate", type=_positive, help="mean arrivals per second")
        how.add_argument("--load", type=_positive,
                         help="share of time the tenant would be busy alone (needs --service-ms)")
        s.add_argument("--service-ms", type=_positive,
                       help="the tenant's service time alone, in ms, for --load")
        s.add_argument("--seconds", type=_positive, required=True, help="trace length")
        s.add_argument("--seed", type=int, required=True)
        s.add_argument("-o", dest="output", required=True, help="trace file ('-': stdout)")
        if name == "bursty":
            s.add_argument("--peak-ratio", type=_above_one, default=50.0,
                           help="highest ON rate as a multiple of the mean (default 50)")
            s.add_argument("--on-mean-s", type=_positive, default=0.5,
                           help="mean length of an ON period in seconds (default 0.5)")
            s.add_argument("--off-ratio", type=_share, default=0.1,
                           help="OFF rate as a multiple of the mean, in [0, 1) (default 0.1)")
            s.add_argument("--fit-load", action="store_true",
                           help="scale this trace's levels so that its expected count is R x S, "
                                "none above peak-ratio x R (see the module's docstring)")
    return p, subs


def main(argv=None):
    p, subs = _parser()
    a = p.parse_args(argv)
    sub = subs[a.generator]
    if a.load is not None:
        if a.service_ms is None:
            sub.error("--load needs --service-ms, the tenant's service time alone")
        rate = a.load / (a.service_ms / 1000.0)
        if a.load > 1:
            print(f"traffic.py: warning: load {a.load:g} is above 1: the latency tenant "
                  "cannot keep up even alone", file=sys.stderr)
    else:
        if a.service_ms is not None:
            sub.error("--service-ms goes with --load, not --rate")
        rate = a.rate

    params = {"generator": a.generator, "rate": repr(rate), "seconds": repr(a.seconds),
              "seed": a.seed}
    if a.load is not None:
        params["load"] = repr(a.load)
        params["service_ms"] = repr(a.service_ms)
    if a.generator == "poisson":
        arrivals = poisson(rate, a.seconds, a.seed)
    else:
        mean_h, f = burst_shape(a.peak_ratio, a.off_ratio)
        params.update({"peak_ratio": repr(a.peak_ratio), "on_mean_s": repr(a.on_mean_s),
                       "off_ratio": repr(a.off_ratio),
                       "off_mean_s": repr(off_mean_s(a.peak_ratio, a.on_mean_s, a.off_ratio)),
                       "on_share": repr(f), "on_mean_level": repr(mean_h)})
        if a.fit_load:
            arrivals, c = bursty_fitted(rate, a.seconds, a.seed, a.peak_ratio, a.on_mean_s,
                                        a.off_ratio)
            params["fit_scale"] = repr(c)
        else:
            arrivals = bursty(rate, a.seconds, a.seed, a.peak_ratio, a.on_mean_s, a.off_ratio)

    try:
        if a.output == "-":
            write_trace(sys.stdout, arrivals, params, a.seconds)
        else:
            with open(a.output, "w") as f:
                write_trace(f, arrivals, params, a.seconds)
    except BrokenPipeError:
        # The reader of '-o -' went away (| head): not an error of ours, but
        # stdout must not be flushed again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:
        print(f"traffic.py: error: cannot write '{a.output}': {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
