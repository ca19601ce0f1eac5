#!/usr/bin/env bash
# Prints the version the packages carry, in a form dpkg, the archive's and
# the installer's file names all accept (digits first, then [0-9A-Za-z.+~]):
#   at a release tag vX.Y.Z               X.Y.Z
#   N commits after it                    X.Y.Z+N.gCOMMIT  (sorts after X.Y.Z)
#   before any tag                        P~gitCOMMIT      (sorts before P, the
#                                         productVersion in wails.json)
# and ".dirty" after any of them when the work tree has uncommitted changes.
set -euo pipefail
cd "$(dirname "$0")/.."

dirty=
if ! git diff --quiet HEAD -- 2>/dev/null; then
	dirty=.dirty
fi

if desc=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	desc=${desc#v}
	case $desc in
	*-*-g*) # X.Y.Z-N-gCOMMIT
		base=${desc%-*-g*}
		rest=${desc#"$base"-}
		echo "$base+${rest%%-*}.g${rest#*-g}$dirty"
		;;
	*) echo "$desc$dirty" ;;
	esac
	exit 0
fi

product=$(sed -n 's/.*"productVersion": *"\([0-9][0-9.]*\)".*/\1/p' wails.json)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "${product:-0.0.0}~git$commit$dirty"
