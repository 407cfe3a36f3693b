# adkproxy — see README.md. `make demo` and `make test` are the two entry points.
GO       ?= go
BIN      := bin/adkproxy
STATICCHECK := $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME ?= 30s
# Test output (cassettes, logs) goes here so it can be scanned for secrets.
export ADKPROXY_TEST_OUT ?= $(CURDIR)/.test-out
# Modules of their own beside the product's, so that what they need stays out of its go.mod:
# bench/ (go-vcr, measured against), examples/adkgo and e2e/adkgo (ADK Go, google.golang.org/adk v1.7.0).
SUBMODULES := bench examples/adkgo e2e/adkgo

.PHONY: all build test lint vet tidy-check fmt-check unit npm-deps demo fuzz bench bench-simulate clean

all: build

## build: -buildvcs=auto so that --version names the checkout's revision even where GOFLAGS turns it off.
build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/adkproxy

## test: lint, then every test with the race detector (npm packages installed first), in the product
## module and in each of SUBMODULES (bench/'s report golden tests, the ADK Go demo agent, the corpus
## against ADK Go's conformance server).
test: lint npm-deps
	rm -rf $(ADKPROXY_TEST_OUT)
	$(GO) test -race -count=1 -timeout 30m ./...
	for m in $(SUBMODULES); do (cd $$m && $(GO) test -race -count=1 -timeout 30m ./...) || exit 1; done
	$(GO) run ./internal/testing/testutil/cmd/secretscan $(ADKPROXY_TEST_OUT)

## lint: gofmt, go vet, staticcheck and a tidy go.mod, in the product module and in each of SUBMODULES.
lint: fmt-check vet tidy-check
	$(STATICCHECK) ./...
	for m in $(SUBMODULES); do (cd $$m && $(STATICCHECK) ./...) || exit 1; done

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	for m in $(SUBMODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done

tidy-check:
	$(GO) mod tidy -diff
	for m in $(SUBMODULES); do (cd $$m && $(GO) mod tidy -diff) || exit 1; done

## npm-deps: the official JS clients used by end-to-end tests, and ADK-JS's API server (e2e/adkserver:
## @google/adk-devtools, for drive and conformance tests), every folder with a package-lock.json, pinned by
## it (the benchmark peers under bench/ are installed by scripts/bench.sh instead).
npm-deps:
	@for d in $$(find . -name package-lock.json -not -path '*/node_modules/*' -not -path './bench/*' -exec dirname {} \;); do \
		echo "npm ci in $$d"; (cd $$d && npm ci --no-audit --no-fund --loglevel=error) || exit 1; \
	done

## demo: replay the ADK Go demo agent's cassettes (examples/adkgo), offline, no key, and score the run.
demo: build
	./scripts/demo.sh

## fuzz: run every fuzz target for FUZZTIME each.
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

## bench: adkproxy against the static limit and its peers, into BENCHMARKS.md (about 10 minutes; not part of test).
bench:
	./scripts/bench.sh

## bench-simulate: what adkproxy simulate's simulator layer costs: 100 replayed scenarios × 5 turns with
## --parallel 8 against ADK-JS's api_server, against the same turns played from a static eval set
## (about 5 minutes; needs `make npm-deps` and ../shared; SIMBENCH_FLAGS="-server fake" for a quick run).
bench-simulate: build
	cd bench && $(GO) run ./simulate -adkproxy $(CURDIR)/$(BIN) $(SIMBENCH_FLAGS)

clean:
	rm -rf bin $(ADKPROXY_TEST_OUT)
