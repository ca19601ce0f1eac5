package settings

import (
	"cmp"
	"reflect"
	"time"
)

// PendingRelaunch compares the settings the app started with and the
// settings saved now, and names (by JSON key) those that apply only when the
// app relaunches (a new run of it reads them): the options whose Applies is not AppliesAtOnce (the backend
// list, start at login, the update settings and the ssh config file apply at
// once). backends is true when one of them is given to a backend as it
// starts (AppliesToBackends: its command, the shim's grace period, its
// open-file limit, a remote watchdog's disconnect grace), so the backends
// must restart to take it; the others (AppliesOnRelaunch) are the
// launcher's, and a running backend can be handed to a new launcher as it
// is.
//
// An empty field is its default (defaults): a field saved as its default's
// value, or a duration written another way ("5000ms" for "5s"), is no
// change, and asks for no relaunch.
func PendingRelaunch(started, saved, defaults Settings) (keys []string, backends bool) {
	// The backend command is used only without a backend list.
	commandUsed := len(started.Backends) == 0 || len(saved.Backends) == 0
	keys = []string{} // none is an empty list, for the page
	for _, o := range Options {
		if o.Field == "" || o.Applies == AppliesAtOnce {
			continue
		}
		if o.Field == "BackendCommand" && !commandUsed {
			continue
		}
		if changed(o, o.value(started), o.value(saved), o.value(defaults)) {
			keys = append(keys, o.Key())
			backends = backends || o.Applies == AppliesToBackends
		}
	}
	return keys, backends
}

// changed compares an option's started and saved values, each empty one
// read as its default.
func changed(o Option, a, b, def reflect.Value) bool {
	if a.Kind() == reflect.Pointer { // absent means the default
		if a.IsNil() {
			a = def
		}
		if b.IsNil() {
			b = def
		}
		if a.IsNil() || b.IsNil() {
			return a.IsNil() != b.IsNil()
		}
		a, b = a.Elem(), b.Elem()
	}
	if a.Kind() != reflect.String {
		return !a.Equal(b)
	}
	x, y := cmp.Or(a.String(), def.String()), cmp.Or(b.String(), def.String())
	if o.Type != TypeDuration {
		return x != y
	}
	dx, errx := time.ParseDuration(x)
	dy, erry := time.ParseDuration(y)
	return x != y && (errx != nil || erry != nil || dx != dy)
}
