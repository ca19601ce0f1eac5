#!/usr/bin/env python3
"""wm-close.py TITLE: ask the top-level window named TITLE to close, exactly
as a window manager does when the user clicks its close button (a
WM_PROTOCOLS/WM_DELETE_WINDOW client message). The GUI smoke test runs under
Xvfb with no window manager, so it plays that part itself. Exit 1 if no
viewable window has that name."""
import ctypes
import os
import sys

sys.dont_write_bytecode = True  # nothing written into the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xwin import X, Window, find  # noqa: E402

X.XInternAtom.restype = ctypes.c_ulong
X.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
X.XSendEvent.argtypes = [ctypes.c_void_p, Window, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
X.XFlush.argtypes = [ctypes.c_void_p]


class XClientMessageEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", Window), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class XEvent(ctypes.Union):
    _fields_ = [("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


CLIENT_MESSAGE = 33


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = X.XOpenDisplay(None)
    if not d:
        print("wm-close: cannot open the display", file=sys.stderr)
        return 2
    found = find(d, X.XDefaultRootWindow(d), sys.argv[1])
    if not found:
        print("wm-close: no viewable window named %r" % sys.argv[1], file=sys.stderr)
        return 1
    w = found[0]
    ev = XEvent()
    ev.xclient.type = CLIENT_MESSAGE
    ev.xclient.window = w
    ev.xclient.message_type = X.XInternAtom(d, b"WM_PROTOCOLS", 0)
    ev.xclient.format = 32
    ev.xclient.data[0] = X.XInternAtom(d, b"WM_DELETE_WINDOW", 0)
    X.XSendEvent(d, w, 0, 0, ctypes.byref(ev))
    X.XFlush(d)
    return 0


sys.exit(main())
