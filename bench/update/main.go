//go:build linux

// Command update measures the self-update end to end, side by side in one
// run: the artifact (the bare executable beside the unit it travels in:
// the executable, a gzip'd remote core, a license; its tar, and the tar
// compressed with zstd as `release pack` makes it), what packing and
// unpacking it cost; -n updates 1.0.0 -> 1.1.0 through `update apply` (two
// builds of the binary with a fresh key, installed as the portable archive
// lays them out, a loopback feed), each from the CLI's start to its exit 0
// (the new version serves), with the backend's public /api/status probed
// every 2 ms throughout; then the download alone, the update client
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
// Usage: go run ./bench/update [-n 10] [-size 256] [-deltas=false] [-cores=false]
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
	n := flag.Int("n", 10, "updates to measure")
	sizeMiB := flag.Int("size", 256, "size of the file for the download comparison, MiB")
	deltas := flag.Bool("deltas", true, "measure update patches between real rebuilds (builds this tree three times)")
	cores := flag.Bool("cores", true, "with -deltas, the releases carry the four remote cores (four more builds each)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-update-")
	check(err)
	defer os.RemoveAll(dir)
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	check(err)
	old := layUnit(dir, build(dir, "1.0.0", pub), "1.0.0")
	next := layUnit(dir, build(dir, "1.1.0", pub), "1.1.0")
	feed := newFeed(dir, priv, measureArtifact(dir, next), nil)
	defer feed.close()

	fmt.Printf("self-update 1.0.0 -> 1.1.0 through `update apply`: %d updates, /api/status probed every 2 ms\n", *n)
	fmt.Printf("machine: %d CPUs, unit artifact %.1f MiB on a loopback feed\n\n", numCPU(), float64(len(feed.artifact))/(1<<20))
	var total, inst []time.Duration
	var failed, probes int64
	kept := true
	for i := 0; i < *n; i++ {
		r := runUpdate(dir, i, old, feed.url+"/feed/stable.json")
		total, inst = append(total, r.total), append(inst, r.instance)
		failed, probes = failed+r.failed, probes+r.probes
		kept = kept && r.kept
	}
	slices.Sort(total)
	slices.Sort(inst)
	fmt.Printf("%-52s %10s %10s\n", "step", "p50", "max")
	fmt.Printf("%-52s %10s %10s\n", "update apply -> new version serving (CLI, end to end)", ms(total[len(total)/2]), ms(total[len(total)-1]))
	fmt.Printf("%-52s %10s %10s\n", "  of which the instance's apply (check..handoff)", ms(inst[len(inst)/2]), ms(inst[len(inst)-1]))
	fmt.Printf("failed probes: %d of %d; backend PID kept across every update: %v\n\n", failed, probes, kept)

	compareDownloads(dir, feed, pub.String(), *sizeMiB)
	if *deltas {
		benchDeltas(dir, *n, pub.String(), priv, *cores)
	}
}

// build compiles the binary at version with the key compiled in.
func build(dir, version string, pub minisign.PublicKey) string {
	p, err := testbin.BuildWith(dir, "hermes-desktop-"+version, fmt.Sprintf("-X main.version=%s -X main.updatePubKey=%s", version, pub.String()))
	check(err)
	return p
}

// feedServer serves a signed manifest for 1.1.0, its unit artifact (with
// a patch from one earlier unit, when asked) and a big file for the
// download comparison (http.ServeContent: Range support); served counts
// the artifact's and the patch's bytes sent.
type feedServer struct {
	srv      *http.Server
	url      string
	artifact []byte
	big      string // path of the comparison file
	served   atomic.Int64
}

// feedPatch is a patch as the release tool publishes it: from the unit
// tar whose SHA-256 is from.
type feedPatch struct {
	from string
	data []byte
}

// newFeed offers the unit artifact art, with p (nil: no patch).
func newFeed(dir string, priv minisign.PrivateKey, art packed, p *feedPatch) *feedServer {
	a := update.Artifact{URL: "../dl/hermes-desktop", SHA256: delta.Digest(art.data), Size: int64(len(art.data)),
		UnitSHA256: art.unit.SHA256, UnitSize: art.unit.Size}
	var patch []byte
	if p != nil {
		patch = p.data
		a.Patches = []update.Patch{{From: p.from, URL: "../dl/patch", SHA256: delta.Digest(patch), Size: int64(len(patch))}}
	}
	m := update.Manifest{Version: "1.1.0", PubDate: time.Now().UTC().Format(time.RFC3339), Expires: update.FormatExpiry(time.Now().Add(24 * time.Hour)),
		Platforms: map[string]update.Artifact{update.Platform(): a}}
	manifest, sig, err := update.SignManifest(priv, "stable", &m)
	check(err)
	f := &feedServer{artifact: art.data, big: filepath.Join(dir, "big")}
	mux := http.NewServeMux()
	mux.HandleFunc("/feed/stable.json", func(w http.ResponseWriter, r *http.Request) { w.Write(manifest) })
	mux.HandleFunc("/feed/stable.json.minisig", func(w http.ResponseWriter, r *http.Request) { w.Write(sig) })
	for name, body := range map[string][]byte{"hermes-desktop": art.data, "patch": patch} {
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

// runUpdate installs 1.0.0's unit, starts it, updates it and waits for
// the watcher (window 1 s) to finish; then stops everything.
func runUpdate(dir string, i int, old, feedURL string) updateResult {
	inst := filepath.Join(dir, fmt.Sprintf("install-%d", i))
	check(os.CopyFS(inst, os.DirFS(old)))
	exe := filepath.Join(inst, "hermes-desktop")
	check(os.Chmod(exe, 0o755))
	check(os.WriteFile(filepath.Join(inst, update.MarkerFile), []byte("portable\n"), 0o644))
	state := filepath.Join(inst, "state")
	tag := testbin.NewTag()
	env := testbin.NewEnv(tag, filepath.Join(inst, "home"))
	cmd := exec.Command(exe, "run", "--headless", "--state-dir", state, "--grace", "2s", "--update-feed", feedURL,
		"--update-health-window", "1s", "--update-check-interval", "0")
	cmd.Env = env
	check(cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	cli := func(args ...string) ([]byte, error) {
		c := exec.Command(exe, append(args, "--state-dir", state)...)
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
	case <-time.After(30 * time.Second):
		check(fmt.Errorf("the old instance did not exit after its window"))
	}
	return res
}

// readyBackend waits for a ready backend and returns its public status URL and PID.
func readyBackend(cli func(...string) ([]byte, error)) (string, int) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
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
