package diagnose

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
)

// Caps: a log keeps its last MaxFileBytes; past MaxTotalBytes the rest of
// the logs are listed in the report's index but left out.
const (
	MaxFileBytes  = 4 << 20
	MaxTotalBytes = 32 << 20
)

// Input is what a report is made of besides the state dir's files.
type Input struct {
	StateDir string
	// Status is the running app's (nil: none answered; StatusErr says why).
	Status    *model.Status
	StatusErr string
	// Version is this program's version; Flavour its WebKitGTK build.
	Version, Flavour string
	// Now stamps the report.
	Now time.Time
}

// Summary says what a report holds.
type Summary struct {
	Files   []string // the archive's entries
	Skipped []string // left out, and why
	Bytes   int64    // uncompressed, in all
}

// Write writes the report to w as a zip.
func Write(w io.Writer, in Input) (Summary, error) {
	red := NewRedactor()
	red.AddEnv(OwnEnv())
	red.AddEnv(processEnvs(in.Status)) // the app's and its backends', where the OS lets us read them
	z := zip.NewWriter(w)
	rep := &report{z: z, red: red, now: in.Now}
	rep.addJSON("status.json", statusOrWhy(in))
	rep.addText("facts.txt", facts(in))
	rep.addConfig(in.StateDir)
	for _, name := range []string{update.ProbationFile, update.BadFile, update.SkipFile, update.RollbackFile} {
		rep.addFile("updates/"+name, filepath.Join(in.StateDir, "updates", name))
	}
	for _, path := range logFiles(in.StateDir) {
		rel, _ := filepath.Rel(in.StateDir, path)
		rep.addFile(filepath.ToSlash(rel), path)
	}
	rep.addText("README.txt", rep.index())
	if err := z.Close(); err != nil {
		return rep.sum, fmt.Errorf("diagnose: %w", err)
	}
	return rep.sum, rep.err
}

// report is one archive being written.
type report struct {
	z   *zip.Writer
	red *Redactor
	now time.Time
	sum Summary
	err error // the first write error
}

func (r *report) add(name string, data []byte) {
	if r.err != nil {
		return
	}
	f, err := r.z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: r.now})
	if err == nil {
		_, err = f.Write(data)
	}
	if err != nil {
		r.err = fmt.Errorf("diagnose: write %s: %w", name, err)
		return
	}
	r.sum.Files = append(r.sum.Files, name)
	r.sum.Bytes += int64(len(data))
}

func (r *report) addText(name, text string) { r.add(name, []byte(r.red.String(text))) }

// addJSON adds v as indented JSON, redacted while it is one line: an
// argument vector's "--token", "VALUE" would be two lines once indented,
// the value on a line that says nothing of a secret.
func (r *report) addJSON(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		r.skip(name, err.Error())
		return
	}
	redacted := []byte(r.red.String(string(data)))
	var tree any
	if json.Unmarshal(redacted, &tree) == nil {
		if indented, err := json.MarshalIndent(tree, "", "  "); err == nil {
			redacted = indented
		}
	} // else a redaction cut through an escape: kept on one line, still redacted
	r.add(name, append(redacted, '\n'))
}

func (r *report) skip(name, why string) { r.sum.Skipped = append(r.sum.Skipped, name+": "+why) }

// addFile adds a regular file of the state dir (never through a symlink),
// its last MaxFileBytes, redacted; a file that is not there is not
// mentioned.
func (r *report) addFile(name, path string) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil || !fi.Mode().IsRegular() {
		r.skip(name, "not a regular file")
		return
	}
	if r.sum.Bytes >= MaxTotalBytes {
		r.skip(name, fmt.Sprintf("the report is at its cap of %d MiB", MaxTotalBytes>>20))
		return
	}
	data, cut, err := readTail(path, min(MaxFileBytes, MaxTotalBytes-r.sum.Bytes))
	if err != nil {
		r.skip(name, err.Error())
		return
	}
	text := string(data)
	if cut > 0 {
		text = fmt.Sprintf("[the first %d bytes are left out]\n", cut) + text
	}
	r.addText(name, text)
}

