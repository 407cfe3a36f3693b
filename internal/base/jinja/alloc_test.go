package jinja_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/jinja"
	"github.com/nikolalohinski/gonja/v2"
	gonjaexec "github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// hostileTemplates each ask for one allocation proportional to a number
// or a size the template chooses (gigabytes, or far more), through every
// operator, filter, method and function that builds a string or a list.
// The numbers come as every type a template or eval data can hold: int
// literals, floats, numeric strings, bools, negatives, numbers beyond
// int64, and JSON-decoded variables (vars below).
var hostileTemplates = []struct{ what, src string }{
	{"string * int", `{{ "x" * 99999999999 }}`},
	{"string * int in a variable", `{{ "x" * i }}`},
	{"string * JSON float made int", `{{ "x" * (f|int) }}`},
	{"string * float literal made int", `{{ "x" * (1e11|int) }}`},
	{"string * numeric string", `{{ "x" * "1e11" }}`},
	{"string * numeric string beyond int64", `{{ "x" * "99999999999999999999999" }}`},
	{"string * huge JSON number made int", `{{ "x" * (huge|int) }}`},
	{"string * negative", `{{ "x" * -99999999999 }}`},
	{"string * bool", `{{ "x" * true }}`},
	{"string * float", `{{ "x" * 1e11 }}`},
	{"string * float variable", `{{ "x" * f }}`},
	{"nested repetition", `{{ ("x" * 100000) * 100000 }}`},
	{"repetition of a variable", `{{ s * 99999999999 }}`},
	{"doubling by ~", `{% set ns = namespace(s="x") %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}`},
	{"doubling by +", `{% set ns = namespace(s="x") %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s|length }}`},
	{"doubling a list by +", `{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}`},
	{"range of 10**12", `{{ range(10**12)|length }}`},
	{"range of 10**12 made int", `{{ range((10**12)|int)|length }}`},
	{"join with a huge separator", `{{ range(100000)|join("x" * 1000000) }}`},
	{"join of one string many times", `{% set s = "x" * 1000000 %}{{ [` + manyS + `]|join|length }}`},
	{"printing one string many times", `{% set s = "x" * 1000000 %}{{ [` + manyS + `] }}`},
	{"a list made a string", `{% set s = "x" * 1000000 %}{{ [` + manyS + `]|string|length }}`},
	{"str.join", `{% set x = "x" * 1000000 %}{{ x.join(range(3000)|map("string")) }}`},
	{"center filter", `{{ "x"|center(99999999999) }}`},
	{"center filter by a float", `{{ "x"|center(1e11) }}`},
	{"center method", `{{ "x".center(99999999999, " ") }}`},
	{"ljust method", `{{ "x".ljust(99999999999, " ") }}`},
	{"rjust method", `{{ "x".rjust(i|int, " ") }}`},
	{"zfill method", `{{ "1".zfill(99999999999) }}`},
	{"indent filter", `{{ ("a\n" * 100000)|indent(100000) }}`},
	{"indent filter by a string", `{{ ("a\n" * 100000)|indent("x" * 100000) }}`},
	{"format method width", `{{ "{:>99999999999}".format(1) }}`},
	{"format method repeating an argument", `{% set f = "{0}" * 100000 %}{{ f.format("x" * 1000000) }}`},
	{"format filter widths", `{{ "` + strings.Repeat("%999999d", 100) + `"|format(` + strings.Repeat("1, ", 99) + `1) }}`},
	{"replace filter", `{{ ("x" * 1000000)|replace("", "y" * 1000000) }}`},
	{"replace filter with a count gonja reads as all", `{{ ("x" * 1000000)|replace("", "y" * 1000000, undefined_name) }}`},
	{"join by a huge attribute", `{{ range(100000)|join("", "y" * 1000000) }}`},
	{"sum by a huge attribute", `{{ range(100000)|sum(attribute="y" * 1000000) }}`},
	{"replace method", `{% set x = "x" * 1000000 %}{{ x.replace("x", "y" * 1000000) }}`},
	{"expandtabs", `{% set t = "	" * 1000000 %}{{ t.expandtabs(1000000) }}`},
	{"rsplit maxsplit", `{{ "a b".rsplit(" ", 99999999999)|length }}`},
	{"split maxsplit", `{{ "a b".split(" ", 99999999999)|length }}`},
	{"tojson indent", `{{ range(3000)|list|tojson(indent=1000000) }}`},
	{"batch with fill", `{{ [1]|batch(99999999999, fill_with=0)|length }}`},
	{"slice", `{{ [1]|slice(99999999999)|length }}`},
	{"lipsum", `{{ lipsum(99999999999)|length }}`},
	{"list filter of a huge string", `{{ ("x" * 1000000)|list|list|list|length }}`},
	{"values kept in a list", `{% set l = [] %}{% for i in range(3000) %}{% do l.append("x" * 1000000) %}{% endfor %}{{ l|length }}`},
	{"a method call on a list holding one string many times", `{% set s = "x" * 1000000 %}{% set l = [` + manyS + `] %}{% do l.append(1) %}`},
	{"values kept by a recursive macro", `{% macro f(s, n) %}{% if n %}{{ f(s ~ "x" * 1000000, n - 1)|length }}{% endif %}{% endmacro %}{{ f("", 100000) }}`},
}

