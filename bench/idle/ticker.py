#!/usr/bin/env python3
"""ticker.py COMMAND [ARGS...]: run COMMAND, pass its output through line by
line, and print "tick N" once a second: a backend that logs a line a second,
for bench/idle's Logs state. COMMAND's own lines (its READY line first of
all) reach the launcher unchanged, so readiness works as without the ticker.
Exits with COMMAND's status when COMMAND ends."""
import subprocess
import sys
import threading
import time

lock = threading.Lock()


def say(line):
    with lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def tick():
    n = 0
    while True:
        time.sleep(1)
        n += 1
        say("tick %d\n" % n)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    threading.Thread(target=tick, daemon=True).start()
    for line in child.stdout:
        say(line)
    return child.wait()


sys.exit(main())
