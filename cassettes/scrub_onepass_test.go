package cassettes

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// referenceBytes is scrubbing as it was before the one-pass search: each
// form of each secret, longest first, is looked for in the whole body and
// replaced. The one-pass Bytes must give the same bytes.
func referenceBytes(needles []needle, b []byte) []byte {
	for _, n := range needles {
		if find(b, n.form, 0) < 0 {
			continue
		}
		var out []byte
		last := 0
		for i := find(b, n.form, 0); i >= 0; i = find(b, n.form, last) {
			out = append(append(out, b[last:i]...), Placeholder...)
			last = i + len(n.form)
		}
		b = append(out, b[last:]...)
	}
	return b
}

// referenceScan is Scan as it was before the one-pass search.
func referenceScan(needles []needle, data []byte) error {
	for _, n := range needles {
		if i := find(data, n.form, 0); i >= 0 {
			line := 1 + bytes.Count(data[:i], []byte("\n"))
			return fmt.Errorf("%w: %s appears at line %d; nothing was written", ErrSecretLeak, n.label, line)
		}
	}
	return nil
}

// checkAgainstReference fails unless Bytes and Scan of body agree with the
// reference implementations.
func checkAgainstReference(t *testing.T, r *Redactor, body []byte) {
	t.Helper()
	orig := append([]byte(nil), body...)
	want := referenceBytes(r.needles, append([]byte(nil), body...))
	got := r.Bytes(body)
	if !bytes.Equal(got, want) {
		t.Fatalf("Bytes differs from the reference\nbody %q\n got %q\nwant %q", body, got, want)
	}
	if !bytes.Equal(body, orig) {
		t.Fatalf("Bytes modified its input")
	}
	gotErr, wantErr := r.Scan(body), referenceScan(r.needles, body)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("Scan differs from the reference on %q: %v, want %v", body, gotErr, wantErr)
	}
}

// randomSecret draws from letters of the placeholder, digits, and the
// characters encoders escape, so that secrets overlap one another and the
// placeholder and their encoded forms differ.
func randomSecret(rng *rand.Rand) string {
	const alphabet = "REDACTEDredacted0123456789xyz-_/+='\"<>&% é✓"
	runes := []rune(alphabet)
	n := 1 + rng.Intn(24)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(runes[rng.Intn(len(runes))])
	}
	return b.String()
}

// randomBody mixes filler, pieces of the placeholder and the secrets'
// stored forms (every encoding, whole or cut short).
func randomBody(rng *rand.Rand, r *Redactor) []byte {
	var b []byte
	for parts := rng.Intn(30); parts > 0; parts-- {
		switch rng.Intn(5) {
		case 0:
			b = append(b, randomSecret(rng)...)
		case 1:
			p := Placeholder[rng.Intn(len(Placeholder)):]
			b = append(b, p[:rng.Intn(len(p)+1)]...)
		case 2:
			b = append(b, "\n \"{}:,"[rng.Intn(7)])
		default:
			if len(r.needles) > 0 {
				f := r.needles[rng.Intn(len(r.needles))].form
				if rng.Intn(4) == 0 {
					f = f[:rng.Intn(len(f)+1)]
				}
				b = append(b, f...)
			}
		}
	}
	return b
}

// TestScrubMatchesReference: over random bodies holding random secrets in
// every stored form, one-pass scrubbing and scanning give exactly what
// the form-by-form reference gives.
func TestScrubMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(25))
	for round := 0; round < 3000; round++ {
		var secrets []string
		for n := rng.Intn(4); n >= 0; n-- {
			secrets = append(secrets, randomSecret(rng))
		}
		r := NewRedactor(secrets...)
		for i := 0; i < 5; i++ {
			checkAgainstReference(t, r, randomBody(rng, r))
		}
	}
	// The cases that make the order matter: a shorter secret completed by
	// the placeholder a longer one left, and secrets inside the placeholder.
	for _, c := range []struct {
		secrets []string
		body    string
	}{
		{[]string{"abcdefgh", "TEDq"}, "xxabcdefghq"},
		{[]string{"abcdefgh", "qRED"}, "qabcdefgh"},
		{[]string{"abcdefgh", "DACTEDx"}, "abcdefghx"},
		{[]string{"ACT", "RED"}, "RED team ACTS; REDACTED stays xREDACTEDACT"},
		{[]string{"abcdefgh", "xab"}, "xabcdefgh"},
		{[]string{"REDACTED-key-1"}, "REDACTED-key-1 REDACTED"},
		chainedSecrets(30),
	} {
		checkAgainstReference(t, NewRedactor(c.secrets...), []byte(c.body))
	}
}

