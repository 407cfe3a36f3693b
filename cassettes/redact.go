// Secret redaction: the Redactor that learns credentials from requests,
// removes them and values the user names from what is stored, and scans what is
// about to be written for any that slipped through.

package cassettes

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Placeholder replaces every secret value in what adkproxy writes.
const Placeholder = "REDACTED"

// Credential carriers. Their values are dropped from what is stored, and
// credential values are remembered so they are also scrubbed from bodies.
var (
	// credentialHeaders carry keys and tokens (Cookie and X-Api-Key are how
	// tools' APIs commonly take theirs; Set-Cookie is how they hand out a
	// session, which a committed cassette must not hold).
	credentialHeaders = []string{"X-Goog-Api-Key", "Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Set-Cookie"}
	// droppedHeaders are never stored but are not secrets in themselves:
	// a quota project id also appears in Vertex paths, so scrubbing it from
	// paths would break replay on machines that do not send the header.
	droppedHeaders = []string{"X-Goog-User-Project"}
	// credentialParams are query parameters that carry keys and tokens.
	credentialParams = []string{"key", "access_token", "api_key", "apikey", "token"}
)

// minLearned is the shortest credential worth remembering: shorter values
// (test placeholders) would scrub innocent text.
const minLearned = 8

// Redactor removes secrets from exchanges before they are stored and scans
// what is about to be written for any that slipped through. It learns the
// credentials it sees in requests and is given further values to scrub by
// the user (NewRedactor, Add). Safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets map[string]string // value -> label used in errors (never the value)
	needles []needle          // every stored form of every secret, longest first
	index   *needleIndex      // which needles a body holds, in one pass (needles.go)
	kept    map[string]bool   // headers stored as they are (KeepHeader)
	memo    cleanMemo         // bodies Bytes found clean with these needles (cleanmemo.go)
	headers learnNames        // which header names carry credentials to learn (learnnames.go)
}

type needle struct {
	form  []byte
	label string
}

// NewRedactor returns a redactor that also scrubs the given values, named
// in errors as "redaction value #N" (Add names them otherwise).
func NewRedactor(values ...string) *Redactor {
	r := &Redactor{secrets: map[string]string{}}
	for i, v := range values {
		r.add(v, fmt.Sprintf("redaction value #%d", i+1))
	}
	r.rebuild()
	return r
}

// Add also scrubs value, named label in errors (never the value itself),
// such as where the user gave it.
func (r *Redactor) Add(value, label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(value, label)
	r.rebuild()
}

// isCredentialHeader reports whether a header carries a credential (by
// the list above or by IsCredentialName) or is otherwise never stored.
func isCredentialHeader(name string) bool {
	name = http.CanonicalHeaderKey(name)
	return slices.Contains(credentialHeaders, name) || slices.Contains(droppedHeaders, name) || IsCredentialName(name)
}

// isCredentialParam: a query parameter carrying a key or token.
func isCredentialParam(name string) bool {
	return slices.Contains(credentialParams, name) || IsCredentialName(name)
}

// Learn remembers the credentials carried by a request's headers and query.
func (r *Redactor) Learn(h http.Header, rawQuery string) {
	var found [][2]string
	for name, values := range h {
		if !r.learnsFrom(name) {
			continue
		}
		for _, v := range values {
			// Every request of a client carries the same key: a value
			// already known costs a lookup, not a label and a list.
			if v = withoutScheme(v); !r.knows(v) {
				found = append(found, [2]string{v, "the " + http.CanonicalHeaderKey(name) + " header"})
			}
		}
	}
	// Pairs are read the way Query removes them: split on "&" only (so a
	// ";" cannot hide a key, as url.ParseQuery would), names unescaped.
	for pair := range strings.SplitSeq(rawQuery, "&") {
		rawName, value, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil || !isCredentialParam(name) {
			continue
		}
		label := "the ?" + name + "= parameter"
		found = append(found, [2]string{value, label})
		if v, err := url.QueryUnescape(value); err == nil && v != value {
			found = append(found, [2]string{v, label})
		}
	}
	r.learn(found)
}

// knows reports whether v is a secret already remembered.
func (r *Redactor) knows(v string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, known := r.secrets[v]
	return known
}

