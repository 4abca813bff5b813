#!/usr/bin/env python3
"""measure.py - interleaved, paired timing of program variants under perf stat.

Usage: measure.py SPEC REPS OUTDIR RESULT.json

SPEC has one line per measured process: PROG<TAB>VARIANT<TAB>NORM<TAB>CMD,
where CMD is a shell command (its standard output is the program output to
compare) and NORM is "-" or "strip-times" (drop trailing "1.234s" timings
before comparing). A program's time in one repetition is the sum over its
processes. Each repetition runs every program, and within a program every
variant, in an order rotated by one each repetition, so that slow drift of
the machine hits all variants alike; the figures are the median, min and
max over repetitions of the per-repetition ratio to the variant "O2".

Every process runs under `perf stat -x, -e task-clock -e cycles:u`; cycles
are reported only where the machine counts them (not "<not supported>").
Every variant's normalised output must equal O2's for the same process,
in every repetition: otherwise this prints the difference and exits 1.
"""
import hashlib, json, os, re, subprocess, sys, time
from collections import OrderedDict, defaultdict

TIMES = re.compile(rb"\s*\d+\.\d{3}s$", re.M)


def main():
    spec, reps, outdir, result = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    os.makedirs(outdir, exist_ok=True)
    procs = OrderedDict()          # prog -> variant -> [(norm, cmd)]
    for line in open(spec):
        if not line.strip():
            continue
        prog, var, norm, cmd = line.rstrip("\n").split("\t", 3)
        procs.setdefault(prog, OrderedDict()).setdefault(var, []).append((norm, cmd))
    times = defaultdict(list)      # (prog, var) -> [seconds per rep]
    cycles = defaultdict(list)
    per_proc = defaultdict(list)   # (prog, var, index) -> [seconds]
    cycles_ok = True
    ref_hash = {}
    bad = []
    stat = os.path.join(outdir, "stat.csv")
    start = time.time()
    for rep in range(reps):
        for prog, variants in procs.items():
            names = list(variants)
            k = rep % len(names)
            for var in names[k:] + names[:k]:
                t_sum = c_sum = 0.0
                for i, (norm, cmd) in enumerate(variants[var]):
                    out = os.path.join(outdir, f"{prog}.{var}.{i}.out")
                    with open(out, "wb") as o:
                        r = subprocess.run(["perf", "stat", "-x,", "-o", stat,
                                            "-e", "task-clock", "-e", "cycles:u",
                                            "--", "sh", "-c", "exec " + cmd],
                                           stdout=o, stderr=subprocess.PIPE)
                    if r.returncode != 0:
                        sys.exit(f"measure: {prog} {var}: exit {r.returncode} from {cmd}\n"
                                 + r.stderr.decode(errors="replace")[-2000:])
                    tc = cy = None
                    for sl in open(stat):
                        f = sl.strip().split(",")
                        if len(f) < 3:
                            continue
                        if f[2].startswith("task-clock"):
                            tc = float(f[0]) / 1000.0    # msec -> s
                        elif f[2].startswith("cycles"):
                            if f[0].startswith("<"):
                                cycles_ok = False
                            else:
                                cy = float(f[0])
                    if tc is None:
                        sys.exit(f"measure: no task-clock in {stat}")
                    t_sum += tc
                    c_sum += cy or 0.0
                    per_proc[(prog, var, i)].append(tc)
                    data = open(out, "rb").read()
                    if norm == "strip-times":
                        data = TIMES.sub(b"", data)
                    h = hashlib.sha256(data).hexdigest()
                    key = (prog, i)
                    if var == "O2":
                        ref_hash.setdefault(key, (h, out))
                        if ref_hash[key][0] != h:
                            bad.append(f"{prog}: O2 output of process {i} changed between repetitions")
                    elif key in ref_hash and ref_hash[key][0] != h:
                        bad.append(f"{prog}: {var} output of process {i} ({cmd}) differs from O2's")
                    elif key not in ref_hash:
                        pending = (h, out, var, cmd)
                        ref_hash.setdefault(("pending",) + key, []).append(pending)
                times[(prog, var)].append(t_sum)
                cycles[(prog, var)].append(c_sum)
        # outputs of variants that ran before O2 in the first repetition
        for key in [k for k in ref_hash if k[0] == "pending"]:
            for h, out, var, cmd in ref_hash.pop(key):
                if ref_hash[key[1:]][0] != h:
                    bad.append(f"{key[1]}: {var} output of process {key[2]} ({cmd}) differs from O2's")
        print(f"  repetition {rep + 1}/{reps} done ({time.time() - start:.0f} s)", flush=True)
        if bad:
            break
    if bad:
        print("measure: OUTPUT MISMATCH:\n  " + "\n  ".join(sorted(set(bad))), file=sys.stderr)
        sys.exit(1)
    res = {"reps": reps, "cycles_available": cycles_ok, "programs": {}}
    for prog, variants in procs.items():
        base_t, base_c = times[(prog, "O2")], cycles[(prog, "O2")]
        pr = res["programs"][prog] = {"variants": {}, "processes": len(variants["O2"])}
        for var in variants:
            t = times[(prog, var)]
            rt = [a / b for a, b in zip(t, base_t)]
            d = {"time_s": t, "ratio_time": rt}
            if cycles_ok:
                c = cycles[(prog, var)]
                d["ratio_cycles"] = [a / b for a, b in zip(c, base_c)]
            d["proc_ratio_time"] = [
                [a / b for a, b in zip(per_proc[(prog, var, i)], per_proc[(prog, "O2", i)])]
                for i in range(len(variants[var]))]
            d["cmds"] = [c for _, c in variants[var]]
            pr["variants"][var] = d
    json.dump(res, open(result, "w"), indent=1)


if __name__ == "__main__":
    main()
