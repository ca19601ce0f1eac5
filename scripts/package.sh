#!/usr/bin/env bash
# Builds the installable packages from the desktop builds into DIST
# (`make package` builds those first and names VERSION):
#
#   hermes-desktop_VERSION_webkit41_amd64.deb        Debian 13, Ubuntu 24.04 and later (nfpm:
#                                                    packaging/linux/nfpm.yaml; Depends: WebKitGTK 4.1)
#   hermes-desktop_VERSION_webkit40_amd64.deb        Debian 12, Ubuntu 22.04 (Depends: WebKitGTK 4.0)
#   hermes-desktop_VERSION_linux_webkit41_amd64.tar.gz   portable, self-updating, per user
#   hermes-desktop_VERSION_linux_webkit40_amd64.tar.gz   (packaging/linux/install.sh), per flavour
#   hermes-desktop_VERSION_windows_amd64.exe         the Windows desktop build itself
#   hermes-desktop_VERSION_windows_amd64-setup.exe   per-user installer (packaging/windows/installer.nsi)
#   hermes-desktop-V-linux-amd64-webkit41.unit.tar.zst   the self-update's artifacts (`release pack`,
#   hermes-desktop-V-linux-amd64-webkit40.unit.tar.zst   backend/update/unit): what each archive and
#   hermes-desktop-V-windows-amd64.unit.tar.zst          the Windows install replace in an update
#   SHA256SUMS                                       of all of them
#
# An update artifact is the install's unit, exactly as the archive's
# install.sh or the installer lays it out (the executable, cores/, the
# license files), made into its canonical tar and compressed with zstd, for
# V, the version the binaries report (cores/VERSION). Only a release
# version (1.2.3, 1.2.3-rc.1) gets them: a development build has no feed.
#
# The Linux files come in two WebKitGTK flavours (backend/update/flavour.go):
# webkit41 from build/bin/hermes-desktop (the `make gui` build, which must
# be that flavour: checked here), webkit40 from
# build/bin/hermes-desktop-webkit40 (`make gui-webkit40`). Each binary is
# checked to link its flavour's library and to say so in `version --json`.
# Two archives rather than one carrying both binaries: each is half the
# size, and an install updates itself within its flavour (the feed's
# linux-amd64-webkit41 or -webkit40 artifact is that archive's binary).
#
# Each package carries the remote cores (CORES, from scripts/remote-cores.sh,
# of the same version as the binaries: checked here), where
# backend/remotecore.LocateCores looks for them: the .deb in
# /usr/lib/hermes-desktop/cores, the archive and the Windows install in
# cores/ beside the executable. They are gzip'd already, so they add their
# own size (4 x about 4.5 MB) to each package.
#
# Earlier packages in DIST (hermes-desktop_*, SHA256SUMS) are replaced; the
# archives carry the last commit's time, not the build's.
#
# Environment: NFPM (default .tools/bin/nfpm), WEBVIEW2_BOOTSTRAPPER (a
# MicrosoftEdgeWebview2Setup.exe for the Windows installer to embed; default:
# none, the installer offers Microsoft's download page instead).
#
# usage: scripts/package.sh VERSION DIST CORES
set -euo pipefail

version=${1:?usage: package.sh VERSION DIST CORES}
dist=${2:?usage: package.sh VERSION DIST CORES}
cores=${3:?usage: package.sh VERSION DIST CORES}
repo=$(cd "$(dirname "$0")/.." && pwd)
readonly name=hermes-desktop
readonly -A linux_bins=([webkit41]=$repo/build/bin/$name [webkit40]=$repo/build/bin/$name-webkit40)
# What each flavour's .deb depends on beyond libc6: GTK 3 (Debian 13 and
# Ubuntu 24.04 name it libgtk-3-0t64, which provides libgtk-3-0) and its
# WebKitGTK; the other libraries it links (GLib, GDK, gdk-pixbuf,
# JavaScriptCore, libsoup) come with these two.
readonly -A webkit_deps=([webkit41]=libwebkit2gtk-4.1-0 [webkit40]=libwebkit2gtk-4.0-37)
readonly -A webkit_sonames=([webkit41]=libwebkit2gtk-4.1.so.0 [webkit40]=libwebkit2gtk-4.0.so.37)
readonly flavours=(webkit41 webkit40)
readonly windows_bin=$repo/build/bin/$name.exe
readonly desktop_file=$repo/build/linux/$name.desktop
readonly nfpm=${NFPM:-$repo/.tools/bin/nfpm}
readonly icon_sizes=(16 22 24 32 48 64 128 256 512)
# The platforms scripts/remote-cores.sh builds (backend/remotecore.Platforms).
readonly core_platforms=(linux-amd64 linux-arm64 darwin-arm64 darwin-amd64)

