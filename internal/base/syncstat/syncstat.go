// Package syncstat counts the syncs that make recorded exchanges durable,
// and the time they take, so the recording benchmarks and the end of a
// recording can report syncs per exchange: the figure group commit exists
// to lower.
package syncstat

import (
	"sync/atomic"
	"time"
)

var (
	journalSyncs    atomic.Int64
	journalSyncTime atomic.Int64 // nanoseconds
)

// JournalSynced notes one sync of journal records that took d.
func JournalSynced(d time.Duration) {
	journalSyncs.Add(1)
	journalSyncTime.Add(int64(d))
}

// JournalSyncs is how many journal syncs this process has made.
func JournalSyncs() int64 { return journalSyncs.Load() }

// JournalSyncTime is the time this process has spent in journal syncs.
func JournalSyncTime() time.Duration { return time.Duration(journalSyncTime.Load()) }
