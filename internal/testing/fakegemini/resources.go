// The REST surfaces beside the model methods: resumable file uploads (on a
// host of their own), files, cached contents, batches that take several
// polls to finish, and the Interactions API. Every name it makes comes
// from a counter and NameSeed, so one Handler gives the same names for the
// same traffic and two Handlers with different seeds give different ones,
// as a re-recording against the real API would.

package fakegemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// resources is the state of the REST surfaces, kept apart from Handler's
// request log.
type resources struct {
	mu         sync.Mutex
	made       int
	uploads    map[string]*upload // by upload_id
	files      map[string]map[string]any
	caches     map[string]map[string]any
	batches    map[string]*batch
	interacted map[string]map[string]any
}

type upload struct {
	meta map[string]any
	data []byte
}

type batch struct {
	body  map[string]any
	polls int
	done  bool
}

// ResourceOptions shape the REST surfaces; the zero value is ready to use.
type ResourceOptions struct {
	// UploadURL is the base URL (scheme and host) chunks of a resumable
	// upload must go to, as the real API names a host of its own in
	// x-goog-upload-url; chunks arriving on another host are refused.
	// Empty: the host the upload was started on.
	UploadURL string
	// NameSeed goes into every name made, so two fakes differ.
	NameSeed string
	// BatchPolls is how many GETs of a batch see it running before it is
	// done (default 2).
	BatchPolls int
}

var (
	resourcePath = regexp.MustCompile(`^/(?:upload/)?v1[a-z0-9]*/(?:projects/[^/]+/locations/[^/]+/)?(files|cachedContents|batches|operations|interactions)(?:/([^/:]+))?(?::([A-Za-z]+)|/(cancel))?$`)
	batchCreate  = regexp.MustCompile(`^/v1[a-z0-9]*/models/([^/:]+):batchGenerateContent$`)
)

// serveResource answers the REST surfaces; false means the path is a model
// method for ServeHTTP.
func (h *Handler) serveResource(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if m := batchCreate.FindStringSubmatch(r.URL.Path); m != nil {
		h.res.createBatch(w, m[1], body, h.ResourceOptions)
		return true
	}
	if strings.HasSuffix(r.URL.Path, ":generateContent") && !h.res.cacheKnown(body) {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: cachedContent does not exist: "+string(body))
		return true
	}
	m := resourcePath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		return false
	}
	kind, id, verb := m[1], m[2], m[3]+m[4]
	o := h.ResourceOptions
	res := &h.res
	switch {
	case kind == "files" && strings.HasPrefix(r.URL.Path, "/upload/"):
		res.upload(w, r, body, o)
	case kind == "files":
		res.crud(w, r, body, o, "files", id, &res.files)
	case kind == "cachedContents":
		res.crud(w, r, body, o, "cachedContents", id, &res.caches)
	case kind == "batches" || kind == "operations":
		res.batchCall(w, r, kind+"/"+id, verb, o)
	case kind == "interactions":
		res.interaction(w, r, body, id, o)
	default:
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: no such method: "+r.URL.Path)
	}
	return true
}

// name makes the next name of a kind; callers hold mu.
func (s *resources) name(kind string, o ResourceOptions) string {
	s.made++
	return fmt.Sprintf("%s/%s%s%03d", kind, strings.ToLower(kind[:1]), o.NameSeed, s.made)
}

