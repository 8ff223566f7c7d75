package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/tabwright/tabwright/quickstart/task"
)

// suggestFlag follows the flag package's "flag provided but not defined"
// with the nearest flag the command has, when there is one.
func suggestFlag(fs *flag.FlagSet, err error) {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if n := task.Nearest(strings.TrimPrefix(name, "-"), names); n != "" {
		fmt.Fprintf(fs.Output(), "did you mean --%s?\n", n)
	}
}
