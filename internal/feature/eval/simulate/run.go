// Playing many cases: the Runner's configuration, the worker pool and the
// progress line.

package simulate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// Options configure a Runner.
type Options struct {
	// Server is the agent's ADK API server; App the agent's app name.
	Server *adkapi.Client
	App    string
	// Model is the simulated user's model client (see the package doc for
	// the cassettes it is recorded into); nil when only static
	// conversations are played.
	Model *genai.Client
	// Chat calls a model named "openai/MODEL" (inprocess.OpenAIPrefix) on
	// the OpenAI-compatible endpoint, through the same recorder as Model.
	Chat *inprocess.Chat
	// Config is the eval config's user_simulator_config.
	Config scenarios.SimulatorConfig
	// Parallel is how many conversations run at once (default 1).
	Parallel int
	// Progress, when set, gets a progress line as conversations go.
	Progress io.Writer
	// Misses, when set, lists the requests the simulated user's replay
	// did not match (proxy.Server.Misses): a new one after a turn's call
	// is that turn's divergence. Stats (proxy.Server.Stats) counts them
	// cheaply, so the list is read only when the count moved.
	Misses func() []matcher.Outcome
	Stats  func() proxy.Stats
	// Report, when set, tells the adkproxy recording the agent the
	// simulated user's answers to tool confirmation requests.
	Report *adkapi.ConfirmationReporter
}

// Runner plays cases against one agent.
type Runner struct {
	server *adkapi.Client
	app    string
	model  *userModel
	cfg    scenarios.SimulatorConfig
	par    int
	misses func() []matcher.Outcome
	stats  func() proxy.Stats
	prog   *progress
	report *adkapi.ConfirmationReporter
	// templates are the simulated user's prompt templates, parsed once.
	templates templates
}

// New checks the options: the model configuration must read as a
// GenerateContentConfig and custom instructions must parse and reference
// stop_signal, conversation_plan and conversation_history.
func New(o Options) (*Runner, error) {
	if o.Server == nil || o.App == "" {
		return nil, errors.New("simulate: a server and an app are needed")
	}
	r := &Runner{server: o.Server, app: o.App, cfg: o.Config, par: max(o.Parallel, 1), misses: o.Misses, stats: o.Stats, report: o.Report}
	if err := checkCustomInstructions(o.Config.CustomInstructions, o.Config.File); err != nil {
		return nil, err
	}
	if t := o.Config.Type; t != "" && t != scenarios.TypeLLMBacked {
		return nil, fmt.Errorf("user_simulator_config.type %q: only %q is supported (the audio simulator needs speech synthesis)", t, scenarios.TypeLLMBacked)
	}
	if o.Model != nil || o.Chat != nil {
		m, err := newUserModel(o)
		if err != nil {
			if o.Config.File != "" {
				return nil, fmt.Errorf("%s: %w", o.Config.File, err)
			}
			return nil, err
		}
		r.model = m
	}
	if o.Progress != nil {
		r.prog = &progress{w: o.Progress, start: time.Now()}
	}
	return r, nil
}

// newUserModel reads the simulated user's model and its configuration,
// each error naming its field.
func newUserModel(o Options) (*userModel, error) {
	cfg, err := modelConfig(o.Config.ModelConfiguration)
	if err != nil {
		return nil, err
	}
	model := o.Config.Model
	if model == "" {
		model = scenarios.DefaultModel
	}
	if err := inprocess.CheckModel(model); err != nil {
		return nil, fmt.Errorf("user_simulator_config.model: %v", err)
	}
	if chat, ok := inprocess.ChatModel(model); ok {
		if _, err := inprocess.ChatBody(inprocess.ChatCall{Model: chat, Config: cfg}); err != nil {
			return nil, fmt.Errorf("user_simulator_config.model_configuration: %v (the model %s is called on the OpenAI-compatible endpoint)", err, model)
		}
	}
	return &userModel{client: o.Model, chat: o.Chat, model: model, config: cfg}, nil
}

// Run plays every case, Parallel at a time, and returns their transcripts
// in the order of cases. A case that fails does not stop the others.
func (r *Runner) Run(ctx context.Context, cases []*Case) []*Transcript {
	out := make([]*Transcript, len(cases))
	for i, c := range cases {
		if c.Scenario != nil && r.model == nil {
			out[i] = &Transcript{Case: c, Status: StatusFailed, Failure: "no model client for the simulated user"}
		}
	}
	if r.prog != nil {
		r.prog.total = len(cases)
		r.prog.turns = make([]int, len(cases))
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range r.par {
		wg.Go(func() {
			for i := range work {
				out[i] = r.play(ctx, cases[i], i)
			}
		})
	}
	for i := range cases {
		if out[i] == nil {
			work <- i
		}
	}
	close(work)
	wg.Wait()
	if r.prog != nil {
		r.prog.finish()
	}
	return out
}

func (r *Runner) play(ctx context.Context, c *Case, i int) *Transcript {
	t := &Transcript{Case: c}
	if r.model != nil {
		t.UserModel = r.model.model
	}
	p := &player{r: r, c: c, t: t, history: history{functionCalls: r.cfg.IncludeFunctionCalls}, onTurn: func(n int) { r.prog.turn(i, n) }}
	p.play(ctx)
	r.prog.done(i)
	return t
}

// missCount is the number of replay misses so far, -1 when unknown.
func (r *Runner) missCount() int64 {
	if r.stats == nil {
		return -1
	}
	st := r.stats()
	return st.Mismatched + st.Unmatched
}

// missesOf are the replay misses of a scenario's cassette so far.
func (r *Runner) missesOf(scenario string) []matcher.Outcome {
	if r.misses == nil {
		return nil
	}
	var out []matcher.Outcome
	for _, o := range r.misses() {
		if o.Cassette == scenario {
			out = append(out, o)
		}
	}
	return out
}

// progress writes "simulate: 3/10 done, turns 4 2 1, 12s" on one line,
// rewritten in place as conversations advance.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	total int
	ndone int
	turns []int // of the conversations under way; -1 once done
}

func (p *progress) turn(i, n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turns[i] = n
	p.write()
}

func (p *progress) done(i int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turns[i] = -1
	p.ndone++
	p.write()
}

func (p *progress) write() {
	var current []string
	for _, n := range p.turns {
		if n > 0 {
			current = append(current, strconv.Itoa(n))
		}
	}
	line := fmt.Sprintf("simulate: %d/%d done", p.ndone, p.total)
	if len(current) > 0 {
		line += ", turns " + strings.Join(current, " ")
	}
	fmt.Fprintf(p.w, "\r%s, %s\x1b[K", line, time.Since(p.start).Round(time.Second))
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w)
}
