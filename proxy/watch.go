// Replay --watch: reloading cassettes edited on disk while serving, the
// last good version serving on when an edit does not load.

package proxy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/setaside"
	"github.com/fsnotify/fsnotify"
)

// watchQuiet is how long a cassette file must stay unchanged before it is
// reloaded: editors and atomic writers produce several events per save.
const watchQuiet = 100 * time.Millisecond

// Watch reloads cassettes edited on disk while the server runs (replay
// --watch), until ctx is done. It watches the cassette folder and every
// folder below it, including folders created later.
//
// A file that is created, written or renamed into place is read again once
// it has been quiet for a moment. When it loads, its cassette is replaced
// and starts over with every recording unused. When it does not, the error
// (naming file:line) is logged and the last good version keeps serving. A
// removed file removes its cassette. Config.OnReload hears of each attempt.
//
// Hidden files and folders are ignored, as by cassettes.LoadDir; this
// covers the temporary files of an atomic save, whose final rename is
// seen as the cassette file being created. Watch works only in replay mode,
// and should be called once per server.
func (s *Server) Watch(ctx context.Context) error { return s.watch(ctx, nil) }

// watch is Watch; ready, when set, is called once the folders are watched,
// so tests can edit files knowing the change will be seen.
func (s *Server) watch(ctx context.Context, ready func()) error {
	if s.cfg.Mode != ModeReplay {
		return fmt.Errorf("watching cassettes for edits works in replay mode only, not %s", s.cfg.Mode)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("cannot watch the cassette folder %s: %v", s.cfg.Dir, err)
	}
	w := &watcher{
		s: s, fw: fw, root: filepath.Clean(s.cfg.Dir),
		dirs: map[string]bool{}, files: map[string]watchedFile{}, owner: map[string]string{},
		waiting: map[string]map[string]bool{}, pending: map[string]*debounce{},
		fired: make(chan *debounce), done: make(chan struct{}),
	}
	defer w.stop()
	if err := w.start(); err != nil {
		return err
	}
	s.log.Info("watching cassettes for edits", "dir", w.root, "folders", len(w.dirs))
	if ready != nil {
		ready()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("the cassette folder watcher stopped")
			}
			w.event(ev)
		case err, ok := <-fw.Errors:
			if !ok {
				return errors.New("the cassette folder watcher stopped")
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				s.log.Warn("too many changes in the cassette folder at once; looking through it again", "dir", w.root)
				w.rescan()
				continue
			}
			s.log.Error("watching the cassette folder", "dir", w.root, "error", err.Error())
		case d := <-w.fired:
			if w.pending[d.path] == d {
				delete(w.pending, d.path)
				w.sync(d.path)
			}
		}
	}
}

// watcher is the state of one Watch call, owned by its goroutine; only
// the swap of a tape into s.tapes takes the server's lock.
type watcher struct {
	s    *Server
	fw   *fsnotify.Watcher
	root string

	// dirs are the folders being watched.
	dirs map[string]bool
	// files maps each cassette file that loaded to the name it serves under
	// and what it looked like; owner is the reverse.
	files map[string]watchedFile
	owner map[string]string
	// waiting holds, per cassette name, files refused because another file
	// already used the name; they are tried again when it is freed.
	waiting map[string]map[string]bool

	// pending debounces each path: its timer sends it on fired when the
	// path has been quiet, and a send no longer in pending is stale.
	pending map[string]*debounce
	fired   chan *debounce
	done    chan struct{}
}

type debounce struct {
	path  string
	timer *time.Timer // touched only by the watch goroutine
}

type watchedFile struct {
	name string
	size int64
	mod  time.Time
}

func (w *watcher) stop() {
	close(w.done)
	for _, d := range w.pending {
		d.timer.Stop()
	}
	w.fw.Close()
}

