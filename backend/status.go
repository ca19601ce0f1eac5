package backend

import (
	"path"

	"hermes-desktop/backend/corebin"
	"hermes-desktop/backend/model"
)

// Status returns the instance's current status; while Prepare is finding
// the core, once it has (the list of backends is fixed then).
func (l *Launcher) Status() model.Status {
	l.prep.await()
	st := model.Status{Instance: model.InstanceInfo{
		PID: l.self.PID, StateDir: l.cfg.StateDir, Nonce: l.nonce, UI: l.cfg.UI,
		Version: l.cfg.Version, Started: l.started, Shim: !l.cfg.NoShim,
		Update: l.upd.Status(),
	}}
	_, st.Instance.UpdateInstalled = l.upd.NewExecutable()
	st.Notices = l.notices.all()
	boot, last := l.reaps.reports()
	st.BootReap = boot
	if last != boot {
		st.LastReap = last
	}
	st.Backends = make([]model.BackendStatus, 0, 4)
	for _, s := range l.sups.All() {
		b := s.Status()
		// The built-in backend's path (a hashed file in the state dir) means
		// nothing to a person: the page names it instead.
		b.Builtin = len(b.Command) > 0 && (b.Command[0] == l.cfg.Core || b.Host != "" && corebin.IsCoreFile(path.Base(b.Command[0])))
		st.Backends = append(st.Backends, b)
	}
	return st
}