// upload speaks the resumable upload protocol: start on the API host,
// chunks on the upload host at strictly increasing offsets.
func (s *resources) upload(w http.ResponseWriter, r *http.Request, body []byte, o ResourceOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uploads == nil {
		s.uploads = map[string]*upload{}
	}
	command := r.Header.Get("X-Goog-Upload-Command")
	if command == "start" {
		if r.Header.Get("X-Goog-Upload-Protocol") != "resumable" {
			writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "fakegemini: only X-Goog-Upload-Protocol: resumable")
			return
		}
		var meta struct {
			File map[string]any `json:"file"`
		}
		if err := json.Unmarshal(body, &meta); err != nil {
			writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "fakegemini: start body is not JSON")
			return
		}
		id := strings.TrimPrefix(s.name("files", o), "files/")
		s.uploads["u"+id] = &upload{meta: meta.File}
		base := o.UploadURL
		if base == "" {
			base = "http://" + r.Host
		}
		w.Header().Set("X-Goog-Upload-Url", base+"/upload/v1beta/files?key=fake-upload-key&upload_id=u"+id+"&upload_protocol=resumable")
		w.Header().Set("X-Goog-Upload-Status", "active")
		w.Header().Set("X-Goog-Upload-Chunk-Granularity", "8388608")
		w.WriteHeader(http.StatusOK)
		return
	}
	if o.UploadURL != "" && !strings.HasSuffix(o.UploadURL, "://"+r.Host) {
		writeError(w, http.StatusMisdirectedRequest, "INVALID_ARGUMENT", "fakegemini: upload chunks go to "+o.UploadURL+", not "+r.Host)
		return
	}
	id := r.URL.Query().Get("upload_id")
	up := s.uploads[id]
	if up == nil {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: no upload "+id)
		return
	}
	if off, err := strconv.Atoi(r.Header.Get("X-Goog-Upload-Offset")); err != nil || off != len(up.data) {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("fakegemini: offset %q, want %d", r.Header.Get("X-Goog-Upload-Offset"), len(up.data)))
		return
	}
	up.data = append(up.data, body...)
	w.Header().Set("X-Goog-Upload-Size-Received", strconv.Itoa(len(up.data)))
	if !strings.Contains(command, "finalize") {
		w.Header().Set("X-Goog-Upload-Status", "active")
		w.WriteHeader(http.StatusOK)
		return
	}
	delete(s.uploads, id)
	name := "files/" + strings.TrimPrefix(id, "u")
	f := map[string]any{"name": name, "sizeBytes": strconv.Itoa(len(up.data)), "sha256Hash": shortHash(up.data),
		"uri": "https://generativelanguage.googleapis.com/v1beta/" + name, "state": "ACTIVE",
		"createTime": "2026-01-01T00:00:00Z", "mimeType": "application/octet-stream"}
	for k, v := range up.meta {
		f[k] = v
	}
	if s.files == nil {
		s.files = map[string]map[string]any{}
	}
	s.files[name] = f
	w.Header().Set("X-Goog-Upload-Status", "final")
	writeJSON(w, map[string]any{"file": f})
}

