// Package numruns is --num-runs: each case played N times in a row, each
// run in a session of its own, for score --num-runs N (simulate and drive
// share it).
package numruns

import "fmt"

// Repeat plays each item runs times, the runs of one item in a row so
// that its sessions stay together in the recording; nth makes the k-th
// run (from 1) of an item. One run returns items as they are. runs below
// 1 is an error, worded for flag --num-runs.
func Repeat[T any](items []T, runs int, nth func(item T, k int) T) ([]T, error) {
	if runs < 1 {
		return nil, fmt.Errorf("--num-runs %d: want 1 or more", runs)
	}
	if runs == 1 {
		return items, nil
	}
	out := make([]T, 0, len(items)*runs)
	for _, item := range items {
		for k := 1; k <= runs; k++ {
			out = append(out, nth(item, k))
		}
	}
	return out, nil
}