// start watches every folder and notes which file holds which cassette.
// The folders are watched before their files are read, so no edit falls
// between the two.
func (w *watcher) start() error {
	return filepath.WalkDir(w.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("cannot watch the cassette folder: %v", err)
		}
		if w.ignored(path) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if err := w.fw.Add(path); err != nil {
				return fmt.Errorf("cannot watch %s: %v", path, err)
			}
			w.dirs[path] = true
			return nil
		}
		if !strings.HasSuffix(path, cassettes.Extension) {
			return nil
		}
		// Watching serves the last good version of a cassette whose edit
		// does not load, so every cassette is read now rather than on
		// first use (New did already with CheckAll).
		c, err := cassettes.Load(path)
		if err != nil {
			w.s.log.Error("cassette not watched: it does not load", "error", err.Error())
			return nil
		}
		name := w.nameOf(path, c)
		if other, dup := w.owner[name]; dup {
			w.s.log.Error("cassette not watched: another file has its name", "cassette", name, "file", path, "other", other)
			return nil
		}
		w.remember(path, name)
		w.s.mu.Lock()
		if w.s.tapes[name] == nil {
			t := newTape(name, path, w.s.m, c.Exchanges)
			t.role = w.s.cfg.roleFor(true)
			w.s.tapes[name] = t
		}
		w.s.mu.Unlock()
		return nil
	})
}

// ignored reports whether path is outside the cassettes: a hidden file or
// folder (an unfinished atomic save, .git) or anything below one, and a
// failed run's set-aside file.
func (w *watcher) ignored(path string) bool {
	rel, err := filepath.Rel(w.root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return true
	}
	if rel == "." {
		return false
	}
	if setaside.Is(path) { // a failed run's set-aside file, never served
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// nameOf is the rule of cassettes.LoadDir: the file's name field, else its
// path below the folder without the extension.
func (w *watcher) nameOf(path string, c *cassettes.Cassette) string {
	if c != nil && c.Name != "" {
		return c.Name
	}
	return cassettes.NameFromPath(w.root, path)
}

func (w *watcher) event(ev fsnotify.Event) {
	path := filepath.Clean(ev.Name)
	if w.ignored(path) || !ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Rename|fsnotify.Remove) {
		return // Chmod alone changes nothing a cassette holds
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
			w.addTree(path)
			return
		}
	}
	_, isDir := w.dirs[path]
	if strings.HasSuffix(path, cassettes.Extension) || (isDir && ev.Has(fsnotify.Rename|fsnotify.Remove)) {
		w.schedule(path)
	}
}

// schedule (re)starts path's quiet period.
func (w *watcher) schedule(path string) {
	if d := w.pending[path]; d != nil && d.timer.Stop() {
		d.timer.Reset(watchQuiet)
		return
	}
	// A timer that already fired is on its way to the loop; the new one
	// replaces it there, so its send is ignored.
	d := &debounce{path: path}
	d.timer = time.AfterFunc(watchQuiet, func() {
		select {
		case w.fired <- d:
		case <-w.done:
		}
	})
	w.pending[path] = d
}

// addTree watches a folder that appeared and everything below it, and
// reads the cassettes already in it: they may have been written before
// the folder was watched.
func (w *watcher) addTree(dir string) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone again; its removal is an event of its own
		}
		if w.ignored(path) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if w.dirs[path] {
				return nil
			}
			if err := w.fw.Add(path); err != nil {
				w.s.log.Error("cannot watch a new cassette folder; edits in it are not seen", "dir", path, "error", err.Error())
				return fs.SkipDir
			}
			w.dirs[path] = true
			return nil
		}
		if strings.HasSuffix(path, cassettes.Extension) {
			w.schedule(path)
		}
		return nil
	})
}

// rescan catches up after the watcher lost events: new folders are
// watched, files that changed or appeared are read, vanished ones dropped.
func (w *watcher) rescan() {
	for path := range w.files {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			w.schedule(path)
		}
	}
	filepath.WalkDir(w.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if w.ignored(path) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if !w.dirs[path] {
				if err := w.fw.Add(path); err == nil {
					w.dirs[path] = true
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, cassettes.Extension) {
			return nil
		}
		info, err := d.Info()
		if f, known := w.files[path]; err == nil && known && info.Size() == f.size && info.ModTime().Equal(f.mod) {
			return nil
		}
		w.schedule(path)
		return nil
	})
}

