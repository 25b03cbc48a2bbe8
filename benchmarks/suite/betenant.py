"""What the suite's Python best-effort tenants share: stopping on SIGTERM or
SIGINT after the unit in flight (serve.py uses it too, after the request in
flight), and the throughput time series they report."""
import signal

BIN_S = 0.5


def stop_on_signals():
    """A list that gets the signal number when SIGTERM or SIGINT arrives."""
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: stop.append(signum))
    return stop


def stopped_by(stop):
    """The name of the signal that stopped the run, or "time"."""
    return signal.Signals(stop[0]).name if stop else "time"


def timeseries(done, elapsed):
    """Units per second in BIN_S bins [t_start, rate]; a last part-bin shorter
    than half a bin is folded into the bin before it."""
    nbins = max(1, round(elapsed / BIN_S))
    counts = [0] * nbins
    for t in done:
        counts[min(int(t / BIN_S), nbins - 1)] += 1
    series = []
    for i, c in enumerate(counts):
        lo = i * BIN_S
        hi = elapsed if i == nbins - 1 else lo + BIN_S
        series.append([round(lo, 3), round(c / (hi - lo), 3) if hi > lo else 0.0])
    return series
