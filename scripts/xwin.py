"""xwin: the Xlib calls (through ctypes, no packages to install) that the
scripts driving the app's window under Xvfb share: scripts/wm-close.py and
bench/window/startprobe.py. Import it after putting this folder on sys.path."""
import ctypes
import ctypes.util

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
X.XTranslateCoordinates.argtypes = [ctypes.c_void_p, Window, Window, ctypes.c_int, ctypes.c_int,
                                    ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(Window)]

IS_VIEWABLE = 2


class XWindowAttributes(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("border_width", ctypes.c_int), ("depth", ctypes.c_int), ("visual", ctypes.c_void_p),
                ("root", Window), ("class_", ctypes.c_int), ("bit_gravity", ctypes.c_int),
                ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int), ("backing_planes", ctypes.c_ulong),
                ("backing_pixel", ctypes.c_ulong), ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong),
                ("map_installed", ctypes.c_int), ("map_state", ctypes.c_int), ("all_event_masks", ctypes.c_long),
                ("your_event_mask", ctypes.c_long), ("do_not_propagate_mask", ctypes.c_long),
                ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p)]


X.XGetWindowAttributes.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(XWindowAttributes)]


def geometry(d, w):
    """w's attributes with x, y relative to the root, read now; None once w
    is gone."""
    attrs = XWindowAttributes()
    if not X.XGetWindowAttributes(d, w, ctypes.byref(attrs)):
        return None
    # x, y are relative to the parent, which need not be the root.
    x, y, child = ctypes.c_int(), ctypes.c_int(), Window()
    X.XTranslateCoordinates(d, w, attrs.root, 0, 0, ctypes.byref(x), ctypes.byref(y), ctypes.byref(child))
    attrs.x, attrs.y = x.value, y.value
    return attrs


def find(d, w, title, min_size=0):
    """The viewable window named title under w, as (window, attributes with
    x, y relative to the root), or None. GTK's client leader has the same
    name but is never mapped; min_size skips GTK's small helper windows."""
    name = ctypes.c_char_p()
    if X.XFetchName(d, w, ctypes.byref(name)) and name.value is not None:
        match = name.value.decode(errors="replace") == title
        X.XFree(name)
        attrs = geometry(d, w) if match else None
        if attrs and attrs.map_state == IS_VIEWABLE and attrs.width >= min_size and attrs.height >= min_size:
            return w, attrs
    root, parent = Window(), Window()
    kids, n = ctypes.POINTER(Window)(), ctypes.c_uint()
    if not X.XQueryTree(d, w, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(kids), ctypes.byref(n)):
        return None
    found = None
    for i in range(n.value):
        found = find(d, kids[i], title, min_size)
        if found:
            break
    if kids:
        X.XFree(kids)
    return found
