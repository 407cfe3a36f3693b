// The --report file: the run's proxy.Report as indented JSON, written
// atomically, and read back by prune.

package runpolicy

import (
	"encoding/json"
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/proxy"
)

// WriteReport writes r to path atomically; an error wraps
// cassettes.ErrWrite.
func WriteReport(path string, r proxy.Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := cassettes.WriteFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("%w: --report %s: %v", cassettes.ErrWrite, path, err)
	}
	return nil
}

// ReadReport reads a --report file written by record or replay.
func ReadReport(path string) (proxy.Report, error) {
	var r proxy.Report
	data, err := userfile.Read(path)
	if err != nil {
		return r, fmt.Errorf("--report: %w", err)
	}
	if err := json.Unmarshal(data, &r); err != nil || r.Mode == "" {
		return r, fmt.Errorf("--report %s: not a report written by 'adkproxy replay --report' (%v)", path, err)
	}
	return r, nil
}
