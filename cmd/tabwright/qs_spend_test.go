package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
)

// quickstarted's --max-spend lines run unchanged. With replay the cap caps
// nothing, and that is said once.
func TestQSMaxSpendWithReplay(t *testing.T) {
	t.Parallel()
	docs := docsServer(t)
	dir := t.TempDir()
	actionTasks(t, dir, docs.URL)
	code, out, stderr := qsCmd(t, "run", filepath.Join(dir, "tasks", "a.yaml"), "--agent", "replay", "--repeat", "2", "--max-spend", "10",
		"--backend", "local", "--allow-unenforced")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	if n := strings.Count(out, "--max-spend 10 caps nothing here"); n != 1 {
		t.Errorf("the replay note is said %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "agent: replay (no model)") {
		t.Errorf("the header does not say the agent:\n%s", out)
	}
}

// With a model agent the cap works out of the box: the built-in book
// prices the served model (a dated snapshot of one it lists), the header
// names the model and, with --verbose, the book's date, and the suite stops
// at the cap naming --max-spend as typed.
func TestQSMaxSpendWithAModelAgent(t *testing.T) {
	t.Parallel()
	docs := docsServer(t)
	fake := agenttest.OpenAI(
		agenttest.Turn{Model: "gpt-6-sol-2026-09-22", Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": "echo done > done.txt"}}}, Usage: agenttest.Usage{Input: 200000, Output: 10000}},
		agenttest.Turn{Model: "gpt-6-sol-2026-09-22", Text: "Created done.txt.", Usage: agenttest.Usage{Input: 1000, Output: 100}},
	)
	defer fake.Close()
	dir := t.TempDir()
	actionTasks(t, dir, docs.URL)
	res := filepath.Join(dir, "res")
	code, out, stderr := qsCmd(t, "run", filepath.Join(dir, "tasks", "a.yaml"), "--agent", "openai", "--model", "gpt-6-sol", "--base-url", fake.BaseURL(),
		"--repeat", "3", "--max-spend", "0.1", "--verbose", "--backend", "local", "--allow-unenforced", "--out", res)
	if code != exitInterrupt || !strings.Contains(stderr, "stopped at --max-spend $0.10") {
		t.Fatalf("exit %d, want 130 naming --max-spend\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"agent: openai, model gpt-6-sol", "price book: built-in, rates as of 20"} {
		if !strings.Contains(out, want) {
			t.Errorf("the header lacks %q:\n%s", want, out)
		}
	}
	var doc struct {
		Totals struct {
			Runs          int      `json:"runs"`
			EstimatedCost *float64 `json:"estimated_cost_usd"`
		} `json:"totals"`
	}
	b, _ := os.ReadFile(filepath.Join(res, "results.json"))
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// 201000 in and 10100 out at $2 and $10 per million.
	if want := (201000*2.0 + 10100*10.0) / 1e6; doc.Totals.Runs != 1 || doc.Totals.EstimatedCost == nil || *doc.Totals.EstimatedCost != want {
		t.Errorf("results: %d runs costing %v, want 1 costing %v:\n%s", doc.Totals.Runs, doc.Totals.EstimatedCost, want, b)
	}
}

// A cap on a model the book cannot price is refused before anything runs,
// naming the flag as typed and how to give the price.
func TestQSMaxSpendOnAnUnpricedModel(t *testing.T) {
	t.Parallel()
	for flag, book := range map[string]string{"--max-spend": "the built-in price book (rates as of 20", "--max-cost-usd": "the built-in price book"} {
		code, out, stderr := qsCmd(t, "run", "--example", "hello", "--agent", "openai:my-local-model", "--base-url", "http://127.0.0.1:9/v1", flag, "5")
		for _, want := range []string{"qs.max_cost: " + flag + ": " + flag + " 5 cannot be kept", book, "no price for my-local-model", `--prices FILE (or QUICKSTARTED_PRICES=FILE), with {"my-local-model": {"input"`} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", flag, want, stderr)
			}
		}
		if code != exitUsage || strings.Contains(out, "started") {
			t.Errorf("%s: exit %d, want 3 before anything runs:\n%s", flag, code, out)
		}
	}
	priced := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(priced, []byte(`{"other": {"input": 1, "output": 1}}`), 0o644)
	code, _, stderr := qsCmd(t, "run", "--example", "hello", "--agent", "openai:my-local-model", "--base-url", "http://127.0.0.1:9/v1", "--prices", priced, "--max-spend", "5")
	if code != exitUsage || !strings.Contains(stderr, "--prices "+priced+" has no price for my-local-model") {
		t.Errorf("a user's book without the model: exit %d\n%s", code, stderr)
	}
}
