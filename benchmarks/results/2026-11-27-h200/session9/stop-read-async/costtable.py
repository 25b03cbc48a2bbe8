#!/usr/bin/env python3
"""cost table: per case, ptb_us and turnaround p99 from several timing.jsonl (label=path)."""
import json, re, sys
cols = [a.split("=", 1) for a in sys.argv[1:]]
data = {}
order = []
for label, path in cols:
    for line in open(path):
        r = json.loads(line)
        c = r["case"]
        if c not in order:
            order.append(c)
        d = data.setdefault(c, {})
        if r["mode"] == "timing":
            m = re.search(r"orig_us ([\d.]+) .*ptb_us ([\d.]+)", r["detail"])
            if m:
                d["orig"] = m.group(1)
                d[label + "_ptb"] = m.group(2)
        elif r["mode"] == "turnaround":
            m = re.search(r"turnaround_us p50 ([\d.]+) p99 ([\d.]+)", r["detail"])
            if m:
                d[label + "_ta"] = m.group(2)
labels = [l for l, _ in cols]
print("case orig_us | ptb_us " + " ".join(labels) + " | turnaround p99 us " + " ".join(labels))
for c in order:
    d = data[c]
    print(f"{c} {d.get('orig', '-')} | " + " ".join(d.get(l + "_ptb", "-") for l in labels) +
          " | " + " ".join(d.get(l + "_ta", "-") for l in labels))
