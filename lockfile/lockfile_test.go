package lockfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hermes-desktop/platform/proc"
)

func validRecord(t testing.TB) *Record {
	t.Helper()
	nonce, err := NewNonce()
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := NewNonce()
	id := proc.Identity{PID: 4242, Start: "linux:1234", BootID: "b00t"}
	return &Record{
		Schema: RecordSchema, Name: "default", Nonce: nonce, BootID: "b00t",
		Backend: &id, PGID: 4242, Argv: []string{"hermes", "serve", "--host", "127.0.0.1", "--port", "0"},
		Port: 41231, Owner: Owner{Nonce: owner, PID: 4000, Start: "linux:1000"},
		Created: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
	}
}

func TestEnsureDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "a", "b")
	if err := EnsureDir(dir); err != nil {
		t.Fatalf("EnsureDir new: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("EnsureDir made no directory: %v", err)
	}
	wantPrivate(t, dir, 0o700)
	if err := EnsureDir(dir); err != nil {
		t.Fatalf("EnsureDir existing: %v", err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(file); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("a file: got %v, want ErrUnsafePath", err)
	}
}

func TestEnsureDirRefusesSymlink(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "real")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	symlink(t, dir, link)
	if err := EnsureDir(link); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("symlink: got %v, want ErrUnsafePath", err)
	}
}

func TestEnsureDirRefusesLooseMode(t *testing.T) {
	if !hasModeBits {
		t.Skip("no mode bits on this OS to make a directory writable by others")
	}
	loose := filepath.Join(t.TempDir(), "loose")
	if err := os.Mkdir(loose, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o757); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(loose); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("world-writable: got %v, want ErrUnsafePath", err)
	}
	if fi, _ := os.Stat(loose); fi.Mode().Perm() != 0o757 {
		t.Errorf("EnsureDir changed the mode of a refused dir: got %v, want %v", fi.Mode().Perm(), os.FileMode(0o757))
	}
}

