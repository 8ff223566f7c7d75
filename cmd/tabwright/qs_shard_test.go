package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// shardTasks writes four tasks with four outcomes: a pass, a docs gap, a
// skip (no replay) and no evidence (its docs host is down).
func shardTasks(t *testing.T, docsURL, downURL string) string {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a-pass": "replay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt || qs_fail none",
		"b-gap":  "replay: ['true']\nsuccess:\n  script: test -f done.txt || qs_fail \"no done.txt\"",
		"c-skip": "success:\n  script: 'true'",
		"d-down": "replay: ['true']\nsuccess:\n  script: 'true'",
	} {
		docs := docsURL
		if name == "d-down" {
			docs = downURL
		}
		os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(fmt.Sprintf("name: %s\ngoal: g\ndocs:\n  entrypoint: %s/docs/\n%s\n", name, docs, body)), 0o644)
	}
	return dir
}

// shardStat is what must be the same in a merged and an unsharded
// results.json: every task's counts, rates and runs' verdicts.
type shardStat struct {
	Task           string         `json:"task"`
	Agent          string         `json:"agent"`
	Attempts       int            `json:"attempts"`
	Passes         int            `json:"passes"`
	EvidentialRuns int            `json:"evidential_runs"`
	PassRate       *float64       `json:"pass_rate"`
	Discarded      map[string]int `json:"discarded"`
	SuspectPages   map[string]int `json:"suspect_pages"`
	Skipped        int            `json:"skipped"`
	Runs           []struct {
		Task           string `json:"task"`
		Classification string `json:"classification"`
		StopReason     string `json:"stop_reason"`
		Attempt        int    `json:"attempt"`
		Passed         bool   `json:"passed"`
		Evidential     bool   `json:"evidential"`
	} `json:"runs"`
}

func comparable(t *testing.T, path string) ([]shardStat, int) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tasks    []shardStat `json:"tasks"`
		ExitCode int         `json:"exit_code"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Tasks, doc.ExitCode
}

func TestQSShardsMergeToTheUnshardedResults(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>")
	}))
	defer srv.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	dir := shardTasks(t, srv.URL, downURL)
	run := func(out string, extra ...string) int {
		var o, e bytes.Buffer
		args := append([]string{"run", dir, "--backend", "local", "--allow-unenforced", "--quiet", "--repeat", "2", "--out", out}, extra...)
		code := runQS(context.Background(), args, &o, &e)
		if strings.Contains(e.String(), "could not") {
			t.Fatalf("%v: %s", args, e.String())
		}
		return code
	}
	base := t.TempDir()
	whole := filepath.Join(base, "whole")
	wholeCode := run(whole)
	var shards []string
	for i := 1; i <= 3; i++ {
		d := filepath.Join(base, fmt.Sprintf("shard-%d", i))
		run(d, "--shard", fmt.Sprintf("%d/3", i))
		shards = append(shards, d)
	}
	merged := filepath.Join(base, "merged")
	var o, e bytes.Buffer
	// Shards given out of order merge the same.
	code := runQS(context.Background(), []string{"report", "--merge", shards[2], shards[0], shards[1], "--out", merged}, &o, &e)
	if code != wholeCode {
		t.Errorf("merge exit %d, unsharded %d\n%s%s", code, wholeCode, o.String(), e.String())
	}
	want, wantCode := comparable(t, filepath.Join(whole, "results.json"))
	got, gotCode := comparable(t, filepath.Join(merged, "results.json"))
	if len(want) != 4 || wantCode != 1 || want[3].Discarded["infra_error"] != 2 || want[2].Skipped != 2 {
		t.Fatalf("the unsharded suite is not the four outcomes: exit %d, %+v", wantCode, want)
	}
	if !reflect.DeepEqual(got, want) || gotCode != wantCode {
		gb, _ := json.MarshalIndent(got, "", " ")
		wb, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("merged\n%s\nunsharded\n%s", gb, wb)
	}
	for _, f := range []string{"suite.md", "a-pass/attempt-2/trace.jsonl", "b-gap/attempt-1/report.md", "d-down/attempt-2/transcript.txt"} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Errorf("merged directory: %v", err)
		}
	}
	for _, bad := range [][]string{{shards[0], shards[1]}, {shards[0], shards[0], shards[1], shards[2]}, {shards[0], whole}} {
		o.Reset()
		e.Reset()
		if code := runQS(context.Background(), append([]string{"report", "--merge", "--out", filepath.Join(base, "bad")}, bad...), &o, &e); code != 3 || !strings.Contains(e.String(), "qs.merge") {
			t.Errorf("merge %v: %d %s", bad, code, e.String())
		}
	}
}
