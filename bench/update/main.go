//go:build linux

// Command update measures the self-update end to end, side by side in one
// run: the artifact (the bare executable beside the unit it travels in:
// the executable, a gzip'd remote core, a license; its tar, and the tar
// compressed with zstd as `release pack` makes it), what packing and
// unpacking it cost; -n updates 1.0.0 -> 1.1.0 through `update apply` (two
// builds of the binary with a fresh key, installed as the portable archive
// lays them out, a loopback feed), each from the CLI's start to its exit 0
// (the new version serves), with the backend's public /api/status probed
// every 2 ms throughout; with -wine, as many of the Windows build under
// Wine (installed as its installer lays it out), alternating, in the same
// table; then the download alone, the update client
// against `curl` (and `curl` + `sha256sum`, which is what the client does)
// for the same file from the same loopback server.
//
// Then, with -deltas, update patches (backend/update/delta) between real
// rebuilds of this tree, each laid out as a unit: the bytes a one-line
// change and a dependency bump download, full against patch (a patch
// rebuilds the new unit tar from the installed one's), and the updates of
// the one-line change through `update apply` from a feed with the patch
// and from one without, side by side (delta_linux.go).
//
// Usage: go run ./bench/update [-n 10] [-size 256] [-deltas=false] [-cores=false] [-wine]
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"aead.dev/minisign"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/delta"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

func main() {
	// check panics so that every deferred cleanup (stop the instance,
	// remove the temp dir) runs before the exit.
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(fatal)
			if !ok {
				panic(r)
			}
			fmt.Fprintln(os.Stderr, "update:", strings.TrimSpace(f.err.Error()))
			os.Exit(1)
		}
	}()
	n := flag.Int("n", 10, "updates to measure (per system)")
	sizeMiB := flag.Int("size", 256, "size of the file for the download comparison, MiB")
	deltas := flag.Bool("deltas", true, "measure update patches between real rebuilds (builds this tree three times)")
	cores := flag.Bool("cores", true, "with -deltas, the releases carry the four remote cores (four more builds each)")
	wine := flag.Bool("wine", false, "also update the Windows build under Wine, alternating with Linux (needs WINEPREFIX, a prefix with its wineserver and services already up: bench/wine/run.sh makes one)")
	flag.Parse()
	if *wine && os.Getenv("WINEPREFIX") == "" {
		check(fmt.Errorf("-wine needs a Wine prefix in WINEPREFIX (bench/wine/run.sh makes one)"))
	}
	dir, err := os.MkdirTemp("", "bench-update-")
	check(err)
	defer os.RemoveAll(dir)
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	check(err)
	systems := []system{linuxSystem}
	if *wine {
		systems = append(systems, wineSystem)
	}
	olds, arts := map[string]string{}, map[string]packed{}
	for _, sys := range systems {
		olds[sys.key] = layUnit(dir, sys, sys.build(dir, "1.0.0", pub), "1.0.0")
		next := layUnit(dir, sys, sys.build(dir, "1.1.0", pub), "1.1.0")
		if sys.wine {
			arts[sys.platform] = pack(next)
		} else {
			arts[sys.platform] = measureArtifact(dir, next)
		}
	}
	feed := newFeed(dir, priv, arts, nil)
	defer feed.close()

	compareSystems(dir, *n, systems, olds, arts, feed)
	compareDownloads(dir, feed, pub.String(), *sizeMiB)
	if *deltas {
		benchDeltas(dir, *n, pub.String(), priv, *cores)
	}
}

// compareSystems runs n updates on each system from its unit in olds
// through `update apply`, alternating, and prints them in one table.
func compareSystems(dir string, n int, systems []system, olds map[string]string, arts map[string]packed, feed *feedServer) {
	fmt.Printf("self-update 1.0.0 -> 1.1.0 through `update apply`: %d updates per system, alternating, /api/status probed every 2 ms\n", n)
	fmt.Printf("machine: %d CPUs, unit artifact %.1f MiB on a loopback feed", numCPU(), float64(len(arts[linuxSystem.platform].data))/(1<<20))
	if wine, ok := arts[wineSystem.platform]; ok {
		fmt.Printf("; %s, its unit artifact %.1f MiB", wineVersion(), float64(len(wine.data))/(1<<20))
	}
	fmt.Printf("\n\n")
	type runs struct {
		total, inst    []time.Duration
		failed, probes int64
		kept           bool
	}
	all := make([]runs, len(systems))
	for k := range all {
		all[k].kept = true
	}
	for i := 0; i < n; i++ {
		for k, sys := range systems {
			r := runUpdate(dir, i, sys, olds[sys.key], feed.url+"/feed/stable.json")
			a := &all[k]
			a.total, a.inst = append(a.total, r.total), append(a.inst, r.instance)
			a.failed, a.probes = a.failed+r.failed, a.probes+r.probes
			a.kept = a.kept && r.kept
		}
	}
	fmt.Printf("%-16s %18s %12s %22s %16s %s\n", "system", "update apply p50", "max", "instance's apply p50", "failed probes", "PID kept")
	for k, sys := range systems {
		a := all[k]
		slices.Sort(a.total)
		slices.Sort(a.inst)
		fmt.Printf("%-16s %18s %12s %22s %16s %v\n", sys.name, ms(a.total[len(a.total)/2]), ms(a.total[len(a.total)-1]),
			ms(a.inst[len(a.inst)/2]), fmt.Sprintf("%d of %d", a.failed, a.probes), a.kept)
	}
	fmt.Println("update apply: the CLI's start to its exit 0, the new version serving (under Wine it includes Wine's start of the CLI);")
	fmt.Println("the instance's apply: check to handoff, as the instance times it (its --json result)")
	fmt.Println()
}

