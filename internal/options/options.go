// Package options gives every flag of a flag.FlagSet two more ways in: an
// environment variable and a key of a JSON config file. The flag stays the
// one definition of an option (name, default, usage, type); the variable's
// name, the file's schema and the documentation table all come from it.
// A value given twice is taken in the order flag > environment > file >
// default, and Sources says where each one came from.
package options

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"
)

// Source says where an option's value came from.
type Source string

const (
	FromFlag    Source = "flag"
	FromEnv     Source = "env"
	FromFile    Source = "config"
	FromDefault Source = "default"
)

// Kind is the JSON type an option takes in a config file.
type Kind string

const (
	KindBool     Kind = "boolean"
	KindInt      Kind = "integer"
	KindNumber   Kind = "number"
	KindString   Kind = "string"
	KindDuration Kind = "duration" // a string such as "90s" or "1h"
	KindList     Kind = "list"     // an array of strings; the flag repeats
)

// List is a repeatable flag: each use adds one value.
type List []string

func (l *List) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, " ")
}

func (l *List) Set(v string) error { *l = append(*l, v); return nil }

// Get returns the values, for flag.Getter.
func (l *List) Get() any { return []string(*l) }

// KindOf is the kind of f's value.
func KindOf(f *flag.Flag) Kind {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return KindBool
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return KindString
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return KindInt
	case float64:
		return KindNumber
	case time.Duration:
		return KindDuration
	case []string:
		return KindList
	}
	return KindString
}

// EnvName is the environment variable of a flag: prefix, then the flag's
// name in upper case with '-' as '_' (user-agent: TABWRIGHT_USER_AGENT).
func EnvName(prefix, flagName string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Sources maps each flag's name to where its value came from.
type Sources map[string]Source

// Describe is a flag's value and source for a person to read, e.g.
// `user-agent = "Mobile" (env TABWRIGHT_USER_AGENT)`.
func Describe(f *flag.Flag, src Source, prefix string) string {
	value := f.Value.String()
	switch KindOf(f) {
	case KindString, KindDuration:
		value = fmt.Sprintf("%q", value)
	case KindList:
		raw, _ := json.Marshal(f.Value.(flag.Getter).Get())
		value = string(raw)
	}
	where := string(src)
	switch src {
	case FromEnv:
		where = "env " + EnvName(prefix, f.Name)
	case FromFlag:
		where = "flag --" + f.Name
	}
	return fmt.Sprintf("%s = %s (%s)", f.Name, value, where)
}
