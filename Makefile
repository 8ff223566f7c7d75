# tabwright: two commands for a newcomer — `make demo` and `make test`.
GO      ?= go
BIN     := bin/tabwright
MODELS  := bin/tabwright-models
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build demo test test-deps soak bench lint chromium fuzz fuzz-long reliability real-clients real-apps release release-check

# bin/tabwright leaves the model agents' SDKs out (-tags nomodels), so the
# MCP server loads only what it uses; a qs run with a model agent hands
# itself over to bin/tabwright-models beside it, the full build.
build:
	CGO_ENABLED=0 $(GO) build -tags nomodels -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/tabwright
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(MODELS) ./cmd/tabwright

# Installs Debian's chromium when none is found and we are root; otherwise
# prints the command that does.
chromium:
	@sh scripts/ensure-chromium.sh

demo: build chromium
	./$(BIN) demo
	@echo
	@echo "and a quickstart task, replayed against bundled docs served on loopback:"
	./$(BIN) qs run --example hello --allow-unenforced

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Installs what the tests run against when missing and we are root;
# otherwise prints the command that does and stops before the tests.
test-deps:
	@sh scripts/ensure-test-deps.sh

# -ldflags=-w: the test binaries are linked without DWARF, a third less
# link time for each of the ~35 (stack traces do not need it).
test: lint test-deps
	$(GO) test -count=1 -timeout 20m -ldflags=-w ./...

# make test SOAK times (10 by default) while two busy loops load the CPUs,
# as a loaded CI machine would; prints the count and fails if any run did.
SOAK ?= 10
soak:
	@sh scripts/soak.sh $(SOAK)

# Benchmarks report per-operation figures; see README "Performance".
bench: chromium
	$(GO) test -run '^$$' -bench . -benchtime 20x -timeout 20m ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 30s ./mcpserver
	$(GO) test -run '^$$' -fuzz FuzzStdioFilter -fuzztime 30s ./mcpserver
	$(GO) test -run '^$$' -fuzz FuzzParseCursor -fuzztime 30s ./mcpserver
	$(GO) test -run '^$$' -fuzz FuzzParseSecrets -fuzztime 30s ./cmd/tabwright
	$(GO) test -run '^$$' -fuzz FuzzDecodeObservation -fuzztime 30s ./engine/observe
	$(GO) test -run '^$$' -fuzz FuzzReader -fuzztime 30s ./engine/observe
	$(GO) test -run '^$$' -fuzz FuzzFold -fuzztime 30s ./engine/observe
	$(GO) test -run '^$$' -fuzz FuzzValidate -fuzztime 30s ./engine/act
	$(GO) test -run '^$$' -fuzz FuzzParseChord -fuzztime 30s ./engine/act
	$(GO) test -run '^$$' -fuzz FuzzPrevalidate -fuzztime 30s ./engine/batch
	$(GO) test -run '^$$' -fuzz FuzzLoadTask -fuzztime 30s ./quickstart/task
	$(GO) test -run '^$$' -fuzz FuzzParsePrices -fuzztime 30s ./quickstart/run
	$(GO) test -run '^$$' -fuzz FuzzRobots -fuzztime 30s ./quickstart/docs

# Every fuzz target for FUZZTIME each (10 minutes by default; outside CI).
FUZZTIME ?= 10m
fuzz-long:
	@set -e; for t in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
		for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$t/*_test.go | cut -d' ' -f2); do \
			echo "== $$f ($$t, $(FUZZTIME))"; $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) -timeout 0 $$t; \
		done; \
	done

# The reliability suite alone, with its figures (make test runs it too).
reliability: chromium
	$(GO) test -count=1 -v -timeout 10m -run 'Reliability|TestHTTPIdleSessionReleasesClaims|TestStdioCancelledCallIsNotAnswered|TestClaimsAcrossProcesses|TestNoOrphanBrowserAfterServerDies|TestStaleRefAndActionTimeout|TestServiceWorkerRestart|TestRefusals' ./cmd/tabwright ./hub | grep -E '^(FIGURE|--- |ok|FAIL)'

# Real MCP clients against the binary, default profile and --inline-schemas:
# the TypeScript SDK (its Ajv, and Ajv strict) lists the tools and runs a
# browser_batch, the Inspector's CLI lists and calls it. Needs Node 20+ and
# the npm registry (not part of make test).
real-clients: build chromium
	sh scripts/real-clients.sh $(BIN)

# Real web apps from unmodified npm packages (pinned in scripts/real-apps),
# served on loopback, driven through tabwright, Playwright MCP and Chrome
# DevTools MCP side by side (docs/real-apps.md). Not part of make test;
# needs node and the npm registry. RUNS=N, SERVERS=tabwright, APPS=todomvc.
real-apps: build chromium
	sh scripts/real-apps.sh $(BIN)

# The release artifacts, built reproducibly (scripts/release.sh): an
# archive per target (linux, darwin, windows x amd64, arm64), the Linux
# binaries the GitHub Action installs, the npm packages and SHA256SUMS;
# release-check builds them twice in fresh caches and compares the bytes.
DIST ?= dist
release:
	sh scripts/release.sh $(DIST) $(VERSION)

release-check:
	sh scripts/release.sh --check $(VERSION)
