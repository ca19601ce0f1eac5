#!/usr/bin/env bash
# Installs the Debian packages named on the command line, skipping those
# already installed; the install-*-deps.sh scripts name them. Safe to run
# repeatedly: with nothing missing it touches neither apt nor the network.
#
# usage: scripts/apt-install.sh LABEL PACKAGE...
set -euo pipefail

label=${1:?usage: apt-install.sh LABEL PACKAGE...}
shift

missing=()
for p in "$@"; do
	# Installed means status "install ok installed", not just known to dpkg.
	if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "$label: all $# packages already installed"
	exit 0
fi

# Root runs apt-get itself (CI); anyone else goes through sudo if there is one.
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "$label: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
	sudo=(sudo)
fi

echo "$label: installing ${missing[*]}"
# `env` carries DEBIAN_FRONTEND through sudo, which resets the environment.
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
echo "$label: done"
