package proxy

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestUnfinishedUploadsAreBoundedAndExpire: the chunks of all unfinished
// uploads together stay within the limit (--max-body); an upload whose
// last chunk is uploadExpiry old is dropped, and a cancelled one at once.
func TestUnfinishedUploadsAreBoundedAndExpire(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	u := &uploads{now: func() time.Time { return now }}
	chunk := func(id, command string, n int) error {
		r := &http.Request{Header: http.Header{}}
		r.Header.Set(headerUploadCommand, command)
		r.Header.Set(headerUploadOffset, "0")
		_, err := u.assemble("c", r, cassettes.Request{Method: "POST", Path: "/upload/v1beta/files", Query: "upload_id=" + id, Body: bytes.Repeat([]byte{1}, n)}, 100, nil)
		return err
	}
	if err := chunk("a", "upload", 60); err != nil {
		t.Fatal(err)
	}
	err := chunk("b", "upload", 50)
	if !errors.Is(err, errUpload) || !strings.Contains(err.Error(), "in all") || !strings.Contains(err.Error(), "--max-body") {
		t.Fatalf("a second upload past the limit in all: %v, want the total named with --max-body", err)
	}
	if u.heldBytes() != 60 {
		t.Fatalf("held %d bytes, want 60", u.heldBytes())
	}
	now = now.Add(uploadExpiry)
	if err := chunk("b", "upload", 50); err != nil {
		t.Fatalf("after the first upload expired: %v", err)
	}
	if u.heldBytes() != 50 || u.files["c\x00"+uploadKey("/upload/v1beta/files", "upload_id=a")] != nil {
		t.Errorf("held %d bytes, want only b's 50: a expired", u.heldBytes())
	}
	if err := chunk("b", "cancel", 0); err != nil {
		t.Fatal(err)
	}
	if u.heldBytes() != 0 {
		t.Errorf("held %d bytes after cancel, want 0", u.heldBytes())
	}
	if err := chunk("c", "upload, finalize", 100); err != nil || u.heldBytes() != 0 {
		t.Errorf("a finished upload of the whole limit: %v, held %d", err, u.heldBytes())
	}
}
