package report

import (
	"encoding/xml"
	"fmt"
	"strings"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped"`
	Failure   *junitMessage `xml:"failure"`
	Error     *junitMessage `xml:"error"`
}

type junitMessage struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// JUnit renders the suite as JUnit XML: one testsuite per task, one
// testcase per attempt. A docs gap is a failure; a run that gave no
// evidence is an error (its classification is the type); a skip is skipped.
func JUnit(s *qsrun.Suite) []byte {
	doc := junitSuites{Name: "tabwright-qs", Time: fmt.Sprintf("%.2f", s.DurationSeconds)}
	for _, st := range s.Tasks {
		js := junitSuite{Name: st.Task}
		for _, r := range st.Runs {
			c := junitCase{ClassName: "qs." + st.Task, Name: fmt.Sprintf("%s attempt %d", r.Agent, r.Attempt), Time: fmt.Sprintf("%.2f", r.DurationSeconds)}
			switch r.Classification {
			case qsrun.Passed:
			case qsrun.Skipped:
				msg := r.Detail
				if msg == "" {
					msg = "not run in this mode"
				}
				c.Skipped = &junitMessage{Message: msg}
				js.Skipped++
			case qsrun.DocsGap:
				code := "n/a"
				var out string
				if r.SuccessCheck != nil {
					code = fmt.Sprint(r.SuccessCheck.ExitCode)
					out = lastChars(r.SuccessCheck.Output, 1000)
				}
				var text []string
				text = append(text, "stop reason: "+stopText(r))
				if r.SuspectPage != nil {
					text = append(text, "last docs page read: "+*r.SuspectPage)
				}
				if out != "" {
					text = append(text, out)
				}
				c.Failure = &junitMessage{Type: string(qsrun.DocsGap), Message: "success check exit " + code, Text: strings.Join(text, "\n")}
				js.Failures++
			default:
				msg := r.Detail
				if msg == "" {
					msg = string(r.Classification)
				}
				c.Error = &junitMessage{Type: string(r.Classification), Message: msg, Text: stopText(r)}
				js.Errors++
			}
			js.Tests++
			js.Cases = append(js.Cases, c)
		}
		doc.Tests += js.Tests
		doc.Failures += js.Failures
		doc.Errors += js.Errors
		doc.Skipped += js.Skipped
		doc.Suites = append(doc.Suites, js)
	}
	b, _ := xml.MarshalIndent(doc, "", "  ")
	return append(append([]byte(xml.Header), b...), '\n')
}

func stopText(r *qsrun.AttemptResult) string {
	if r.Detail != "" {
		return string(r.StopReason) + " (" + r.Detail + ")"
	}
	return string(r.StopReason)
}

func lastChars(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[len(r)-n:])
	}
	return s
}