// manyS names one string 3,000 times: a list of it prints 3 GB.
var manyS = strings.Repeat("s, ", 2999) + "s"

// hostileVars are eval data as JSON decodes it: every number a float64.
func hostileVars(t testing.TB) map[string]any {
	var vars map[string]any
	if err := json.Unmarshal([]byte(`{"i": 99999999999, "f": 1e11, "huge": 1e30, "neg": -99999999999, "t": true, "s": "x", "s2": "y"}`), &vars); err != nil {
		t.Fatal(err)
	}
	return vars
}

// maxRenderAlloc is what one hostile rendering may allocate in all: what
// the budget lets values total (MaxBuilt), and gonja's own cost of a
// loop of a few thousand iterations (some 800 bytes each).
const maxRenderAlloc = jinja.MaxBuilt + 4<<20

// listAlloc is what a list of MaxBuilt/8 numbers costs gonja, which boxes
// each element (some 100 bytes an element, growth included).
const listAlloc = 32 << 20

// childEnv names the template a child process renders (see
// TestRenderAllocChild).
const childEnv = "ADKPROXY_JINJA_ALLOC_CHILD"

// TestHostileTemplatesAllocateLittle renders each hostile template in a
// child process whose address space is limited (so the process that tries
// to allocate gigabytes dies alone, not the machine) and checks it ends
// with an error naming the limit, having allocated no more than
// maxRenderAlloc bytes in all.
func TestHostileTemplatesAllocateLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per template")
	}
	for _, c := range hostileTemplates {
		t.Run(c.what, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRenderAllocChild$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+c.src)
			out, err := cmd.CombinedOutput()
			var got childResult
			line := childLine(out)
			if err != nil || line == "" {
				t.Fatalf("%s: the rendering process failed (%v): %.600s", c.src, err, out)
			}
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatal(err)
			}
			allowed := uint64(maxRenderAlloc)
			if strings.Contains(c.what, "list by +") {
				allowed = listAlloc
			}
			if got.Alloc > allowed {
				t.Errorf("%s allocated %d bytes, more than %d", c.src, got.Alloc, allowed)
			}
			if got.Err == "" && got.OutLen > jinja.MaxOutput {
				t.Errorf("%s rendered %d bytes", c.src, got.OutLen)
			}
			if got.Limit && (!strings.Contains(got.Err, "more than") || len(got.Err) > 300) {
				t.Errorf("%s: %q; want a short error naming the limit", c.src, got.Err)
			}
			t.Logf("%s: %d bytes allocated, %q", c.src, got.Alloc, got.Err)
		})
	}
}

type childResult struct {
	Err    string
	Limit  bool
	OutLen int
	Alloc  uint64
}

func childLine(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "RESULT ") {
			return strings.TrimPrefix(l, "RESULT ")
		}
	}
	return ""
}

// TestRenderAllocChild is the child of TestHostileTemplatesAllocateLittle:
// it renders the template it is handed within a limited address space and
// prints what rendering allocated.
func TestRenderAllocChild(t *testing.T) {
	src, ok := os.LookupEnv(childEnv)
	if !ok {
		t.Skip("run by TestHostileTemplatesAllocateLittle")
	}
	limitAddressSpace(t, 3<<30)
	vars := hostileVars(t)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := jinja.Render(src, vars)
	runtime.ReadMemStats(&after)
	res := childResult{OutLen: len(out), Alloc: after.TotalAlloc - before.TotalAlloc}
	if err != nil {
		res.Err, res.Limit = err.Error(), errors.Is(err, jinja.ErrLimit)
	}
	b, _ := json.Marshal(res)
	os.Stdout.WriteString("\nRESULT " + string(b) + "\n")
}

// TestHostileTemplatesErrors: over a limit, the error wraps ErrLimit and
// names the operation and its line.
func TestHostileTemplatesErrors(t *testing.T) {
	for _, c := range []struct{ src, says string }{
		{"a\n{{ \"x\" * 99999999999 }}", "line 2"},
		{`{{ "x"|center(99999999999) }}`, "center"},
		{`{{ "x".zfill(99999999999) }}`, "zfill"},
		{`{{ range(100000)|join("x" * 1000000) }}`, "join"},
		{`{% set ns = namespace(s="x") %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}`, "~"},
	} {
		_, err := jinja.Render(c.src, hostileVars(t))
		if !errors.Is(err, jinja.ErrLimit) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "more than") || len(err.Error()) > 300 {
			t.Errorf("%s: %v; want a short limit error saying %q", c.src, err, c.says)
		}
	}
}

