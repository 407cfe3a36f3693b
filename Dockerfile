# adkproxy as a sidecar container: docs/sidecar.md says how to run it.
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t adkproxy .
#   docker run --rm -p 9787:9787 -v "$PWD/cassettes:/cassettes" adkproxy replay --cassettes /cassettes
#
# cmd/adkproxy/container_test.go builds the binary with this file's `go build`
# line and runs its ENV, CMD and HEALTHCHECK, so they cannot drift apart.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build context has no .git to read a version from: pass it in.
ARG VERSION=""
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w -X main.version=${VERSION}" -o /out/adkproxy ./cmd/adkproxy
# The cassette folder, owned by the user adkproxy runs as, so that a named
# volume mounted there starts writable (distroless has no shell to mkdir).
RUN mkdir -p /out/cassettes

# distroless/static: CA certificates (record talks to the Gemini API over
# TLS), tzdata and a non-root user, and no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/adkproxy /usr/local/bin/adkproxy
COPY --from=build --chown=65532:65532 /out/cassettes /cassettes
USER nonroot:nonroot
WORKDIR /work
# Inside the container adkproxy listens on every interface on purpose: the
# agent reaches it over the container network. Publish the port only to
# the machines that should reach it (a recording proxy spends your key).
ENV ADKPROXY_LISTEN=0.0.0.0:9787
EXPOSE 9787
VOLUME ["/cassettes"]
# `adkproxy health` asks the proxy beside it (at ADKPROXY_LISTEN) for
# GET /_adkproxy/health: exit 0 when it serves, 1 when it does not.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/adkproxy", "health"]
ENTRYPOINT ["/usr/local/bin/adkproxy"]
CMD ["replay", "--cassettes", "/cassettes"]
