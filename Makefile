# hermes-desktop: `make run` starts the app, `make test` runs every check CI runs.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

GO        ?= go
BIN       := bin/hermes-desktop
GUI_BIN   := build/bin/hermes-desktop
GUI_WIN_BIN := build/bin/hermes-desktop.exe
TOOLS     := $(CURDIR)/.tools/bin
WAILS     := $(TOOLS)/wails
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(TOOLS)/staticcheck
NFPM_VERSION := v2.45.2
NFPM      := $(TOOLS)/nfpm
ARTIFACTS := artifacts
# An execution count, not a duration: a duration races Go 1.26's fuzz
# coordinator at the deadline (golang/go#75804, fixed in 1.27), which then
# fails a target with a bare "context deadline exceeded" and no input.
FUZZTIME  ?= 20000x
FUZZLOG   := $(ARTIFACTS)/fuzz.log
# Computed once (:=), like PKG_VERSION below: a recursive VERSION would be
# described again at each use, and a file edited during a build would give
# the remote cores another version than the binaries (LocateCores refuses it).
ifndef VERSION
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
endif
# The update feed's trusted minisign public keys (the base64 line of
# update.pub, see README "Releasing"); UPDATE_PUBKEY2 is the second slot,
# for rotating keys. Without one, the build has updates off.
UPDATE_PUBKEY  ?=
UPDATE_PUBKEY2 ?=
LDFLAGS   := -X main.version=$(VERSION) $(if $(UPDATE_PUBKEY),-X main.updatePubKey=$(UPDATE_PUBKEY)) $(if $(UPDATE_PUBKEY2),-X main.updatePubKey2=$(UPDATE_PUBKEY2))
# The packages' version (dpkg's rules): see scripts/pkg-version.sh. Computed
# once per make, so package and package-test agree even if a commit lands
# in between.
ifndef PKG_VERSION
PKG_VERSION := $(shell scripts/pkg-version.sh)
endif
DIST      := dist

# Packages that must build for every OS (everything without the desktop tag).
CROSS_OS  := darwin windows

FRONTEND_SRC := $(shell find frontend/src frontend/index.html frontend/vite.config.ts frontend/tsconfig.json -type f 2>/dev/null)

# The page's types, generated from the engine's Go structs by cmd/tsgen
# (committed, so the page builds without Go); regenerated when a Go file the
# generator can read changes.
MODELS_TS  := frontend/src/generated/models.ts
TSGEN      := $(GO) run ./cmd/tsgen
TSGEN_DEPS := $(shell find backend contract cmd/tsgen -name '*.go' -not -name '*_test.go' 2>/dev/null) $(filter-out %_test.go,$(wildcard *.go)) go.mod

.PHONY: all build run gui test vet staticcheck staticcheck-gui unit fuzz-short fuzz cross fmt-check \
	gen gen-check frontend frontend-test frontend-dist-check gui-deps gui-webkit40 ssh-test-deps core-payload remote-cores gui-smoke gui-journeys bench bench-remote bench-idle bench-window bench-flavours chaos clean \
	gui-windows package-deps package package-test test-windows

all: build

# The headless binary: no cgo, no window toolkit.
build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .

