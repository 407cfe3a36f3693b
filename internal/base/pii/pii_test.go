package pii

import (
	"strings"
	"testing"
)

func kinds(fs []Finding, text string) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Kind)+":"+text[f.Start:f.End])
	}
	return out
}

func TestPersonalDataFindsEachKind(t *testing.T) {
	text := "Mail ada.lovelace+eval@example.co.uk or call +44 20 7946 0958, US (555) 123-4567, " +
		"card 4111 1111 1111 1111, also 5500-0000-0000-0004."
	got := kinds(PersonalData(text), text)
	want := []string{
		"email:ada.lovelace+eval@example.co.uk",
		"phone:+44 20 7946 0958",
		"phone:(555) 123-4567",
		"card:4111 1111 1111 1111",
		"card:5500-0000-0000-0004",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func TestPersonalDataLeavesNumbersAlone(t *testing.T) {
	for _, text := range []string{
		"Order 4111111111111112 shipped",       // 16 digits failing Luhn
		"It is 21 degrees at 2026-12-02 10:00", // dates and times
		"version 1.18.0, 1234567 tokens",       // counts
		"call get_weather(city=\"Paris\")",
		"user@localhost has no domain",
	} {
		if got := PersonalData(text); len(got) != 0 {
			t.Errorf("%q: found %q", text, kinds(got, text))
		}
	}
}

func TestSecretsFindsKeyShapes(t *testing.T) {
	text := "key AIzaSyA1234567890abcdefghijklmnopqrstuv and sk-proj-abcdefghijklmnopqrstuvwx12 " +
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789 AKIAIOSFODNN7EXAMPLE " +
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345 -----BEGIN RSA PRIVATE KEY-----"
	got := Secrets(text)
	var rules []string
	for _, f := range got {
		rules = append(rules, f.Rule)
	}
	want := "Google API key|OpenAI API key|GitHub token|AWS access key id|bearer token|private key"
	if strings.Join(rules, "|") != want {
		t.Fatalf("rules %q, want %q", rules, want)
	}
	if s := Secrets("the weather in Paris is sunny, skies clear"); len(s) != 0 {
		t.Fatalf("plain text flagged: %+v", s)
	}
}

func FuzzPersonalData(f *testing.F) {
	f.Add("ada@example.com +1 415 555 0100 4111-1111-1111-1111")
	f.Add(strings.Repeat("1-", 40))
	f.Fuzz(func(t *testing.T, s string) {
		for _, fd := range append(PersonalData(s), Secrets(s)...) {
			if fd.Start < 0 || fd.End > len(s) || fd.Start >= fd.End {
				t.Fatalf("bad span %+v in %q", fd, s)
			}
		}
		prev := -1
		for _, fd := range PersonalData(s) {
			if fd.Start < prev {
				t.Fatalf("overlapping findings in %q", s)
			}
			prev = fd.End
		}
	})
}
