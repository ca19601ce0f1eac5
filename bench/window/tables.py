#!/usr/bin/env python3
"""tables.py WORK SETTLE: bench/window/run.sh's figures as tables, from the
files the inner run wrote in WORK (keys, landed, starts, memory, dropped)."""
import os
import statistics
import sys

GOAL_MS = 20  # issue 23: web-process CPU per keystroke in Settings


def floor_of(label, labels):
    """The floor a label is measured against: with the flavours side by side
    (app40, app41) the floor of its own flavour (floor40, floor41), else the
    one floor."""
    own = "floor" + label[-2:]
    return own if label[-2:].isdigit() and own in labels else "floor"


def rows(work, name):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def keys(work):
    landed = {(r[0], r[1]): r[2] for r in rows(work, "landed")}
    data = rows(work, "keys")
    if not data:
        return
    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    print()
    print("typing: CPU per key of the app process and its WebKit processes, from the first key until both are")
    print("quiet, minus what the same page costs idle over as long (measured for 5 s just before)")
    print(f"{'build':<8} {'field':<9} {'keys':>4} {'secs':>6} {'app ms':>7} {'WebKit':>7} {'total':>7} {'ticks':>7} {'landed':>6}  goal (Settings, WebKit)")
    for r in data:
        label, field, n, secs = r[0], r[1], int(r[2]), float(r[3])
        d = [int(x) for x in r[4:13]]
        idle_secs = float(r[13])
        idle = [int(x) for x in r[14:23]]
        scale = secs / idle_secs
        # delta's fields: 0 app ticks, 1 WebKit ticks, 4 app ns, 5 WebKit ns
        app = (d[4] - idle[4] * scale) / 1e6 / n
        webkit = (d[5] - idle[5] * scale) / 1e6 / n
        ticks = ((d[0] + d[1]) - (idle[0] + idle[1]) * scale) * tick_ms / n
        goal = "-"
        if field == "settings":
            worst = max(webkit, ticks)
            goal = f"< {GOAL_MS} ms: " + ("yes" if worst < GOAL_MS else "no")
        print(f"{label:<8} {field:<9} {n:>4} {secs:>6.2f} {app:>7.2f} {webkit:>7.2f} {app + webkit:>7.2f} {ticks:>7.1f} {landed.get((label, field), '?'):>6}  {goal}")
    print("ms per key. app ms, WebKit: exact (schedstat of every thread alive at both ends); ticks: app + WebKit")
    print(f"utime+stime ({tick_ms:.0f} ms ticks), which also counts threads that ended meanwhile; the goal takes the larger.")
    print("secs: first key (xdotool type --delay 100) until quiet.")
    print("landed: Enter saved the form and config.json held exactly the typed text.")


def starts(work):
    data = rows(work, "starts")
    if not data:
        return
    sets = {}
    for label, *times in data:
        if label.endswith("-warmup"):
            continue
        sets.setdefault(label, []).append(times)

    def p50(label, i):
        vals = [float(t[i]) for t in sets.get(label, []) if t[i] != "-"]
        return statistics.median_low(vals) if vals else None

    def worst(label, i):
        ts = sets[label]
        if any(t[i] == "-" for t in ts):
            return "none"
        return f"{max(float(t[i]) for t in ts):.0f}"

    def fmt(v):
        return "-" if v is None else f"{v:.0f}"

    print()
    print("startup, ms from exec: p50 / max of each set")
    print(f"{'start':<14} {'n':>3} {'window mapped':>15} {'first paint':>15} {'state shown':>15} {'x floor':>8}")
    bases = {label.rsplit("-", 1)[0] for label in sets}
    for label, ts in sets.items():
        base, kind = label.rsplit("-", 1)
        floor, mine = p50(f"{floor_of(base, bases)}-{kind}", 2), p50(label, 2)
        ratio = f"{mine / floor:.2f}" if floor and mine is not None else "-"
        cells = [f"{fmt(p50(label, i)):>6} / {worst(label, i):<6}" for i in range(3)]
        print(f"{label:<14} {len(ts):>3} {cells[0]:>15} {cells[1]:>15} {cells[2]:>15} {ratio:>8}")
    dropped = rows(work, "dropped")
    print(f"cold: fresh state, Hermes home and XDG dirs; page cache dropped before each: {dropped[0][0] if dropped else 'unknown'}.")
    print("warm: the same dirs again, after one unmeasured start. x floor: state shown, p50, over the floor's")
    print("(with the flavours side by side, over the floor of the same flavour: app40 / floor40, app41 / floor41).")
    print("state shown: the app's header pill in the green of a ready backend (from a status Go sent);")
    print("the floor's: its first paint (a static page). Times from the framebuffer, polled every ~5 ms;")
    print("'none' in max: a start in the set did not show that step within 30 s.")


def memory(work, settle):
    data = rows(work, "memory")
    if not data:
        return
    print()
    print(f"memory at rest: PSS (smaps_rollup) in MB, {settle} s after the window showed (the app: Backends page, one backend)")
    print(f"{'window':<8} {'app':>8} {'WebKit':>8} {'total':>8} {'x floor':>8}")
    totals = {label: (int(app) + int(webkit)) / 1024 for label, app, webkit in data}
    for label, app, webkit in data:
        total = totals[label]
        floor = totals.get(floor_of(label, totals))
        ratio = f"{total / floor:.2f}" if floor else "-"
        print(f"{label:<8} {int(app) / 1024:>8.1f} {int(webkit) / 1024:>8.1f} {total:>8.1f} {ratio:>8}")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    keys(sys.argv[1])
    starts(sys.argv[1])
    memory(sys.argv[1], sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
