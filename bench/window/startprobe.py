#!/usr/bin/env python3
"""startprobe.py TITLE READY -- COMMAND...: start COMMAND as a double-click
would, and time what a person sees, from the X server's framebuffer:

  mapped  a viewable top-level window named TITLE exists
  paint   the page has drawn: the top 48 rows of the window hold both dark
          pixels (text, the logo) and light ones; a window GTK has mapped
          but WebKit not yet painted is one flat colour (black or the
          window's background), so it does not count
  state   READY "floor": the same as paint (a static page has no state);
          READY "ready": the header's status pill shows the green of a
          ready backend (frontend/src/style.css --ok, #1c7f47), which the
          page draws only from a status that says so

Prints "pid PID" as soon as COMMAND runs, then "times MAPPED PAINT STATE" in
milliseconds since just before the exec, then waits for COMMAND, which the
caller stops, and reaps it. Polls every 5 ms with one small XGetImage (no fork),
so the probe costs the machine little while it watches. Exit 1 when a step
does not happen within 30 s (the times that did are printed, '-' the rest).
"""
import ctypes
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing written into the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from xwin import X, Window, find as find_window, geometry  # noqa: E402


class XImage(ctypes.Structure):
    # The leading fields of Xlib's XImage, then its function table, whose
    # destroy_image frees the image (XDestroyImage is a macro).
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int),
                ("format", ctypes.c_int), ("data", ctypes.POINTER(ctypes.c_ubyte)), ("byte_order", ctypes.c_int),
                ("bitmap_unit", ctypes.c_int), ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int),
                ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int), ("bits_per_pixel", ctypes.c_int),
                ("red_mask", ctypes.c_ulong), ("green_mask", ctypes.c_ulong), ("blue_mask", ctypes.c_ulong),
                ("obdata", ctypes.c_void_p), ("create_image", ctypes.c_void_p),
                ("destroy_image", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p))]


X.XDisplayWidth.argtypes = X.XDisplayHeight.argtypes = [ctypes.c_void_p, ctypes.c_int]
# Xlib's default handler exits on any error; a window that goes away or
# moves between two reads is not a reason to stop watching.
ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(lambda d, e: 0)
X.XSetErrorHandler(ERROR_HANDLER)
X.XGetImage.restype = ctypes.POINTER(XImage)
X.XGetImage.argtypes = [ctypes.c_void_p, Window, ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
                        ctypes.c_ulong, ctypes.c_int]
Z_PIXMAP, ALL_PLANES = 2, 0xFFFFFFFF
OK_GREEN = (0x1C, 0x7F, 0x47)
ROWS = 48  # the header: the app's logo, title and status pill; the floor's line of text


def find(d, w, title):
    """The app's window named title under w, or None: a window too small to
    hold the page is a helper window of GTK's."""
    found = find_window(d, w, title, min_size=200)
    return found[0] if found else None


def look(d, root, a, ready):
    """(painted, state shown) in the window's top rows (x, y absolute),
    cut to the screen: XGetImage refuses a rectangle that leaves it."""
    w = min(a.width, X.XDisplayWidth(d, 0) - a.x)
    if a.x < 0 or a.y < 0 or w <= 0:
        return False, False
    img = X.XGetImage(d, root, a.x, a.y, w, ROWS, ALL_PLANES, Z_PIXMAP)
    if not img:
        return False, False
    im = img.contents
    dark = light = green = 0
    try:
        if im.bits_per_pixel != 32:
            raise SystemExit(f"startprobe: want a 32-bit framebuffer, got {im.bits_per_pixel} bits a pixel")
        buf = ctypes.string_at(im.data, im.bytes_per_line * im.height)
        for y in range(0, im.height, 2):
            row = buf[y * im.bytes_per_line:y * im.bytes_per_line + 4 * im.width]
            for x in range(0, len(row), 8):  # every other pixel, BGRX
                b, g, r = row[x], row[x + 1], row[x + 2]
                s = r + g + b
                if 30 < s < 350:
                    dark += 1
                elif s > 600:
                    light += 1
                if abs(r - OK_GREEN[0]) < 8 and abs(g - OK_GREEN[1]) < 8 and abs(b - OK_GREEN[2]) < 8:
                    green += 1
    finally:
        im.destroy_image(img)
    painted = dark >= 20 and light >= 100
    return painted, painted and (ready == "floor" or green >= 4)


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--" or sys.argv[2] not in ("floor", "ready"):
        print(__doc__, file=sys.stderr)
        return 2
    title, ready, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
    d = X.XOpenDisplay(None)
    if not d:
        print("startprobe: cannot open the display", file=sys.stderr)
        return 1
    root = X.XDefaultRootWindow(d)
    t0 = time.monotonic()
    child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
    print(f"pid {child.pid}", flush=True)
    times = {"mapped": None, "paint": None, "state": None}
    win = None
    while time.monotonic() - t0 < 30 and times["state"] is None:
        if child.poll() is not None:
            print(f"startprobe: {cmd[0]} exited with {child.returncode}", file=sys.stderr)
            break
        now = (time.monotonic() - t0) * 1000
        if win is None:
            win = find(d, root, title)
            if win is not None:
                times["mapped"] = now
        # Where the window is now: GTK may move it after mapping it (Wails
        # centres it), and a look at where it first showed would then
        # watch the empty root for the rest of the 30 s.
        attrs = geometry(d, win) if win is not None else None
        if attrs is not None:
            painted, shown = look(d, root, attrs, ready)
            if painted and times["paint"] is None:
                times["paint"] = now
            if shown:
                times["state"] = now
        time.sleep(0.005)
    print("times " + " ".join("-" if times[k] is None else f"{times[k]:.1f}" for k in ("mapped", "paint", "state")), flush=True)
    # The caller stops the child (by the PID printed); this reaps it.
    child.wait()
    return 0 if times["state"] is not None else 1


if __name__ == "__main__":
    sys.exit(main())
