package backend

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/errkind"
)

// Adding and removing a backend, saved: the window's Add and Remove and
// `hermes-desktop backends add|remove` go through these, with the same
// validation and words; with no app running, the CLI edits config.json
// through the same store (AddToSaved, RemoveFromSaved).

// Saved is the settings a person saved, as the running launcher takes
// them: the store, the backend list's Add and Remove (each saved as the
// edit it is), and what applies at once of a save.
type Saved struct{ l *Launcher }

// Saved is the launcher's saved settings.
func (l *Launcher) Saved() Saved { return Saved{l} }

// Store is the settings store of this instance's state dir: one store,
// so that the window, the control socket and the launcher never interleave
// their writes of config.json.
func (s Saved) Store() *settings.Store { return s.l.saved }

// Applied applies at once what a running launcher can of settings
// just saved: the update feed and automatic updates, and the ssh config
// file, which connections made from now on read (a backend added next, or
// one whose host was never reached, finds an alias it defines).
func (s Saved) Applied(st settings.Settings) {
	s.l.upd.SettingsSaved(st)
	s.l.remotes.SetSSHConfig(st.SSHConfig)
}

// AddBackend adds a backend, starts it (unless disabled) and saves
// the addition (AddToSaved): the settings store's one writer adds it to
// the list as saved now, never a copy of the running list. What it leaves empty of its ready pattern, health path and
// grace is the shared settings' as saved now: a Settings change applies to
// a backend added after it without a relaunch.
func (s Saved) AddBackend(b settings.Backend) error {
	l := s.l
	shared, _ := l.saved.Load() // a file that cannot be used means the defaults; the Settings page says so
	spec, err := runspec.FromSetting(b, shared)
	if err != nil {
		return fmt.Errorf("%w: %w", errkind.ErrBadRequest, err)
	}
	if err := l.AddBackend(spec); err != nil {
		return err
	}
	return savedForNextStart(AddToSaved(l.saved, b))
}

// RemoveBackend stops a backend (its whole tree), forgets it and
// saves the removal (RemoveFromSaved). A backend the saved list never had
// (given by a flag) leaves it as it is.
func (s Saved) RemoveBackend(ctx context.Context, name string) error {
	l := s.l
	if err := l.RemoveBackend(ctx, name); err != nil {
		return err
	}
	err := RemoveFromSaved(l.saved, name)
	if errors.Is(err, errkind.ErrNoSuchBackend) {
		return nil // never saved: nothing to take out
	}
	return savedForNextStart(err)
}

// savedForNextStart says that a change applied to the running backends
// could not be saved.
func savedForNextStart(err error) error {
	if err != nil {
		return fmt.Errorf("the change applies now, but could not be saved for the next start: %w", err)
	}
	return nil
}

// SavedBackends is the list a launcher would run from s, as settings: the
// saved list, or the one backend an empty list stands for (which an edit
// must keep, as the window's does: it is running).
func SavedBackends(s settings.Settings) ([]settings.Backend, error) {
	var c Config
	if err := c.ApplySettings(s); err != nil {
		return nil, err
	}
	return settingsOf(c.Backends), nil
}

// AddToSaved adds a backend to the saved list, for the next start: what
// `backends add` does with no app running, and the save of the window's
// Add.
func AddToSaved(store *settings.Store, b settings.Backend) error {
	_, err := store.EditBackends(func(saved settings.Settings) ([]settings.Backend, error) {
		if _, err := runspec.FromSetting(b, saved); err != nil {
			return nil, fmt.Errorf("%w: %w", errkind.ErrBadRequest, err)
		}
		list, err := SavedBackends(saved)
		if err != nil {
			return nil, err
		}
		for _, x := range list {
			if settings.SameName(x.Name, b.Name) {
				return nil, fmt.Errorf("%w: backend %q: %w", errkind.ErrBadRequest, b.Name, settings.ErrNameTaken)
			}
		}
		return append(list, b), nil
	})
	return err
}

// RemoveFromSaved removes a backend from the saved list, as the window's
// Remove does (an empty list stands for the default backend at the next
// start: the CLI says so).
func RemoveFromSaved(store *settings.Store, name string) error {
	_, err := store.EditBackends(func(saved settings.Settings) ([]settings.Backend, error) {
		list, err := SavedBackends(saved)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(list, func(b settings.Backend) bool { return b.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("%w %q", errkind.ErrNoSuchBackend, name)
		}
		return slices.Delete(list, i, i+1), nil
	})
	return err
}
