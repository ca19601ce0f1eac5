package remotecore

import (
	"strconv"
	"strings"
)

// The remote side of Install and Exec: constant POSIX sh text that takes
// every value as a positional parameter ($1 the core's path under $HOME,
// $2 its SHA-256), so no path or version is ever parsed as shell. Each is
// one line of statements (joined with "; "), because the remote login
// shell first reads the quoted script as one word and csh-like shells
// refuse a newline inside quotes. Tools used exist on Linux and macOS
// alike: sha256sum (GNU, busybox) or shasum -a 256 (macOS, perl), mktemp,
// find -prune -perm, and gzip when there (else uploads go unpacked).

// sumFunc defines sum: the SHA-256 of stdin in lowercase hex. Reading
// stdin, not a named file, keeps GNU's escaping of odd names out of it.
const sumFunc = `sum() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | { read -r s _ && printf %s "$s"; }; }`

// Answers of checkScript on stdout: one of these, then "gzip" when the
// remote has gzip to unpack an upload (else the upload is sent unpacked).
const (
	stateOK      = "ok"      // the core is there, ours, executable, with the digest
	stateMissing = "missing" // absent, not a plain file of ours, or not executable
	stateDiffers = "differs" // there with another digest (torn, altered, another build)
)

// exitUnsafeHome is the status of checkScript and execScript when $HOME
// is not a directory of this user or its group or anyone may write in it:
// then another account could swap our files between the check and the
// exec, and we refuse to run there at all.
const exitUnsafeHome = 3

// exitUnsafeChain is their status when a directory between $HOME and the
// core (~/.hermes-desktop, its cores, the version, the platform) or, at
// exec, the core itself is a symbolic link, not of its kind, not this
// user's, or writable by its group or by others: the same swap.
const exitUnsafeChain = 6

// othersWrite is a find(1) expression true of a file its group or others
// may write: -perm -020 -o -perm -002, as POSIX find has no -perm /022.
const othersWrite = `\( -perm -020 -o -perm -002 \)`

// chainFunc defines the owner and mode checks of the path from $HOME down
// to a core, for every script that checks or runs one (and the bootstrap):
//
//	ours P -d|-f WHAT  0 when P is of kind -d or -f, not a link, this
//	                   user's, and not group- or world-writable; else it
//	                   says why on stderr and returns 1
//	chain REL          checks $HOME (a directory of this user, a link
//	                   followed by the trailing /, not group- or
//	                   world-writable: else 3),
//	                   then each directory of REL below it (a missing one:
//	                   1; an unsafe one: 2); 0 when all are there and safe.
//	                   The last part of REL, the core, is the caller's.
//
// chain sets h, p, r and s; a script using it keeps no value of its own in
// those across the call.
const chainFunc = `ours() { ` +
	`if [ -L "$1" ] || [ ! "$2" "$1" ]; then echo "hermes-desktop: $1 is not a $3 (or is a symbolic link): not run" >&2; return 1; fi; ` +
	`if [ ! -O "$1" ]; then echo "hermes-desktop: $1 is not owned by this user: not run" >&2; return 1; fi; ` +
	`if [ -n "$(find "$1" -prune ` + othersWrite + `)" ]; then echo "hermes-desktop: $1 is writable by its group or by others: not run" >&2; return 1; fi; }; ` +
	`chain() { ` +
	`h=$HOME; ` +
	`if [ -z "$h" ] || [ ! -d "$h" ] || [ ! -O "$h" ]; then echo "hermes-desktop: home ${h:-(HOME unset)} is not a directory of this user" >&2; return 3; fi; ` +
	`if [ -n "$(find "$h/" -prune ` + othersWrite + `)" ]; then echo "hermes-desktop: home $h is writable by its group or by others" >&2; return 3; fi; ` +
	`p=$h; r=$1; ` +
	`while case $r in */*) true;; *) false;; esac; do ` +
	`s=${r%%/*}; r=${r#*/}; ` +
	`case $s in ''|.|..) echo "hermes-desktop: $1 is not a plain path under the home" >&2; return 2;; esac; ` +
	`p=$p/$s; ` +
	`if [ ! -e "$p" ] && [ ! -L "$p" ]; then return 1; fi; ` +
	`ours "$p" -d directory || return 2; ` +
	`done; ` +
	`case $r in ''|.|..) echo "hermes-desktop: $1 is not a plain path under the home" >&2; return 2;; esac; }`

