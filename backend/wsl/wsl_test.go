package wsl

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"hermes-desktop/backend/transport"
)

func TestArgs(t *testing.T) {
	tr, err := New(Options{Distro: "Ubuntu-22.04"})
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"sh", "-c", `echo "$1"`, "a b", `'"$(x)`}
	want := []string{"--distribution", "Ubuntu-22.04", "--cd", "~", "--exec", "sh", "-c", `echo "$1"`, "a b", `'"$(x)`}
	if got := tr.Args(argv); !reflect.DeepEqual(got, want) {
		t.Errorf("Args:\n got %q\nwant %q", got, want)
	}
	def, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := def.Args([]string{"true"}); !reflect.DeepEqual(got, []string{"--cd", "~", "--exec", "true"}) {
		t.Errorf("Args of the default distribution: got %q", got)
	}
	// What Run hands wsl.exe: the command under the same remote timeout
	// as over ssh.
	timed, _ := TimeoutArgv(1500*time.Millisecond, []string{"uname", "-sm"})
	if got := tr.Args(timed); !reflect.DeepEqual(got[5:8], []string{"sh", "-c", timed[2]}) || got[8] != "2" || got[9] != "uname" {
		t.Errorf("Args of a timed command: got %q", got)
	}
}

func TestInvalidDistro(t *testing.T) {
	for _, d := range []string{"-d", "--exec", "a b", "x;y", "Ubuntu\n", string(make([]byte, 65))} {
		if _, err := New(Options{Distro: d}); err == nil {
			t.Errorf("New(%q): got nil, want an error", d)
		}
	}
}

func TestMissingWSL(t *testing.T) {
	tr, err := New(Options{WSL: filepath.Join(t.TempDir(), "wsl.exe")})
	if err != nil {
		t.Fatal(err)
	}
	if st := tr.Status(); st.State != transport.Failed || !errors.Is(st.Err, ErrNoWSL) {
		t.Errorf("Status: got %+v, want failed with ErrNoWSL", st)
	}
	ctx := context.Background()
	if _, err := tr.Run(ctx, time.Second, nil, "true"); !errors.Is(err, ErrNoWSL) {
		t.Errorf("Run: got %v, want ErrNoWSL", err)
	}
	if _, err := tr.Start(ctx, "cat"); !errors.Is(err, ErrNoWSL) {
		t.Errorf("Start: got %v, want ErrNoWSL", err)
	}
	tr.Close()
	if st := tr.Status(); st.State != transport.Closed {
		t.Errorf("Status after Close: got %v, want closed", st)
	}
}