// feedServer serves a signed manifest for 1.1.0 with a unit artifact per
// platform (Linux's with a patch from one earlier unit, when asked) and a
// big file for the download comparison (http.ServeContent: Range
// support); served counts the artifacts' and the patch's bytes sent.
type feedServer struct {
	srv    *http.Server
	url    string
	big    string // path of the comparison file
	served atomic.Int64
}

// feedPatch is a patch as the release tool publishes it: from the unit
// tar whose SHA-256 is from.
type feedPatch struct {
	from string
	data []byte
}

// newFeed offers arts (platform -> unit artifact), with p for this
// platform's (nil: no patch).
func newFeed(dir string, priv minisign.PrivateKey, arts map[string]packed, p *feedPatch) *feedServer {
	f := &feedServer{big: filepath.Join(dir, "big")}
	mux := http.NewServeMux()
	m := update.Manifest{Version: "1.1.0", PubDate: time.Now().UTC().Format(time.RFC3339), Expires: update.FormatExpiry(time.Now().Add(24 * time.Hour)),
		Platforms: map[string]update.Artifact{}}
	files := map[string][]byte{}
	for platform, art := range arts {
		a := update.Artifact{URL: "../dl/" + platform, SHA256: delta.Digest(art.data), Size: int64(len(art.data)),
			UnitSHA256: art.unit.SHA256, UnitSize: art.unit.Size}
		if p != nil && platform == update.Platform() {
			a.Patches = []update.Patch{{From: p.from, URL: "../dl/patch", SHA256: delta.Digest(p.data), Size: int64(len(p.data))}}
			files["patch"] = p.data
		}
		m.Platforms[platform], files[platform] = a, art.data
	}
	manifest, sig, err := update.SignManifest(priv, "stable", &m)
	check(err)
	mux.HandleFunc("/feed/stable.json", func(w http.ResponseWriter, r *http.Request) { w.Write(manifest) })
	mux.HandleFunc("/feed/stable.json.minisig", func(w http.ResponseWriter, r *http.Request) { w.Write(sig) })
	for name, body := range files {
		mux.HandleFunc("/dl/"+name, func(w http.ResponseWriter, r *http.Request) {
			http.ServeContent(&countingWriter{w, &f.served}, r, name, time.Time{}, bytes.NewReader(body))
		})
	}
	mux.HandleFunc("/dl/big", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, f.big) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	f.srv = &http.Server{Handler: mux}
	f.url = "http://" + ln.Addr().String()
	go f.srv.Serve(ln)
	return f
}

func (f *feedServer) close() { f.srv.Close() }

// countingWriter counts the body bytes a handler writes.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	k, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(k))
	return k, err
}

type updateResult struct {
	total, instance time.Duration
	failed, probes  int64
	kept            bool
}

// runUpdate installs 1.0.0's unit as sys's installer does, starts it,
// updates it and waits for the watcher (window 1 s) to finish; then stops
// everything.
func runUpdate(dir string, i int, sys system, old, feedURL string) updateResult {
	inst := filepath.Join(dir, fmt.Sprintf("install-%s-%d", sys.key, i))
	check(os.CopyFS(inst, os.DirFS(old)))
	exe := filepath.Join(inst, sys.exe)
	check(os.Chmod(exe, 0o755))
	check(os.WriteFile(filepath.Join(inst, update.MarkerFile), []byte(sys.marker), 0o644))
	state := filepath.Join(inst, "state")
	tag := testbin.NewTag()
	env := testbin.NewEnv(tag, sys.path(filepath.Join(inst, "home")))
	cmd := sys.command(exe, state, "run", "--headless", "--grace", "2s", "--update-feed", feedURL,
		"--update-health-window", "1s", "--update-check-interval", "0")
	cmd.Env = env
	check(cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	cli := func(args ...string) ([]byte, error) {
		c := sys.command(exe, state, args...)
		c.Env = env
		return c.Output()
	}
	defer func() {
		_, _ = cli("stop")
		sweep(tag)
	}()
	url, pid := readyBackend(cli)
	var res updateResult
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); probe(ctx, url, &res) }()
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	out, err := cli("update", "apply", "--json")
	res.total = time.Since(t0)
	time.Sleep(50 * time.Millisecond)
	stop()
	<-done
	if err != nil {
		check(fmt.Errorf("update apply: %v\n%s", err, out))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var r update.Result
	check(json.Unmarshal([]byte(lines[len(lines)-1]), &r))
	res.instance = time.Duration(r.ElapsedMS * float64(time.Millisecond))
	_, after := readyBackend(cli)
	res.kept = after == pid
	select { // the watcher: the window, then exit
	case <-exited:
	case <-time.After(60 * time.Second):
		check(fmt.Errorf("%s: the old instance did not exit after its window", sys.name))
	}
	return res
}

