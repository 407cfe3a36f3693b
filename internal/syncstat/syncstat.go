// Package syncstat counts the fsyncs that make recorded exchanges durable,
// so the recording benchmarks can report fsyncs per exchange: the figure
// group commit exists to lower.
package syncstat

import "sync/atomic"

var journalSyncs atomic.Int64

// JournalSynced notes one fsync of a journal record.
func JournalSynced() { journalSyncs.Add(1) }

// JournalSyncs is how many journal fsyncs this process has made.
func JournalSyncs() int64 { return journalSyncs.Load() }