// learn remembers the (value, label) pairs worth remembering.
func (r *Redactor) learn(found [][2]string) {
	if len(found) == 0 {
		return
	}
	r.mu.RLock()
	fresh := false
	for _, f := range found {
		if _, known := r.secrets[f[0]]; !known && len(f[0]) >= minLearned {
			fresh = true
		}
	}
	r.mu.RUnlock()
	if !fresh {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range found {
		if len(f[0]) >= minLearned {
			r.add(f[0], f[1])
		}
	}
	r.rebuild()
}

// withoutScheme strips an authorization scheme ("Bearer x" -> "x"); schemes
// are case-insensitive ("bearer x" is the same credential).
func withoutScheme(v string) string {
	v = strings.TrimSpace(v)
	for _, scheme := range []string{"Bearer", "Token", "Basic"} {
		if len(v) > len(scheme) && strings.EqualFold(v[:len(scheme)], scheme) && (v[len(scheme)] == ' ' || v[len(scheme)] == '\t') {
			return strings.TrimSpace(v[len(scheme)+1:])
		}
	}
	return v
}

func (r *Redactor) add(value, label string) {
	if value == "" || value == Placeholder {
		return
	}
	if r.secrets == nil { // a zero Redactor works too
		r.secrets = map[string]string{}
	}
	if _, ok := r.secrets[value]; !ok {
		r.secrets[value] = label
	}
}

// rebuild recomputes the needle list; callers hold the write lock.
func (r *Redactor) rebuild() {
	r.needles = r.needles[:0]
	for v, label := range r.secrets {
		for _, form := range encodedForms(v) {
			r.needles = append(r.needles, needle{form: []byte(form), label: label})
		}
	}
	sort.Slice(r.needles, func(i, j int) bool {
		if len(r.needles[i].form) != len(r.needles[j].form) {
			return len(r.needles[i].form) > len(r.needles[j].form)
		}
		return bytes.Compare(r.needles[i].form, r.needles[j].form) < 0
	})
	r.index = nil
	if len(r.needles) > 0 {
		r.index = newNeedleIndex(r.needles)
	}
	r.memo.reset()
}

// encodedForms lists the ways a secret can appear in stored bytes: as is,
// URL-escaped, JSON-escaped (also how YAML double quotes escape), JSON
// inside JSON (a JSON body in a double-quoted YAML string), any of those in
// YAML single quotes, and inside base64 at any byte alignment.
func encodedForms(v string) []string {
	forms := map[string]bool{v: true, url.QueryEscape(v): true, url.PathEscape(v): true}
	for _, e := range jsonEscapes(v) {
		forms[e] = true
		for _, ee := range jsonEscapes(e) {
			forms[ee] = true
		}
	}
	var quoted []string
	for f := range forms {
		if strings.Contains(f, "'") {
			quoted = append(quoted, strings.ReplaceAll(f, "'", "''"))
		}
	}
	for _, f := range quoted {
		forms[f] = true
	}
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for shift := 0; shift < 3; shift++ {
			if f := alignedBase64(e, v, shift); len(f) >= minLearned {
				forms[f] = true
			}
		}
	}
	for _, f := range transformedForms(v) { // encodings.go
		forms[f] = true
	}
	out := make([]string, 0, len(forms))
	for f := range forms {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// jsonEscapes are the forms v takes inside a JSON string: with and without
// HTML escaping, and with "/" escaped as "\/" as some encoders (PHP's, some
// Java ones) do.
func jsonEscapes(v string) []string {
	var out []string
	if j, err := json.Marshal(v); err == nil {
		out = append(out, string(j[1:len(j)-1]))
	}
	var noHTML bytes.Buffer
	enc := json.NewEncoder(&noHTML)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		s := strings.TrimSuffix(noHTML.String(), "\n")
		out = append(out, s[1:len(s)-1])
	}
	for _, f := range out { // the range is over the two forms above
		if strings.Contains(f, "/") {
			out = append(out, strings.ReplaceAll(f, "/", `\/`))
		}
	}
	return out
}

// alignedBase64 returns the base64 characters determined by v alone when v
// sits shift bytes into a longer encoded input.
func alignedBase64(e *base64.Encoding, v string, shift int) string {
	enc := e.EncodeToString(append(make([]byte, shift), v...))
	start := (8*shift + 5) / 6
	end := 8 * (shift + len(v)) / 6
	if end <= start || end > len(enc) {
		return ""
	}
	return enc[start:end]
}

// Bytes returns b with every secret replaced by the placeholder. b itself is
// never modified. A secret that is part of the placeholder ("ACT" in
// "REDACTED") is left alone inside placeholders.
//
// What it gives is defined as replacing the forms one after another,
// longest first, each everywhere in what the ones before left. One pass
// (needleIndex.matches) finds every form b holds. Occurrences closer than
// twice reach to one another form a cluster; a replacement can change what
// is seen only within reach of it (the longest form, plus a placeholder for
// the inside-a-placeholder test), so each cluster is replaced one form at a
// time in its own window, reach wide on each side, and the rest of b is
// copied once.
func (r *Redactor) Bytes(b []byte) []byte {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.index == nil {
		return b
	}
	h, memo := r.memo.hash(b)
	if memo && r.memo.isClean(h, b) {
		return b
	}
	found := r.index.matches(r.needles, b)
	if len(found) == 0 {
		if memo {
			r.memo.noteClean(h, b)
		}
		return b
	}
	reach := r.index.longest + len(Placeholder)
	present := make([]bool, len(r.needles))
	var out []byte
	last := 0
	for lo := 0; lo < len(found); {
		hi, end := lo, found[lo].pos+len(r.needles[found[lo].needle].form)
		for hi+1 < len(found) && found[hi+1].pos-end < 2*reach {
			hi++
			end = max(end, found[hi].pos+len(r.needles[found[hi].needle].form))
		}
		for _, m := range found[lo : hi+1] {
			present[m.needle] = true
		}
		from, to := max(0, found[lo].pos-reach), min(len(b), end+reach)
		margin := [2]int{reach, reach} // within b, the window's ends must stay out of reach
		if from == 0 {
			margin[0] = 0
		}
		if to == len(b) {
			margin[1] = 0
		}
		window, changed, inside := r.sequentialBytes(b[from:to], present, margin)
		if !inside {
			// Placeholders made forms appear ever further out (each
			// completing the next): replace form by form in all of b.
			for _, m := range found {
				present[m.needle] = true
			}
			all, _, _ := r.sequentialBytes(b, present, [2]int{})
			return all
		}
		if changed {
			if out == nil {
				out = make([]byte, 0, len(b)+len(Placeholder))
			}
			out = append(append(out, b[last:from]...), window...)
			last = to
		}
		clear(present)
		lo = hi + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// sequentialBytes replaces the forms one by one, longest first, each in
// what the ones before left: only those present in b, and those that
// appear overlapping a placeholder put in (what is not a placeholder is
// b's own bytes, so a form can appear nowhere else).
//
// It reports whether it replaced anything, and false for inside if a
// placeholder came within margin of b's start or end (then what lies
// beyond could have changed what it gave).
func (r *Redactor) sequentialBytes(b []byte, present []bool, margin [2]int) (scrubbed []byte, changed, inside bool) {
	var inserted []span // b's bytes that are placeholders or what is left of them
	var appeared []bool // the forms found overlapping them
	for k, n := range r.needles {
		if !present[k] && (appeared == nil || !appeared[k]) {
			continue
		}
		if find(b, n.form, 0) < 0 {
			continue
		}
		out := make([]byte, 0, len(b)+len(Placeholder))
		var spans []span
		last, j := 0, 0
		// keep copies b[from:to] with the inserted spans in it.
		keep := func(from, to int) {
			for j > 0 && inserted[j-1].end > from {
				j--
			}
			for ; j < len(inserted) && inserted[j].start < to; j++ {
				if inserted[j].end > from {
					spans = addSpan(spans, max(inserted[j].start, from)-from+len(out), min(inserted[j].end, to)-from+len(out))
				}
			}
			out = append(out, b[from:to]...)
		}
		for i := find(b, n.form, 0); i >= 0; i = find(b, n.form, last) {
			keep(last, i)
			spans = addSpan(spans, len(out), len(out)+len(Placeholder))
			out = append(out, Placeholder...)
			last = i + len(n.form)
		}
		keep(last, len(b))
		b, inserted = out, spans
		if inserted[0].start < margin[0] || inserted[len(inserted)-1].end > len(b)-margin[1] {
			return nil, false, false
		}
		appeared = r.index.presentAround(r.needles, b, inserted, r.index.longest)
	}
	return b, inserted != nil, true
}

// find is the index of the first form in b at or after from that is not
// inside a placeholder, or -1.
func find(b, form []byte, from int) int {
	// bytes.Index is vectorised for short needles only: look for a long
	// form's head, then check the rest.
	head := form[:min(len(form), maxFastNeedle)]
	for from <= len(b) {
		i := bytes.Index(b[from:], head)
		if i < 0 {
			return -1
		}
		i += from
		if bytes.HasPrefix(b[i:], form) && !inPlaceholder(b, i, len(form)) {
			return i
		}
		from = i + 1
	}
	return -1
}

// maxFastNeedle is the longest needle bytes.Index searches for with
// vector instructions (internal/bytealg.MaxLen on amd64).
const maxFastNeedle = 32

// inPlaceholder reports whether b[i:i+n] lies within a placeholder.
func inPlaceholder(b []byte, i, n int) bool {
	if n > len(Placeholder) {
		return false
	}
	for p := max(0, i+n-len(Placeholder)); p <= i; p++ {
		if bytes.HasPrefix(b[p:], []byte(Placeholder)) {
			return true
		}
	}
	return false
}

// String is Bytes for strings.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	none := r.index == nil
	r.mu.RUnlock()
	if none { // no secret known: spare every request a copy of its path
		return s
	}
	b := []byte(s)
	if out := r.Bytes(b); len(out) != len(b) || len(b) > 0 && &out[0] != &b[0] {
		return string(out)
	}
	return s // nothing scrubbed (Bytes gave b back): spare a second copy
}

// Query removes credential parameters from a raw query string, keeping the
// order of the rest, and scrubs secrets from what remains.
func (r *Redactor) Query(rawQuery string) string {
	if rawQuery == "" {
		return ""
	}
	credential := func(pair string) bool {
		name, _, _ := strings.Cut(pair, "=")
		n, err := url.QueryUnescape(name)
		return err == nil && isCredentialParam(n)
	}
	// Most queries (alt=sse on every stream) carry no credential: they
	// are scrubbed as they are, not split and joined again.
	dropped := false
	for pair := range strings.SplitSeq(rawQuery, "&") {
		dropped = dropped || credential(pair)
	}
	if !dropped {
		return r.String(rawQuery)
	}
	kept := make([]string, 0, 4)
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if !credential(pair) {
			kept = append(kept, pair)
		}
	}
	return r.String(strings.Join(kept, "&"))
}

// Header returns a copy of h without credential headers and the given
// extra names, with secrets scrubbed from the remaining values.
func (r *Redactor) Header(h http.Header, drop ...string) http.Header {
	out := make(http.Header, len(h))
	for name, values := range h {
		if r.dropsHeader(name) || containsHeader(drop, name) {
			continue
		}
		vs := make([]string, len(values))
		for i, v := range values {
			vs[i] = r.String(v)
		}
		out[name] = vs
	}
	return out
}

func containsHeader(names []string, name string) bool {
	name = http.CanonicalHeaderKey(name)
	for _, n := range names {
		if http.CanonicalHeaderKey(n) == name {
			return true
		}
	}
	return false
}

// Scan reports ErrSecretLeak if data holds any known secret in any of its
// encoded forms. The error names where the secret came from, never its value.
func (r *Redactor) Scan(data []byte) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.index == nil {
		return nil
	}
	// The form reported is the first in the needles' order found outside
	// a placeholder, at its first such place.
	first := -1
	for _, m := range r.index.matches(r.needles, data) {
		if (first < 0 || m.needle < first) && !inPlaceholder(data, m.pos, len(r.needles[m.needle].form)) {
			first = m.needle
		}
	}
	if first < 0 {
		return nil
	}
	i := find(data, r.needles[first].form, 0)
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	return fmt.Errorf("%w: %s appears at line %d; nothing was written", ErrSecretLeak, r.needles[first].label, line)
}

// Exchange scrubs a whole exchange in place.
func (r *Redactor) Exchange(x *Exchange) {
	x.Request.Path = r.String(x.Request.Path)
	x.Request.Query = r.Query(x.Request.Query)
	x.Request.Header = r.Header(x.Request.Header)
	x.Request.Body = r.Bytes(x.Request.Body)
	x.Response.Header = r.Header(x.Response.Header)
	x.Response.Body = r.Bytes(x.Response.Body)
	for i := range x.Response.Events {
		x.Response.Events[i].Data = r.Bytes(x.Response.Events[i].Data)
	}
	if x.Live != nil {
		for i := range x.Live.Frames {
			x.Live.Frames[i].Data = r.Bytes(x.Live.Frames[i].Data)
		}
	}
}
