#!/usr/bin/env bash
# Lays out a fresh Debian 13 "trixie" root filesystem in DEST for the
# package tests (scripts/debian13-test.sh), copied from one cached in CACHE.
# The cached root is built with debootstrap (--variant=minbase) from Debian's
# registry when it is missing, older than 30 days, or was made from another
# package list than this script's; a fresh machine builds it (about 35 s
# here), a later run copies it (a few seconds). It has no package lists
# (the test runs apt-get update: what it installs comes from trixie as it is
# that day) and no downloaded packages (the test keeps those in
# CACHE/debian13-apt, so they are fetched once per machine).
#
# Needs root and debootstrap (scripts/install-package-deps.sh). Only ever
# writes DEST and CACHE's debian13-* entries; an interrupted build leaves a
# .build-* directory that the next build removes.
#
# usage: scripts/debian13-root.sh CACHE DEST
set -euo pipefail

cache=${1:?usage: debian13-root.sh CACHE DEST}
dest=${2:?usage: debian13-root.sh CACHE DEST}
readonly suite=trixie
readonly mirror=${DEBIAN13_MIRROR:-http://deb.debian.org/debian}
readonly security=${DEBIAN13_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# Beyond minbase, what the tests run inside: a session bus (dbus-daemon,
# dbus-run-session), gdbus for the tray's menu, ps/pgrep.
readonly include=(dbus dbus-bin libglib2.0-bin procps)
readonly max_age_days=30

die() { echo "debian13-root: $*" >&2; exit 1; }
say() { echo "debian13-root: $*"; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "no debootstrap: run scripts/install-package-deps.sh"
[ -d "$dest" ] && [ -z "$(ls -A "$dest")" ] || die "$dest must be an empty directory"

# The cache's name changes with what it is made of.
key=$(printf '%s\n' "$suite" "$mirror" "$security" "${include[@]}" | sha256sum | cut -c1-12)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
cached=$cache/debian13-$key

stale() {
	[ ! -f "$cached/.built" ] || [ -n "$(find "$cached/.built" -mtime +"$max_age_days")" ]
}

# build makes the cached root: debootstrap in a scratch directory beside it,
# then a rename, so a cached root is always whole.
build() {
	local scratch=$cache/.build-$$ started=$SECONDS
	rm -rf "$cache"/.build-* # an interrupted build's; nothing mounts there
	trap 'rm -rf "$scratch"' EXIT
	say "building a Debian 13 root in $cached (debootstrap from $mirror)"
	debootstrap --variant=minbase --include="$(IFS=,; echo "${include[*]}")" "$suite" "$scratch" "$mirror" \
		>"$cache/debootstrap.log" 2>&1 || die "debootstrap failed: $(tail -20 "$cache/debootstrap.log")"
	cat >"$scratch/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
	rm -f "$scratch/etc/apt/sources.list"
	# No service starts inside: nothing runs an init there.
	printf '#!/bin/sh\nexit 101\n' >"$scratch/usr/sbin/policy-rc.d"
	chmod 0755 "$scratch/usr/sbin/policy-rc.d"
	rm -rf "$scratch"/var/cache/apt/archives/*.deb "$scratch"/var/lib/apt/lists/*
	date -u +%FT%TZ >"$scratch/.built"
	rm -rf "$cached"
	mv "$scratch" "$cached"
	trap - EXIT
	say "built in $((SECONDS - started)) s ($(du -sh "$cached" | cut -f1))"
}

(
	flock 9 # one builder at a time; a second waits, then copies
	if stale; then build; fi
) 9>"$cache/debian13.lock"
cp -a "$cached/." "$dest/"
rm -f "$dest/.built"
say "Debian 13 root in $dest (from $cached, built $(cat "$cached/.built"))"