// readyBackend waits for a ready backend and returns its public status URL and PID.
func readyBackend(cli func(...string) ([]byte, error)) (string, int) {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		out, err := cli("status", "--json")
		var st model.Status
		if err == nil && json.Unmarshal(out, &st) == nil && len(st.Backends) == 1 && st.Backends[0].State == model.StateReady {
			return st.Backends[0].URL + "/api/status", st.Backends[0].PID
		}
	}
	check(fmt.Errorf("no ready backend"))
	return "", 0
}

// probe asks url every 2 ms until ctx ends, counting failures.
func probe(ctx context.Context, url string, res *updateResult) {
	client := &http.Client{Timeout: 500 * time.Millisecond}
	for ctx.Err() == nil {
		resp, err := client.Get(url)
		if err != nil || resp.StatusCode != 200 {
			atomic.AddInt64(&res.failed, 1)
		}
		if resp != nil {
			resp.Body.Close()
		}
		atomic.AddInt64(&res.probes, 1)
		time.Sleep(2 * time.Millisecond)
	}
}

// compareDownloads downloads one big file with the update client and
// with curl, five times each, alternating, into the same directory.
func compareDownloads(dir string, f *feedServer, key string, sizeMiB int) {
	const runs = 5
	size := int64(sizeMiB) << 20
	check(writeRandom(f.big, size))
	sum, err := fileSHA256(f.big)
	check(err)
	url := f.url + "/dl/big"
	rel := &update.Release{Version: "9.9.9", Artifact: update.Artifact{URL: url, SHA256: sum, Size: size}}
	var ours, curl, curlSum []time.Duration
	for i := 0; i < runs; i++ {
		d := filepath.Join(dir, fmt.Sprintf("dl-%d", i))
		c := update.New(update.Config{FeedURL: "http://127.0.0.1/stable.json", Keys: []string{key}, Current: "1.0.0", Dir: d, MaxArtifactSize: size})
		t0 := time.Now()
		_, err := c.Download(context.Background(), rel, nil)
		check(err)
		ours = append(ours, time.Since(t0))
		os.RemoveAll(d)
		out := filepath.Join(dir, "curl.out")
		t0 = time.Now()
		check(exec.Command("curl", "-sSf", "-o", out, url).Run())
		curl = append(curl, time.Since(t0))
		check(exec.Command("sha256sum", out).Run())
		curlSum = append(curlSum, time.Since(t0))
		os.Remove(out)
	}
	fmt.Printf("download of %d MiB from the loopback server, %d runs each, alternating\n\n", sizeMiB, runs)
	fmt.Printf("%-44s %10s %12s\n", "client", "p50", "throughput")
	for _, row := range []struct {
		name string
		ds   []time.Duration
	}{
		{"update client (download + sha256 verify)", ours},
		{"curl -o FILE", curl},
		{"curl -o FILE && sha256sum FILE", curlSum},
	} {
		slices.Sort(row.ds)
		p50 := row.ds[len(row.ds)/2]
		fmt.Printf("%-44s %10s %9.0f MiB/s\n", row.name, ms(p50), float64(sizeMiB)/p50.Seconds())
	}
	os.Remove(f.big)
}

func writeRandom(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for n := int64(0); n < size; n += int64(len(buf)) {
		_, _ = rand.Read(buf)
		if _, err := f.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	out, err := exec.Command("sha256sum", path).Output()
	if err != nil {
		return "", err
	}
	return strings.Fields(string(out))[0], nil
}

// sweep kills whatever still carries this run's tag: only what this run
// started carries it.
func sweep(tag string) {
	for _, pid := range testbin.WaitUntagged(tag, 5*time.Second) {
		if id, err := proc.Lookup(pid); err == nil {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
	}
}

func numCPU() int {
	out, _ := exec.Command("nproc").Output()
	var n int
	fmt.Sscan(string(out), &n)
	return n
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }

// fatal is what check panics with; main recovers it.
type fatal struct{ err error }

func check(err error) {
	if err != nil {
		panic(fatal{err})
	}
}
