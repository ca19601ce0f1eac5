#!/usr/bin/env bash
# Installs the Debian packages the remote-backend tests need: OpenSSH's
# server, which internal/sshtest starts on a loopback port as the test's
# "remote" (its own config and host key; never the system's sshd), and the
# client the app itself runs. Debian 12; safe to run repeatedly.
set -euo pipefail

pkgs=(
	openssh-server   # /usr/sbin/sshd for the tests' throwaway server
	openssh-client   # ssh, ssh-keygen, ssh-keyscan: the transport and the harness
)

exec "$(dirname "$0")/apt-install.sh" "ssh test deps" "${pkgs[@]}"
