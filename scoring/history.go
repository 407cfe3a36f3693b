// The eval history adk web reads: where a result is saved and its name.

package scoring

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// outResultID is ADK's eval_set_result_id: "<app>_<eval_set_id>_<time>",
// the app being Result.App, else "adkproxy"; the eval set id "adkproxy"
// when the run has none.
func outResultID(r *Result, ts float64) string {
	app, setID := r.App, r.EvalSetID
	if app == "" {
		app = "adkproxy"
	}
	if setID == "" {
		setID = "adkproxy"
	}
	return fmt.Sprintf("%s_%s_%s", app, setID, outPythonFloat(ts))
}

// WriteHistory saves r as ADK's EvalSetResult where adk web looks for an
// app's eval history: appDir/.adk/eval_history/<name>.evalset_result.json,
// name being the result id (ADK's "<app>_<eval_set_id>_<time>", "/" as "_"),
// the app the folder's name. It sets r.App and returns the file written.
func WriteHistory(appDir string, r *Result, created time.Time) (string, error) {
	abs, err := filepath.Abs(appDir)
	if err != nil {
		return "", err
	}
	r.App = filepath.Base(abs)
	id := outResultID(r, float64(created.UnixMicro())/1e6)
	name := strings.ReplaceAll(id, "/", "_")
	var b bytes.Buffer
	if err := (JSONOptions{ResultID: id, Name: name, Created: created}).Write(&b, r); err != nil {
		return "", err
	}
	path := filepath.Join(abs, ".adk", "eval_history", name+".evalset_result.json")
	if err := cassettes.WriteFileAtomic(path, b.Bytes()); err != nil {
		return "", err
	}
	return path, nil
}
