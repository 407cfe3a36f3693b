// The junit output format: a run as JUnit XML for CI test reports.

package conformancerun

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
)

// WriteJUnit writes r as JUnit XML: one <testsuite> "adk-conformance",
// one <testcase> per case (classname its category, name the case). A FAIL
// has a <failure> whose message is the reason; a SKIP a <skipped> with the
// reason. The findings and notes of a case go into its <system-out>.
func WriteJUnit(w io.Writer, r *Result) error {
	suite := junitSuite{Name: "adk-conformance"}
	for i := range r.Cases {
		c := &r.Cases[i]
		class, name, ok := strings.Cut(c.Name, "/")
		if !ok {
			class, name = "adk-conformance", c.Name
		}
		tc := junitCase{Classname: class, Name: name}
		switch c.Status {
		case Fail:
			tc.Failure = &junitFailure{Type: string(Fail), Message: c.Reason, Body: c.Reason}
			suite.Failures++
		case Skip:
			tc.Skipped = &junitSkipped{Message: c.Reason}
			suite.Skipped++
		}
		var out []string
		for _, l := range findingLines(c) {
			out = append(out, strings.Repeat("  ", l.depth)+l.text)
		}
		for _, n := range c.Notes {
			out = append(out, "note: "+n)
		}
		tc.SystemOut = strings.Join(out, "\n")
		suite.Cases = append(suite.Cases, tc)
		suite.Tests++
	}
	doc := junitSuites{Name: "adkproxy conformance", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Suites: []junitSuite{suite}}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	buf.WriteString("\n")
	_, err := w.Write(buf.Bytes())
	return err
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure"`
	Skipped   *junitSkipped `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}
