// Resumable uploads: the upload URL the API hands out is pointed back at
// adkproxy, chunks are forwarded to the host it named, and an upload's
// chunks are put back together so the file is stored once.

package proxy

// The protocol: POST {base}/upload/{v}/files with X-Goog-Upload-Command:
// start answers with x-goog-upload-url, often on another host and carrying
// the key. Chunks go there (X-Goog-Upload-Command: upload, the last
// "upload, finalize", X-Goog-Upload-Offset) while the answers say
// x-goog-upload-status: active. JS and Go put the URL's scheme and host
// back to their base URL, Python posts to it verbatim: adkproxy therefore
// hands out a URL on itself (same path and query, key removed) and keeps
// the original to forward the chunks to.
//
// Stored: the start exchange (its x-goog-upload-url as the upstream gave
// it, key removed), one exchange per chunk without its bytes, and on the
// finalizing chunk the whole file (in a side file from
// sidefile.Threshold). Replay puts the client's chunks together
// the same way, so the file is compared once, however it was cut.

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/sidefile"
)

const (
	headerUploadURL     = "X-Goog-Upload-Url"
	headerUploadCommand = "X-Goog-Upload-Command"
	headerUploadOffset  = "X-Goog-Upload-Offset"
)

// uploadExpiry is how long an unfinished upload's chunks are kept after
// its last chunk: a client that gave up never sends the final one.
const uploadExpiry = 10 * time.Minute

// uploads is what the server remembers of the uploads under way.
type uploads struct {
	mu sync.Mutex
	// origins: the upstream URL (key included) of each upload URL handed
	// out, by its path and scrubbed query.
	origins map[string]string
	// files: the chunks so far of each upload, by cassette, path and query.
	files map[string]*chunkAssembler
	// held is the bytes all of files hold: at most the limit (--max-body)
	// in all, so many unfinished uploads cannot exhaust memory.
	held int64
	now  func() time.Time // time.Now; tests move it
}

// uploadCommand lists the words of X-Goog-Upload-Command ("upload",
// "finalize", "start", "query", "cancel").
func uploadCommand(h http.Header) []string {
	v := h.Get(headerUploadCommand)
	if v == "" {
		return nil // most requests: nothing to split
	}
	var words []string
	for _, w := range strings.Split(v, ",") {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			words = append(words, w)
		}
	}
	return words
}

func hasWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// handOut points the x-goog-upload-url of an upstream answer at the path and
// scrubbed query, keeping the original to forward chunks to, and leaves the
// scrubbed upstream URL in h (what the cassette stores).
func (u *uploads) handOut(h http.Header, red *cassettes.Redactor) {
	raw := h.Get(headerUploadURL)
	if raw == "" {
		return
	}
	target, err := url.Parse(raw)
	if err != nil || target.Host == "" {
		return // not a URL we can forward to; passed on as it is
	}
	scrubbed := *target
	scrubbed.RawQuery = red.Query(target.RawQuery)
	u.mu.Lock()
	if u.origins == nil {
		u.origins = map[string]string{}
	}
	u.origins[uploadKey(scrubbed.EscapedPath(), scrubbed.RawQuery)] = raw
	u.mu.Unlock()
	h.Set(headerUploadURL, scrubbed.String())
}

// origin is the upstream URL to forward a chunk for path and query to.
func (u *uploads) origin(path, query string) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.origins) == 0 {
		return "", false // no upload under way: every forwarded call asks
	}
	o, ok := u.origins[uploadKey(path, query)]
	return o, ok
}

func uploadKey(path, query string) string { return path + "?" + query }

// pointHere rewrites a stored x-goog-upload-url to this proxy, as r reached
// it: a client that posts chunks to the URL verbatim (Python) comes back
// here, and one that swaps in its base URL does too.
func pointHere(h http.Header, r *http.Request) {
	raw := h.Get(headerUploadURL)
	if raw == "" {
		return
	}
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	u.Scheme, u.Host = "http", r.Host
	if r.TLS != nil || r.URL.Scheme == "https" { // TLS to adkproxy, or intercepted by the forward proxy
		u.Scheme = "https"
	}
	h.Set(headerUploadURL, u.String())
}

// errUpload: the chunks of an upload do not fit together.
var errUpload = errors.New("upload chunks do not fit together")

