// A recorded cassette's provenance: when, by which adkproxy, from which
// clients and frameworks, which models, and the kind of upstream (never
// its host, which may be one the user did not choose to publish).

package proxy

import (
	"net"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// provenanceOf is the provenance of a cassette written now with the
// exchanges xs, added to what the loaded cassette had (kept).
func (s *Server) provenanceOf(kept *cassettes.Provenance, xs []*cassettes.Exchange) *cassettes.Provenance {
	p := wire.Provenance(xs)
	p.RecordedAt = time.Now().UTC().Truncate(time.Second)
	p.Adkproxy = s.cfg.Version
	if p.Adkproxy == "" {
		p.Adkproxy = buildVersion()
	}
	for _, x := range xs {
		if x == nil || x.IsTool() || !x.IsLive() && wire.Recognise(&x.Request).Kind != wire.Model {
			continue
		}
		p.Upstream = appendNew(p.Upstream, upstreamKind(s.upstreamOf(x.Request.Path)))
	}
	if kept != nil {
		p.Upstream = appendNew(slices.Clone(kept.Upstream), p.Upstream...)
		p.Clients = appendNew(slices.Clone(kept.Clients), p.Clients...)
		p.Frameworks = appendNew(slices.Clone(kept.Frameworks), p.Frameworks...)
		for asked, answered := range kept.Models {
			if p.Models == nil {
				p.Models = map[string][]string{}
			}
			p.Models[asked] = appendNew(slices.Clone(answered), p.Models[asked]...)
		}
	}
	return &p
}

// upstreamOf is the base URL a model call's path is sent to (upstreamRequest).
func (s *Server) upstreamOf(path string) *url.URL {
	if u, ok := vertexUpstream(path); ok {
		if s.cfg.VertexUpstream != nil {
			return s.cfg.VertexUpstream
		}
		return u
	}
	return s.cfg.Upstream
}

// upstreamKind names the kind of API at u: only Google's own hosts are
// told apart; a host on this machine is "local" (adkproxy fake, a test's
// server) and any other "other".
func upstreamKind(u *url.URL) string {
	if u == nil {
		return "other"
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return "local"
	case host == "generativelanguage.googleapis.com":
		return "gemini-api"
	case host == "aiplatform.googleapis.com" || strings.HasSuffix(host, "-aiplatform.googleapis.com") ||
		strings.HasPrefix(host, "aiplatform.") && strings.HasSuffix(host, ".rep.googleapis.com"):
		return "vertex-ai"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return "local"
	}
	return "other"
}

// buildVersion is adkproxy's version from Go's build information: the
// main module's when adkproxy is the program, else the version of the
// adkproxy module the program (a user's tests, through adkproxytest)
// depends on.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	const module = "github.com/adkproxy/adkproxy"
	if info.Main.Path == module && info.Main.Version != "" {
		return info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == module {
			return d.Version
		}
	}
	return "(devel)"
}

func appendNew(list []string, vals ...string) []string {
	for _, v := range vals {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
