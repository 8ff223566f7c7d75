package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
)

// spawnForward runs path with args as a child on this process's own
// stdin, stdout and stderr, forwards the interrupt and termination
// signals this process receives, and returns the child's exit code once
// it has exited. It is the hand-over where exec is not available
// (Windows); it works on every OS, which is how it is tested.
func spawnForward(path string, args []string) (int, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			// A console delivers Ctrl-C to every process attached to it, the
			// child included; Windows cannot send it to one process.
			if runtime.GOOS != "windows" {
				cmd.Process.Signal(sig)
			}
		case err := <-done:
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				return 0, err
			}
			return exitCodeOf(cmd.ProcessState), nil
		}
	}
}

// exitCodeOf is the code a shell would report: 128+N for a child ended by
// signal N (ExitCode says -1 there).
func exitCodeOf(ps *os.ProcessState) int {
	if c := ps.ExitCode(); c >= 0 {
		return c
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 1
}