// assemble gives the request of an upload chunk its stored form: no bytes
// for a chunk the upload goes on after, the whole file for the finalizing
// one. Other requests come back unchanged, and so does a chunk for which
// known (when set: replay) says the cassette holds no recording: its bytes
// can only be a miss, and are not kept.
func (u *uploads) assemble(cassette string, r *http.Request, req cassettes.Request, limit int64, known func(path, query string) bool) (cassettes.Request, error) {
	words := uploadCommand(r.Header)
	if len(words) == 0 { // not an upload chunk: every model call
		return req, nil
	}
	key := cassette + "\x00" + uploadKey(req.Path, req.Query)
	if hasWord(words, "cancel") {
		u.mu.Lock()
		u.drop(key)
		u.mu.Unlock()
	}
	if !hasWord(words, "upload") || !strings.HasPrefix(req.Path, "/upload/") {
		return req, nil
	}
	offset, err := strconv.ParseInt(strings.TrimSpace(r.Header.Get(headerUploadOffset)), 10, 64)
	if err != nil {
		return req, fmt.Errorf("%w: %s %q is not a byte offset", errUpload, headerUploadOffset, r.Header.Get(headerUploadOffset))
	}
	if known != nil && !known(req.Path, req.Query) {
		if offset != 0 {
			return req, (&chunkAssembler{limit: limit}).add(offset, nil) // says what is wrong, keeping nothing
		}
		return req, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.clock()
	u.expire(now)
	if u.files == nil {
		u.files = map[string]*chunkAssembler{}
	}
	a := u.files[key]
	if a == nil {
		a = &chunkAssembler{limit: limit}
	}
	before := int64(len(a.data))
	if grows := offset + int64(len(req.Body)) - before; grows > 0 && u.held+grows > limit && offset+int64(len(req.Body)) <= limit {
		return req, fmt.Errorf("%w: unfinished uploads would hold more than %d bytes in all (finish or cancel the others, or raise --max-body)", errUpload, limit)
	}
	if err := a.add(offset, req.Body); err != nil {
		return req, err
	}
	u.held += int64(len(a.data)) - before
	a.touched = now
	u.files[key] = a
	if hasWord(words, "finalize") {
		u.drop(key)
		req.Body = a.data
		return req, nil
	}
	req.Body = nil
	return req, nil
}

func (u *uploads) clock() time.Time {
	if u.now != nil {
		return u.now()
	}
	return time.Now()
}

// drop forgets an upload's chunks; callers hold u.mu.
func (u *uploads) drop(key string) {
	if a := u.files[key]; a != nil {
		u.held -= int64(len(a.data))
		delete(u.files, key)
	}
}

// expire drops the uploads whose last chunk came uploadExpiry ago or more;
// callers hold u.mu.
func (u *uploads) expire(now time.Time) {
	for key, a := range u.files {
		if now.Sub(a.touched) >= uploadExpiry {
			u.drop(key)
		}
	}
}

// heldBytes is what unfinished uploads hold now.
func (u *uploads) heldBytes() int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.held
}

// hasUploadAt: the cassette recorded a request to this upload URL.
func (t *tape) hasUploadAt(path, query string) bool {
	for _, rec := range t.requests() {
		if rec.Path == path && rec.Query == query {
			return true
		}
	}
	return false
}

// storeUpload moves a recorded upload's file to a side file when it is
// large; in memory the exchange keeps the bytes.
func (s *Server) storeUpload(t *tape, x *cassettes.Exchange) error {
	body := x.Request.Body
	if !t.persist || len(body) < sidefile.Threshold || !strings.HasPrefix(x.Request.Path, "/upload/") {
		return nil
	}
	if err := s.cfg.Redactor.Scan(body); err != nil {
		return err // left in the cassette, whose save refuses it the same way
	}
	name, err := sidefile.Write(s.cfg.Dir, t.path, body)
	if err != nil {
		return err
	}
	x.Request.BodyFile = name
	return nil
}

// chunkAssembler puts an upload's chunks together by their offsets.
type chunkAssembler struct {
	data    []byte
	limit   int64
	touched time.Time // when its last chunk came
}

// add places chunk at offset. A chunk must start within what came so far:
// starting before its end is a resend, whose overlap must agree with what
// came; starting after it would leave a gap.
func (a *chunkAssembler) add(offset int64, chunk []byte) error {
	have := int64(len(a.data))
	switch {
	case offset < 0:
		return fmt.Errorf("%w: offset %d is negative", errUpload, offset)
	case offset > have:
		return fmt.Errorf("%w: a chunk at offset %d, but only %d bytes came before it (a chunk is missing)", errUpload, offset, have)
	case offset+int64(len(chunk)) > a.limit:
		return fmt.Errorf("%w: the upload grows past %d bytes (raise --max-body)", errUpload, a.limit)
	}
	overlap := min(have-offset, int64(len(chunk)))
	if !bytes.Equal(a.data[offset:offset+overlap], chunk[:overlap]) {
		return fmt.Errorf("%w: the chunk at offset %d differs from the bytes already sent there", errUpload, offset)
	}
	a.data = append(a.data, chunk[overlap:]...)
	return nil
}

// uploadChunk gives an upload chunk its stored form (see assemble); ok is
// false when it has answered: replay refuses chunks that do not fit
// together, while a recording passes them on as sent and keeps them whole.
func (s *Server) uploadChunk(w http.ResponseWriter, r *http.Request, t *tape, req cassettes.Request) (cassettes.Request, bool) {
	var known func(path, query string) bool
	if !t.recording {
		known = t.hasUploadAt
	}
	out, err := s.uploads.assemble(t.name, r, req, s.cfg.MaxBody, known)
	if err == nil {
		return out, true
	}
	if t.recording {
		s.log.Warn("upload chunk kept as sent", "cassette", t.name, "path", req.Path, "error", err.Error())
		return req, true
	}
	s.report.failed()
	writeError(w, http.StatusBadRequest, statusInvalidArgument, fmt.Sprintf("cassette %q: %s %s: %v", t.name, req.Method, pathAndQuery(&req), err))
	return req, false
}

// explainUpload says how an uploaded file differs from the one recorded
// for the same upload URL; ok is false when req is not a finalized upload
// or nothing was recorded for its URL.
func (t *tape) explainUpload(req *cassettes.Request) (string, bool) {
	if !strings.HasPrefix(req.Path, "/upload/") || len(req.Body) == 0 {
		return "", false
	}
	for _, rec := range t.requests() {
		if rec.Method != req.Method || rec.Path != req.Path || rec.Query != req.Query || len(rec.Body) == 0 {
			continue
		}
		at := 0
		for at < min(len(rec.Body), len(req.Body)) && rec.Body[at] == req.Body[at] {
			at++
		}
		return fmt.Sprintf("the uploaded file differs from the recorded one: recorded %d bytes (%s), got %d bytes (%s), first difference at byte %d",
			len(rec.Body), sidefile.Name(rec.Body), len(req.Body), sidefile.Name(req.Body), at), true
	}
	return "", false
}
