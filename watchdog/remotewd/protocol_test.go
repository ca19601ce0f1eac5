package remotewd

import (
	"io"
	"reflect"
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
