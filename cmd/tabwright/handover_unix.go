//go:build unix

package main

import (
	"os"
	"syscall"
)

// handOver replaces this process with path run with args: the process
// keeps its id, stdio and parent, so signals and the exit code are the
// other binary's with nothing in between. It returns only on failure.
func handOver(path string, args []string) error {
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
