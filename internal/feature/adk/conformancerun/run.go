// Running the cases: import, one server per agent behind the replaying
// proxy, drive, compare.

package conformancerun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/feature/adk/drive"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// User is the user the corpus's sessions belong to.
const User = "adk_conformance_test_user"

// Options configure a run.
type Options struct {
	// Corpus is the folder holding tests/ and agents/.
	Corpus string
	// ServerCmd is the shell command that serves an agents folder:
	// {agents_dir} and {port} are filled in (see CheckServerCmd).
	ServerCmd string
	// Prefix is where the server mounts the API ("" or "/api").
	Prefix string
	// Cases is a glob over case names (<category>/<case>, path.Match
	// syntax); empty means every case.
	Cases string
	// Profile says which finding groups fail a case.
	Profile conformance.Profile
	// IgnoreEventFields are event fields (camelCase dotted paths, e.g.
	// avgLogprobs; conformance.CompareOptions.Ignore) left out of the
	// session comparison: what one language is known not to write, so
	// that it does not hide every other difference.
	IgnoreEventFields []string
	// Work is a folder for the imported cassettes and the agents folders;
	// empty means a temporary one, removed afterwards.
	Work string
	// Progress, when set, gets a line per case as it finishes.
	Progress io.Writer
	// Logger gets the proxy's log; nil discards it.
	Logger *slog.Logger
	// HTTPClient talks to the server; nil is adkapi's default (the
	// default outbound policy).
	HTTPClient *http.Client
}

// ErrNoCases is returned when the glob selects no case; ErrBadGlob when
// it is not a glob.
var (
	ErrNoCases = errors.New("no case selected")
	ErrBadGlob = errors.New("not a glob")
)

// Run runs the selected cases of the corpus and returns their results.
// An error means the run could not happen at all (no corpus, no case, a
// bad glob or server command); everything that goes wrong with one case
// is that case's result.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := CheckServerCmd(o.ServerCmd); err != nil {
		return nil, err
	}
	if o.Cases != "" {
		if _, err := path.Match(o.Cases, ""); err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrBadGlob, o.Cases, err)
		}
	}
	if o.Profile.Name == "" {
		o.Profile = conformance.DefaultProfile
	}
	work := o.Work
	if work == "" {
		dir, err := os.MkdirTemp("", "adkproxy-conformance-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	cassetteDir := filepath.Join(work, "cassettes")
	imported, err := conformance.ImportCorpus(o.Corpus, cassetteDir)
	if err != nil && len(imported) == 0 {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("importing the corpus into %s: %w", cassetteDir, err)
	}
	// The folder exists even when no case could be imported: each such
	// case then fails with its own file:line reason, not the proxy's
	// "the cassette folder does not exist".
	if err := os.MkdirAll(cassetteDir, 0o755); err != nil {
		return nil, err
	}
	var cases []*caseRun
	for _, im := range imported {
		if o.Cases != "" {
			if ok, _ := path.Match(o.Cases, im.Case.Name); !ok {
				continue
			}
		}
		cases = append(cases, newCaseRun(o.Corpus, im))
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%w: --cases %q matches none of the %d case(s) in %s", ErrNoCases, o.Cases, len(imported), o.Corpus)
	}

	px, proxyURL, stopProxy, err := startProxy(cassetteDir, o.Logger)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			stopProxy()
		}
	}()

	r := &runner{o: o, px: px, proxyURL: proxyURL, agents: filepath.Join(o.Corpus, "agents"), work: work}
	res := &Result{Corpus: o.Corpus, ServerCmd: o.ServerCmd, Profile: o.Profile.Name, IgnoredEventFields: o.IgnoreEventFields}
	for _, group := range byAgent(cases) {
		r.runAgent(ctx, group)
		for _, c := range group {
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "conformance: %s %s\n", c.res.Status, c.res.Name)
			}
		}
	}
	// Closing the proxy lists the recordings no request reached.
	seen := len(px.Report().Outcomes)
	stopProxy()
	stopped = true
	for _, c := range cases {
		r.collect(c, seen)
		res.Cases = append(res.Cases, c.res)
	}
	return res, ctx.Err()
}

