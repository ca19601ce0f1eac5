// Command tsgen writes the TypeScript types the page shares with the Go
// engine, frontend/src/generated/models.ts, from the Go structs themselves:
//
//	go run ./cmd/tsgen -out frontend/src/generated/models.ts
//
// `make gen` runs it; `make gen-check` fails when the committed file is
// stale. The page used to keep a hand copy of these types, and it drifted
// (it mapped a reap reason "self" that Go never sends).
//
// Structs are read with reflect: an interface per struct, one field per
// JSON name, "?" where omitempty or omitzero can drop the field, "| null"
// where Go would send a nil pointer, slice or map as null. reflect cannot
// see constants, so each string "enum" is listed below by its Go constants:
// a renamed or removed constant breaks this file's build, and a test parses
// the declaring package to catch a constant added there but not here.
//
// It also writes the settings the page edits, from settings.Options
// (options.go), and the interface of the methods Wails binds, read from the
// root package's source (methods.go).
//
// Every type the page sees must be importable, so none may live in package
// main: the settings form's SettingsView moved to package backend for that.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"

	"hermes-desktop/backend/leakguard"
	status "hermes-desktop/backend/model"
	"hermes-desktop/backend/reapreport"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
)

// models lists every Go struct the page sees, in output order: its
// TypeScript name and its Go type. When a type moves to another package,
// re-point its line here; a struct reachable from these but not listed is an
// error, so the list cannot fall short.
var models = []model{
	modelOf[status.InstanceInfo]("InstanceInfo"),
	modelOf[update.Info]("UpdateInfo"),
	modelOf[update.Check]("UpdateCheck"),
	modelOf[update.Download]("UpdateDownload"),
	modelOf[status.Status]("Status"),
	modelOf[status.BackendStatus]("BackendStatus"),
	modelOf[status.RemoteStatus]("RemoteStatus"),
	modelOf[leakguard.TreeSample]("TreeSample"),
	modelOf[leakguard.TreeProc]("TreeProc"),
	modelOf[leakguard.DuplicateGroup]("DuplicateGroup"),
	modelOf[leakguard.TreeWarning]("TreeWarning"),
	modelOf[reapreport.Report]("ReapReport"),
	modelOf[reapreport.Decision]("ReapDecision"), // "reap decision" in a flat TypeScript namespace
	modelOf[reapreport.CgroupDecision]("ReapCgroupDecision"),
	modelOf[reapreport.CgroupMember]("ReapCgroupMember"),
	modelOf[reapreport.RemoteDecision]("ReapRemoteDecision"),
	modelOf[logs.Line]("LogLine"),
	modelOf[settings.Settings]("Settings"),
	modelOf[settings.Backend]("BackendSetting"),
	modelOf[settings.View]("SettingsView"),
	modelOf[settings.Edit]("SettingsEdit"),
	modelOf[status.Event]("LauncherEvent"), // not "Event": the DOM has one
}

// enums lists the Go string constant sets the page switches on, in output
// order, each as a union of string literals. A set of a named Go type types
// every field of that type; a set of untyped constants types the fields it
// is pinned to with on(model, Go field name), which must be plain strings.
var enums = []enum{
	enumOf("BackendState", status.StateStopped, status.StateStarting, status.StateReady,
		status.StateRestarting, status.StateFailed, status.StateExternal),
	enumOf("BackendKind", settings.KindDashboard, settings.KindServe, settings.KindCustom),
	enumOf("Containment", status.ContainmentCgroup, status.ContainmentSystemdScope, status.ContainmentJob,
		status.ContainmentProcessTree),
	enumOf("ReapAction", reapreport.ActionReaped, reapreport.ActionSpared, reapreport.ActionWouldReap,
		reapreport.ActionFailed, reapreport.ActionCleaned),
	enumOf("ReapReason", reapreport.ReasonOwned, reapreport.ReasonOwnerDead, reapreport.ReasonOrphanNoRecord,
		reapreport.ReasonTooYoung, reapreport.ReasonNotOrphan, reapreport.ReasonSSHLock, reapreport.ReasonSSHTokenFile, reapreport.ReasonGatewayPIDFile,
		reapreport.ReasonServiceManaged, reapreport.ReasonExcludedEnv, reapreport.ReasonOtherUser,
		reapreport.ReasonAncestor, reapreport.ReasonFixedPort, reapreport.ReasonNotLoopback,
		reapreport.ReasonIdentityMismatch, reapreport.ReasonFailClosed).on("ReapDecision", "Reason").on("ReapCgroupDecision", "Reason"),
	enumOf("TreeWarningKind", leakguard.WarnFDPressure, leakguard.WarnDuplicates,
		leakguard.WarnRSSGrowth).on("TreeWarning", "Kind"),
	enumOf("EventKind", status.EventStatus, status.EventLog, status.EventReap),
	enumOf("UpdateState", update.StateOff, update.StateIdle, update.StateChecking, update.StateAvailable,
		update.StateDownloading, update.StateReady, update.StateApplying, update.StateFailed),
}

func main() {
	out := flag.String("out", "", "write the TypeScript here (default: standard output)")
	app := flag.String("app", ".", "the directory of the root package, whose App's methods Wails binds")
	flag.Parse()
	src, err := render(models, enums, writeOptions, methodsOf(*app))
	if err == nil {
		err = writeFile(*out, src)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// writeFile writes src to path, mode 0644, through an atomic write
// (lockfile.WriteAtomic), so a failed run never leaves half a file for the
// build to pick up. An empty path means standard output.
func writeFile(path string, src []byte) error {
	if path == "" {
		_, err := os.Stdout.Write(src)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("tsgen: %w", err)
	}
	err := lockfile.WriteAtomic(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(src)
		return err
	})
	if err != nil {
		return fmt.Errorf("tsgen: write %s: %w", path, err)
	}
	return nil
}

// model is one Go struct and its TypeScript name.
type model struct {
	name string
	typ  reflect.Type
}

func modelOf[T any](name string) model { return model{name: name, typ: reflect.TypeFor[T]()} }

// enum is a set of Go string constants and the union it becomes.
type enum struct {
	name   string
	goType reflect.Type // the constants' type; plain string for untyped constants
	values []string
	pins   []pin
}

// pin says that a plain string field holds an untyped constant set.
type pin struct {
	model string // a models name
	field string // the Go field name
}

// enumOf records the constants vs as the union name. S is their Go type, so
// a set of named type is told from untyped constants even when it is empty.
func enumOf[S ~string](name string, vs ...S) enum {
	e := enum{name: name, goType: reflect.TypeFor[S]()}
	for _, v := range vs {
		e.values = append(e.values, string(v))
	}
	return e
}

// on pins the set to a plain string field of a model: Go declares the field
// as string but only ever assigns it constants of this set.
func (e enum) on(modelName, goField string) enum {
	e.pins = append(e.pins, pin{model: modelName, field: goField})
	return e
}
