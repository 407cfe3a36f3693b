// Package junitxml writes JUnit XML test reports, in the shape CI systems
// (GitHub, GitLab, Jenkins) read: <testsuites> of <testsuite> of
// <testcase>, a testcase failed by a <failure> or skipped by a <skipped>.
package junitxml

import (
	"bytes"
	"encoding/xml"
	"io"
)

// Suites is the document.
type Suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one <testsuite>.
type Suite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	// Properties describe the run (a label); none writes no element.
	Properties []Property `xml:"properties>property,omitempty"`
	Cases      []Case     `xml:"testcase"`
	SystemErr  string     `xml:"system-err,omitempty"`
}

// Case is one <testcase>: passed when it has neither Failure nor Skipped.
type Case struct {
	Classname string   `xml:"classname,attr"`
	Name      string   `xml:"name,attr"`
	Failure   *Failure `xml:"failure"`
	Skipped   *Skipped `xml:"skipped"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Failure fails a testcase: Message is one line, Body the details.
type Failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// Skipped skips a testcase, saying why.
type Skipped struct {
	Message string `xml:"message,attr"`
}

// Write writes doc as an indented XML document with its header.
func Write(w io.Writer, doc Suites) error {
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

// Property is one <property name="…" value="…"/> of a suite.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}