// TestPricedOperationsAreGonjas: within the limits, every priced
// operator, filter and method renders what gonja alone renders.
func TestPricedOperationsAreGonjas(t *testing.T) {
	for _, src := range []string{
		`{{ "ab" * 3 }}|{{ "ab" * 0 }}|{{ "x" * 2.0 }}|{{ "x" * true }}|{{ 3 * "x" }}|{{ 2 * 3 }}|{{ 2 * 1.5 }}`,
		`{{ [1] + [2] }}|{{ "a" ~ 1 }}|{{ 1 ~ 2.5 }}|{{ "a" + "b" }}|{{ 1 + 2.5 }}|{{ 1 + 2 }}|{{ s ~ i }}|{{ [1, "a"] ~ "b" }}`,
		`{{ "x"|center(5) }}|{{ "x"|center(1e1) }}|{{ [0, 1, 2]|join("-") }}|{{ "abc"|join(",") }}|{{ "a\nb"|indent(2, true) }}|{{ "a\nb"|indent("> ") }}`,
		`{{ "7".zfill(3) }}|{{ "{:>4}".format(1) }}|{{ "{0}-{0}".format("x") }}|{{ "a-b-c".rsplit("-", 1) }}|{{ "a b  c".split(" ") }}|{{ "a,b".split(",") }}`,
		`{{ [1,2,3]|batch(2, fill_with=0)|list }}|{{ [1,2,3]|slice(2)|list }}|{{ "ab"|list }}|{{ "%05d-%s"|format(3, "x") }}|{{ "aXbX"|replace("X", "yy") }}|{{ "aXbX"|replace("X", "", 1) }}`,
		`{{ {"a": [1, 2]}|tojson }}|{{ {"a": [1, 2]}|tojson(indent=2) }}|{{ "<a>"|e }}|{{ "a b"|urlencode }}|{{ "Ab"|upper }}{{ "Ab"|lower }}{{ "ab cd"|title }}|{{ "ab"|capitalize }}`,
		`{% set x = "a\tb" %}{{ x.center(9, "*") }}|{{ ",".join(["a", "b"]) }}|{{ "aXbX".replace("X", "--", 1) }}|{{ "a\nb".splitlines() }}|{{ "x".ljust(3, ".") }}|{{ "x".rjust(3, ".") }}`,
		`{{ lipsum(1, false, 5, 5)|length > 0 }}|{{ [3, 1]|sort }}|{{ [1, 1]|unique|list }}|{{ {"b": 1, "a": 2}|dictsort }}|{{ "abc"|reverse }}|{{ [1, 2]|map("string")|join }}|{{ "long text"|truncate(7, true, "", 0) }}`,
		`{% set l = [] %}{% do l.append(1) %}{% do l.append("a") %}{{ l }}|{{ l|length }}|{% set d = {"a": 1} %}{{ d.keys()|list }}|{{ d.get("a") }}|{{ "Ab".lower().upper() }}`,
		`{% set ns = namespace(s="") %}{% for i in range(200) %}{% set ns.s = ns.s ~ i %}{% endfor %}{{ ns.s|length }}|{{ [s] * 3 }}|{{ (s ~ "y") * 2 }}`,
		// Numbers as arguments, and long text, within the limits: not widths.
		`{{ "{} tokens".format(2000000) }}|{{ "{:>5}|{}".format(1, 99999999999) }}|{{ "%d-%s"|format(99999999999, "x") }}|{{ "{0:{1}}".format("x", 3) }}|{{ "%*d"|format(4, 1) }}`,
		`{{ long|upper|length }}|{{ long|e|length }}|{{ long|title|length }}|{{ long|wordwrap(80)|length }}|{{ long|truncate(10) }}|{{ long|urlencode|length }}`,
	} {
		vars := map[string]any{"s": "x", "i": 7, "long": strings.Repeat("a<b ", 150_000)}
		got, err := jinja.Render(src, vars)
		want := gonjaRender(t, src, vars)
		if err != nil || got != want {
			t.Errorf("%s:\n got %q, %v\nwant %q (gonja)", src, got, err, want)
		}
	}
}

// gonjaRender renders src with gonja alone.
func gonjaRender(t *testing.T, src string, vars map[string]any) string {
	loader, err := loaders.NewMemoryLoader(map[string]string{"/t": src})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := gonjaexec.NewTemplate("/t", gonja.DefaultConfig, loader, gonja.DefaultEnvironment)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tmpl.ExecuteToString(gonjaexec.NewContext(vars))
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}