// chainedSecrets: each placeholder put in completes the next secret
// ("D" + seven letters after "REDACTED"), so replacements walk 7 bytes a
// secret past any window sized by the longest form.
func chainedSecrets(n int) (c struct {
	secrets []string
	body    string
}) {
	c.secrets = []string{"abcdefghijklmnop"}
	c.body = "<" + c.secrets[0]
	for i := 0; i < n; i++ {
		run := strings.Repeat(string(rune('a'+i%26))+string(rune('A'+i/26)), 4)[1:]
		c.secrets = append(c.secrets, "D"+run)
		c.body += run
	}
	c.body += ">" + strings.Repeat(" ", 300) + c.secrets[0]
	return c
}

// FuzzScrub: whatever the secrets and the body, one-pass scrubbing and
// scanning agree with the reference. The body also gets the secrets'
// stored forms spliced in where its bytes say.
func FuzzScrub(f *testing.F) {
	f.Add("AIzaSyFuzzKey-0123456789", "TEDq", []byte("x AIzaSyFuzzKey-0123456789 y"), uint8(3))
	f.Add("abcdefgh", "DACTEDx", []byte("abcdefghx"), uint8(0))
	f.Add("ACT", "RED", []byte("RED team ACTS; REDACTED"), uint8(7))
	f.Fuzz(func(t *testing.T, s1, s2 string, body []byte, seed uint8) {
		r := NewRedactor(s1, s2)
		if len(r.needles) > 0 && len(body) < 1<<16 {
			var spliced []byte
			for i, c := range body {
				spliced = append(spliced, c)
				if (int(c)+i)%7 == int(seed)%7 {
					spliced = append(spliced, r.needles[(int(c)+int(seed))%len(r.needles)].form...)
				}
			}
			body = spliced
		}
		checkAgainstReference(t, r, body)
	})
}

// benchBody is 16 MiB of JSON-like text holding three learned keys, each
// a few times in a few of its forms.
func benchBody(tb testing.TB) (*Redactor, []byte) {
	keys := []string{"AIzaSyBenchKey-000000000000000000001", "ya29.bench-token-abcdefghijklmnopqrstuvwxyz", "sk-bench-0123456789abcdefABCDEF"}
	r := NewRedactor(keys...)
	rng := rand.New(rand.NewSource(1))
	var b bytes.Buffer
	for b.Len() < 16<<20 {
		fmt.Fprintf(&b, `{"role":"model","parts":[{"text":"step %d of the plan, nothing secret in it %x"}]},`+"\n", rng.Intn(1000), rng.Int63())
		if rng.Intn(20000) == 0 {
			b.WriteString(encodedForms(keys[rng.Intn(len(keys))])[0])
		}
	}
	for _, k := range keys {
		b.WriteString(k)
	}
	if errors.Is(r.Scan(b.Bytes()), ErrSecretLeak) == false {
		tb.Fatal("the bench body holds no secret")
	}
	return r, b.Bytes()
}

// BenchmarkScrub16MiB: one-pass scrubbing of a 16 MiB body with three
// secrets; BenchmarkScrub16MiBReference is the form-by-form search it
// replaced, in the same binary, for paired runs.
func BenchmarkScrub16MiB(b *testing.B) {
	r, body := benchBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r.Bytes(body)
	}
}

func BenchmarkScrub16MiBReference(b *testing.B) {
	r, body := benchBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		referenceBytes(r.needles, body)
	}
}

// BenchmarkScan16MiB: the leak scan of what is about to be written (a
// clean 16 MiB body: every form is looked for).
func BenchmarkScan16MiB(b *testing.B) {
	r, body := benchBody(b)
	clean := r.Bytes(body)
	b.SetBytes(int64(len(clean)))
	b.ReportAllocs()
	for b.Loop() {
		if r.Scan(clean) != nil {
			b.Fatal("leak")
		}
	}
}

func BenchmarkScan16MiBReference(b *testing.B) {
	r, body := benchBody(b)
	clean := r.Bytes(body)
	b.SetBytes(int64(len(clean)))
	b.ReportAllocs()
	for b.Loop() {
		if referenceScan(r.needles, clean) != nil {
			b.Fatal("leak")
		}
	}
}
