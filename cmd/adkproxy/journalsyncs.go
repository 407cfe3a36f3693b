// The end of a recording says how many disk syncs kept its exchanges.

package main

import (
	"log/slog"
	"strconv"

	"github.com/adkproxy/adkproxy/internal/base/syncstat"
)

// logJournalSyncs notes at info level how many journal syncs kept the
// run's recorded exchanges, per exchange, and how long one took on
// average: exchanges that finish together share a sync (group commit), so
// fewer than one per exchange means they were batched. make bench reads
// it. Nothing when nothing was synced.
func logJournalSyncs(log *slog.Logger, recorded int64) {
	n := syncstat.JournalSyncs()
	if n == 0 {
		return
	}
	meanMS := syncstat.JournalSyncTime().Seconds() * 1e3 / float64(n)
	attrs := []any{"syncs", n, "exchanges", recorded, "mean_sync_ms", strconv.FormatFloat(meanMS, 'f', 3, 64)}
	if recorded > 0 {
		attrs = append(attrs, "per_exchange", strconv.FormatFloat(float64(n)/float64(recorded), 'f', 3, 64))
	}
	log.Info("journal syncs", attrs...)
}