func TestRecordRoundTrip(t *testing.T) {
	rs, err := OpenRecords(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := validRecord(t)
	if err := rs.Write(r); err != nil {
		t.Fatal(err)
	}
	wantPrivate(t, filepath.Join(rs.Dir(), r.Nonce+".json"), 0o600)
	got, aside, err := rs.LoadAll()
	if err != nil || len(aside) != 0 || len(got) != 1 {
		t.Fatalf("LoadAll: got %d records, %v set aside, err %v", len(got), aside, err)
	}
	a, _ := json.Marshal(got[0])
	b, _ := json.Marshal(r)
	if string(a) != string(b) {
		t.Errorf("round trip: got %s, want %s", a, b)
	}
	if err := rs.Remove(r.Nonce); err != nil {
		t.Fatal(err)
	}
	if err := rs.Remove(r.Nonce); err != nil {
		t.Errorf("removing a missing record: %v", err)
	}
}

// A record may name its backend's cgroup; one written before cgroups (no
// field) still parses, so the field is optional in the same schema.
func TestRecordCgroup(t *testing.T) {
	r := validRecord(t)
	old, _ := json.Marshal(r)
	if strings.Contains(string(old), "cgroup") {
		t.Fatalf("a record without a cgroup mentions one: %s", old)
	}
	if _, err := ParseRecord(old); err != nil {
		t.Fatalf("record without a cgroup: %v", err)
	}
	r.Cgroup = "/user.slice/app.slice/" + CgroupName(r.Nonce)
	data, _ := json.Marshal(r)
	got, err := ParseRecord(data)
	if err != nil || got.Cgroup != r.Cgroup {
		t.Fatalf("got %+v, %v, want cgroup %s", got, err, r.Cgroup)
	}
}

func TestCgroupNonce(t *testing.T) {
	nonce, _ := NewNonce()
	for path, want := range map[string]string{
		CgroupName(nonce):                    nonce,
		"/a/b/" + CgroupName(nonce):          nonce,
		"/a/" + CgroupName(nonce) + ".scope": "",
		"/a/" + CgroupName(nonce) + "/x":     "",
		"/a/" + CgroupName("ABC"):            "",
		"/a/hermes-test-" + nonce:            "",
		"":                                   "",
	} {
		got, ok := CgroupNonce(path)
		if got != want || ok != (want != "") {
			t.Errorf("CgroupNonce(%q): got %q, %v, want %q", path, got, ok, want)
		}
	}
}

func TestWriteRefusesInvalidRecord(t *testing.T) {
	rs, _ := OpenRecords(t.TempDir())
	r := validRecord(t)
	r.Argv = nil
	if err := rs.Write(r); !errors.Is(err, ErrCorrupt) {
		t.Errorf("got %v, want ErrCorrupt", err)
	}
}

func TestLoadAllSetsAsideBadRecords(t *testing.T) {
	good := validRecord(t)
	goodJSON, _ := json.Marshal(good)
	mutate := func(fn func(m map[string]any)) func(string) []byte {
		return func(nonce string) []byte {
			var m map[string]any
			_ = json.Unmarshal(goodJSON, &m)
			m["nonce"] = nonce
			fn(m)
			b, _ := json.Marshal(m)
			return b
		}
	}
	cases := []struct {
		name string
		data func(nonce string) []byte
		mode os.FileMode // needs hasModeBits when not 0600
		want string
	}{
		{"not json", func(string) []byte { return []byte("{not json") }, 0o600, "corrupt"},
		{"wrong type", mutate(func(m map[string]any) { m["port"] = "41231" }), 0o600, "corrupt"},
		{"pid as string", mutate(func(m map[string]any) { m["backend"] = map[string]any{"pid": "1", "start": "linux:1"} }), 0o600, "corrupt"},
		{"unknown field", mutate(func(m map[string]any) { m["evil"] = true }), 0o600, "unknown field"},
		{"foreign schema", mutate(func(m map[string]any) { m["schema"] = 2 }), 0o600, "schema 2"},
		{"pid 1", mutate(func(m map[string]any) { m["backend"] = map[string]any{"pid": 0, "start": "linux:1"} }), 0o600, "out of range"},
		{"bad marker", mutate(func(m map[string]any) { m["backend"] = map[string]any{"pid": 9, "start": "linux:x"} }), 0o600, "marker"},
		{"trailing data", func(n string) []byte { return append(mutate(func(map[string]any) {})(n), []byte(" {}")...) }, 0o600, "trailing"},
		{"oversized", func(string) []byte { return []byte(`{"name":"` + strings.Repeat("a", MaxRecordSize) + `"}`) }, 0o600, "too large"},
		{"world writable", mutate(func(map[string]any) {}), 0o666, "writable"},
		{"cgroup of another nonce", mutate(func(m map[string]any) { m["cgroup"] = "/a/" + CgroupName(good.Nonce) }), 0o600, "cgroup"},
		{"relative cgroup", mutate(func(m map[string]any) { m["cgroup"] = "a/" + CgroupName(m["nonce"].(string)) }), 0o600, "cgroup"},
		{"cgroup with ..", mutate(func(m map[string]any) { m["cgroup"] = "/a/../" + CgroupName(m["nonce"].(string)) }), 0o600, "cgroup"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mode != 0o600 && !hasModeBits {
				t.Skip("no mode bits on this OS to make a record writable by others")
			}
			rs, _ := OpenRecords(t.TempDir())
			if err := rs.Write(good); err != nil {
				t.Fatal(err)
			}
			nonce, _ := NewNonce()
			path := filepath.Join(rs.Dir(), nonce+".json")
			data := tc.data(nonce)
			if err := os.WriteFile(path, data, tc.mode); err != nil {
				t.Fatal(err)
			}
			_ = os.Chmod(path, tc.mode)
			// Peek reports without touching anything.
			recs, bad, err := rs.Peek()
			if err != nil || len(recs) != 1 || len(bad) != 1 {
				t.Fatalf("Peek: %d good, %d bad, err %v", len(recs), len(bad), err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("Peek moved the file: %v", err)
			}
			recs, aside, err := rs.LoadAll()
			if err != nil || len(recs) != 1 || len(aside) != 1 {
				t.Fatalf("LoadAll: %d good, %d set aside, err %v", len(recs), len(aside), err)
			}
			if !strings.Contains(aside[0].Reason.Error(), tc.want) {
				t.Errorf("reason: got %q, want it to mention %q", aside[0].Reason, tc.want)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("bad record still in place")
			}
			moved, err := os.ReadFile(path + ".corrupt")
			if err != nil || string(moved) != string(data) {
				t.Errorf("set-aside copy: %v, content intact %v", err, string(moved) == string(data))
			}
		})
	}
}

func TestSymlinkRecordIsMovedNotFollowed(t *testing.T) {
	rs, _ := OpenRecords(t.TempDir())
	target := filepath.Join(t.TempDir(), "target.json")
	if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	nonce, _ := NewNonce()
	link := filepath.Join(rs.Dir(), nonce+".json")
	symlink(t, target, link)
	_, aside, _ := rs.LoadAll()
	if len(aside) != 1 || !errors.Is(aside[0].Reason, ErrUnsafePath) {
		t.Fatalf("got %+v, want the symlink set aside as unsafe", aside)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "precious" {
		t.Errorf("symlink target touched: %q %v", b, err)
	}
	if fi, err := os.Lstat(link + ".corrupt"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link itself should have been moved aside: %v", err)
	}
}

func TestCorruptNamesDoNotCollide(t *testing.T) {
	rs, _ := OpenRecords(t.TempDir())
	nonce, _ := NewNonce()
	path := filepath.Join(rs.Dir(), nonce+".json")
	for i := 0; i < 3; i++ {
		if err := os.WriteFile(path, []byte("bad"), 0o600); err != nil {
			t.Fatal(err)
		}
		rs.LoadAll()
	}
	for _, name := range []string{".corrupt", ".corrupt.1", ".corrupt.2"} {
		if _, err := os.Stat(path + name); err != nil {
			t.Errorf("%s missing: a set-aside record was overwritten", name)
		}
	}
}

func TestLocks(t *testing.T) {
	dir := t.TempDir()
	l, err := AcquireInstance(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireInstance(dir); !errors.Is(err, ErrHeld) {
		t.Errorf("second acquire: got %v, want ErrHeld", err)
	}
	held, err := Held(filepath.Join(dir, InstanceLockName))
	if err != nil || !held {
		t.Errorf("Held while held: got %v %v", held, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	held, err = Held(filepath.Join(dir, InstanceLockName))
	if err != nil || held {
		t.Errorf("Held after release: got %v %v", held, err)
	}
	if _, err := os.Stat(filepath.Join(dir, InstanceLockName)); err != nil {
		t.Errorf("lock file was removed: %v", err)
	}
	nonce, _ := NewNonce()
	ol, err := AcquireOwner(dir, nonce)
	if err != nil {
		t.Fatal(err)
	}
	if held, _ := OwnerLockHeld(dir, nonce); !held {
		t.Errorf("owner lock not seen as held")
	}
	ol.Release()
	if held, _ := OwnerLockHeld(dir, nonce); held {
		t.Errorf("owner lock seen as held after release")
	}
	if _, err := OwnerLockHeld(dir, "../../etc"); err == nil {
		t.Errorf("a path-like nonce was accepted")
	}
}

// TestHeldUnderAFile: a lock that cannot be reached because a file stands
// where its directory should be is not "free" (which would read as "its
// owner is dead"): Windows says "path not found" there, as for a missing
// file, and only the missing file means free.
func TestHeldUnderAFile(t *testing.T) {
	dir := t.TempDir()
	if held, err := Held(filepath.Join(dir, "missing", ownerLockName)); err != nil || held {
		t.Errorf("under a missing directory: got %v, %v, want false, nil", held, err)
	}
	file := filepath.Join(dir, "owner-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if held, err := Held(filepath.Join(file, ownerLockName)); err == nil {
		t.Errorf("under a file: got %v, nil, want an error", held)
	}
}

// TestHostileLockFile: a lock path that is not a plain file of ours is
// refused without opening it, and a refused or failed attempt keeps no
// handle open. Windows cannot delete a file while a handle to it is open
// (Go opens without FILE_SHARE_DELETE), so there the removals below fail if
// one leaked; on Unix they always succeed.
func TestHostileLockFile(t *testing.T) {
	t.Run("directory in place of the lock", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, InstanceLockName)
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		l, err := AcquireInstance(dir)
		if !errors.Is(err, ErrUnsafePath) {
			t.Errorf("got %v, want ErrUnsafePath", err)
		}
		l.Release()
		if err := os.Remove(path); err != nil {
			t.Errorf("remove after the refusal: got %v, want nil", err)
		}
	})
	t.Run("held lock", func(t *testing.T) {
		dir := t.TempDir()
		holder, err := AcquireInstance(dir)
		if err != nil {
			t.Fatal(err)
		}
		l, err := AcquireInstance(dir)
		if !errors.Is(err, ErrHeld) {
			t.Errorf("got %v, want ErrHeld", err)
		}
		l.Release()
		if err := holder.Release(); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, InstanceLockName)); err != nil {
			t.Errorf("remove after the failed attempt and the release: got %v, want nil", err)
		}
	})
	t.Run("symlinked lock", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.WriteFile(target, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		symlink(t, target, filepath.Join(dir, InstanceLockName))
		l, err := AcquireInstance(dir)
		if !errors.Is(err, ErrUnsafePath) {
			t.Errorf("got %v, want ErrUnsafePath", err)
		}
		l.Release() // a lock wrongly taken still must not outlive the test
	})
}

func FuzzParseRecord(f *testing.F) {
	good, _ := json.Marshal(validRecord(f))
	f.Add(good)
	withCgroup := validRecord(f)
	withCgroup.Cgroup = "/" + CgroupName(withCgroup.Nonce)
	cg, _ := json.Marshal(withCgroup)
	f.Add(cg)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema":1,"argv":[],"backend":{"pid":-1}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRecord(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not wrapped as ErrCorrupt: %v", err)
			}
			return
		}
		// Anything accepted must survive a round trip and stay valid.
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseRecord(again); err != nil {
			t.Fatalf("accepted record does not re-parse: %v", err)
		}
	})
}
