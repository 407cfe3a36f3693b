package textfmt

import "testing"

func TestIndentedJSON(t *testing.T) {
	got, err := IndentedJSON(map[string]any{"a": "<b> & c", "n": []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": \"<b> & c\",\n  \"n\": [\n    1\n  ]\n}\n"; string(got) != want {
		t.Fatalf("IndentedJSON = %q, want %q", got, want)
	}
}
