#!/usr/bin/env python3
"""wm-close.py TITLE: ask the top-level window named TITLE to close, exactly
as a window manager does when the user clicks its close button (a
WM_PROTOCOLS/WM_DELETE_WINDOW client message). The GUI smoke test runs under
Xvfb with no window manager, so it plays that part itself. Exit 1 if no
viewable window has that name."""
import ctypes
import ctypes.util
import sys

X = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
Window = ctypes.c_ulong
X.XOpenDisplay.restype = ctypes.c_void_p
X.XOpenDisplay.argtypes = [ctypes.c_char_p]
X.XDefaultRootWindow.restype = Window
X.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
X.XInternAtom.restype = ctypes.c_ulong
X.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
X.XFetchName.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(ctypes.c_char_p)]
X.XQueryTree.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(Window), ctypes.POINTER(Window),
                         ctypes.POINTER(ctypes.POINTER(Window)), ctypes.POINTER(ctypes.c_uint)]
X.XSendEvent.argtypes = [ctypes.c_void_p, Window, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
X.XFlush.argtypes = [ctypes.c_void_p]
X.XFree.argtypes = [ctypes.c_void_p]


class XWindowAttributes(ctypes.Structure):
    # Only map_state is read; the rest is padding in Xlib's layout.
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("border_width", ctypes.c_int), ("depth", ctypes.c_int), ("visual", ctypes.c_void_p),
                ("root", Window), ("class_", ctypes.c_int), ("bit_gravity", ctypes.c_int),
                ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int), ("backing_planes", ctypes.c_ulong),
                ("backing_pixel", ctypes.c_ulong), ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong),
                ("map_installed", ctypes.c_int), ("map_state", ctypes.c_int), ("all_event_masks", ctypes.c_long),
                ("your_event_mask", ctypes.c_long), ("do_not_propagate_mask", ctypes.c_long),
                ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p)]


class XClientMessageEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", Window), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class XEvent(ctypes.Union):
    _fields_ = [("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


X.XGetWindowAttributes.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(XWindowAttributes)]
IS_VIEWABLE, CLIENT_MESSAGE = 2, 33


def find(d, w, title):
    name = ctypes.c_char_p()
    if X.XFetchName(d, w, ctypes.byref(name)) and name.value is not None:
        match = name.value.decode(errors="replace") == title
        attrs = XWindowAttributes()
        # GTK's client-leader window has the same name but is never mapped.
        if match and X.XGetWindowAttributes(d, w, ctypes.byref(attrs)) and attrs.map_state == IS_VIEWABLE:
            return w
    root, parent = Window(), Window()
    kids, n = ctypes.POINTER(Window)(), ctypes.c_uint()
    if not X.XQueryTree(d, w, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(kids), ctypes.byref(n)):
        return 0
    found = 0
    for i in range(n.value):
        found = find(d, kids[i], title)
        if found:
            break
    if kids:
        X.XFree(kids)
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = X.XOpenDisplay(None)
    if not d:
        print("wm-close: cannot open the display", file=sys.stderr)
        return 2
    w = find(d, X.XDefaultRootWindow(d), sys.argv[1])
    if not w:
        print("wm-close: no viewable window named %r" % sys.argv[1], file=sys.stderr)
        return 1
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
