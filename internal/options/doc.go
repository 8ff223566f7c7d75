package options

import (
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
)

// Schema is the JSON Schema of a config file for fs: one property per
// flag, of the flag's kind, and no other key.
func Schema(fs *flag.FlagSet, title string, skip []string) ([]byte, error) {
	props := map[string]any{}
	eachDocumented(fs, skip, func(f *flag.Flag) {
		p := map[string]any{"description": firstLine(f.Usage)}
		switch k := KindOf(f); k {
		case KindList:
			p["type"] = "array"
			p["items"] = map[string]any{"type": "string"}
		case KindDuration:
			p["type"] = "string"
			p["pattern"] = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$|^0$`
		default:
			p["type"] = string(k)
		}
		props[f.Name] = p
	})
	return json.MarshalIndent(map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                title,
		"type":                 "object",
		"additionalProperties": false,
		"properties":           props,
	}, "", "  ")
}

// Table is a Markdown table of fs's options: flag, environment variable,
// config key, default and what it does.
func Table(fs *flag.FlagSet, prefix string, skip []string) string {
	var b strings.Builder
	b.WriteString("| flag | environment | config key | default | what it does |\n|---|---|---|---|---|\n")
	eachDocumented(fs, skip, func(f *flag.Flag) {
		def := "`" + f.DefValue + "`"
		if f.DefValue == "" || f.DefValue == "[]" {
			def = ""
		}
		env := "`" + EnvName(prefix, f.Name) + "`"
		key := "`" + f.Name + "`"
		if f.Name == ConfigFlag {
			key = ""
		}
		fmt.Fprintf(&b, "| `--%s` | %s | %s | %s | %s |\n", f.Name, env, key, def, cell(f.Usage))
	})
	return b.String()
}

func eachDocumented(fs *flag.FlagSet, skip []string, fn func(*flag.Flag)) {
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(skip, f.Name) {
			fn(f)
		}
	})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// cell is usage text fit for one Markdown table cell.
func cell(usage string) string {
	return strings.ReplaceAll(firstLine(usage), "|", `\|`)
}
