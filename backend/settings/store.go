package settings

import (
	"errors"
	"fmt"
	"sync"
)

// The settings a person made have one owner: the Store of the running app,
// the only writer of its config.json. Two parts of the window change the
// file: the Settings page (the general options) and the Backends page (the
// backend list, Add backend and Remove). Each change is a read-modify-write
// of the file as it is now, under one lock, and each names what it changes:
// a Settings save of a page opened before a backend was added can neither
// drop that backend nor bring back one removed since (issue 23, item 1).

// Edit is what the Settings page saves: the fields a person changed, named
// by their JSON keys ("grace", "update_feed"), with their new values in
// Settings. A field not named keeps the value saved now, whatever Settings
// holds for it; the zero Edit changes nothing. The backend list cannot be
// named: the Backends page is its one writer (Store.EditBackends).
type Edit struct {
	Settings Settings `json:"settings"`
	Fields   []string `json:"fields"`
}

// ErrNotEditable means an Edit named a field the Settings page does not
// own, or that does not exist.
var ErrNotEditable = errors.New("settings: not a field the Settings page edits")

// ErrBackendCommandUnused means an Edit set the backend command while a
// backend list is saved: each backend on the list has its own command and
// the field would be saved and never used.
var ErrBackendCommandUnused = errors.New("backend command: not used while backends are listed; each backend on the Backends page has its own command")

// Apply lays the edit over cur, field by field, and returns the result; cur
// is not changed. It refuses a field it does not know (or the backend
// list), and a backend command that a saved backend list would ignore
// (clearing one is fine).
func (e Edit) Apply(cur Settings) (Settings, error) {
	out := cur
	for _, f := range e.Fields {
		o, ok := optionByKey(f)
		if !ok || !o.Editable {
			return Settings{}, fmt.Errorf("%w: %q", ErrNotEditable, f)
		}
		o.copyField(&out, e.Settings)
	}
	if out.BackendCommand != cur.BackendCommand && out.BackendCommand != "" && len(cur.Backends) > 0 {
		return Settings{}, ErrBackendCommandUnused
	}
	return out, nil
}

// Store owns a state dir's config.json while the app runs. Its methods are
// safe for concurrent use (the window calls them from any goroutine).
type Store struct {
	dir string
	mu  sync.Mutex // held across each read-modify-write of the file
}

// NewStore returns the store of stateDir's settings.
func NewStore(stateDir string) *Store { return &Store{dir: stateDir} }

// Load reads the saved settings (see the package's Load); the notice says
// when the file could not be used.
func (st *Store) Load() (Settings, string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return Load(st.dir)
}

// Edit applies the Settings page's edit to the settings saved now and
// saves the result, which it returns. Nothing it does not name changes:
// the backend list stays as the file has it.
func (st *Store) Edit(e Edit) (Settings, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	cur, _ := Load(st.dir)
	s, err := e.Apply(cur)
	if err != nil {
		return Settings{}, err
	}
	if err := Save(st.dir, s); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// EditBackends saves the backend list edit makes of the settings saved
// now (read and written under the store's lock), keeping every other
// setting: an add or a remove is made to the list as the file has it, never
// a copy of the whole taken earlier. An error from edit, or a list that does
// not validate, saves nothing. A saved list replaces the backend command of
// earlier versions, which is cleared.
func (st *Store) EditBackends(edit func(saved Settings) ([]Backend, error)) (Settings, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s, _ := Load(st.dir)
	list, err := edit(s)
	if err != nil {
		return Settings{}, err
	}
	s.Backends, s.BackendCommand = list, ""
	if err := Save(st.dir, s); err != nil {
		return Settings{}, err
	}
	return s, nil
}
