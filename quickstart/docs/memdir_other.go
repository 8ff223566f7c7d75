//go:build !linux

package docs

// memoryProfileDir is "" (the system's temporary directory): the in-memory
// profile is measured on Linux's /dev/shm only, and macOS and Windows have
// no tmpfs there to check.
func memoryProfileDir() string { return "" }
