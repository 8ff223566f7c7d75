//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withStdio runs f with os.Stdin reading in and os.Stdout and os.Stderr
// writing to the returned reader.
func withStdio(t *testing.T, in string, f func()) *bufio.Reader {
	t.Helper()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	go func() { io.WriteString(inW, in); inW.Close() }()
	oldIn, oldOut, oldErr := os.Stdin, os.Stdout, os.Stderr
	os.Stdin, os.Stdout, os.Stderr = inR, outW, outW
	t.Cleanup(func() { os.Stdin, os.Stdout, os.Stderr = oldIn, oldOut, oldErr; inR.Close(); outR.Close() })
	go func() { f(); outW.Close() }()
	return bufio.NewReader(outR)
}

// The spawned hand-over (Windows's) passes stdio through and exits with
// the child's code.
func TestSpawnForwardStdioAndExitCode(t *testing.T) {
	var code int
	var err error
	out := withStdio(t, "hello\n", func() {
		code, err = spawnForward("/bin/sh", []string{"-c", `read l; echo "got $l"; echo oops >&2; exit 7`})
	})
	all, _ := io.ReadAll(out)
	if err != nil || code != 7 || string(all) != "got hello\noops\n" {
		t.Fatalf("code %d, err %v, output %q; want 7 and both lines", code, err, all)
	}
}

// A termination signal sent to the hand-over reaches the child, whose exit
// code comes back.
func TestSpawnForwardSignals(t *testing.T) {
	codes := make(chan int, 1)
	out := withStdio(t, "", func() {
		code, _ := spawnForward("/bin/sh", []string{"-c", `trap 'exit 9' TERM; echo ready; while :; do sleep 0.05; done`})
		codes <- code
	})
	if line, _ := out.ReadString('\n'); strings.TrimSpace(line) != "ready" {
		t.Fatalf("child said %q", line)
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-codes:
		if code != 9 {
			t.Fatalf("exit code %d, want the child's 9", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the child did not end 5 s after SIGTERM was forwarded")
	}
}

func TestSpawnForwardMissingBinary(t *testing.T) {
	if _, err := spawnForward("/nonexistent/tabwright-models", nil); err == nil {
		t.Fatal("a missing binary was started")
	}
}
