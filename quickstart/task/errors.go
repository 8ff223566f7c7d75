package task

import (
	"fmt"
	"strings"
)

// Problem is one rule a task file breaks: the field at fault as a path
// ("docs.path[1]", "success.wait_http.status"; empty for the whole file), the
// rule's stable name, and a message a person can act on.
type Problem struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Error is every problem found in one task file. Loading reports them all
// at once, never the first only.
type Error struct {
	File     string    `json:"file"`
	Problems []Problem `json:"problems"`
}

func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.File)
		b.WriteString(": ")
		if p.Field != "" {
			b.WriteString(p.Field)
			b.WriteString(": ")
		}
		b.WriteString(p.Message)
		fmt.Fprintf(&b, " [rule %s]", p.Rule)
	}
	return b.String()
}

type problems []Problem

func (ps *problems) add(field, rule, format string, args ...any) {
	*ps = append(*ps, Problem{Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
}
