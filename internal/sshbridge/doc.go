// Package sshbridge lets a Windows program under Wine run this machine's
// OpenSSH client: Wine runs Windows programs as Linux processes but gives
// them no Linux pipes, so the Windows build of the app cannot run the
// Linux ssh itself. A test gives it instead an ssh.exe of its own
// (fakessh, built with GOOS=windows) that sends its argv over one loopback
// TCP connection to a Bridge, and relays its stdin, stdout, stderr and
// exit status over that connection; the Bridge runs the Linux ssh with
// `-o ControlMaster=no -o ControlPath=none` before those arguments (the
// first value of an option wins, so the client cannot turn multiplexing
// back on: Windows' ssh.exe has none, and the test holds the app to that),
// then the bridge's own Options.Args (the test's -F).
//
// The wire (wire.go) is one Hello line from the client (the bridge's
// secret and the argv), then contract/muxwire's OpExec frames both ways:
// FrameStdin from the client (an empty one closes ssh's stdin),
// FrameStdout and FrameStderr from the bridge, and last FrameExit. A
// connection that ends before FrameExit was sent is a client that died:
// the bridge kills its ssh (and what ssh started: its process group), so
// the remote session ends as it would for a killed ssh.exe.
//
// Test support: linked only into tests (and the test-built fakessh).
package sshbridge
