// Package pii finds personal data and secrets in text by rule: email
// addresses, phone numbers, payment card numbers (Luhn-checked), and the
// shapes of well-known API keys and tokens. It finds; callers decide
// whether to fail (scoring's no_personal_data and no_secrets checks) or to
// replace. The rules favour precision: a number is a phone number only
// with a leading + or the separators phone numbers are written with, so
// that ids, counts and timestamps are not flagged.
package pii

import (
	"regexp"
	"sort"
)

// Kind is what a finding is.
type Kind string

// The kinds of findings.
const (
	Email Kind = "email"
	Phone Kind = "phone"
	Card  Kind = "card"
	Token Kind = "token"
)

// Finding is one match: its kind, the rule's name and where it is in the
// text (byte offsets, End exclusive).
type Finding struct {
	Kind       Kind
	Rule       string
	Start, End int
}

type rule struct {
	kind Kind
	name string
	re   *regexp.Regexp
	// valid, when set, must accept the matched text.
	valid func(string) bool
}

var personal = []rule{
	{Email, "email address", regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`), nil},
	// 13 to 19 digits, optionally grouped by spaces or dashes; Luhn decides.
	{Card, "payment card number", regexp.MustCompile(`\b\d(?:[ -]?\d){12,18}\b`), luhn},
	// +CC then 7–14 more digits with optional separators, or a grouped
	// national number such as (555) 123-4567 or 555-123-4567.
	{Phone, "phone number", regexp.MustCompile(`\+\d{1,3}(?:[ .-]?\(?\d+\)?){2,6}|\(\d{2,4}\)[ .-]?\d{3,4}[ .-]\d{3,4}|\b\d{3}[.-]\d{3}[.-]\d{4}\b`), phoneDigits},
}

var secrets = []rule{
	{Token, "Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), nil},
	{Token, "OpenAI API key", regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}`), nil},
	{Token, "GitHub token", regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}\b`), nil},
	{Token, "AWS access key id", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), nil},
	{Token, "Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), nil},
	{Token, "Google OAuth access token", regexp.MustCompile(`\bya29\.[0-9A-Za-z_-]{20,}`), nil},
	{Token, "JSON Web Token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), nil},
	{Token, "private key", regexp.MustCompile(`-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----`), nil},
	{Token, "bearer token", regexp.MustCompile(`(?i)\bbearer [A-Za-z0-9._~+/-]{20,}=*`), nil},
}

// PersonalData finds email addresses, phone numbers and card numbers in
// text, in order of position; overlapping matches keep the earlier, longer one.
func PersonalData(text string) []Finding { return find(personal, text) }

// Secrets finds the shapes of API keys, tokens and private keys in text.
func Secrets(text string) []Finding { return find(secrets, text) }

func find(rules []rule, text string) []Finding {
	var out []Finding
	for _, r := range rules {
		for _, loc := range r.re.FindAllStringIndex(text, -1) {
			if r.valid != nil && !r.valid(text[loc[0]:loc[1]]) {
				continue
			}
			out = append(out, Finding{Kind: r.kind, Rule: r.name, Start: loc[0], End: loc[1]})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Start != out[j].Start {
			return out[i].Start < out[j].Start
		}
		return out[i].End > out[j].End
	})
	kept := out[:0]
	end := -1
	for _, f := range out {
		if f.Start >= end {
			kept = append(kept, f)
			end = f.End
		}
	}
	return kept
}

// luhn checks a card number's check digit, separators ignored.
func luhn(s string) bool {
	sum, n := 0, 0
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		d := int(c - '0')
		if n%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		n++
	}
	return n >= 13 && sum%10 == 0
}

// phoneDigits: a phone number has 8 to 15 digits (E.164 allows 15).
func phoneDigits(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n >= 8 && n <= 15
}
