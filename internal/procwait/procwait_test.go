package procwait

import (
	"os/exec"
	"testing"
	"time"
)

func TestWaitSeesAnExitItDidNotReap(t *testing.T) {
	cmd := exec.Command("cat")
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A guard against a hang, not a speed bound.
	if Within(cmd.Process.Pid, 100*time.Millisecond) {
		t.Fatal("a running process counted as exited")
	}
	stdin.Close() // cat reads its end and exits
	if !Within(cmd.Process.Pid, time.Minute) {
		t.Fatal("the exit was not seen")
	}
	if err := cmd.Wait(); err != nil { // still there to reap: Wait did not take it
		t.Fatal(err)
	}
	if !Within(cmd.Process.Pid, time.Minute) {
		t.Fatal("a reaped process is not gone")
	}
}
