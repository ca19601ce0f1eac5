// Package sshtest starts a real OpenSSH server (Debian's /usr/sbin/sshd)
// on a loopback port for tests: a throwaway host key and config of its
// own, the test's own uid as the remote user with a HOME of its own, a
// client config, identity and known_hosts for the client side, and a log
// the tests read. Linux only (it finds the server's processes through
// /proc); elsewhere the package is empty. `make test` installs
// openssh-server (scripts/install-ssh-test-deps.sh); without it the tests
// skip.
package sshtest
