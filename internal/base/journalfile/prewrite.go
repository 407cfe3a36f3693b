// The journal's prewritten tail: zeros written ahead of the records, so
// that most appends overwrite blocks the file already has and their sync
// flushes data alone.

package journalfile

// A record appended past the end of a file grows it, and the sync that
// makes it durable must also commit the new size and blocks (on ext4 a
// commit of the filesystem's journal, about twice the cost of the data
// flush on this project's disks). So, as write-ahead logs do, the journal
// writes zeros ahead of its records, a chunk at a time, in the same sync
// as the record that first runs past them: the records after it land in
// blocks already written and counted in the size. Zeros rather than
// fallocate, whose unwritten extents still need a metadata commit when
// first written. Readers take the first zero byte where a record's length
// should be as the end (Each); a record never ends in one.
const (
	prewriteMin = 64 << 10 // the first chunk, so a journal of a few exchanges stays small
	prewriteMax = 1 << 20  // chunks double up to this
)

var zeroChunk [64 << 10]byte

// prewrite writes zeros after the journal's records when they have run
// past what was prewritten. A failure is not the append's: the records
// are written, the file merely has no tail ahead of them, and the next
// append tries again. j.mu is held and j.f open.
func (j *File) prewrite() {
	if j.end <= j.ready {
		return
	}
	to := j.end + min(max(j.end, prewriteMin), prewriteMax)
	for at := j.end; at < to; {
		n, err := j.f.WriteAt(zeroChunk[:min(int64(len(zeroChunk)), to-at)], at)
		if err != nil {
			return
		}
		at += int64(n)
	}
	j.ready = to
}