die() { echo "package: $*" >&2; exit 1; }

check_inputs() {
	case $version in
	[0-9]*) ;;
	*) die "version $version must start with a digit (dpkg)" ;;
	esac
	[ -z "${version//[0-9A-Za-z.+~]/}" ] || die "version $version: only [0-9A-Za-z.+~] allowed"
	local f
	for f in "${linux_bins[@]}" "$windows_bin" "$desktop_file" "$repo/LICENSE" "$nfpm"; do
		[ -e "$f" ] || die "$f is missing (make package builds it)"
	done
	for f in "${flavours[@]}"; do
		check_flavour "$f"
	done
	for f in convert desktop-file-validate makensis objdump; do
		command -v "$f" >/dev/null || die "$f not found: run scripts/install-package-deps.sh"
	done
	desktop-file-validate "$desktop_file" || die "$desktop_file does not validate"
	check_cores
}

# check_flavour makes sure a flavour's binary links that flavour's WebKitGTK
# (and not the other's) and reports it in `version --json`, which the
# self-update's smoke test compares.
check_flavour() { # $1: flavour
	local bin=${linux_bins[$1]} needed json
	needed=$(objdump -p "$bin" | awk '$1 == "NEEDED" {print $2}')
	grep -qx "${webkit_sonames[$1]}" <<<"$needed" ||
		die "$bin does not link ${webkit_sonames[$1]}: it is not the $1 build (make gui WEBKIT=$1)"
	json=$(env -u DISPLAY -u WAYLAND_DISPLAY "$bin" version --json)
	[[ $json == *"\"flavour\":\"$1\""* ]] || die "$bin version --json says $json, not flavour $1"
}

# check_cores makes sure CORES holds every platform's core, each unpacking
# to the digest SHA256SUMS names, of the version the Linux binary reports
# (LocateCores refuses cores of another version).
check_cores() {
	local p f got want built
	for f in SHA256SUMS VERSION; do
		[ -f "$cores/$f" ] || die "$cores/$f is missing (make remote-cores builds it)"
	done
	for p in "${core_platforms[@]}"; do
		f=$name-core-$p
		[ -f "$cores/$f.gz" ] || die "$cores/$f.gz is missing (make remote-cores builds it)"
		want=$(awk -v n="$f" '$2 == n {print $1}' "$cores/SHA256SUMS")
		got=$(gzip -dc "$cores/$f.gz" | sha256sum | cut -d' ' -f1)
		[ -n "$want" ] && [ "$got" = "$want" ] || die "$cores/$f.gz unpacks to $got, SHA256SUMS says '$want'"
	done
	# The GUI build answers `version` without a display.
	for f in "${linux_bins[@]}"; do
		built=$(env -u DISPLAY -u WAYLAND_DISPLAY "$f" version | awk '{print $2}')
		[ "$(cat "$cores/VERSION")" = "$built" ] ||
			die "the cores in $cores are version $(cat "$cores/VERSION"), $f is $built: build both with the same VERSION (make package)"
	done
}

# stage_cores copies the cores directory's files (no subdirectories) to $1.
stage_cores() { # $1: directory
	local p
	mkdir -p "$1"
	for p in "${core_platforms[@]}"; do
		install -m 0644 "$cores/$name-core-$p.gz" "$1/"
	done
	install -m 0644 "$cores/SHA256SUMS" "$cores/VERSION" "$1/"
}

# make_icons renders the hicolor sizes from the 1024 px icon, plus the SVG.
make_icons() { # $1: the hicolor directory to fill
	local s dir
	for s in "${icon_sizes[@]}"; do
		dir=$1/${s}x${s}/apps
		mkdir -p "$dir"
		# -strip and no date chunks: the same icon twice is the same file.
		convert "$repo/build/appicon.png" -resize "${s}x${s}" -strip \
			-define png:exclude-chunks=date,time "png32:$dir/$name.png"
	done
	mkdir -p "$1/scalable/apps"
	cp "$repo/build/appicon.svg" "$1/scalable/apps/$name.svg"
}