// crud serves a collection of plain resources: create (POST), get, list,
// patch and delete.
func (s *resources) crud(w http.ResponseWriter, r *http.Request, body []byte, o ResourceOptions, kind, id string, store *map[string]map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if *store == nil {
		*store = map[string]map[string]any{}
	}
	name := kind + "/" + id
	var in map[string]any
	if len(body) > 0 && json.Unmarshal(body, &in) != nil {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "fakegemini: body is not JSON")
		return
	}
	switch {
	case r.Method == http.MethodPost && id == "":
		name = s.name(kind, o)
		in["name"] = name
		in["createTime"], in["updateTime"], in["expireTime"] = "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"
		in["usageMetadata"] = map[string]any{"totalTokenCount": len(string(body)) / 4}
		delete(in, "ttl")
		(*store)[name] = in
		writeJSON(w, in)
	case r.Method == http.MethodGet && id == "":
		var list []any
		for _, k := range slices.Sorted(mapKeys(*store)) {
			list = append(list, (*store)[k])
		}
		writeJSON(w, map[string]any{kind: list})
	case (*store)[name] == nil:
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: "+name+" does not exist")
	case r.Method == http.MethodGet:
		writeJSON(w, (*store)[name])
	case r.Method == http.MethodPatch:
		(*store)[name]["updateTime"] = "2026-01-01T00:30:00Z"
		if ttl, ok := in["ttl"].(string); ok {
			(*store)[name]["expireTime"] = "2026-01-01T02:00:00Z (ttl " + ttl + ")"
		}
		writeJSON(w, (*store)[name])
	case r.Method == http.MethodDelete:
		delete(*store, name)
		writeJSON(w, map[string]any{})
	default:
		writeError(w, http.StatusMethodNotAllowed, "INVALID_ARGUMENT", "fakegemini: "+r.Method+" "+name)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// cacheKnown reports whether a generateContent body names no cached
// content or one that exists.
func (s *resources) cacheKnown(body []byte) bool {
	var req struct {
		CachedContent string `json:"cachedContent"`
	}
	if json.Unmarshal(body, &req) != nil || req.CachedContent == "" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := strings.Index(req.CachedContent, "cachedContents/")
	return i >= 0 && s.caches[req.CachedContent[i:]] != nil
}

// createBatch starts a batch of inline requests or of a file's requests.
func (s *resources) createBatch(w http.ResponseWriter, model string, body []byte, o ResourceOptions) {
	var in struct {
		Batch struct {
			DisplayName string `json:"displayName"`
			InputConfig struct {
				FileName string `json:"fileName"`
				Requests struct {
					Requests []struct {
						Request generateRequest `json:"request"`
					} `json:"requests"`
				} `json:"requests"`
			} `json:"inputConfig"`
		} `json:"batch"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "fakegemini: batch body: "+err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batches == nil {
		s.batches = map[string]*batch{}
	}
	name := s.name("batches", o)
	meta := map[string]any{"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
		"name": name, "model": "models/" + model, "displayName": in.Batch.DisplayName, "createTime": "2026-01-01T00:00:00Z",
		"state": "BATCH_STATE_PENDING"}
	var output map[string]any
	if f := in.Batch.InputConfig.FileName; f != "" {
		if s.files[f] == nil {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: input file "+f+" does not exist")
			return
		}
		output = map[string]any{"responsesFile": s.name("files", o)}
	} else {
		var answers []any
		for _, q := range in.Batch.InputConfig.Requests.Requests {
			answers = append(answers, map[string]any{"response": answer(model, &q.Request, q.Request.reply(), true)})
		}
		output = map[string]any{"inlinedResponses": map[string]any{"inlinedResponses": answers}}
	}
	b := &batch{body: map[string]any{"name": name, "metadata": meta}}
	meta["output"] = output
	s.batches[name] = b
	writeJSON(w, redactOutput(b.body))
}

// redactOutput is a batch as seen before it is done: no output yet.
func redactOutput(b map[string]any) map[string]any {
	meta := map[string]any{}
	for k, v := range b["metadata"].(map[string]any) {
		if k != "output" {
			meta[k] = v
		}
	}
	return map[string]any{"name": b["name"], "metadata": meta}
}

// batchCall serves get, list and cancel of batches; a batch is running
// for BatchPolls gets, then done.
func (s *resources) batchCall(w http.ResponseWriter, r *http.Request, name, verb string, o ResourceOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == "batches/" && r.Method == http.MethodGet {
		var list []any
		for _, k := range slices.Sorted(mapKeys(s.batches)) {
			list = append(list, s.view(s.batches[k]))
		}
		writeJSON(w, map[string]any{"operations": list})
		return
	}
	b := s.batches[name]
	if b == nil && strings.HasPrefix(name, "operations/") {
		b = s.batches["batches/"+strings.TrimPrefix(name, "operations/")]
	}
	if b == nil {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: "+name+" does not exist")
		return
	}
	meta := b.body["metadata"].(map[string]any)
	switch {
	case verb == "cancel" && r.Method == http.MethodPost:
		meta["state"] = "BATCH_STATE_CANCELLED"
		b.done = true
		writeJSON(w, map[string]any{})
	case r.Method == http.MethodGet:
		polls := o.BatchPolls
		if polls == 0 {
			polls = 2
		}
		b.polls++
		if !b.done && b.polls > polls {
			b.done = true
			meta["state"] = "BATCH_STATE_SUCCEEDED"
			meta["endTime"] = "2026-01-01T00:05:00Z"
		} else if !b.done {
			meta["state"] = "BATCH_STATE_RUNNING"
		}
		writeJSON(w, s.view(b))
	default:
		writeError(w, http.StatusMethodNotAllowed, "INVALID_ARGUMENT", "fakegemini: "+r.Method+" "+name)
	}
}

// view is a batch as a get shows it; callers hold mu.
func (s *resources) view(b *batch) map[string]any {
	if !b.done {
		return redactOutput(b.body)
	}
	out := map[string]any{"name": b.body["name"], "metadata": b.body["metadata"], "done": true}
	if meta := b.body["metadata"].(map[string]any); meta["state"] == "BATCH_STATE_SUCCEEDED" {
		out["response"] = meta["output"]
	}
	return out
}

// interaction serves the Interactions API: create (answering the input
// text, and refusing a previous_interaction_id it did not make) and get.
func (s *resources) interaction(w http.ResponseWriter, r *http.Request, body []byte, id string, o ResourceOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interacted == nil {
		s.interacted = map[string]map[string]any{}
	}
	if r.Method == http.MethodGet {
		if it := s.interacted[id]; it != nil {
			writeJSON(w, it)
			return
		}
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: interaction "+id+" does not exist")
		return
	}
	var in struct {
		Model    string          `json:"model"`
		Input    json.RawMessage `json:"input"`
		Previous string          `json:"previous_interaction_id"`
	}
	if r.Method != http.MethodPost || id != "" || json.Unmarshal(body, &in) != nil {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "fakegemini: want POST /{v}/interactions with a JSON body")
		return
	}
	turn := 1
	if in.Previous != "" {
		prev := s.interacted[in.Previous]
		if prev == nil {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: previous_interaction_id "+in.Previous+" does not exist")
			return
		}
		turn = prev["turn"].(int) + 1
	}
	var text string
	if json.Unmarshal(in.Input, &text) != nil {
		text = string(in.Input)
	}
	newID := "v1_" + strings.TrimPrefix(s.name("interactions", o), "interactions/")
	it := map[string]any{"id": newID, "model": in.Model, "status": "completed", "role": "model", "turn": turn,
		"outputs": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Turn %d: you said %s", turn, text)}},
		"usage":   map[string]any{"total_tokens": len(strings.Fields(text)) + turn}}
	if in.Previous != "" {
		it["previous_interaction_id"] = in.Previous
	}
	s.interacted[newID] = it
	writeJSON(w, it)
}

// shortHash is what the API reports as a file's sha256Hash.
func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
