// Reading a case's generated-session.yaml: the session ADK Python ended
// with, kept as plain data for CompareSession.

package conformance

// Session is a generated-session.yaml: the session's fields as plain data
// (snake_case, as ADK Python dumped them).
type Session struct {
	File   string
	Fields map[string]any
	// Events are the session's events, in order.
	Events []map[string]any
	// EventLines are the lines the events start on.
	EventLines []int
}

// ReadSession reads a generated-session.yaml.
func ReadSession(file string) (*Session, error) { return readWith(file, ParseSession) }

// ParseSession reads a generated-session.yaml's bytes.
func ParseSession(file string, data []byte) (*Session, error) {
	d := doc{file: file}
	root, err := d.parse(data)
	if err != nil {
		return nil, err
	}
	f, err := d.fields(root, "session")
	if err != nil {
		return nil, err
	}
	s := &Session{File: file}
	if s.Fields, err = d.plain(root, "session"); err != nil {
		return nil, err
	}
	events, err := d.list(f["events"], "events")
	if err != nil {
		return nil, err
	}
	for i, n := range events {
		e, err := d.plain(n, "events["+itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		s.Events = append(s.Events, e)
		s.EventLines = append(s.EventLines, n.Line)
	}
	return s, nil
}
