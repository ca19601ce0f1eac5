#!/usr/bin/env bash
# Installs the Debian packages the Windows test lane needs (scripts/wine/):
# Wine to run the Windows binaries, MinGW to build the lane's
# bcryptprimitives.dll, NSIS to build and round-trip the installer.
# Debian 12; safe to run repeatedly.
set -euo pipefail

pkgs=(
	wine wine64                 # wine64 runs amd64 PE binaries; no wine32 (no i386 multiarch needed)
	gcc-mingw-w64-x86-64        # x86_64-w64-mingw32-gcc for scripts/wine/bcryptprimitives.c
	nsis                        # makensis with the amd64-unicode stubs
)

exec "$(dirname "$0")/apt-install.sh" "windows test deps" "${pkgs[@]}"
