package testbrowser

import "os/exec"

// ownGroup does nothing on Windows: Chromium's child processes end when
// the browser process they serve ends.
func ownGroup(*exec.Cmd) {}

func killTree(cmd *exec.Cmd) { cmd.Process.Kill() }
