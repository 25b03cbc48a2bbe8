"""Prints a colocc manifest in a fixed, readable form for FileCheck."""
import json
import sys

m = json.load(open(sys.argv[1]))
print(f"format {m['format']} {m['format_version']}, colocc {m['colocc']}, ptx {m['ptx']}, "
      f"target {m['target']}")
c = m["ptb_control"]
print(f"ptb control: {c['bytes']} bytes, next at {c['next']}, done at {c['done']}, "
      f"redo head at {c['redo_head']}, tail at {c['redo_tail']}")
for k in m["kernels"]:
    params = " ".join(f"{p['name']}:{p['size']}/{p['align']}" for p in k["params"])
    print(f"kernel {k['name']}: params [{params}] ({k['param_bytes']} bytes), "
          f"ctaid '{k['reads']['ctaid']}', nctaid '{k['reads']['nctaid']}', "
          f"barriers {k['barriers']}, returns {k['returns']}")
    for form in ("slice", "unisync", "ptb"):
        f = k["forms"][form]
        line = f"  {form} {f['status']}"
        if "name" in f:
            line += f" {f['name']}"
            if "unisync" in f:
                line += (f" (unisync {str(f['unisync']).lower()}, slots {f['slots']}, "
                         f"{f['control_bytes']['per_worker']} bytes per worker"
                         f"{', restart' if f['restart'] else ''}"
                         + (f", resume {f['resume']['thread_bytes']}+{f['resume']['shared_bytes']}"
                            if 'resume' in f else "") + ")")
            if f["added_params"]:
                line += " + " + " ".join(f"{p['role']}:{p['size']}" for p in f["added_params"])
        if "reason" in f:
            line += f" at {f['line']}:{f['column']}: {f['reason']}"
        print(line)
        if "fresh" in f:
            print(f"  {form} fresh {f['fresh']}")
