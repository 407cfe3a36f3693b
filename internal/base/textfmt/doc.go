// Package textfmt shapes values into short text for people: one terminal
// line (OneLine), cut to a width (Truncate), counted nouns (Plural), names spelled in
// camelCase or snake_case (Camel, Snake, CamelKeys), and JSON as adkproxy
// writes it (IndentedJSON). It is
// the one place for these rules, so a table, a reason and a diff cut and
// count alike; it depends on nothing of adkproxy, so every package can
// use it.
package textfmt
