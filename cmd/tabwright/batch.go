package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// runBatch runs a browser_batch in a fresh managed tab: load --url, run the
// steps of --steps (a JSON file holding the batch's fields without
// tab_handle, or just its list of steps), print the result as JSON. Exit
// status 1 when a step failed, 3 (usage) when the batch is invalid.
func runBatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("batch")
	var bf browserFlags
	bf.register(fs)
	url := fs.String("url", "", "page to open before the first step")
	stepsFile := fs.String("steps", "", "JSON file: a list of steps, or an object with steps and the batch's other fields")
	observe := fs.String("observe", "", "after the last step, read the control this CSS selector names")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" || *stepsFile == "" {
		return errs.Input("--url", "give --url and --steps").WithHint("tabwright batch --url https://example.com/ --steps steps.json")
	}
	if err := tabs.ValidateURL("--url", *url); err != nil {
		return err
	}
	raw, err := os.ReadFile(*stepsFile)
	if err != nil {
		return errs.Input("--steps", "cannot read %s: %v", *stepsFile, err)
	}
	body := map[string]json.RawMessage{}
	if trimmed := strings.TrimSpace(string(raw)); strings.HasPrefix(trimmed, "[") {
		body["steps"] = raw
	} else if err := json.Unmarshal(raw, &body); err != nil {
		return errs.Input("--steps", "%s is neither a JSON list of steps nor a JSON object: %v", *stepsFile, err)
	}
	body["tab_handle"], _ = json.Marshal("cli")
	if *observe != "" {
		body["observe"], _ = json.Marshal(map[string]string{"selector": *observe})
	}
	full, _ := json.Marshal(body)
	req, violations := batch.Prevalidate(full)
	if len(violations) > 0 {
		for _, v := range violations {
			fmt.Fprintf(stderr, "%s: %s\n", v.Path, v.Message)
		}
		return errs.Input(violations[0].Path, "%d problem(s) in %s; nothing ran", len(violations), *stepsFile)
	}

	ctx, cancel := context.WithTimeout(ctx, batch.Budget(req)+30*time.Second) // plus the browser launch
	defer cancel()
	m, err := newManager(bf)
	if err != nil {
		return err
	}
	defer m.Close()
	opened, _, err := m.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "cli", URL: *url, Active: true})
	if err != nil {
		return err
	}
	res := batch.Run(ctx, opened.Tab, req)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	if !res.OK {
		return res.Error
	}
	return nil
}