# make_copyright writes the Debian copyright file (machine-readable format
# 1.0) from LICENSE.
make_copyright() { # $1: output
	local holder
	holder=$(sed -n 's/^Copyright (c) //p' "$repo/LICENSE" | head -n1)
	[ -n "$holder" ] || die "LICENSE has no 'Copyright (c)' line"
	{
		echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
		echo "Upstream-Name: $name"
		echo "Upstream-Contact: The hermes-desktop authors"
		echo
		echo "Files: *"
		echo "Copyright: $holder"
		echo "License: Expat"
		echo "Comment: The Go modules linked into the binary, and their licenses, are"
		echo " listed in /usr/share/doc/$name/THIRD_PARTY_LICENSES."
		echo
		echo "License: Expat"
		sed -n '/^Permission/,$p' "$repo/LICENSE" | sed -e 's/^$/./' -e 's/^/ /'
	} >"$1"
}

# third_party_licenses lists every Go module linked into the desktop build
# for GOOS, each with its license text (they ask to travel with the binary).
third_party_licenses() { # $1: GOOS, $2: output
	local path ver dir lic cgo=0
	[ "$1" = linux ] && cgo=1 # the Linux desktop build links GTK through cgo; Windows' needs none
	{
		echo "Hermes Desktop for $1 links these Go modules; their licenses follow."
		echo
		echo "== Go standard library ($(cd "$repo" && go env GOVERSION))"
		cat "$(go env GOROOT)/LICENSE"
		(cd "$repo" && GOOS=$1 CGO_ENABLED=$cgo go list -deps -tags desktop,production \
			-f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' .) |
			sort -u | while read -r path ver dir; do
			echo
			echo "== $path $ver"
			lic=$(find "$dir" -maxdepth 1 -type f \( -iname 'licen[cs]e*' -o -iname 'copying*' -o -iname 'notice*' \) | sort)
			if [ -n "$lic" ]; then
				echo "$lic" | while IFS= read -r f; do cat "$f"; done
			else
				echo "(no license file in the module; see https://pkg.go.dev/$path?tab=licenses)"
			fi
		done
	} >"$2"
}

# stage_common lays out what both Linux packages of a flavour carry.
stage_common() { # $1: directory, $2: flavour
	mkdir -p "$1"
	install -m 0755 "${linux_bins[$2]}" "$1/$name"
	install -m 0644 "$desktop_file" "$1/$name.desktop"
	install -m 0644 "$repo/LICENSE" "$1/LICENSE"
	third_party_licenses linux "$1/THIRD_PARTY_LICENSES"
	make_icons "$1/icons/hicolor"
	find "$1/icons" -type d -exec chmod 0755 {} + -o -type f -exec chmod 0644 {} +
	stage_cores "$1/cores"
}

build_deb() { # $1: staging dir, $2: output, $3: flavour
	local libc
	# The newest glibc symbol version the binary needs: its libc6 dependency.
	libc=$(objdump -T "$1/$name" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1)
	[ -n "$libc" ] || die "no GLIBC symbol versions in $1/$name"
	make_copyright "$1/copyright"
	PKG_VERSION=$version PKG_STAGE=$1 PKG_LIBC_MIN=$libc PKG_WEBKIT=${webkit_deps[$3]} \
		"$nfpm" package --config "$repo/packaging/linux/nfpm.yaml" --packager deb --target "$2"
	echo "package: $2"
}

build_tarball() { # $1: staging dir (its content goes into the archive), $2: output
	local top
	top=$(basename "$2" .tar.gz)
	mkdir -p "$1/$top"
	cp -a "$1/$name" "$1/$name.desktop" "$1/LICENSE" "$1/THIRD_PARTY_LICENSES" "$1/icons" "$1/cores" "$1/$top/"
	install -m 0755 "$repo/packaging/linux/install.sh" "$1/$top/install.sh"
	tar -C "$1" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
		-cf - "$top" | gzip -9n >"$2"
	echo "package: $2"
}

# vi_version turns VERSION into the four numbers a Windows version resource
# takes: X.Y.Z, and the commit count after the tag (X.Y.Z+N...) or 0.
vi_version() {
	local base=${version%%[!0-9.]*} n=0
	case $version in *+[0-9]*) n=${version#*+} n=${n%%[!0-9]*} ;; esac
	base=${base%.}
	case $base in
	*.*.*) ;;
	*.*) base=$base.0 ;;
	*) base=$base.0.0 ;;
	esac
	echo "$base.$n"
}

