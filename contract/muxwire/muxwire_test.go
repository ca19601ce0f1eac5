package muxwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRequestLineLeavesTheStreamsData(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRequest(&b, Request{Op: OpExec, Argv: []string{"a b", "\n"}, TimeoutMS: 5}); err != nil {
		t.Fatal(err)
	}
	b.WriteString("after")
	q, err := ReadRequest(&b)
	if err != nil || q.Op != OpExec || len(q.Argv) != 2 || q.Argv[1] != "\n" || q.TimeoutMS != 5 {
		t.Fatalf("ReadRequest = %+v, %v", q, err)
	}
	if rest, _ := io.ReadAll(&b); string(rest) != "after" {
		t.Fatalf("the line took data after it: left %q", rest)
	}
}

func TestLinesAndFramesAreBounded(t *testing.T) {
	if _, err := ReadRequest(strings.NewReader(strings.Repeat("x", MaxLine+1) + "\n")); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a long line: %v", err)
	}
	if _, err := ReadReply(strings.NewReader(`{"error":`)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a cut line: %v", err)
	}
	if err := WriteFrame(io.Discard, FrameStdout, make([]byte, MaxFrame+1)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a long frame written: %v", err)
	}
	if _, _, err := ReadFrame(bytes.NewReader([]byte{1, 0xff, 0xff, 0xff, 0xff}), nil); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a long frame read: %v", err)
	}
}

func TestFramesRoundTrip(t *testing.T) {
	var b bytes.Buffer
	for _, f := range []struct {
		kind byte
		p    string
	}{{FrameStdout, "out"}, {FrameStdin, ""}, {FrameExit, `{"code":3}`}} {
		if err := WriteFrame(&b, f.kind, []byte(f.p)); err != nil {
			t.Fatal(err)
		}
	}
	var buf []byte
	for _, want := range []string{"1:out", "0:", `3:{"code":3}`} {
		k, p, err := ReadFrame(&b, buf)
		if err != nil || string(rune('0'+k))+":"+string(p) != want {
			t.Fatalf("frame = %d %q %v, want %s", k, p, err, want)
		}
	}
	if _, _, err := ReadFrame(&b, buf); err != io.EOF {
		t.Fatalf("after the last frame: %v", err)
	}
	if _, _, err := ReadFrame(bytes.NewReader([]byte{1, 0, 0, 0, 4, 'a'}), nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a cut frame: %v", err)
	}
}

func TestCoreAndExitRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRequest(&b, Request{Op: OpExec, Argv: []string{Core, "mux"}, TimeoutMS: 1}); err != nil {
		t.Fatal(err)
	}
	if err := WriteRequest(&b, Request{Op: OpDial, Network: NetUnix, Path: ".hermes-desktop/sessions/a.sock"}); err != nil {
		t.Fatal(err)
	}
	q, err := ReadRequest(&b)
	if err != nil || q.Argv[0] != "@core" || q.Argv[1] != "mux" {
		t.Fatalf("exec of the core = %+v, %v", q, err)
	}
	q, err = ReadRequest(&b)
	if err != nil || q.Op != OpDial || q.Network != "unix" || q.Path != ".hermes-desktop/sessions/a.sock" {
		t.Fatalf("dial = %+v, %v", q, err)
	}
	if err := WriteReply(&b, Reply{PID: 42}); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadReply(&b); err != nil || p.PID != 42 || p.Error != "" {
		t.Fatalf("reply = %+v, %v", p, err)
	}
	e := Exit{Code: -1, Signal: "SIGTERM", TimedOut: true}
	buf, _ := json.Marshal(e)
	var got Exit
	if err := json.Unmarshal(buf, &got); err != nil || got != e {
		t.Fatalf("exit = %+v, %v", got, err)
	}
}