// checkScript says whether the core $1 under $HOME has digest $2. A core
// that is not a safe file of ours is "missing" (the upload replaces it);
// an unsafe home or directory above it is refused.
var checkScript = script(
	sumFunc,
	chainFunc,
	`f=$HOME/$1`,
	`g=; if command -v gzip >/dev/null 2>&1; then g=gzip; fi`,
	`chain "$1"; c=$?`,
	`if [ $c -eq 3 ]; then exit `+strconv.Itoa(exitUnsafeHome)+`; fi`,
	`if [ $c -eq 2 ]; then exit `+strconv.Itoa(exitUnsafeChain)+`; fi`,
	`if [ $c -eq 1 ]; then echo missing $g; exit 0; fi`,
	`if [ ! -f "$f" ] || [ -L "$f" ] || [ ! -O "$f" ] || [ ! -x "$f" ] || [ -n "$(find "$f" -prune `+othersWrite+`)" ]; then echo missing $g; exit 0; fi`,
	`s=$(sum <"$f") || exit 4`,
	`if [ "$s" = "$2" ]; then echo ok $g; else echo differs $g; fi`,
)

// uploadScript writes stdin (gzip'd when $3 is "gzip") to the core $1
// under $HOME when its digest is $2: into a temporary file in the same directory (so the rename is
// atomic), synced, made executable, then renamed over the old one; a
// half-written or wrong file is never at the core's path. The directories
// from ~/.hermes-desktop down are this user's alone (0700), so nobody else
// can swap the file between Exec's check and its exec.
var uploadScript = script(
	`set -e`,
	`umask 077`,
	sumFunc,
	`f=$HOME/$1`,
	`d=${f%/*}`,
	`mkdir -p "$d"`,
	`chmod 700 "$d" "${d%/*}" "${d%/*/*}" "${d%/*/*/*}"`,
	`t=$(mktemp "$d/.upload.XXXXXX")`,
	`trap 'rm -f "$t"' EXIT`,
	`if [ "$3" = gzip ]; then gzip -dc >"$t"; else cat >"$t"; fi`,
	`s=$(sum <"$t")`,
	`if [ "$s" != "$2" ]; then echo "the uploaded file has SHA-256 $s, want $2" >&2; exit 5; fi`,
	`chmod 700 "$t"`,
	// GNU sync FILE fsyncs that file; where sync takes no file (macOS)
	// it fails or ignores it, and a whole sync is the fallback.
	`sync "$t" 2>/dev/null || sync`,
	`mv -f "$t" "$f"`,
	`trap - EXIT`,
	`echo uploaded`,
)

// keepOtherVersions is how many other versions' cores pruneScript keeps:
// the newest ones, which another desktop of an older version using the
// same remote account may still run (a pruned one would upload again).
const keepOtherVersions = 2

// pruneScript removes, in RemoteDir under $HOME, the cores of versions
// other than $1 but the keepOtherVersions most recently written: every
// new version would otherwise leave 11 MB on the remote for good. Only
// directories of ours (not links) whose names are versions are touched.
var pruneScript = script(
	`cd "$HOME/`+RemoteDir+`" 2>/dev/null || exit 0`,
	`n=0`,
	`for v in $(ls -t); do case $v in .*|*[!A-Za-z0-9._+-]*) continue;; esac; `+
		`if [ "$v" = "$1" ] || [ ! -d "$v" ] || [ -L "$v" ] || [ ! -O "$v" ]; then continue; fi; `+
		`n=$((n+1)); if [ $n -gt `+strconv.Itoa(keepOtherVersions)+` ]; then rm -rf -- "./$v"; fi; done`,
)

// exitNotOurs is execScript's status when the file is not the core we
// uploaded: 126, the shell's "found but cannot be executed".
const exitNotOurs = 126

// execScript runs the core $1 under $HOME with the arguments after $2 only
// if its digest is still $2 and the home, every directory down to it and
// the core itself are this user's alone (chainFunc). The check and the exec
// use the same path in directories only this user may write, so the file
// that was checked is the one that runs.
var execScript = script(
	sumFunc,
	chainFunc,
	`f=$HOME/$1`,
	`w=$2`,
	`chain "$1"; c=$?`,
	`if [ $c -eq 3 ]; then exit `+strconv.Itoa(exitUnsafeHome)+`; fi`,
	`if [ $c -eq 2 ]; then exit `+strconv.Itoa(exitUnsafeChain)+`; fi`,
	`if [ -e "$f" ] || [ -L "$f" ]; then ours "$f" -f "regular file" || exit `+strconv.Itoa(exitUnsafeChain)+`; fi`,
	`shift 2`,
	`s=$(sum <"$f") || s=`,
	`if [ "$s" != "$w" ]; then echo "hermes-desktop: $f is not the core we uploaded (SHA-256 ${s:-unreadable}, want $w): not run" >&2; exit `+strconv.Itoa(exitNotOurs)+`; fi`,
	`exec "$f" "$@"`,
)