// addConfig adds config.json as the app reads it: redacted like the rest
// (a custom command line may carry a key).
func (r *report) addConfig(stateDir string) {
	r.addFile(settings.File, settings.Path(stateDir))
}

func (r *report) index() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Hermes Desktop diagnostic report, %s\n\n", r.now.UTC().Format(time.RFC3339))
	b.WriteString("Secrets (session tokens, keys, Authorization and X-Hermes-Session-Token values)\n" +
		"are replaced by " + Redacted + ". Check the files before you send them.\n\nFiles:\n")
	for _, f := range r.sum.Files {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	if len(r.sum.Skipped) > 0 {
		b.WriteString("\nLeft out:\n")
		for _, s := range r.sum.Skipped {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	return b.String()
}

// readTail reads the last max bytes of path, O_NOFOLLOW where the OS has it.
func readTail(path string, max int64) ([]byte, int64, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	cut := max64(0, fi.Size()-max)
	if _, err := f.Seek(cut, io.SeekStart); err != nil {
		return nil, 0, err
	}
	data, err := io.ReadAll(io.LimitReader(f, max))
	return data, cut, err
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// logFiles are the launcher's log and every backend's, rotated ones too,
// newest first within each.
func logFiles(stateDir string) []string {
	var out []string
	if m, _ := filepath.Glob(logs.LauncherPath(stateDir) + "*"); m != nil {
		out = append(out, m...)
	}
	if m, _ := filepath.Glob(filepath.Join(stateDir, "logs", "*.log*")); m != nil {
		out = append(out, m...)
	}
	slices.Sort(out)
	return out
}

// statusOrWhy is the status, or why there is none.
func statusOrWhy(in Input) any {
	if in.Status != nil {
		return in.Status
	}
	return map[string]string{"running": "no", "why": in.StatusErr}
}

// facts are the versions and the containment, one per line.
func facts(in Input) string {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%-20s %s\n", k+":", v) }
	line("hermes-desktop", in.Version)
	if in.Flavour != "" {
		line("flavour", update.FlavourName(in.Flavour))
	}
	line("go", runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
	line("wails", moduleVersion("github.com/wailsapp/wails/v2"))
	for _, f := range platformFacts() {
		line(f[0], f[1])
	}
	if st := in.Status; st != nil {
		line("app pid", fmt.Sprint(st.Instance.PID))
		line("app ui", st.Instance.UI)
		for _, f := range processFacts(st.Instance.PID) {
			line(f[0], f[1])
		}
		for _, bk := range st.Backends {
			where := "this computer"
			if bk.Host != "" {
				where = bk.Host
				if bk.Remote != nil {
					where += " (" + bk.Remote.Connection + ")"
				}
			}
			line("backend "+bk.Name, fmt.Sprintf("%s, %s on %s; containment %s %s %s", bk.Kind, bk.State, where,
				cmpOr(string(bk.Containment), "-"), bk.Cgroup, bk.ContainmentReason))
		}
	}
	return b.String()
}

func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// moduleVersion is the version of a module built into this program.
func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range info.Deps {
		if m.Path == path {
			return m.Version
		}
	}
	return "not in this build"
}

// FileName is a report's default name, by its time.
func FileName(now time.Time) string {
	return "hermes-desktop-report-" + now.UTC().Format("20060102-150405") + ".zip"
}

// Save writes the report to path (0600; the file appears whole or not at
// all: lockfile.WriteAtomic).
func Save(path string, in Input) (Summary, error) {
	var sum Summary
	err := lockfile.WriteAtomic(path, 0o600, func(w io.Writer) error {
		var err error
		sum, err = Write(w, in)
		return err
	})
	if err != nil {
		return sum, fmt.Errorf("diagnose: save %s: %w", path, err)
	}
	return sum, nil
}
