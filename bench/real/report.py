#!/usr/bin/env python3
"""report.py - the "## Real programs" section of bench/RESULTS.md.

Usage: report.py WORK COSTS.tsv OVERLAP.tsv [--command C] [--recorder R]
                 [--event E] [--period P] [--elapsed S] [--title T]
                 [--record timer|emu|emu-lbr] [--counts COUNTS.tsv]
       report.py --quick WORK COSTS.tsv OVERLAP.tsv [--counts COUNTS.tsv]
                 (a short summary)

COUNTS.tsv (PROG, VARIANT, instructions, taken branches per ref run, as
sfdo-record --emulate --stat counts them) adds the deterministic table.

Reads WORK/results.json (bench/real/measure.py), the costs and overlaps the
driver collected, and prints Markdown on standard output. The analysis is
generated here too, so that RESULTS.md is never edited by hand.
"""
import json, math, os, re, subprocess, sys, time
from statistics import median

VARS = ["O2-again", "O2x", "pgo", "sfdo", "afdo-cg", "afdo-sfdo"]
VNAME = {
    "O2-again": "-O2 again (A/A control)",
    "O2x": "O2x: -O2 + FDO's flags, no profile",
    "pgo": "instrumented PGO",
    "sfdo": "**sfdo** (plugin)",
    "afdo-cg": "GCC -fauto-profile, create_gcov",
    "afdo-sfdo": "GCC -fauto-profile, sfdo's AFDO export",
}
EXPECT = {"lua": "about 16%", "sqlite": "5 to 10%", "xz": "4 to 5%"}
PROGS = {"lua": "Lua 5.4.4", "sqlite": "SQLite 3.40.1 speedtest1",
         "xz": "xz 5.4.1", "bzip2": "bzip2 1.0.8 (control)"}


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def stats(xs):
    return median(xs), min(xs), max(xs)


def fmt_ratio(xs):
    m, lo, hi = stats(xs)
    return f"{m:.3f} ({lo:.2f}–{hi:.2f})"


def gain(r):        # speedup - 1 from a time ratio variant/O2
    return 1.0 / r - 1.0


def read_counts(path):
    """(prog, variant) -> (instructions, taken branches), from COUNTS.tsv."""
    counts = {}
    if path and os.path.exists(path):
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) == 4:
                counts[(f[0], f[1])] = (int(f[2]), int(f[3]))
    return counts


def counts_table(w, progs, counts):
    """The deterministic counts: each variant's ratio to -O2, and PGO's
    reduction captured."""
    w("### Instructions and taken branches per ref run: ratio to -O2 (deterministic)")
    w("")
    if not counts:
        w("Not counted: the emulated PMU (sfdoemu) was not built on this machine.")
        w("")
        return
    w("Each variant's ref run counted once under `sfdo-record --emulate --stat` (user-space instructions "
      "retired and taken branches: calls, returns, jumps, taken conditional branches; every process of the run, "
      "libraries included). Unlike time, these do not drift with the machine's load, so differences of a fraction "
      "of a percent are real; they are not time (a cache miss costs no instruction).")
    w("")
    vs = ["O2"] + VARS[1:]
    w("| program | -O2: instructions, taken branches | " + " | ".join(VNAME[v] for v in VARS[1:]) + " |")
    w("|---|---:|" + "---:|" * (len(vs) - 1))
    for p in progs:
        if (p, "O2") not in counts:
            continue
        i0, t0 = counts[(p, "O2")]
        row = [f"{i0:,}, {t0:,}"]
        for v in VARS[1:]:
            c = counts.get((p, v))
            row.append(f"{c[0] / i0:.3f}, {c[1] / t0:.3f}" if c else "–")
        w(f"| {PROGS[p]} | " + " | ".join(row) + " |")
    w("")


