// The eval config ADK uses for a test file when none is given.

package scoring

import (
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"os"
	"path/filepath"
)

// testConfigFile is the name of the eval config ADK reads beside its test
// files.
const testConfigFile = "test_config.json"

// ConfigBeside returns the test_config.json ADK would use for the
// expectations at expected (an eval set file, "file:ids", or a folder):
// the one in the file's folder, or in the folder itself; "" when there is
// none.
func ConfigBeside(expected string) string {
	if expected == "" {
		return ""
	}
	path, _ := evalset.SplitCaseSelection(expected)
	dir := path
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		dir = filepath.Dir(path)
	}
	p := filepath.Join(dir, testConfigFile)
	if info, err := os.Stat(p); err == nil && !info.IsDir() {
		return p
	}
	return ""
}
