package main

import "os"

// handOver runs path with args in a child that has this process's stdio,
// waits for it and exits with its code: Windows has no exec. Ctrl-C and
// Ctrl-Break reach the child from the console they share (spawnForward).
// It returns only when the child could not be started.
func handOver(path string, args []string) error {
	code, err := spawnForward(path, args)
	if err != nil {
		return err
	}
	os.Exit(code)
	return nil
}
