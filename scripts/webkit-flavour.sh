#!/usr/bin/env bash
# Prints the Go build tags of a Linux desktop build's WebKitGTK flavour
# (backend/update/flavour.go):
#
#   webkit41   -> webkit2_41   Wails links webkit2gtk-4.1 (Debian 13, Ubuntu 24.04+, Fedora, Arch)
#   webkit40   -> (none)       Wails v2's default, webkit2gtk-4.0 (Debian 12, Ubuntu 22.04)
#
# FLAVOUR "" picks webkit41 where its development package is installed
# (pkg-config finds webkit2gtk-4.1), else webkit40. With --name it prints
# the flavour picked instead of its tags. Fails, saying what to install,
# when the chosen flavour's development package is missing.
#
# usage: scripts/webkit-flavour.sh [--name] [FLAVOUR]
set -euo pipefail

print_name=
if [ "${1:-}" = --name ]; then
	print_name=1
	shift
fi
flavour=${1:-}
if [ -z "$flavour" ]; then
	if pkg-config --exists webkit2gtk-4.1 2>/dev/null; then
		flavour=webkit41
	else
		flavour=webkit40
	fi
fi
case $flavour in
webkit41) module=webkit2gtk-4.1 tags=webkit2_41 dev=libwebkit2gtk-4.1-dev ;;
webkit40) module=webkit2gtk-4.0 tags= dev=libwebkit2gtk-4.0-dev ;;
*) echo "webkit-flavour: unknown flavour '$flavour' (webkit41 or webkit40)" >&2; exit 2 ;;
esac
pkg-config --exists "$module" 2>/dev/null ||
	{ echo "webkit-flavour: $flavour needs $module: install $dev (scripts/install-gui-deps.sh)" >&2; exit 1; }
if [ -n "$print_name" ]; then
	echo "$flavour"
else
	echo "$tags"
fi
