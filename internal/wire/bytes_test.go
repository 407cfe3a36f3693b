package wire

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// TestBytesFieldsCoverGenai: every []byte field genai sends in a model
// call (a request's config and history, a Live client message) is one of
// BytesFields at the key it is sent under. Image and video bytes, which
// genai sends under other keys than its own (bytesBase64Encoded,
// encodedVideo), are listed by those keys.
func TestBytesFieldsCoverGenai(t *testing.T) {
	fields := BytesFields()
	covered := func(in, key string) bool {
		return slices.ContainsFunc(fields, func(f BytesField) bool { return f.Key == key && (f.In == "" || f.In == in) })
	}
	found := 0
	seen := map[string]bool{}
	var walk func(tp reflect.Type, in, path string)
	walk = func(tp reflect.Type, in, path string) {
		for tp.Kind() == reflect.Pointer || tp.Kind() == reflect.Slice && tp.Elem().Kind() != reflect.Uint8 || tp.Kind() == reflect.Map {
			tp = tp.Elem()
		}
		if tp.Kind() != reflect.Struct || seen[tp.String()+" "+in] {
			return
		}
		seen[tp.String()+" "+in] = true
		for i := range tp.NumField() {
			f := tp.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Uint8 {
				found++
				if !covered(in, name) {
					t.Errorf("%s.%s (%s.%s) holds bytes and is not in BytesFields", path, name, tp.Name(), f.Name)
				}
				continue
			}
			walk(f.Type, name, path+"."+name)
		}
	}
	for _, v := range []any{genai.GenerateContentConfig{}, genai.Content{}, genai.LiveClientMessage{}} {
		tp := reflect.TypeOf(v)
		walk(tp, "", tp.Name())
	}
	if found < 5 {
		t.Fatalf("only %d byte fields found in genai's types: is the walk reading them?", found)
	}
	for _, key := range []string{"bytesBase64Encoded", "encodedVideo"} {
		if !covered("image", key) {
			t.Errorf("%s is not in BytesFields", key)
		}
	}
}