// script joins statements into one line.
func script(stmts ...string) string { return strings.Join(stmts, "; ") }

// exitBootInput is bootScript's status when the app's lines are not what
// it expects (or stdin ended first): the app went away or is not ours.
const exitBootInput = 2

// exitBootFailed is bootScript's status when the core could not be put in
// place (a directory or file it cannot make, a received core with another
// digest).
const exitBootFailed = 5

// bootUpload, inside bootScript, receives the core $f with digest $w:
// `need gzip|plain`, then a `size N` line and N bytes (head -c reads no
// more: the app sends nothing else until `ok`), unpacked into a temporary
// file in the same 0700 directory, checked, made executable, synced and
// renamed into place, as uploadScript does.
var bootUpload = script(
	`echo need $g`,
	`IFS= read -r l || exit `+strconv.Itoa(exitBootInput),
	`set -- $l`,
	`if [ $# -ne 2 ] || [ "$1" != size ]; then echo "error expected size N, got: $l"; exit `+strconv.Itoa(exitBootInput)+`; fi`,
	`case $2 in ''|*[!0-9]*) echo "error size $2 is not a number"; exit `+strconv.Itoa(exitBootInput)+`;; esac`,
	`n=$2`,
	`umask 077`,
	`d=${f%/*}`,
	`mkdir -p "$d" && chmod 700 "$d" "${d%/*}" "${d%/*/*}" "${d%/*/*/*}" || { echo "error cannot make $d"; exit `+strconv.Itoa(exitBootFailed)+`; }`,
	`t=$(mktemp "$d/.upload.XXXXXX") || { echo "error cannot make a file in $d"; exit `+strconv.Itoa(exitBootFailed)+`; }`,
	`if [ "$g" = gzip ]; then head -c "$n" | gzip -dc >"$t"; else head -c "$n" >"$t"; fi`,
	`x=$(sum <"$t")`,
	`if [ "$x" != "$w" ]; then rm -f "$t"; echo "error the received core has SHA-256 $x, want $w"; exit `+strconv.Itoa(exitBootFailed)+`; fi`,
	`chmod 700 "$t"`,
	`sync "$t" 2>/dev/null || sync`,
	`mv -f "$t" "$f" || { rm -f "$t"; echo "error cannot rename $t to $f"; exit `+strconv.Itoa(exitBootFailed)+`; }`,
)

// bootScript is the one command of a host's ssh session (Boot): it says
// what the host is, reads `core PATH DIGEST` (PATH under $HOME, chosen by
// the app for that platform), refuses an unsafe home or directory chain
// (`refused 3|6`, the exit statuses of execScript), receives the core when
// it is missing, not a safe file of ours, or has another digest
// (bootUpload), and execs it as the mux server, whose Banner follows `ok`.
// read -r reads one byte at a time from a pipe, so nothing of the core's
// bytes or the multiplexer's is consumed by it.
var bootScript = script(
	sumFunc,
	chainFunc,
	`set -f`,
	`g=plain; if command -v gzip >/dev/null 2>&1; then g=gzip; fi`,
	`echo "`+bootHello+` 1 $(uname -s) $(uname -m) $g"`,
	`IFS= read -r l || exit `+strconv.Itoa(exitBootInput),
	`set -- $l`,
	`if [ $# -ne 3 ] || [ "$1" != core ]; then echo "error expected core PATH DIGEST, got: $l"; exit `+strconv.Itoa(exitBootInput)+`; fi`,
	`q=$2; w=$3; f=$HOME/$2`,
	`case $w in *[!0-9a-f]*) w=;; esac`,
	`if [ ${#w} -ne 64 ]; then echo "error $3 is not a SHA-256"; exit `+strconv.Itoa(exitBootInput)+`; fi`,
	`chain "$q"; c=$?`,
	`if [ $c -eq 3 ]; then echo `+bootRefused+` `+strconv.Itoa(exitUnsafeHome)+`; exit `+strconv.Itoa(exitUnsafeHome)+`; fi`,
	`if [ $c -eq 2 ]; then echo `+bootRefused+` `+strconv.Itoa(exitUnsafeChain)+`; exit `+strconv.Itoa(exitUnsafeChain)+`; fi`,
	`x=; if [ $c -eq 0 ] && [ -f "$f" ] && [ ! -L "$f" ] && [ -O "$f" ] && [ -x "$f" ] && [ -z "$(find "$f" -prune `+othersWrite+`)" ]; then x=$(sum <"$f"); fi`,
	`if [ "$x" != "$w" ]; then `+bootUpload+`; fi`,
	`echo `+bootOK,
	`exec "$f" mux`,
)
