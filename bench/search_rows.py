#!/usr/bin/env python3
"""The rows of bench/search.sh: `pi tool grep`/`find` against rg/fd run with
the reference's flags. For each row the commands (pi, the current release,
Debian's) run one after the other, RUNS times (after one warm-up round), so
all of them see the same machine load; medians of wall and CPU time (user +
system, all threads) are printed with pi's ratio to each peer.

Environment: PI, TREE, RUNS, RG, FD (current releases), RG_OLD, FD_OLD
(Debian's; empty to skip), INSIDE_GIT (1 when TREE is inside a repository),
ROWS (only the rows whose label contains this text).
"""
import json
import os
import statistics
import subprocess
import sys
import time

PI = os.environ["PI"]
TREE = os.environ["TREE"]
RUNS = int(os.environ.get("RUNS", "11"))
RG, FD = os.environ.get("RG", ""), os.environ.get("FD", "")
RG_OLD, FD_OLD = os.environ.get("RG_OLD", ""), os.environ.get("FD_OLD", "")
INSIDE_GIT = os.environ.get("INSIDE_GIT") == "1"
ONLY = os.environ.get("ROWS", "")
DEVNULL = os.open(os.devnull, os.O_WRONLY)


def run(cmd):
    """Run `cmd` (argv list, or a shell string for a pipeline) in TREE; (wall ms, cpu ms)."""
    argv = cmd if isinstance(cmd, list) else ["bash", "-c", cmd]
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(TREE)
            os.dup2(DEVNULL, 1)
            os.dup2(DEVNULL, 2)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, _, usage = os.wait4(pid, 0)
    return (time.perf_counter() - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def medians(cmds):
    """Interleaved runs of `cmds`; [(wall, cpu)] medians in the same order."""
    for c in cmds:
        run(c)
    walls, cpus = [[] for _ in cmds], [[] for _ in cmds]
    for _ in range(RUNS):
        for i, c in enumerate(cmds):
            w, u = run(c)
            walls[i].append(w)
            cpus[i].append(u)
    return [(statistics.median(w), statistics.median(u)) for w, u in zip(walls, cpus)]


def version(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else "?"


def has_flag(binary, flag):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    return flag in out


results = []


def row(label, pi_cmd, new_cmd, old_cmd):
    if ONLY not in label:
        return
    cmds = [pi_cmd] + [c for c in (new_cmd, old_cmd) if c]
    m = medians(cmds)
    pi = m[0]
    new = m[1] if new_cmd else None
    old = m[-1] if old_cmd else None
    cell = lambda t: f"{t[0]:6.1f} {t[1]:6.1f}" if t else f"{'-':>6} {'-':>6}"
    ratio = lambda t: f"{pi[0] / t[0]:5.2f}x {pi[1] / t[1]:5.2f}x" if t else f"{'-':>6} {'-':>6}"
    print(f"{label:44s} {cell(pi)} | {cell(new)} {ratio(new)} | {cell(old)} {ratio(old)}", flush=True)
    results.append({"case": label, "pi": pi, "new": new, "old": old})


def pi_tool(tool, args):
    return [PI, "tool", tool, json.dumps(args), "--cwd", TREE]


def rg_cmd(binary, *args):
    return [binary, "--no-config", "--json", "--line-number", "--color=never", "--hidden", *args] if binary else None


def fd_cmd(binary, limit, *args):
    if not binary:
        return None
    nrg = ["--no-require-git"] if not INSIDE_GIT and has_flag(binary, "--no-require-git") else []
    return [binary, "--glob", "--color=never", "--hidden", *nrg, "--max-results", str(limit + 1), *args]


print(f"tree: {TREE}; runs: {RUNS} (medians, interleaved); times in ms: wall cpu")
print(f"pi: {PI}")
print(f"new: {version(RG) if RG else '-'} / {version(FD) if FD else '-'}")
print(f"old: {version(RG_OLD) if RG_OLD else '-'} / {version(FD_OLD) if FD_OLD else '-'}")
if FD_OLD and not INSIDE_GIT and not has_flag(FD_OLD, "--no-require-git"):
    print(f"note: {FD_OLD} has no --no-require-git: outside a repository it does not apply .gitignore")
print(f"{'case':44s} {'pi':>13} | {'rg/fd (new)':>13} {'ratio':>13} | {'rg/fd (old)':>13} {'ratio':>13}")

if RG or RG_OLD:
    for label, args, flags in [
        ("grep rare pattern (full scan)", {"pattern": "zqxwvyy_nomatch"}, []),
        ("grep rare vs rg --no-require-git (B10)", {"pattern": "zqxwvyy_nomatch"}, ["--no-require-git"]),
        ("grep -i rare pattern", {"pattern": "ZQXWV_nomatch", "ignoreCase": True}, ["--ignore-case"]),
        ("grep regex, glob *.ts", {"pattern": "cons[a-z]+ \\w+ zq", "glob": "*.ts"}, ["--glob", "*.ts"]),
        ("grep common pattern, limit 100 (rg: full)", {"pattern": "function"}, []),
    ]:
        pattern = args["pattern"]
        row(label, pi_tool("grep", args), rg_cmd(RG, *flags, "--", pattern, "."),
            rg_cmd(RG_OLD, *flags, "--", pattern, "."))
    # The reference kills rg once it has limit + 1 matches; `head` does the same here.
    kill = lambda b: f"'{b}' --no-config --json --line-number --color=never --hidden -- function . | head -n 150" if b else None
    row("grep common pattern, rg killed early", pi_tool("grep", {"pattern": "function"}), kill(RG), kill(RG_OLD))

if FD or FD_OLD:
    esc = "".join("\\" + c if c in "[]\\*?{}" else c for c in TREE)
    for label, args, fd_args in [
        ("find *.d.ts, limit 5000 (all listed)", {"pattern": "*.d.ts", "limit": 5000}, (5000, "--", "*.d.ts")),
        ("find *.d.ts (limit reached)", {"pattern": "*.d.ts"}, (1000, "--", "*.d.ts")),
        ("find *.js.map (sparse, limit reached)", {"pattern": "*.js.map"}, (1000, "--", "*.js.map")),
        ("find *.json", {"pattern": "*.json"}, (1000, "--", "*.json")),
        ("find * (limit reached)", {"pattern": "*"}, (1000, "--", "*")),
        ("find *.nomatch (full walk)", {"pattern": "*.nomatch"}, (1000, "--", "*.nomatch")),
        ("find **/lib/*.ts (path pattern)", {"pattern": "**/lib/*.ts"},
         (1000, "--full-path", "--ignore-case", "--", f"{esc}/**/lib/*.ts")),
    ]:
        limit, *rest = fd_args
        row(label, pi_tool("find", args), fd_cmd(FD, limit, *rest, TREE), fd_cmd(FD_OLD, limit, *rest, TREE))

worst = max((r["pi"][0] / r["new"][0] for r in results if r["new"]), default=0)
print(f"worst wall ratio against the current releases: {worst:.2f}x")