// sync brings the server in line with path after its quiet period.
func (w *watcher) sync(path string) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.vanished(path)
	case err == nil && fi.IsDir():
		// A folder renamed or removed and another put in its place: drop
		// what is gone, read what is there.
		below := path + string(filepath.Separator)
		for file := range w.files {
			if !strings.HasPrefix(file, below) {
				continue
			}
			if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
				w.vanished(file)
			}
		}
		w.addTree(path)
	case strings.HasSuffix(path, cassettes.Extension):
		w.load(path)
	}
}

// load reads a cassette file and serves it in place of its last version.
func (w *watcher) load(path string) {
	s := w.s
	c, err := cassettes.Load(path)
	if errors.Is(err, cassettes.ErrNotFound) {
		w.vanished(path)
		return
	}
	prev, known := w.files[path]
	if err != nil {
		name := w.nameOf(path, nil)
		if known {
			name = prev.name
		}
		w.failed(name, path, err, known)
		return
	}
	name := w.nameOf(path, c)
	if other, taken := w.owner[name]; taken && other != path {
		if _, statErr := os.Stat(other); statErr == nil {
			if w.waiting[name] == nil {
				w.waiting[name] = map[string]bool{}
			}
			w.waiting[name][path] = true
			w.failed(name, path, &cassettes.FormatError{File: path, Err: cassettes.ErrCorrupt,
				Msg: fmt.Sprintf("cassette name %q is also used by %s; rename one", name, other)}, known)
			return
		}
		w.forget(other) // moved away; its own event has not come yet
	}
	t := newTape(name, path, s.m, c.Exchanges)
	t.replaying = true
	s.mu.Lock()
	if known && prev.name != name {
		delete(s.tapes, prev.name)
	}
	s.tapes[name] = t
	s.mu.Unlock()
	if known && prev.name != name {
		w.forget(path)
	}
	w.remember(path, name)
	if waiting := w.waiting[name]; waiting != nil {
		delete(waiting, path)
	}
	s.log.Info("cassette reloaded", "cassette", name, "file", path, "interactions", len(c.Exchanges))
	w.hook(name, nil)
}

func (w *watcher) failed(name, path string, err error, hadGood bool) {
	msg := "cassette edit does not load; the last good version keeps serving"
	if !hadGood {
		msg = "cassette file does not load; it is not served"
	}
	w.s.log.Error(msg, "cassette", name, "file", path, "error", err.Error())
	w.hook(name, err)
}

// vanished drops the cassettes of a removed file, or of every file below
// a removed folder, and stops watching the folders that went with it.
func (w *watcher) vanished(path string) {
	below := path + string(filepath.Separator)
	for _, files := range w.waiting {
		for file := range files {
			if file == path || strings.HasPrefix(file, below) {
				delete(files, file)
			}
		}
	}
	for dir := range w.dirs {
		if dir == path || strings.HasPrefix(dir, below) {
			w.fw.Remove(dir) // fails when the system already dropped it
			delete(w.dirs, dir)
		}
	}
	for file, f := range w.files {
		if file != path && !strings.HasPrefix(file, below) {
			continue
		}
		w.s.mu.Lock()
		delete(w.s.tapes, f.name)
		w.s.mu.Unlock()
		w.forget(file)
		w.s.log.Info("cassette removed", "cassette", f.name, "file", file)
		w.hook(f.name, nil)
	}
}

func (w *watcher) remember(path, name string) {
	f := watchedFile{name: name}
	if info, err := os.Stat(path); err == nil {
		f.size, f.mod = info.Size(), info.ModTime()
	}
	w.files[path] = f
	w.owner[name] = path
}

// forget drops what path held; files waiting for its name are tried again.
func (w *watcher) forget(path string) {
	f, ok := w.files[path]
	if !ok {
		return
	}
	delete(w.files, path)
	if w.owner[f.name] == path {
		delete(w.owner, f.name)
		for other := range w.waiting[f.name] {
			w.schedule(other)
		}
		delete(w.waiting, f.name)
	}
}

func (w *watcher) hook(name string, err error) {
	if w.s.cfg.OnReload != nil {
		w.s.cfg.OnReload(name, err)
	}
}
