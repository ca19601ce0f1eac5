//go:build desktop

package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"hermes-desktop/backend"
	"hermes-desktop/internal/cli"
	"hermes-desktop/internal/desktop"
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

// runGUI runs the same engine as the headless run behind a Wails window and
// a tray. The single-instance lock and the control socket are ours, taken in
// backend.Open before wails.Run (Wails' own lock runs OnStartup before it
// checks). However the window ends, the launcher is shut down after it.
func runGUI(cfg backend.Config, stdout, stderr io.Writer) int {
	l, err := backend.Open(cfg)
	if err != nil {
		if errors.Is(err, backend.ErrAlreadyRunning) {
			return cli.SecondInstance(cfg.StateDir, stdout, stderr)
		}
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return cli.ExitError
	}
	app := newApp(l, cfg.Self)
	app.trayAvailable = desktop.TrayAvailable
	app.notify = desktop.Notify
	l.Start()
	// A stop over the control socket (or from a second process) closes the
	// window like Quit does. This goroutine ends with the launcher: one of
	// the two channels closes before Shutdown returns.
	go func() {
		select {
		case <-l.StopRequested():
		case <-l.HandedOff(): // a successor owns the backends: close the window, tear nothing down
		}
		_ = app.Quit()
	}()
	tray := desktop.StartTray(menuActions{app}, desktop.Icons{PNG: trayIconPNG, ICO: trayIconICO})
	app.setOnStatus(tray.SetStatus)
	if err := runWindow(app); err != nil {
		fmt.Fprintf(stderr, "hermes-desktop: the window could not run (%v); running headless until stopped\n", err)
		waitForStop(l)
	}
	tray.Stop()
	app.endBackground()
	select {
	case <-l.HandedOff():
		// After an update, this process watches the new version's health
		// window (and rolls back if it fails) before it exits.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		defer stop()
		l.Updates().WatchUpdate(ctx)
		return cli.ExitOK
	default:
	}
	if err := l.Shutdown(); err != nil {
		fmt.Fprintln(stderr, "hermes-desktop: shutdown:", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// runWindow runs the Wails main loop until the window quits. GTK that
// cannot start (no usable display) panics inside Wails; that becomes an
// error here so the launcher still tears down properly.
func runWindow(app *App) (err error) {
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
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup:        func(ctx context.Context) { onStartup(ctx, app) },
		OnDomReady:       func(context.Context) { restoreEnv() },
		OnBeforeClose:    func(context.Context) bool { return app.beforeClose() },
		OnShutdown:       func(context.Context) { app.detach() },
		Bind:             []interface{}{app},
		Menu:             desktop.AppMenu(menuActions{app}),
		Linux: &linux.Options{
			ProgramName: "hermes-desktop",
			Icon:        windowIcon,
			// Never is the only policy that renders on every machine we
			// tried, GPU or not; the UI does not need acceleration.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}

// onStartup wires the window to the App and takes SIGTERM and SIGINT back
// from Wails: its handler routes them through OnBeforeClose, where hiding
// to the tray would swallow them. Ours always quits, with full teardown.
func onStartup(ctx context.Context, app *App) {
	app.attach(&wailsUI{ctx: ctx})
	signal.Reset(syscall.SIGTERM, syscall.SIGINT)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// Owned by the App's background group: it ends at the first signal
	// (one is enough: Quit is idempotent and the loop ends) or when the
	// window is gone (endBackground).
	app.background.Add(1)
	go func() {
		defer app.background.Done()
		defer signal.Stop(sigs)
		select {
		case <-sigs:
			_ = app.Quit()
		case <-app.backgroundCtx.Done():
		}
	}()
}

// waitForStop keeps a launcher whose window failed alive until a signal or
// a stop request, as the headless run does.
func waitForStop(l *backend.Launcher) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	select {
	case <-ctx.Done():
	case <-l.StopRequested():
	case <-l.HandedOff():
	}
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