# With a display the desktop app (built with the Wails CLI); without one,
# the headless launcher.
run:
	@if [ -n "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
		$(MAKE) gui && ./$(GUI_BIN); \
	else \
		echo "no display: running headless (make gui builds the window)"; \
		$(MAKE) build remote-cores && HERMES_DESKTOP_CORES=$(REMOTE_CORES) ./$(BIN) run --headless; \
	fi

# --- the desktop build ------------------------------------------------------

gui-deps:
	scripts/install-gui-deps.sh

ssh-test-deps:
	scripts/install-ssh-test-deps.sh

$(WAILS):
	scripts/install-wails.sh

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

# `make gen` after changing a type the page sees; gen-check (in `make test`)
# fails when the committed file is stale.
gen:
	$(TSGEN) -out $(MODELS_TS)

$(MODELS_TS): $(TSGEN_DEPS)
	$(TSGEN) -out $@

gen-check:
	@tmp=$$(mktemp); trap 'rm -f "$$tmp"' EXIT; \
	$(TSGEN) -out "$$tmp"; \
	if ! cmp -s "$$tmp" $(MODELS_TS); then \
		diff -u $(MODELS_TS) "$$tmp" || true; \
		echo "$(MODELS_TS) is stale: run make gen" >&2; \
		exit 1; \
	fi

frontend/dist/index.html: frontend/node_modules/.package-lock.json $(MODELS_TS) $(FRONTEND_SRC)
	cd frontend && npm run build

frontend: frontend/dist/index.html

frontend-test: frontend/node_modules/.package-lock.json
	cd frontend && npm test

# The built page, embedded in the binary, holds no simulated engine.
frontend-dist-check: frontend
	scripts/check-dist.sh frontend/dist

# The Linux desktop build comes in two WebKitGTK flavours (README
# "Installing", backend/update/flavour.go): webkit41 (Wails' webkit2_41 tag;
# Debian 13, Ubuntu 24.04+, Fedora, Arch) and webkit40 (Wails' default;
# Debian 12, Ubuntu 22.04). `make gui` builds WEBKIT's into $(GUI_BIN),
# what `make run` starts; WEBKIT "" is webkit41 wherever its development
# package is installed (gui-deps installs both), else webkit40. The flavour
# is chosen in the recipe, after gui-deps has run. `make gui-webkit40`
# builds the 4.0 flavour beside it, for the packages and the tests.
WEBKIT ?=
GUI_BIN_40 := build/bin/hermes-desktop-webkit40
# -s: the frontend is built above; -skipbindings: the page calls the bound
# methods through window.go, no generated JS; -m/-nosyncgomod: leave go.mod.
# -trimpath: no build directory in the binary, so two releases built in
# different places differ only where their code does (smaller update
# patches; Wails' production build already strips symbols and DWARF).
WAILS_BUILD := $(WAILS) build -s -skipbindings -m -nosyncgomod -trimpath -platform linux/amd64 -ldflags '$(LDFLAGS)'
gui: gui-deps $(WAILS) frontend core-payload remote-cores
	tags=$$(scripts/webkit-flavour.sh $(WEBKIT)); \
	$(WAILS_BUILD) $${tags:+-tags $$tags} -o hermes-desktop
	@echo "built $(GUI_BIN) ($$(scripts/webkit-flavour.sh --name $(WEBKIT)))"

gui-webkit40: gui-deps $(WAILS) frontend core-payload remote-cores
	scripts/webkit-flavour.sh webkit40 >/dev/null
	$(WAILS_BUILD) -o $(notdir $(GUI_BIN_40))
	@echo "built $(GUI_BIN_40) (webkit40)"

# The plain build the Linux desktop build embeds for its shims and built-in
# backend (backend/corebin).
core-payload:
	scripts/core-payload.sh '$(LDFLAGS)'

# The cores remote backends run on their hosts (backend/remotecore), for
# linux/amd64, linux/arm64, darwin/arm64 and darwin/amd64, with SHA256SUMS:
# in build/bin/cores, next to the desktop binary, where the app finds them.
REMOTE_CORES := build/bin/cores
remote-cores:
	scripts/remote-cores.sh $(REMOTE_CORES) '$(VERSION)' '$(LDFLAGS)'

# Both flavours (screenshots in artifacts/ and artifacts/webkit40/).
gui-smoke: gui gui-webkit40
	scripts/gui-smoke.sh $(GUI_BIN) $(ARTIFACTS)
	scripts/gui-smoke.sh $(GUI_BIN_40) $(ARTIFACTS)/webkit40

# Issue 23's user journeys, clicked and typed in the real window, in both
# flavours.
gui-journeys: gui gui-webkit40 ssh-test-deps
	scripts/gui-journeys.sh $(GUI_BIN) $(ARTIFACTS)
	scripts/gui-journeys.sh $(GUI_BIN_40) $(ARTIFACTS)/webkit40

# The desktop build for Windows, cross-built here: Wails' Windows code needs
# no cgo, and it embeds build/windows' icon, manifest and version info.
gui-windows: $(WAILS) frontend
	$(WAILS) build -s -skipbindings -m -nosyncgomod -trimpath -platform windows/amd64 \
		-o hermes-desktop.exe -ldflags '$(LDFLAGS)'
	@echo "built $(GUI_WIN_BIN)"

# --- packages ---------------------------------------------------------------

package-deps:
	scripts/install-package-deps.sh

$(NFPM):
	GOBIN=$(TOOLS) $(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)

# Per WebKitGTK flavour a .deb and a portable Linux archive (the webkit41
# ones from $(GUI_BIN), the webkit40 ones from $(GUI_BIN_40)), the Windows
# executable and its per-user installer, for a release version the
# self-update's artifacts (`release pack`: each archive's and the Windows
# install's unit, .unit.tar.zst), and SHA256SUMS, in $(DIST)/ (see
# scripts/package.sh).
# Each carries the remote cores, built with the same VERSION and LDFLAGS as
# the desktop builds (package.sh checks that they match the binary).
# WEBVIEW2_BOOTSTRAPPER=path/to/MicrosoftEdgeWebview2Setup.exe embeds it in
# the Windows installer.
package: gui gui-webkit40 gui-windows remote-cores package-deps $(NFPM)
	scripts/package.sh '$(PKG_VERSION)' $(DIST) $(REMOTE_CORES)

# Installs them for real (needs root): on this Debian 12 machine the
# webkit40 .deb with dpkg, started from its menu entry under Xvfb, and the
# webkit40 archive as a throwaway unprivileged user; in a Debian 13 system
# (a debootstrap'd root, cached in $(DEBIAN13_CACHE)) the webkit41 .deb
# with apt and the webkit41 archive, each run in its window
# (scripts/debian13-test.sh); the Windows installer under Wine; each
# installed app must find its remote cores (`hermes-desktop remote-cores`);
# all removed again.
DEBIAN13_CACHE ?= /var/cache/hermes-desktop-test
package-test: package
	DEBIAN13_CACHE=$(DEBIAN13_CACHE) scripts/package-test.sh '$(PKG_VERSION)' $(DIST) $(ARTIFACTS)

# --- checks -----------------------------------------------------------------

test: fmt-check gen-check vet staticcheck unit test-windows fuzz-short cross frontend-test frontend-dist-check gui-smoke gui-journeys package-test staticcheck-gui

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*' -not -path './frontend/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

$(STATICCHECK):
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

# The desktop files build only with the GUI's C libraries present; once per
# flavour.
staticcheck-gui: $(STATICCHECK) gui-deps frontend
	CGO_ENABLED=1 $(STATICCHECK) -tags desktop,production,webkit2_41 . ./app/desktop ./backend/update
	CGO_ENABLED=1 $(STATICCHECK) -tags desktop,production . ./app/desktop ./backend/update

# -race needs cgo; the binary the tests build for themselves is CGO-free.
# The tray's tests need the desktop tag (and no GUI libraries). The remote
# backends' tests start a real sshd (internal/sshtest).
unit: ssh-test-deps
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 20m ./...
	CGO_ENABLED=1 $(GO) test -race -count=1 -tags desktop ./app/desktop

# The Windows tests under Wine (scripts/wine/test-windows.sh, which installs
# Wine and MinGW): every package's Windows test binary, then the Windows
# end-to-end tests, the remote ones against a real sshd (ssh-test-deps).
# PKGS=./backend/control runs one package's.
PKGS ?=
test-windows: ssh-test-deps
	scripts/wine/test-windows.sh $(PKGS)

# Each fuzz target for 20000 inputs; `make fuzz` runs each for a minute (FUZZTIME=5m: longer).
FUZZ_TARGETS := \
	./lockfile:FuzzParseRecord \
	./lockfile:FuzzParseSSHLock \
	./lockfile:FuzzParseGatewayPID \
	./platform/proc:FuzzParseMarker \
	./platform/proc:FuzzParseStat \
	./watchdog:FuzzShimArgs \
	./backend/reap:FuzzParseShape \
	./platform/cmdline:FuzzSplitJoinCommand \
	./platform/cmdline:FuzzQuoteRemote \
	./backend/settings:FuzzParseSettings

fuzz-short fuzz:
	@mkdir -p $(ARTIFACTS); for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg >$(FUZZLOG) 2>&1 && continue; \
		cat $(FUZZLOG); \
		if grep -q 'context deadline exceeded' $(FUZZLOG) && ! grep -q 'Failing input written' $(FUZZLOG); then \
			echo "fuzz: $$name: the Go 1.26 deadline race (golang/go#75804), no failing input: not a finding"; \
			continue; \
		fi; \
		exit 1; \
	done; rm -f $(FUZZLOG)

# The desktop build embeds frontend/dist, so its vet needs the page built.
cross: $(STATICCHECK) frontend
	@for os in $(CROSS_OS); do \
		echo "GOOS=$$os vet + staticcheck + build"; \
		GOOS=$$os CGO_ENABLED=0 $(GO) vet ./... ; \
		GOOS=$$os CGO_ENABLED=0 $(STATICCHECK) ./... ; \
		GOOS=$$os CGO_ENABLED=0 $(GO) build -o /dev/null ./... ; \
	done
	@echo "GOOS=windows vet of the desktop build"
	GOOS=windows CGO_ENABLED=0 $(GO) vet -tags desktop,production . ./app/desktop

# Every benchmark, side by side; figures in bench/RESULTS.md.
bench: gui gui-webkit40
	bench/run.sh

# Backends on another host over ssh (issues 25, 33), against a real sshd on
# loopback: the transports side by side (the ControlMaster of OLD_REV, built
# in a temporary worktree, or the build OLD_BIN, against this tree's one
# session + mux; OLD_REV= OLD_BIN= for this tree alone), connect,
# authentications, SIGKILL, partition, blip, update handoff, reclaim,
# sampling. Part of `make bench` too; this runs it alone. N runs per case.
N ?= 10
OLD_REV ?= 8e29df6
OLD_BIN ?=
bench-remote: ssh-test-deps
	$(GO) run ./bench/remote -n $(N) $(if $(OLD_BIN),-old-bin $(OLD_BIN),$(if $(OLD_REV),-old-rev $(OLD_REV)))

# What the window costs at rest (shown, on Logs, hidden to the tray), next
# to a blank Wails window, DURATION seconds per state; screenshots in
# artifacts/idle-*.png. Builds the GUI first, so the figures are this tree's.
DURATION ?= 60
bench-idle: gui
	bench/idle/run.sh --duration $(DURATION) --bin $(GUI_BIN) --artifacts $(ARTIFACTS)

# What a person waits for in the window: CPU per keystroke, start -> first
# paint -> state shown (cold and warm), memory at rest, next to a blank Wails
# window; BEFORE=path measures another build (e.g. main's) in the same run.
bench-window: gui
	bench/window/run.sh --bin $(GUI_BIN) --artifacts $(ARTIFACTS) $(if $(BEFORE),--before $(BEFORE)) $(if $(BACKEND),--backend $(BACKEND))

# The two WebKitGTK flavours side by side: start -> first paint -> state
# shown and memory at rest of the webkit41 and webkit40 builds, each next to
# the blank Wails window built the same way.
bench-flavours: gui gui-webkit40
	bench/window/run.sh --bin $(GUI_BIN) --webkit40 $(GUI_BIN_40) --parts startup,memory --artifacts $(ARTIFACTS)

# The chaos suite alone, for as many rounds as you like.
ROUNDS ?= 100
chaos:
	HERMES_DESKTOP_CHAOS_ROUNDS=$(ROUNDS) CGO_ENABLED=1 $(GO) test -race -count=1 -v -run '^TestChaos$$' -timeout 0 ./e2e | \
		grep -E 'round|passed|FAIL|^ok|^---|decoy|record of|alive after|set-aside|reap pid='

fuzz: FUZZTIME := 1m

clean:
	rm -rf bin build/bin $(ARTIFACTS) frontend/dist $(DIST) backend/corebin/payload/hermes-desktop-core.*
