# hermes-desktop: `make run` starts the app, `make test` runs every check CI runs.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

GO        ?= go
BIN       := bin/hermes-desktop
TOOLS     := $(CURDIR)/.tools/bin
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(TOOLS)/staticcheck
FUZZTIME  ?= 3s
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)

# Packages that must build for every OS (everything without the desktop tag).
CROSS_OS  := darwin windows

.PHONY: all build run test vet staticcheck unit fuzz-short fuzz cross fmt-check clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .

# Runs headless here when the build has no GUI; the desktop issue adds the window.
run: build
	./$(BIN) run

test: fmt-check vet staticcheck unit fuzz-short cross

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

$(STATICCHECK):
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

# -race needs cgo; the binary the tests build for themselves is CGO-free.
unit:
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 20m ./...

# Each fuzz target for a few seconds; `make fuzz FUZZTIME=1m` for longer.
FUZZ_TARGETS := \
	./lockfile:FuzzParseRecord \
	./lockfile:FuzzParseSSHLock \
	./lockfile:FuzzParseGatewayPID \
	./backend/proc:FuzzParseMarker \
	./backend/proc:FuzzParseStat \
	./backend:FuzzParseShape \
	./backend:FuzzSplitJoinCommand

fuzz-short fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg >/dev/null || { \
			$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg; exit 1; }; \
	done

fuzz: FUZZTIME := 1m

cross:
	@for os in $(CROSS_OS); do \
		echo "GOOS=$$os vet + build"; \
		GOOS=$$os CGO_ENABLED=0 $(GO) vet ./... ; \
		GOOS=$$os CGO_ENABLED=0 $(GO) build -o /dev/null ./... ; \
	done

clean:
	rm -rf bin
