//go:build desktop

// Command floor is the cheapest window Wails v2 can show: one static page,
// no script, no bindings, no tray. bench/idle/run.sh measures what it costs
// at rest next to hermes-desktop's window, so the app's figures read as a
// multiple of what any WebKitGTK window costs on the same machine.
//
// Build (the bench does this itself):
//
//	CGO_ENABLED=1 go build -tags desktop,production -o floor ./bench/idle/floor
package main

import (
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

//go:embed all:page
var page embed.FS

// The window's options mirror runWindow in gui_desktop.go where they change
// what WebKit does (size, background, GPU policy), so that the two differ
// only in the page they show and the app behind it.
func main() {
	err := wails.Run(&options.App{
		Title:            "Floor",
		Width:            1100,
		Height:           760,
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: page},
		Linux: &linux.Options{
			ProgramName:      "floor",
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
