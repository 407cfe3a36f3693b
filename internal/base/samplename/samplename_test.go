package samplename

import "testing"

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		n          int
	}{
		{"weather@1", "weather", 1},
		{"suite/TestX@12", "suite/TestX", 12},
		{"user@example.com", "user@example.com", 0},
		{"weather", "weather", 0},
		{"weather@", "weather@", 0},
		{"@3", "@3", 0},
		{"suite/@3", "suite/@3", 0},
		{"weather@03", "weather@03", 0},
		{"weather@0", "weather@0", 0},
		{"weather@10000", "weather@10000", 0},
		{"weather@9999", "weather", 9999},
		{"a@b@2", "a@b", 2},
	} {
		base, n := Split(tc.name)
		if base != tc.base || n != tc.n {
			t.Errorf("Split(%q) = %q, %d; want %q, %d", tc.name, base, n, tc.base, tc.n)
		}
		if tc.n > 0 && Name(base, n) != tc.name {
			t.Errorf("Name(%q, %d) = %q; want %q", base, n, Name(base, n), tc.name)
		}
	}
	if Name("x", 0) != "x" {
		t.Errorf("Name(x, 0) = %q", Name("x", 0))
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"a@1", "a", "a@b@2", "@", "x/@9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		base, n := Split(name)
		if n == 0 && base != name {
			t.Fatalf("Split(%q) changed a name that is no sample: %q", name, base)
		}
		if n > 0 && Name(base, n) != name {
			t.Fatalf("Name(Split(%q)) = %q", name, Name(base, n))
		}
	})
}
