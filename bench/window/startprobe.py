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
import ctypes.util
import subprocess
import sys
import time

X = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
Window = ctypes.c_ulong
X.XOpenDisplay.restype = ctypes.c_void_p
X.XOpenDisplay.argtypes = [ctypes.c_char_p]
X.XDefaultRootWindow.restype = Window
X.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
X.XFetchName.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(ctypes.c_char_p)]
X.XQueryTree.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(Window), ctypes.POINTER(Window),
                         ctypes.POINTER(ctypes.POINTER(Window)), ctypes.POINTER(ctypes.c_uint)]
X.XFree.argtypes = [ctypes.c_void_p]


class XWindowAttributes(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("border_width", ctypes.c_int), ("depth", ctypes.c_int), ("visual", ctypes.c_void_p),
                ("root", Window), ("class_", ctypes.c_int), ("bit_gravity", ctypes.c_int),
                ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int), ("backing_planes", ctypes.c_ulong),
                ("backing_pixel", ctypes.c_ulong), ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong),
                ("map_installed", ctypes.c_int), ("map_state", ctypes.c_int), ("all_event_masks", ctypes.c_long),
                ("your_event_mask", ctypes.c_long), ("do_not_propagate_mask", ctypes.c_long),
                ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p)]


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


X.XGetWindowAttributes.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(XWindowAttributes)]
X.XTranslateCoordinates.argtypes = [ctypes.c_void_p, Window, Window, ctypes.c_int, ctypes.c_int,
                                    ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(Window)]
X.XDisplayWidth.argtypes = X.XDisplayHeight.argtypes = [ctypes.c_void_p, ctypes.c_int]
# Xlib's default handler exits on any error; a window that goes away or
# moves between two reads is not a reason to stop watching.
ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(lambda d, e: 0)
X.XSetErrorHandler(ERROR_HANDLER)
X.XGetImage.restype = ctypes.POINTER(XImage)
X.XGetImage.argtypes = [ctypes.c_void_p, Window, ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
                        ctypes.c_ulong, ctypes.c_int]
IS_VIEWABLE, Z_PIXMAP, ALL_PLANES = 2, 2, 0xFFFFFFFF
OK_GREEN = (0x1C, 0x7F, 0x47)
ROWS = 48  # the header: the app's logo, title and status pill; the floor's line of text


def find(d, w, title):
    """The viewable window named title under w, or None (GTK's client
    leader has the same name but is never mapped)."""
    name = ctypes.c_char_p()
    if X.XFetchName(d, w, ctypes.byref(name)) and name.value is not None:
        match = name.value.decode(errors="replace") == title
        X.XFree(name)
        attrs = XWindowAttributes()
        # A window too small to hold the page is a helper window of GTK's.
        if match and X.XGetWindowAttributes(d, w, ctypes.byref(attrs)) and attrs.map_state == IS_VIEWABLE \
                and attrs.width >= 200 and attrs.height >= 200:
            # x, y are relative to the parent, which need not be the root.
            x, y, child = ctypes.c_int(), ctypes.c_int(), Window()
            X.XTranslateCoordinates(d, w, attrs.root, 0, 0, ctypes.byref(x), ctypes.byref(y), ctypes.byref(child))
            attrs.x, attrs.y = x.value, y.value
            return attrs
    root, parent = Window(), Window()
    kids, n = ctypes.POINTER(Window)(), ctypes.c_uint()
    if not X.XQueryTree(d, w, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(kids), ctypes.byref(n)):
        return None
    found = None
    for i in range(n.value):
        found = find(d, kids[i], title)
        if found:
            break
    if kids:
        X.XFree(kids)
    return found


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
    attrs = None
    while time.monotonic() - t0 < 30 and times["state"] is None:
        if child.poll() is not None:
            print(f"startprobe: {cmd[0]} exited with {child.returncode}", file=sys.stderr)
            break
        now = (time.monotonic() - t0) * 1000
        if attrs is None:
            attrs = find(d, root, title)
            if attrs is not None:
                times["mapped"] = now
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
