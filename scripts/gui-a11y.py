#!/usr/bin/python3
# Finds the window's elements the way a screen reader does, through the
# accessibility tree (AT-SPI) WebKitGTK exposes for the page, and clicks or
# types into them with xdotool, as a person would: the journeys name a
# button by what it says, not by where it was drawn last week.
#
# Run by the system python (python3-gi and gir1.2-atspi-2.0, installed by
# scripts/install-gui-deps.sh), inside the journeys' D-Bus session.
#
# usage: gui-a11y.py COMMAND [ARG...] [PATH...]
#   PATH steps are NAME or ROLE=NAME, each found inside the one before;
#   NAME is matched whole, or as a regex when written /like this/.
#   click [--retry] PATH...
#                        wait for the element to settle, click its centre;
#                        --retry: again (at most twice) while it stays
#   type TEXT PATH...    click the entry, select all, type TEXT, check it
#   value PATH...        print an entry's text
#   wait PATH...         wait until the element is there
#   has PATH...          exit 0 if the element is there now, else 1
#   gone PATH...         wait until it is not
#   texts PATH...        print every name and text under it, a line each
#   extents PATH...      print the element's x y width height on screen
#   dump                 print the whole tree (for a failure's report)
# GUI_A11Y_TIMEOUT (seconds, default 20) bounds every wait.
import os
import re
import subprocess
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

APP = "hermes-desktop"
TIMEOUT = float(os.environ.get("GUI_A11Y_TIMEOUT", "20"))


class Step:
    """One PATH step: an optional role and a whole-name or regex match."""

    def __init__(self, text):
        self.role = None
        if "=" in text and not text.startswith("/"):
            role, text = text.split("=", 1)
            self.role = role
        if len(text) > 1 and text.startswith("/") and text.endswith("/"):
            self.rx = re.compile(text[1:-1])
        else:
            self.rx = re.compile(re.escape(text) + r"\Z")
        self.text = text

    def matches(self, o):
        try:
            if self.role and o.get_role_name() != self.role:
                return False
            return self.rx.match(o.get_name() or "") is not None
        except Exception:  # the page re-rendered under us
            return False


def children(o):
    try:
        n = o.get_child_count()
    except Exception:
        return
    for i in range(n):
        try:
            c = o.get_child_at_index(i)
        except Exception:
            continue
        if c is not None:
            yield c


def app_root():
    desktop = Atspi.get_desktop(0)
    for a in children(desktop):
        try:
            if a.get_name() == APP:
                return a
        except Exception:
            pass
    return None


def visible(o):
    try:
        e = o.get_extents(Atspi.CoordType.SCREEN)
        return e.width > 0 and e.height > 0
    except Exception:
        return False


def search(root, step, depth=0):
    """Depth-first, the first visible match under root."""
    if depth > 60:
        return None
    for c in children(root):
        if step.matches(c) and visible(c):
            return c
        found = search(c, step, depth + 1)
        if found is not None:
            return found
    return None


def find(steps):
    node = app_root()
    for s in steps:
        if node is None:
            return None
        node = search(node, s)
    return node


def wait_for(steps, want=True):
    deadline = time.monotonic() + TIMEOUT
    while True:
        node = find(steps)
        if (node is not None) == want:
            return node
        if time.monotonic() > deadline:
            path = " > ".join(s.text for s in steps)
            sys.exit(f"gui-a11y: {'no' if want else 'still an'} element {path} after {TIMEOUT:g}s")
        time.sleep(0.2)


def centre(o):
    """The element's centre on screen, scrolled into the window first."""
    frame = find([Step("frame=Hermes Desktop")]) or o
    f = frame.get_extents(Atspi.CoordType.SCREEN)
    e = o.get_extents(Atspi.CoordType.SCREEN)
    x, y = e.x + e.width // 2, e.y + e.height // 2
    if not (f.x <= x < f.x + f.width and f.y <= y < f.y + f.height):
        Atspi.Component.scroll_to(o, Atspi.ScrollType.ANYWHERE)
        time.sleep(0.3)
        e = o.get_extents(Atspi.CoordType.SCREEN)
        x, y = e.x + e.width // 2, e.y + e.height // 2
    return x, y


