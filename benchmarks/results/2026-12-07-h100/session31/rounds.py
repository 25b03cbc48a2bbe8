"""launch_ab's rounds with and without round 0: python3 rounds.py LAUNCH_AB_TXT...

For each run label (the '== ...' lines, the repetition number dropped) pools the per-round
throughput ratios hooked/s over direct/s of every run, once with all rounds and once without
round 0, and prints the mean with 1.96 standard errors; with all rounds it also prints each
run's round 0. Until launch_ab warmed up both ways, round 0's hooked block held libcoloc's
start (the first hooked launch joins the coordinator)."""
import re
import statistics as st
import sys

ROW = re.compile(r"launch_ab:\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[-+][\d.]+\s+(\d+)\s+(\d+)$")
for path in sys.argv[1:]:
    groups, label, cur = {}, "", None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("=="):
            label = re.sub(r"\s*\(\d+\)", "", line[2:].strip())
            continue
        m = ROW.match(line)
        if m:
            if int(m.group(1)) == 0:
                cur = []
                groups.setdefault(label, []).append(cur)
            cur.append(int(m.group(3)) / int(m.group(2)))
    for label, runs in groups.items():
        for skip in (0, 1):
            xs = [x for r in runs for x in r[skip:]]
            m, se = st.mean(xs), st.stdev(xs) / len(xs) ** 0.5
            extra = "; round 0 of each run: " + " ".join("%.1f%%" % (100 * r[0]) for r in runs) if not skip else ""
            print("%s | %s | %s: %d rounds, mean %.2f%% (%.2f%% to %.2f%%)%s" % (
                path, label, "without round 0" if skip else "all rounds", len(xs), 100 * m,
                100 * (m - 1.96 * se), 100 * (m + 1.96 * se), extra))
