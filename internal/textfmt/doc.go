// Package textfmt shapes values into short text for people: one terminal
// line (OneLine), cut to a width (Truncate), counted nouns (Plural). It is
// the one place for these rules, so a table, a reason and a diff cut and
// count alike; it depends on nothing of adkproxy, so every package can
// use it.
package textfmt