def xdotool(*args):
    subprocess.run(["xdotool", *args], check=True)


def settled(steps):
    """The element once it stops moving (a panel sliding in, a reflow)."""
    node = wait_for(steps)
    last = None
    for _ in range(25):
        e = node.get_extents(Atspi.CoordType.SCREEN)
        now = (e.x, e.y, e.width, e.height)
        if now == last:
            return node
        last = now
        time.sleep(0.1)
        node = wait_for(steps)
    return node


def press(node):
    x, y = centre(node)
    # Move, then press: the motion clears a tooltip or hover state the last
    # click left, as a person's hand does on its way.
    # No --sync: it waits for motion, and there is none when the pointer
    # is already there (the same button clicked twice).
    xdotool("mousemove", str(x), str(y))
    time.sleep(0.15)
    xdotool("click", "1")


def click(steps, retry=False):
    """Clicks the element; with retry, clicks again (twice at most, said on
    stderr) while it is still there 3 s on, as a person whose click went
    missing would."""
    press(settled(steps))
    for attempt in (2, 3):
        if not retry:
            return
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            if find(steps) is None:
                return
            time.sleep(0.2)
        path = " > ".join(s.text for s in steps)
        print(f"gui-a11y: {path} still there 3 s after a click: click {attempt}", file=sys.stderr)
        press(settled(steps))


def value(o):
    try:
        return Atspi.Text.get_text(o, 0, Atspi.Text.get_character_count(o)) or ""
    except Exception:  # no text interface, or the node is gone
        return ""


def type_into(text, steps):
    node = settled(steps)
    press(node)
    xdotool("key", "--clearmodifiers", "ctrl+a", "BackSpace")
    # A person's pace, not a burst: the page handles each key on its own.
    xdotool("type", "--delay", "40", "--", text)
    deadline = time.monotonic() + TIMEOUT
    while True:
        got = value(find(steps) or node)
        if got == text:
            return
        if time.monotonic() > deadline:
            sys.exit(f"gui-a11y: typed {text!r} into {steps[-1].text}, the field says {got!r}")
        time.sleep(0.2)


def texts(o, out, depth=0):
    if depth > 60:
        return
    for c in children(o):
        try:
            name = c.get_name()
        except Exception:
            name = ""
        if name:
            out.append(name)
        v = value(c) if c.get_child_count() == 0 else ""
        if v and v != name:
            out.append(v)
        texts(c, out, depth + 1)


def dump(o, depth=0):
    for c in children(o):
        try:
            line = f"{'  ' * depth}[{c.get_role_name()}] {c.get_name()!r}"
            if visible(c):
                x, y = centre(c)
                line += f" @{x},{y}"
            v = value(c) if c.get_child_count() == 0 else ""
            if v:
                line += f" text={v[:80]!r}"
            print(line)
        except Exception:
            continue
        dump(c, depth + 1)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__ or "usage: gui-a11y.py COMMAND [ARG...] [PATH...]")
    cmd, args = argv[1], argv[2:]
    if cmd == "dump":
        root = app_root()
        if root is None:
            sys.exit("gui-a11y: the app is not on the accessibility bus")
        dump(root)
    elif cmd == "click":
        retry = args[:1] == ["--retry"]
        click([Step(a) for a in args[retry:]], retry)
    elif cmd == "type":
        type_into(args[0], [Step(a) for a in args[1:]])
    elif cmd == "value":
        print(value(wait_for([Step(a) for a in args])))
    elif cmd == "has":
        sys.exit(0 if find([Step(a) for a in args]) is not None else 1)
    elif cmd == "wait":
        wait_for([Step(a) for a in args])
    elif cmd == "gone":
        wait_for([Step(a) for a in args], want=False)
    elif cmd == "extents":
        e = wait_for([Step(a) for a in args]).get_extents(Atspi.CoordType.SCREEN)
        print(e.x, e.y, e.width, e.height)
    elif cmd == "texts":
        out = []
        texts(wait_for([Step(a) for a in args]) if args else app_root(), out)
        print("\n".join(out))
    else:
        sys.exit(f"gui-a11y: unknown command {cmd!r}")


if __name__ == "__main__":
    main(sys.argv)
