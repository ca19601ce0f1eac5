package main

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"hermes-desktop/backend/diagnose"
	"hermes-desktop/backend/update"
)

// The diagnostic report from the window and the tray ("Save a diagnostic
// report..."): the same archive as `hermes-desktop diagnose`, saved where a
// person finds downloads, with the app's own status.

// SaveDiagnosticReport saves the report and returns its path.
func (a *App) SaveDiagnosticReport() (string, error) {
	now := time.Now()
	path := filepath.Join(reportDir(a.stateDir), diagnose.FileName(now))
	st := a.l.Status()
	_, err := diagnose.Save(path, diagnose.Input{StateDir: a.stateDir, Status: &st, Version: st.Instance.Version, Flavour: update.Flavour, Now: now})
	if err != nil {
		return "", err
	}
	a.lastReport.Store(&path)
	return path, nil
}

// OpenReportFolder opens the folder of the report saved last, in the file
// manager.
func (a *App) OpenReportFolder() error {
	p := a.lastReport.Load()
	if p == nil {
		return errors.New("no diagnostic report was saved yet")
	}
	return a.l.Pages().OpenExternal(filepath.Dir(*p))
}

// reportDir is the Downloads folder when there is one, else the home
// folder, else the state dir.
func reportDir(stateDir string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return stateDir
	}
	if fi, err := os.Stat(filepath.Join(home, "Downloads")); err == nil && fi.IsDir() {
		return filepath.Join(home, "Downloads")
	}
	return home
}

// SaveReport is the tray's "Save a diagnostic report...": it says where
// the report went (or why it could not be saved) in a desktop
// notification and the launcher log; where there are no notifications
// (Windows, macOS) it opens the report's folder instead. It runs in the
// background, not to hold the menu.
func (m menuActions) SaveReport() {
	a := m.a
	a.win.background.Go(func() {
		path, err := a.SaveDiagnosticReport()
		if err != nil {
			a.l.Logger().Error("diagnostic report", "err", err)
			a.win.tell("Hermes Desktop: no diagnostic report", err.Error())
			return
		}
		a.l.Logger().Info("diagnostic report saved", "path", path)
		if !a.win.tell("Diagnostic report saved", path+"\nSecrets are redacted; look it over before you send it.") {
			_ = a.OpenReportFolder()
		}
	})
}
