#!/usr/bin/env bash
# Installs the Debian packages that `make package` (the .deb, the portable
# archive, the Windows installer) and `make package-test` need beyond the
# GUI build's (scripts/install-gui-deps.sh), skipping those already
# installed. Debian 12; safe to run repeatedly.
set -euo pipefail

pkgs=(
	nsis                 # makensis: the Windows installer, built on Linux
	desktop-file-utils   # desktop-file-validate: the .desktop files must pass it
	imagemagick          # convert: the hicolor icon sizes from build/appicon.png
	binutils             # objdump: the glibc version the binary needs (Depends: libc6)
	file                 # package-test: names the installer and the exe
	p7zip-full           # package-test: lists the Windows installer's payload
	libgtk-3-bin         # package-test: gtk-launch starts the app as a desktop does
	procps               # package-test: pgrep finds the throwaway user's processes
	debootstrap          # package-test: the Debian 13 root the webkit41 packages install in
	util-linux           # package-test: unshare (its mounts die with it), setpriv
)

exec "$(dirname "$0")/apt-install.sh" "package deps" "${pkgs[@]}"