build_windows() { # $1: staging dir, $2: the exe's output, $3: the installer's output
	local defines=()
	install -m 0755 "$windows_bin" "$2"
	third_party_licenses windows "$1/THIRD_PARTY_LICENSES.windows"
	if [ -n "${WEBVIEW2_BOOTSTRAPPER:-}" ]; then
		[ -f "$WEBVIEW2_BOOTSTRAPPER" ] || die "WEBVIEW2_BOOTSTRAPPER=$WEBVIEW2_BOOTSTRAPPER: no such file"
		defines+=("-DWEBVIEW2_BOOTSTRAPPER=$(realpath "$WEBVIEW2_BOOTSTRAPPER")")
	fi
	makensis -V2 -INPUTCHARSET UTF8 \
		"-DVERSION=$version" "-DVI_VERSION=$(vi_version)" \
		"-DEXE=$windows_bin" "-DLICENSE_FILE=$repo/LICENSE" \
		"-DNOTICES=$1/THIRD_PARTY_LICENSES.windows" "-DICON=$repo/build/windows/icon.ico" \
		"-DCORES=$1/cores" "-DOUTFILE=$3" "${defines[@]}" "$repo/packaging/windows/installer.nsi" >/dev/null
	echo "package: $2"
	echo "package: $3"
}

# is_release says whether the binaries' version ($1) is one an update
# feed can offer (backend/update.ParseVersion checks it fully).
is_release() {
	[[ $1 =~ ^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]
}

# pack_unit writes the update artifact of the unit laid out in $1 for
# platform $2 into $dist, and prints its path.
pack_unit() { # $1: the unit's directory, $2: platform
	local v
	v=$(cat "$cores/VERSION")
	"$stage/release" pack -platform "$2" -version "$v" -out "$dist" "$1" >&2
	echo "$dist/$name-$v-$2.unit.tar.zst"
}

# stage_windows_unit lays out the Windows install's unit as the installer
# writes it (packaging/windows/installer.nsi).
stage_windows_unit() { # $1: directory, $2: the Windows licenses
	mkdir -p "$1"
	install -m 0755 "$windows_bin" "$1/$name.exe"
	install -m 0644 "$repo/LICENSE" "$1/LICENSE.txt"
	install -m 0644 "$2" "$1/THIRD_PARTY_LICENSES.txt"
	stage_cores "$1/cores"
}

write_sums() { # $@: the packages, all in $dist
	(cd "$dist" && sha256sum -- "${@##*/}" >SHA256SUMS.new && mv -f SHA256SUMS.new SHA256SUMS)
	echo "package: $dist/SHA256SUMS"
}

main() {
	check_inputs
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)
	export SOURCE_DATE_EPOCH

	mkdir -p "$dist"
	dist=$(cd "$dist" && pwd)
	rm -f "$dist/$name"_* "$dist/$name"-*.unit.tar.zst "$dist/SHA256SUMS"
	(cd "$repo" && go build -o "$stage/release" ./cmd/release)
	local units=
	is_release "$(cat "$cores/VERSION")" && units=1
	local exe=$dist/${name}_${version}_windows_amd64.exe
	local setup=$dist/${name}_${version}_windows_amd64-setup.exe
	local flavour built=()

	cores=$(cd "$cores" && pwd)
	for flavour in "${flavours[@]}"; do
		stage_common "$stage/$flavour" "$flavour"
		built+=("$dist/${name}_${version}_${flavour}_amd64.deb" "$dist/${name}_${version}_linux_${flavour}_amd64.tar.gz")
		build_deb "$stage/$flavour" "${built[-2]}" "$flavour"
		build_tarball "$stage/$flavour" "${built[-1]}"
		[ -z "$units" ] || built+=("$(pack_unit "$stage/$flavour" "linux-amd64-$flavour")")
	done
	stage_cores "$stage/cores"
	build_windows "$stage" "$exe" "$setup"
	built+=("$exe" "$setup")
	if [ -n "$units" ]; then
		stage_windows_unit "$stage/windows-unit" "$stage/THIRD_PARTY_LICENSES.windows"
		built+=("$(pack_unit "$stage/windows-unit" windows-amd64)")
	else
		echo "package: $(cat "$cores/VERSION") is not a release version: no update artifacts"
	fi
	write_sums "${built[@]}"
	local f
	for f in "${built[@]}"; do
		printf 'package: %s: %s bytes\n' "${f##*/}" "$(stat -c %s "$f")"
	done
}

main