def main():
    args = sys.argv[1:]
    quick = "--quick" in args
    if quick:
        args.remove("--quick")
    opts = {}
    pos = []
    i = 0
    while i < len(args):
        if args[i].startswith("--"):
            opts[args[i][2:]] = args[i + 1]
            i += 2
        else:
            pos.append(args[i])
            i += 1
    work, costs_f, overlap_f = pos
    res = json.load(open(os.path.join(work, "results.json")))
    progs = [p for p in PROGS if p in res["programs"]]
    counts = read_counts(opts.get("counts"))
    record = opts.get("record", "timer")
    if quick:
        print("  quick run: ratios to -O2 after one repetition (meaningless, a smoke test):")
        for p in progs:
            v = res["programs"][p]["variants"]
            print("   ", p, " ".join(f"{k}={v[k]['ratio_time'][0]:.2f}" for k in v if k != "O2"))
        if counts:
            print("  instructions and taken branches per ref run (emulated, deterministic):")
            for (p, v), (i, t) in counts.items():
                print(f"    {p} {v}: {i} instructions, {t} taken branches")
        return
    costs = {}
    for line in open(costs_f):
        f = line.rstrip("\n").split("\t")
        if len(f) == 3:
            costs[(f[0], f[1])] = f[2]
    overlap = {}
    for line in open(overlap_f):
        f = line.rstrip("\n").split("\t")
        if len(f) == 3:
            m = re.search(r"block overlap: ([0-9.]+)% over (\d+) functions", f[2])
            w = re.search(r"within functions: ([0-9.]+)%", f[2])
            within = f"; within functions {float(w.group(1)):.1f}%" if w else ""
            overlap[(f[0], f[1])] = (f"{float(m.group(1)):.1f}% ({m.group(2)} fns{within})" if m
                                     else "n/a: " + f[2][:60])
    med = {(p, v): median(d["ratio_time"]) for p in progs
           for v, d in res["programs"][p]["variants"].items()}

    out = []
    w = out.append
    # the run's date: when measure.py wrote its results
    now = time.strftime("%Y-%m-%d %H:%M UTC",
                        time.gmtime(os.path.getmtime(os.path.join(work, "results.json"))))
    cpu = sh("sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1")
    ncpu = sh("nproc")
    mem = sh("awk '/MemTotal/ {printf \"%.0f\", $2/1048576}' /proc/meminfo")
    has_pmu = os.path.exists("/sys/bus/event_source/devices/cpu") or \
        os.path.exists("/sys/bus/event_source/devices/cpu_core")
    cyc = res["cycles_available"]
    pmu = ("hardware PMU present" if has_pmu else "**no hardware PMU** (no `cpu` PMU in /sys/bus/event_source/devices)") + \
        ("; `perf stat -e cycles:u` counts" if cyc else "; `perf stat -e cycles:u` says `<not supported>`, so cycles are not reported") + \
        f"; profiles sampled on `{opts.get('event')}` every {opts.get('period')}" + \
        (" ns (a timer, no LBR)" if opts.get("event", "").startswith(("cpu-clock", "task-clock")) else "") + \
        {"emu": " retired instructions, by the emulated PMU (`sfdo-record --emulate`: exact counts, under Valgrind)",
         "emu-lbr": " taken branches, each sample with the last 32 (LBR), by the emulated PMU (`sfdo-record --emulate -b`)"
         }.get(record, "")
    w(opts.get("title", "## Real programs"))
    w("")
    w(f"Written by `bench/real-bench.sh` on {now} (the run took {int(opts.get('elapsed', 0)) // 60} min).")
    w("")
    w(f"- Machine: {cpu} ({ncpu} CPUs), {mem} GiB RAM, shared with other work while measured; {pmu}.")
    w(f"- {sh('gcc --version | head -n 1')}; {sh('perf --version')}; create_gcov from Debian autofdo "
      f"{sh(chr(39).join(['dpkg-query -W -f=', '${Version}', ' autofdo']))}; sfdo commit "
      f"{sh('git rev-parse --short HEAD')}; recorder: {opts.get('recorder')}"
      f"{' --emulate' if record != 'timer' else ''}.")
    w(f"- Command: `{opts.get('command', 'bench/real-bench.sh')}` (`make bench` runs it).")
    w(f"- Method: {res['reps']} repetitions; in each, every program runs its ref input under every variant, "
      "interleaved, in an order rotated by one each repetition, each process under "
      "`perf stat -e task-clock -e cycles:u`. A program's time is the sum of its processes' task-clock. "
      "Figures are the **median of the per-repetition ratios to -O2** (paired, so the machine's drift cancels), "
      "with min–max. Every variant's output on ref was checked equal to -O2's in every repetition.")
    w("- Sources: `apt-get source lua5.4 sqlite3 xz-utils bzip2` (Debian 12), built by `bench/real/build.sh`, "
      "each `.c` to its own object, the same flags for every variant plus the variant's own.")
    w("")
    w("Programs and inputs (the profiles are always collected on train, the timings on ref):")
    w("")
    w("| program | train | ref | ref processes | -O2 time on ref (median s) |")
    w("|---|---|---|---:|---:|")
    inputs = {
        "lua": ("7 scripts of `bench/real/lua/` (fib, binary trees, n-body, spectral norm, fannkuch, strings, sort) at small sizes",
                "the same 7 scripts at larger sizes"),
        "sqlite": ("`speedtest1 --memdb --testset main --verify --size 20`", "the same with a larger `--size`"),
        "xz": ("`xz -6` piped into `xz -d`, on a tar of Lua, bzip2 and liblzma sources and `ld.bfd`",
               "`xz -6` of other bytes (cc1 code + sqlite3.c text), `xz -d` of a larger file"),
        "bzip2": ("`bzip2 -9` piped into `bzip2 -d`, on the same tar", "`bzip2 -9` and `bzip2 -d` of cc1 + sqlite3.c slices"),
    }
    for p in progs:
        d = res["programs"][p]["variants"]["O2"]
        w(f"| {PROGS[p]} | {inputs[p][0]} | {inputs[p][1]} | {res['programs'][p]['processes']} | "
          f"{median(d['time_s']):.2f} |")
    w("")
    w("Exact ref commands: " + "; ".join(
        f"{p}: " + ", ".join("`" + re.sub(r"\S*/", "", c) + "`" for c in res["programs"][p]["variants"]["O2"]["cmds"])
        for p in progs) + ".")
    w("")
    w("### Runtime on ref: ratio to -O2 (task-clock; lower is faster)")
    w("")
    w("| program | " + " | ".join(VNAME[v] for v in VARS) + " |")
    w("|---|" + "---:|" * len(VARS))
    for p in progs:
        vs = res["programs"][p]["variants"]
        w(f"| {PROGS[p]} | " + " | ".join(fmt_ratio(vs[v]["ratio_time"]) if v in vs else "–" for v in VARS) + " |")
    if cyc:
        w("")
        w("The same in `cycles:u`:")
        w("")
        w("| program | " + " | ".join(VNAME[v] for v in VARS) + " |")
        w("|---|" + "---:|" * len(VARS))
        for p in progs:
            vs = res["programs"][p]["variants"]
            w(f"| {PROGS[p]} | " + " | ".join(fmt_ratio(vs[v]["ratio_cycles"]) if v in vs else "–" for v in VARS) + " |")
    else:
        w("")
        w("`cycles:u`: not available on this machine (no hardware PMU; perf stat reports `<not supported>`).")
    w("")
    w("The transform ladder (counts only, then each family of decisions turned on) is measured on Lua and "
      "SQLite by `bench/decisions-bench.sh` (section \"Decisions and the transform ladder\").")
    w("")
    counts_table(w, progs, counts)

    # share of PGO's gain
    w("")
    w("### Share of instrumented PGO's gain")
    w("")
    w("`(T_O2/T_variant - 1) / (T_O2/T_pgo - 1)` from the median ratios. The mean is over the programs where PGO "
      "gains at least 3%; it is the share of the geometric-mean gain (the geometric mean of the speedups T_O2/T, minus 1, "
      "over PGO's), because a share can be negative. Anchors: Chen et al. 92% (same input) and 85% (train to ref); "
      "AutoFDO (CGO 2016) 85%.")
    w("")
    sv = ["O2x", "sfdo", "afdo-cg", "afdo-sfdo"]
    w("| program | PGO gain | " + " | ".join(VNAME[v] for v in sv) + " |")
    w("|---|---:|" + "---:|" * len(sv))
    # bzip2 is the no-regression control: never averaged, whatever PGO does
    elig = [p for p in progs if p != "bzip2" and gain(med[(p, "pgo")]) >= 0.03]
    shares = {}
    for p in progs:
        g = gain(med[(p, "pgo")])
        row = [f"{100 * g:+.1f}%"]
        for v in sv:
            s = gain(med[(p, v)]) / g if abs(g) > 1e-9 else float("nan")
            shares[(p, v)] = s
            row.append(f"{100 * s:.0f}%" if p in elig else f"{100 * gain(med[(p, v)]):+.1f}% speed")
        note = "" if p in elig else " (speed change shown, not a share)" if p == "bzip2" else \
            " (PGO gains < 3%: speed change shown, not a share)"
        w(f"| {PROGS[p]}{note} | " + " | ".join(row) + " |")

    def gm_gain(v, ps):
        return math.exp(sum(math.log(1 / med[(p, v)]) for p in ps) / len(ps)) - 1

    gm_share = {}
    if elig:
        gp = gm_gain("pgo", elig)
        row = [f"{100 * gp:+.1f}%"]
        for v in sv:
            gm_share[v] = gm_gain(v, elig) / gp
            row.append(f"**{100 * gm_share[v]:.0f}%**")
        w(f"| geometric mean over {', '.join(elig)} | " + " | ".join(row) + " |")
    w("")
    bz = "bzip2" in progs and med[("bzip2", "sfdo")]
    if bz:
        w(f"No-regression control, bzip2: sfdo's time ratio to -O2 is {fmt_ratio(res['programs']['bzip2']['variants']['sfdo']['ratio_time'])} "
          f"({'no regression beyond the noise' if bz < 1.03 else 'SLOWER than -O2'}; the A/A control's spread is "
          f"{fmt_ratio(res['programs']['bzip2']['variants']['O2-again']['ratio_time'])}).")
        w("")

    if "lua" in progs:
        w("Lua, per script (median ratio to -O2):")
        w("")
        lv = ["O2-again", "O2x", "pgo", "sfdo", "afdo-cg", "afdo-sfdo"]
        w("| script | " + " | ".join(lv) + " |")
        w("|---|" + "---:|" * len(lv))
        vs = res["programs"]["lua"]["variants"]
        for i, c in enumerate(vs["O2"]["cmds"]):
            name = re.sub(r".*/", "", c.split()[1]) + " " + " ".join(c.split()[2:])
            w(f"| {name} | " + " | ".join(f"{median(vs[v]['proc_ratio_time'][i]):.3f}" for v in lv) + " |")
        w("")

    # accuracy
    w("### Profile accuracy: block overlap with the instrumented counts")
    w("")
    w("Degree of overlap (Chen et al.) of each variant's block counts with the `-fprofile-use` counts of the same "
      "train input, on the same CFG: the plugin's dumps (`-fplugin-arg-samplefdo-dump=`, and `-dump-only` under "
      "`-fprofile-use` and under `-fauto-profile`, where it dumps GCC's own counts), compared by "
      "`scripts/count-overlap.py` over the functions both dumps list. 100% = the same distribution. "
      "Before comparing, `bench/real/dump-global.py` sets to zero the blocks of functions that carry GCC's guessed "
      "frequencies instead of counts (under -fprofile-use, functions the train run never executed; under "
      "-fauto-profile, functions the profile has no samples for): their true count is zero. sfdo's dump lists only "
      "the functions its profile has; GCC's AFDO dumps list every function.")
    w("")
    ov = ["sfdo", "afdo-cg", "afdo-sfdo"]
    w("| program | " + " | ".join(VNAME[v] for v in ov) + " |")
    w("|---|" + "---:|" * len(ov))
    for p in progs:
        w(f"| {PROGS[p]} | " + " | ".join(overlap.get((p, v), "–") for v in ov) + " |")
    w("")

    # costs
    w("### Costs")
    w("")
    w("| program | recording overhead (`O2` under the recorder / `O2`, ref) | samples on train | sfdo-convert: s, peak MB | create_gcov: s, peak MB | compile CPU s: O2 / PGO use / sfdo | plugin compile overhead vs O2 / vs PGO use |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for p in progs:
        vs = res["programs"][p]["variants"]
        rec = "; ".join(
            f"{opts.get('recorder') if k == 'O2+rec' else k[3:]}: {fmt_ratio(vs[k]['ratio_time'])}"
            for k in vs if k.startswith("O2+")) or "–"

        def conv(k):
            c = costs.get((p, k))
            if not c:
                return "–"
            s, kb = c.split()
            return f"{float(s):.2f} s, {int(kb) / 1024:.0f} MB"
        cc = {v: float(costs.get((p, f"compile_cpu_{v}"), "nan")) for v in ("O2", "pgo", "sfdo")}
        w(f"| {PROGS[p]} | {rec} | {costs.get((p, 'samples'), '–')} | {conv('convert_sfdo')} | {conv('convert_create_gcov')} | "
          f"{cc['O2']:.1f} / {cc['pgo']:.1f} / {cc['sfdo']:.1f} | "
          f"{100 * (cc['sfdo'] / cc['O2'] - 1):+.0f}% / {100 * (cc['sfdo'] / cc['pgo'] - 1):+.0f}% |")
    w("")
    w("Recording overhead is measured like the variants (interleaved, paired) with the recorder "
      "(`sfdo-record` at its default settings when it is built, and `perf record` at the same event and period, "
      "five times the profiles' period: training runs last seconds, so they are sampled more often) "
      "wrapped around the -O2 build; the profiles themselves were recorded with "
      f"`{opts.get('recorder')}`. The overhead "
      "includes starting the recorder and writing perf.data. Conversion is one run each on the train profile (wall s and peak RSS, GNU time). "
      "Compile CPU is user + system time of the whole build of each variant (the O2 build also has -gdwarf-4; "
      "the PGO-use build carries the plugin in dump-only mode, which costs little). "
      "`bench/convert-bench.sh` and `bench/plugin-compile-bench.sh` measure the same on large synthetic inputs.")
    w("")

    # analysis
    w("### Analysis")
    w("")
    for line in analysis(progs, med, elig, gm_share, overlap, res, record):
        w(line)
    print("\n".join(out))


def analysis(progs, med, elig, gm_share, overlap, res, record="timer"):
    a = []
    aa = max(abs(med[(p, "O2-again")] - 1) for p in progs)
    spread = max(max(res["programs"][p]["variants"]["O2-again"]["ratio_time"]) -
                 min(res["programs"][p]["variants"]["O2-again"]["ratio_time"]) for p in progs)
    a.append(f"- Noise: the A/A control's median is within {100 * aa:.1f}% of 1.00 on every program (single "
             f"repetitions spread over up to {100 * spread:.0f} points), so median differences below about "
             f"{max(2, math.ceil(100 * aa * 2))}% are not resolved by this run.")
    if gm_share:
        a.append(f"- Over {', '.join(elig)}, sfdo captures **{100 * gm_share['sfdo']:.0f}%** of instrumented PGO's gain "
                 f"(GCC's AutoFDO fed create_gcov's profile of the same samples: {100 * gm_share['afdo-cg']:.0f}%; "
                 f"fed sfdo's own AFDO export: {100 * gm_share['afdo-sfdo']:.0f}%; FDO's flags with no profile: "
                 f"{100 * gm_share['O2x']:.0f}%). The published anchors (85–92%) were measured with hardware "
                 "events and, for AutoFDO, LBR; this machine has neither.")
        conv = gm_share["afdo-sfdo"] - gm_share["afdo-cg"]
        ann = gm_share["sfdo"] - gm_share["afdo-sfdo"]
        def cmp(x, other):
            if abs(x) <= 0.05:
                return f"is within 5 points of {other}"
            return f"{'beats' if x > 0 else 'trails'} {other} by {100 * abs(x):.0f} points"
        a.append(f"- Converter against converter (both through GCC's own AFDO reader): sfdo-convert's profile "
                 f"{cmp(conv, 'create_gcov')} ({100 * gm_share['afdo-sfdo']:.0f}% against "
                 f"{100 * gm_share['afdo-cg']:.0f}% of PGO's gain). Annotator against annotator (the same sfdo "
                 f"profile): the plugin {cmp(ann, 'GCC -fauto-profile')} ({100 * gm_share['sfdo']:.0f}% against "
                 f"{100 * gm_share['afdo-sfdo']:.0f}%).")
    for p in progs:
        if p not in elig:
            continue
        s = gain(med[(p, "sfdo")]) / gain(med[(p, "pgo")])
        a.append(f"- {PROGS[p]}: PGO {100 * gain(med[(p, 'pgo')]):+.1f}%, sfdo {100 * gain(med[(p, 'sfdo')]):+.1f}% "
                 f"({100 * s:.0f}% of PGO's gain), FDO's flags alone {100 * gain(med[(p, 'O2x')]):+.1f}%; block "
                 f"overlap with PGO's counts: sfdo {overlap.get((p, 'sfdo'), '–')}, GCC AFDO from create_gcov "
                 f"{overlap.get((p, 'afdo-cg'), '–')}.")
    ctl = [p for p in progs if p not in elig]
    for p in ctl:
        r = med[(p, "sfdo")]
        why = "the control, so no share" if p == "bzip2" else \
            f"under 3%, so no share; earlier measurements on this kind of machine found {EXPECT[p]}, so this run " \
            "did not resolve PGO's gain here"
        a.append(f"- {PROGS[p]}: PGO gains {100 * gain(med[(p, 'pgo')]):+.1f}% ({why}); sfdo's time "
                 f"ratio {r:.3f}: {'no regression beyond the noise' if r < 1 + max(0.02, aa) else 'a regression'}.")
    slower = [PROGS[p].split()[0] for p in progs if med[(p, "O2x")] > 1.02]
    a.append("- Where sfdo loses to instrumented PGO, and why:")
    if record == "timer":
        a.append("  - **No LBR, no hardware PMU.** On this VM the profile comes from a cpu-clock timer at about 4 kHz, "
                 "so a train run of about a second gives a few thousand samples; block counts are inferred from the "
                 "instructions the timer interrupted, then made consistent by minimum-cost flow. Blocks that run often "
                 "but briefly, and the direction of branches inside large block-dense functions (the interpreter loops "
                 "`luaV_execute` and `sqlite3VdbeExec`), get few or no samples, so the edge probabilities that drive "
                 "block layout, hot/cold splitting and unrolling are less exact than PGO's exact arc counts. The "
                 "overlap table measures this loss directly: the closer to 100%, the closer the profile is to PGO's.")
    else:
        a.append("  - **Sampled, not counted.** The profiles come from the emulated PMU "
                 + ("(retired-instruction samples, exact: no skid, no timer bias)" if record == "emu" else
                    "(taken-branch samples with the last 32 taken branches, exact)")
                 + ", so what separates them from PGO's arc counts is sampling error and what the converter and the "
                 "plugin make of the samples (line tables of an optimised binary, inline stacks, flow smoothing), "
                 "not the recording. The overlap table measures it directly.")
    a.append("  - **Counts come back through the line table of an optimised binary.** Code that -O2 merged, "
             "if-converted, vectorised or duplicated maps back to source lines imperfectly, and a line shared by "
             "several blocks gives them one count; PGO counts the very CFG it optimises.")
    a.append("  - **No value profiles in this run.** The profiles were recorded with callchains (`-g`) but "
             "without register samples (`--regs`), so sfdo has no value histograms here; PGO measures divisors, "
             "`memcpy` sizes and indirect-call targets exactly. Indirect-call targets come from callchains only.")
    if slower:
        a.append(f"  - **FDO's flags cost where the profile is wrong.** With no profile, FDO's extra passes make "
                 f"{', '.join(slower)} slower than -O2 (the O2x column); a sampled profile must be accurate "
                 "enough to point unrolling, peeling and splitting at the right loops before those passes pay, "
                 "and where it is not, the flags' cost shows through.")
    a.append("  - **Train is not ref.** Every profile here (PGO's too) comes from the train input; sampled profiles of "
             "a short train run are noisier than the exact counts of the same run, which makes the train→ref gap "
             "wider for the sampled variants.")
    return a


if __name__ == "__main__":
    main()
