"""Prints the best-effort launches a COLOC_STATS_FILE counts, by how they ran,
and their sum: `launches N` (original + sliced + persistent, fallbacks
included in original)."""
import json
import sys

with open(sys.argv[1]) as f:
    s = json.load(f)
n = s["launches_original"] + s["launches_sliced"] + s["launches_persistent"]
print(f"launches {n} fallback {s['launches_fallback']}")
