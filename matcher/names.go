// Server-made names: files/…, cachedContents/…, batches/…, operations/…
// and interaction ids, numbered by their place in a run so requests that
// echo them match whatever the server called them that time.

package matcher

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
)

// The rule: the n-th distinct name of a kind that appears in the responses
// of a run is that kind's name number n, written "cachedContents/#n" (an
// interaction id "interactions#n"). Before a request is fingerprinted,
// every name in its path, query and body that the run has seen in a
// response is replaced by its number. A recording is numbered over the
// responses of its whole cassette in file order; a run as it goes, over
// the responses it has received (replayed or forwarded). So a generateContent
// that names "the first cache this run created" matches the recording that
// named the first cache of its run, whatever the two were called. Names
// no response showed (made outside the run) are compared as they are.

// resourceName is a name the server makes: a collection and an id.
var resourceName = regexp.MustCompile(`\b(files|cachedContents|batches|operations|batchPredictionJobs|interactions)/([A-Za-z0-9_-]+)`)

// maxNameScan bounds the bodies scanned for names: uploaded files and
// large inline data hold none worth numbering.
const maxNameScan = 4 << 20

// nameWords are the collections' words; a body without one followed by a
// slash holds no name, which one search for slashes tells faster than the
// expression (or a search per word: a slash is rarer in an answer than the
// words' first letters).
var nameWords = [][]byte{[]byte("files"), []byte("cachedContents"), []byte("batches"), []byte("operations"), []byte("batchPredictionJobs"), []byte("interactions")}

func mayHoldName(b []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], '/')
		if j < 0 {
			return false
		}
		i += j
		for _, w := range nameWords {
			if bytes.HasSuffix(b[:i], w) {
				return true
			}
		}
	}
}

// Names numbers the server-made names of one run. The zero value is ready;
// it is safe for concurrent use.
type Names struct {
	mu      sync.Mutex
	number  map[string]string // literal name -> its numbered form
	bare    map[string]string // interaction id -> its numbered form
	counted map[string]int    // names seen per kind
}

// Learn numbers the names in a response to a request for path, and
// reports whether the response held any: a response that held none
// teaches nothing the next time it is served either, so a caller that
// serves it again can skip the scan.
func (n *Names) Learn(path string, resp *cassettes.Response) bool {
	held := n.learnBody(path, resp.Body)
	for _, e := range resp.Events {
		held = n.learnBody(path, e.Data) || held
	}
	return held
}

func (n *Names) learnBody(path string, b []byte) bool {
	return len(b) > 0 && len(b) <= maxNameScan && n.learn(path, b)
}

func (n *Names) learn(path string, body []byte) bool {
	var matches [][][]byte
	if mayHoldName(body) {
		matches = resourceName.FindAllSubmatch(body, -1)
	}
	id := interactionID(path, body)
	if len(matches) == 0 && id == "" {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.number == nil {
		n.number, n.bare, n.counted = map[string]string{}, map[string]string{}, map[string]int{}
	}
	for _, m := range matches {
		name := string(m[0])
		if _, seen := n.number[name]; !seen {
			kind := string(m[1])
			n.counted[kind]++
			n.number[name] = kind + "/#" + strconv.Itoa(n.counted[kind])
		}
	}
	if _, seen := n.bare[id]; id != "" && !seen {
		n.counted["interactions"]++
		n.bare[id] = "interactions#" + strconv.Itoa(n.counted["interactions"])
	}
	return true
}

// interactionID is the id an Interactions API answer gives its interaction
// (a top-level "id", or "interaction_id" in a streamed event).
func interactionID(path string, body []byte) string {
	if !strings.Contains(path, "/interactions") {
		return ""
	}
	data := body
	if i := bytes.Index(data, []byte("data:")); i >= 0 {
		data = bytes.TrimSpace(data[i+len("data:"):])
	}
	var v struct {
		ID            string `json:"id"`
		InteractionID string `json:"interaction_id"`
		Interaction   struct {
			ID string `json:"id"`
		} `json:"interaction"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	for _, id := range []string{v.ID, v.InteractionID, v.Interaction.ID} {
		if id != "" {
			return id
		}
	}
	return ""
}

// Rewrite returns req with every name the run has seen replaced by its
// number, or req itself when there is nothing to replace.
func (n *Names) Rewrite(req *cassettes.Request) *cassettes.Request {
	if n == nil {
		return req
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.number) == 0 && len(n.bare) == 0 {
		return req
	}
	path, pc := n.replace([]byte(req.Path))
	query, qc := n.replace([]byte(req.Query))
	body, bc := req.Body, false
	if len(body) <= maxNameScan && !strings.HasPrefix(req.Path, "/upload/") {
		body, bc = n.replace(body)
	}
	if !pc && !qc && !bc {
		return req
	}
	out := *req
	out.Path, out.Query, out.Body = string(path), string(query), body
	return &out
}

// replace rewrites the known names in b; callers hold mu.
func (n *Names) replace(b []byte) ([]byte, bool) {
	changed := false
	if len(n.number) > 0 && mayHoldName(b) {
		b = resourceName.ReplaceAllFunc(b, func(m []byte) []byte {
			if num, ok := n.number[string(m)]; ok {
				changed = true
				return []byte(num)
			}
			return m
		})
	}
	for id, num := range n.bare {
		b, changed = replaceToken(b, id, num, changed)
	}
	return b, changed
}

// replaceToken replaces id where it stands alone: not inside a longer
// run of letters, digits, '_' or '-'.
func replaceToken(b []byte, id, num string, changed bool) ([]byte, bool) {
	if !bytes.Contains(b, []byte(id)) {
		return b, changed
	}
	var out []byte
	rest := b
	for {
		i := bytes.Index(rest, []byte(id))
		if i < 0 {
			break
		}
		end := i + len(id)
		if (i > 0 && idByte(rest[i-1])) || (end < len(rest) && idByte(rest[end])) {
			out = append(out, rest[:end]...)
			rest = rest[end:]
			continue
		}
		out = append(append(out, rest[:i]...), num...)
		rest = rest[end:]
		changed = true
	}
	return append(out, rest...), changed
}

func idByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
