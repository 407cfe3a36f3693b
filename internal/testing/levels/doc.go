// Package levels holds no code: its tests hold the product module to its
// levels (docs/development.md), so that a package imports only packages of
// its own level or below and test support stays out of what ships, and
// hold the public packages' exported names to a budget.
package levels
