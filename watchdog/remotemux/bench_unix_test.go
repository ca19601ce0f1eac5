//go:build unix

package remotemux

import (
	"io"
	"net"
	"strconv"
	"testing"

	"hermes-desktop/contract/muxwire"
)

// BenchmarkMuxExec is one command's round trip through the session:
// open a stream, the Request, the child's start, its output, its Exit.
// go test -run '^$' -bench MuxExec ./watchdog/remotemux/
func BenchmarkMuxExec(b *testing.B) {
	s := startServer(b)
	for b.Loop() {
		r := run(b, s.sess, muxwire.Request{Op: muxwire.OpExec, TimeoutMS: 60_000, Argv: []string{"echo", "x"}})
		if r.stdout != "x\n" || r.exit.Code != 0 {
			b.Fatalf("exec = %+v", r)
		}
	}
}

// BenchmarkMuxDial is a forward's throughput: 1 MiB a time through one
// OpDial stream to a TCP sink on 127.0.0.1 (MB/s as b.SetBytes reports).
func BenchmarkMuxDial(b *testing.B) {
	s := startServer(b)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	go func() { // ends with l's one connection: counts what came, answers the count
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		n, _ := io.Copy(io.Discard, c)
		_, _ = c.Write([]byte(strconv.FormatInt(n, 10)))
	}()
	st, rep := open(b, s.sess, muxwire.Request{Op: muxwire.OpDial, Network: muxwire.NetTCP, Port: l.Addr().(*net.TCPAddr).Port})
	if rep.Error != "" {
		b.Fatal(rep.Error)
	}
	chunk := make([]byte, 1<<20)
	b.SetBytes(int64(len(chunk)))
	var sent int64
	for b.Loop() {
		if _, err := st.Write(chunk); err != nil {
			b.Fatal(err)
		}
		sent += int64(len(chunk))
	}
	st.Close()
	got, err := io.ReadAll(st)
	if err != nil || string(got) != strconv.FormatInt(sent, 10) {
		b.Fatalf("the sink got %q of %d bytes: %v", got, sent, err)
	}
}
