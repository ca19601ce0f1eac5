package remotewd

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The remote watchdog's parser inverts RemoteOptions.Args, and refuses
// what could not be its own command line.
func TestRemoteOptionsRoundTrip(t *testing.T) {
	o := RemoteOptions{
		OwnershipID: "0123456789abcdef0123456789abcdef", SpawnNonce: "0123456789abcdef", Token: TokenFile,
		HeartbeatGrace: 30 * time.Second, Grace: 5 * time.Second, Cgroup: "hd-x", Profile: "work",
		SampleEvery: 5 * time.Second, Env: []string{"PYTHONUNBUFFERED=1", "A=b=c"}, Netns: NetnsOff, Argv: []string{"hermes", "serve", "--", "--port=0"},
	}
	got, err := ParseRemoteFlags(o.Args(), io.Discard)
	if err != nil || !reflect.DeepEqual(got, o) {
		t.Fatalf("round trip: got %+v, %v; want %+v", got, err, o)
	}
	for _, bad := range [][]string{
		{"--ownership-id=ABC", "--spawn-nonce=0123456789abcdef", "--", "x"},
		{"--ownership-id=0123456789abcdef0123456789abcdef", "--spawn-nonce=../../etc", "--", "x"},
		{"--ownership-id=0123456789abcdef0123456789abcdef", "--spawn-nonce=0123456789abcdef", "--token=stdin", "--", "x"},
		{"--ownership-id=0123456789abcdef0123456789abcdef", "--spawn-nonce=0123456789abcdef", "--env=NOEQUALS", "--", "x"},
		{"--ownership-id=0123456789abcdef0123456789abcdef", "--spawn-nonce=0123456789abcdef", "--cgroup=a/b", "--", "x"},
		{"--ownership-id=0123456789abcdef0123456789abcdef", "--spawn-nonce=0123456789abcdef"},
		{"--ownership-id=0123456789abcdef0123456789abcdef", "--spawn-nonce=0123456789abcdef", "--netns=no", "--", "x"},
	} {
		if _, err := ParseRemoteFlags(bad, io.Discard); err == nil {
			t.Errorf("ParseRemoteFlags(%q): got no error", bad)
		}
	}
}

// A handover line reads back as written; a bad one is refused.
func TestHandoverRoundTrip(t *testing.T) {
	secret, err := NewSecret()
	if err != nil || !ValidSecret(secret) {
		t.Fatalf("NewSecret: got %q, %v", secret, err)
	}
	_, arg, _ := strings.Cut(FormatHandover(secret, 30*time.Second), " ")
	if s, w, err := ParseHandover(arg); s != secret || w != 30*time.Second || err != nil {
		t.Errorf("ParseHandover: got %q %s %v, want %q 30s", s, w, err, secret)
	}
	for _, bad := range []string{secret, secret + " 0s", secret + " 1h", secret + " x", strings.ToUpper(secret) + " 1s", "ab 1s"} {
		if _, _, err := ParseHandover(bad); err == nil {
			t.Errorf("ParseHandover(%q): got no error", bad)
		}
	}
	for grace, want := range map[time.Duration]time.Duration{time.Second: 500 * time.Millisecond, 10 * time.Second: time.Second, 30 * time.Second: 3 * time.Second, time.Hour: 3 * time.Second} {
		if got := BeatEvery(grace); got != want {
			t.Errorf("BeatEvery(%s): got %s, want %s", grace, got, want)
		}
	}
}
