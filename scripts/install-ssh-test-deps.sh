#!/usr/bin/env bash
# Installs the Debian packages the remote-backend tests need: OpenSSH's
# server, which internal/sshtest starts on a loopback port as the test's
# "remote" (its own config and host key; never the system's sshd), and the
# client the app itself runs, and the login shells a remote user may have.
# Debian 12; safe to run repeatedly.
set -euo pipefail

pkgs=(
	openssh-server   # /usr/sbin/sshd for the tests' throwaway server
	openssh-client   # ssh, ssh-keygen, ssh-keyscan: the transport and the harness
	zsh              # remote login shells the command quoting is tested under
	fish             # (platform/cmdline; sh, dash and bash are always there)
)

exec "$(dirname "$0")/apt-install.sh" "ssh test deps" "${pkgs[@]}"