// startProxy serves the cassettes on a loopback port, replaying strictly
// with conformance keying.
func startProxy(dir string, log *slog.Logger) (*proxy.Server, string, func(), error) {
	px, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, ConformanceKeys: true, Dir: dir, Logger: log})
	if err != nil {
		return nil, "", nil, fmt.Errorf("serving the imported cassettes: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	hs := px.HTTPServer()
	go func() { _ = hs.Serve(ln) }()
	stop := func() {
		_ = hs.Close()
		_ = px.Close()
	}
	return px, "http://" + ln.Addr().String(), stop, nil
}

// caseRun is one case while it runs.
type caseRun struct {
	im     conformance.Imported
	corpus string
	spec   *conformance.Spec
	res    CaseResult
	// unmatched is the first model call the replay had no recording for.
	unmatched string
}

// readCaseFile reads one of the case's files, naming it in messages by its
// path inside the corpus, so reports read the same wherever the corpus is.
func readCaseFile[T any](c *caseRun, name string, parse func(string, []byte) (T, error)) (T, error) {
	file := filepath.Join(c.im.Case.Dir, name)
	data, err := userfile.Read(file)
	if err != nil {
		var zero T
		return zero, err
	}
	if rel, err := filepath.Rel(c.corpus, file); err == nil && filepath.IsLocal(rel) {
		file = filepath.ToSlash(rel)
	}
	return parse(file, data)
}

func newCaseRun(corpus string, im conformance.Imported) *caseRun {
	c := &caseRun{im: im, corpus: corpus, res: CaseResult{Name: im.Case.Name}}
	for _, p := range im.Problems {
		c.res.Notes = append(c.res.Notes, "import: "+p.String())
	}
	spec, err := readCaseFile(c, "spec.yaml", conformance.ParseSpec)
	if err != nil {
		c.fail("the spec is unreadable: %v", err)
		return c
	}
	c.spec = spec
	c.res.Agent, c.res.Description = spec.Agent, spec.Description
	if im.File == "" {
		why := "see notes"
		if len(im.Problems) > 0 {
			why = im.Problems[0].String()
		}
		c.fail("the recordings could not be imported: %s", why)
	}
	return c
}

func (c *caseRun) done() bool { return c.res.Status != "" }

func (c *caseRun) fail(format string, args ...any) {
	c.res.Status, c.res.Reason = Fail, fmt.Sprintf(format, args...)
}

func (c *caseRun) skip(format string, args ...any) {
	c.res.Status, c.res.Reason = Skip, fmt.Sprintf(format, args...)
}

// byAgent groups the cases by agent, in the order each agent first comes.
func byAgent(cases []*caseRun) [][]*caseRun {
	var order []string
	groups := map[string][]*caseRun{}
	for _, c := range cases {
		a := c.res.Agent
		if _, ok := groups[a]; !ok {
			order = append(order, a)
		}
		groups[a] = append(groups[a], c)
	}
	var out [][]*caseRun
	for _, a := range order {
		out = append(out, groups[a])
	}
	return out
}

type runner struct {
	o        Options
	px       *proxy.Server
	proxyURL string
	agents   string
	work     string
}

// runAgent serves one agent and runs its cases.
func (r *runner) runAgent(ctx context.Context, cases []*caseRun) {
	agent := cases[0].res.Agent
	pending := slices.DeleteFunc(slices.Clone(cases), (*caseRun).done)
	if len(pending) == 0 {
		return
	}
	agentsDir := filepath.Join(r.work, "agents", agent)
	if root := filepath.Join(r.agents, agent, "root_agent.yaml"); !fileExists(root) {
		for _, c := range pending {
			c.skip("agent %s cannot load: no root_agent.yaml in %s", agent, filepath.Dir(root))
		}
		return
	}
	// The folder also gets ADK-JS's agent.mjs: other servers ignore it.
	if err := adkjs.WriteAgentsDir(r.agents, agentsDir, agent); err != nil {
		for _, c := range pending {
			c.fail("preparing the agents folder: %v", err)
		}
		return
	}
	port, err := freePort()
	if err != nil {
		for _, c := range pending {
			c.fail("no free port for the server: %v", err)
		}
		return
	}
	srv, err := startServer(ctx, expand(r.o.ServerCmd, agentsDir, port), port, r.o.Prefix, r.proxyURL, r.o.HTTPClient)
	if err != nil {
		for _, c := range pending {
			c.fail("%v", err)
		}
		return
	}
	defer srv.stop()
	apps, err := srv.client.ListApps(ctx)
	if err != nil {
		for _, c := range pending {
			c.fail("listing the server's apps: %v", err)
		}
		return
	}
	for _, c := range pending {
		if ctx.Err() != nil {
			c.fail("interrupted: %v", ctx.Err())
			continue
		}
		r.runCase(ctx, srv, slices.Contains(apps, agent), c)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runCase drives one case against the running server and judges it.
func (r *runner) runCase(ctx context.Context, srv *server, listed bool, c *caseRun) {
	want, err := readCaseFile(c, c.im.Case.Session, conformance.ParseSession)
	if err != nil {
		c.fail("the recorded session is unreadable: %v", err)
		return
	}
	if _, err := r.px.SetDefaultCassette(c.im.Case.Name); err != nil {
		c.fail("selecting the case's cassette: %v", err)
		return
	}
	seen := len(r.px.Report().Outcomes)
	// A -sse case was recorded in ADK's streaming mode: run it so, and the
	// agent calls the model's streaming method the cassette answers.
	d := &drive.Driver{Client: srv.client, App: c.res.Agent, User: User, Streaming: c.im.Case.SSE}
	got, driveErr := d.Drive(ctx, drive.FromSpec(c.spec))
	r.collect(c, seen)

	if !listed && driveErr != nil {
		// ADK servers leave an agent that fails to load out of list-apps
		// and say why in their output (ADK Go) or when it is run (ADK-JS).
		why := srv.loadError(c.res.Agent)
		if why == "" {
			why = loadReason(driveErr)
		}
		c.skip("agent %s cannot load: the server does not list it: %s", c.res.Agent, why)
		return
	}
	if why, ok := lazyLoadFailure(driveErr); ok {
		c.skip("agent %s cannot load: the server lists it but fails to load it when it is run: %s", c.res.Agent, why)
		return
	}
	if driveErr != nil {
		c.fail("%v", driveErr)
		return
	}
	// The session first: where the server's calls went off the recording,
	// its first differing event usually says why.
	if diff := compareSession(want, got, r.o.IgnoreEventFields); diff != "" {
		c.fail("%s", diff)
		return
	}
	if c.unmatched != "" {
		c.fail("model call at %s has no recording: ADK Python made fewer calls there", c.unmatched)
		return
	}
	if failing := r.failingGroups(c); len(failing) > 0 {
		c.fail("request findings in %s count as failures under profile %s", strings.Join(failing, ", "), r.o.Profile.Name)
		return
	}
	c.res.Status = Pass
}

// collect takes the case's findings, notes and first unmatched call from
// the proxy's outcomes since index seen.
func (r *runner) collect(c *caseRun, seen int) {
	outcomes := r.px.Report().Outcomes
	if seen > len(outcomes) {
		seen = len(outcomes)
	}
	for _, o := range outcomes[seen:] {
		if o.Cassette != c.im.Case.Name {
			continue
		}
		switch o.Outcome {
		case matcher.OutcomeMatched, matcher.OutcomeMismatched:
			if o.Conformance != nil && len(o.Findings) > 0 {
				c.res.Calls = append(c.res.Calls, CallFindings{Key: *o.Conformance, Findings: o.Findings})
			}
		default:
			where := o.Method + " " + o.Path
			if o.Conformance != nil {
				where = o.Conformance.String() + " (" + where + ")"
			}
			note := fmt.Sprintf("%s: %s", o.Outcome, where)
			if o.Message != "" {
				note += ": " + o.Message
			}
			c.res.Notes = append(c.res.Notes, note)
			if o.Outcome == matcher.OutcomeUnmatched && c.unmatched == "" {
				c.unmatched = where
			}
		}
	}
}

// failingGroups are the finding groups of the case the profile fails.
func (r *runner) failingGroups(c *caseRun) []string {
	var groups []string
	for _, call := range c.res.Calls {
		for _, f := range r.o.Profile.Fails(call.Findings) {
			if !slices.Contains(groups, f.Group) {
				groups = append(groups, f.Group)
			}
		}
	}
	return groups
}

// lazyLoadPrefixes begin the errors of ADK for Python's agent loader,
// which its API server meets only when an agent it listed is first run
// (it loads agents lazily) and answers as the run's error event.
var lazyLoadPrefixes = []string{"Fail to load '", "No root_agent found for '"}

// lazyLoadFailure is the server's error when err is an agent that failed
// to load when run, as ADK for Python reports it.
func lazyLoadFailure(err error) (string, bool) {
	var se *adkapi.StreamError
	if err == nil || !errors.As(err, &se) {
		return "", false
	}
	for _, p := range lazyLoadPrefixes {
		if strings.HasPrefix(se.Message, p) {
			return se.Message, true
		}
	}
	return "", false
}

// loadReason is the server's own words on why a turn failed, without the
// client's framing where there is a stream error.
func loadReason(err error) string {
	var se *adkapi.StreamError
	if errors.As(err, &se) {
		return se.Message
	}
	var he *adkapi.HTTPError
	if errors.As(err, &he) && he.Status != http.StatusNotFound {
		return he.Body
	}
	return err.Error()
}
