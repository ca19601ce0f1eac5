//go:build desktop

package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"hermes-desktop/app/desktop"
	"hermes-desktop/app/lifecycle"
	"hermes-desktop/backend"
)

//go:embed all:frontend/dist
var assets embed.FS

// windowIcon is the window's icon on Linux (_NET_WM_ICON): 256 px, as
// GDK drops an icon as big as build/appicon.png (1024 px) without a word,
// which left the window with none.
//
//go:embed build/windowicon.png
var windowIcon []byte

// The tray's icons, per platform (see desktop.Icons).
var (
	//go:embed build/trayicon.png
	trayIconPNG []byte
	//go:embed build/windows/icon.ico
	trayIconICO []byte
)

// guiAvailable says whether a window can be shown here. On Linux that needs
// an X11 or Wayland display; macOS and Windows always have a desktop.
func guiAvailable() (bool, string) {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return false, "no display (DISPLAY and WAYLAND_DISPLAY are unset)"
	}
	return true, ""
}

// desktopWindow is the window and the tray the launcher runs behind
// (lifecycle.Window). The single-instance lock and the control socket are
// the lifecycle's, taken in backend.Open before wails.Run (Wails' own lock
// runs OnStartup before it checks).
type desktopWindow struct {
	app  *App
	tray *desktop.Tray
}

// newWindow makes the App for an opened launcher and starts the tray; the
// window itself opens in Run.
func newWindow(l *backend.Launcher, self string) lifecycle.Window {
	app := newApp(l, self)
	app.win.trayAvailable = desktop.TrayAvailable
	app.win.notify = desktop.Notify
	w := &desktopWindow{app: app}
	w.tray = desktop.StartTray(menuActions{app}, desktop.Icons{PNG: trayIconPNG, ICO: trayIconICO})
	app.win.setOnStatus(w.tray.SetStatus)
	return w
}

// Run runs the Wails main loop until the window quits.
func (w *desktopWindow) Run(sig *lifecycle.Signals) error { return runWindow(w.app, sig) }

// Close quits the window: the run stops from elsewhere (a signal, a stop
// request, a committed handoff). Unlike the tray's Quit it cancels nothing
// the page asked for: a handoff that committed finishes its answer.
func (w *desktopWindow) Close() { w.app.win.quit() }

// End stops the tray and the restarts still running in the background.
func (w *desktopWindow) End() {
	w.tray.Stop()
	w.app.win.end()
}

// runWindow runs the Wails main loop until the window quits. GTK that
// cannot start (no usable display) panics inside Wails; that becomes an
// error here so the launcher still tears down properly.
func runWindow(app *App, sig *lifecycle.Signals) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	restoreEnv := desktop.QuietWebView()
	defer restoreEnv() // if the page never loads
	return wails.Run(&options.App{
		Title:            "Hermes Desktop",
		Width:            1100,
		Height:           760,
		MinWidth:         800,
		MinHeight:        600,
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets, Middleware: bootPage(distFS(), app.l.Status)},
		OnStartup: func(ctx context.Context) {
			app.win.attach(&wailsUI{ctx: ctx})
			sig.Reclaim()
		},
		OnDomReady:    func(context.Context) { restoreEnv() },
		OnBeforeClose: func(context.Context) bool { return app.win.beforeClose() },
		OnShutdown:    func(context.Context) { app.win.detach() },
		Bind:          []interface{}{app},
		Menu:          desktop.AppMenu(menuActions{app}),
		Linux: &linux.Options{
			ProgramName: "hermes-desktop",
			Icon:        windowIcon,
			// Never is the only policy that renders on every machine we
			// tried, GPU or not; the UI does not need acceleration.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}

// distFS is the built page (frontend/dist) as the asset server sees it.
func distFS() fs.FS {
	sub, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		return assets // never: the embed pattern names the folder
	}
	return sub
}

// wailsUI adapts the Wails runtime to windowUI. Its calls are queued onto
// the UI thread by Wails, so they are safe from any goroutine.
type wailsUI struct{ ctx context.Context }

func (u *wailsUI) Emit(topic string, data any) { wailsruntime.EventsEmit(u.ctx, topic, data) }
func (u *wailsUI) Hide()                       { wailsruntime.WindowHide(u.ctx) }
func (u *wailsUI) Quit()                       { wailsruntime.Quit(u.ctx) }

// Show brings the window back and to the front (Unminimise presents it).
func (u *wailsUI) Show() {
	wailsruntime.WindowShow(u.ctx)
	wailsruntime.WindowUnminimise(u.ctx)
}
