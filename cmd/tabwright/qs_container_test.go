package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/internal/testimage"
	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// containerEngine is the engine the container backend uses here and the
// test image built on it.
func containerEngine(t *testing.T) (*sandbox.Runtime, string) {
	t.Helper()
	rt, why := sandbox.FindRuntime(context.Background())
	if rt == nil {
		t.Fatalf("the container backend cannot run here: %s", why)
	}
	return rt, testimage.Build(t, rt.Path)
}

// qs run (auto) runs a task with image: in it and says so at start; qs
// check --sandbox runs its check in the same image on the kept workspace.
func TestQSRunAndCheckInTheImage(t *testing.T) {
	rt, image := containerEngine(t)
	docs := docsServer(t)
	dir := t.TempDir()
	tf := filepath.Join(dir, "img.yaml")
	os.WriteFile(tf, []byte(fmt.Sprintf("name: img\ngoal: Copy the image's marker.\nimage: %s\ndocs:\n  entrypoint: %s/docs/\nreplay: ['cat %s > seen.txt']\nsuccess:\n  script: grep -q %s seen.txt && test -e %s || qs_fail \"not in the image\"\n",
		image, docs.URL, testimage.MarkerFile, testimage.Marker, testimage.MarkerFile)), 0o644)
	var out, errb bytes.Buffer
	code := runQS(context.Background(), []string{"run", tf, "--keep-sandbox"}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "backend: container for tasks with image: (enforced: "+rt.Name) || !strings.Contains(out.String(), "started on container (enforced)") {
		t.Fatalf("qs run: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	kept := regexp.MustCompile(`sandbox kept at: (\S+)`).FindStringSubmatch(out.String())
	if kept == nil {
		t.Fatalf("no kept sandbox in:\n%s", out.String())
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(kept[1])) })
	out.Reset()
	if code := runQS(context.Background(), []string{"check", tf, "--sandbox", kept[1]}, &out, &errb); code != 0 || !strings.Contains(out.String(), "[PASS] img check exited 0 (container)") {
		t.Fatalf("qs check: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}

// A qs run killed outright (SIGKILL: a CI job's timeout) leaves no
// container behind: its keeper sees the control socket close, ends its
// commands, and the engine removes the container (--rm). The workspace's
// tmpfs it could not unmount is cleared by the next run.
func TestQSKilledRunLeavesNoContainer(t *testing.T) {
	t.Parallel()
	rt, image := containerEngine(t)
	docs := docsServer(t)
	dir, tmp := t.TempDir(), t.TempDir()
	os.Chmod(filepath.Dir(tmp), 0o711) // the test's own folder is 0700: sandboxes go to TMPDIR only when their user can pass through
	task := func(name, replay string) string {
		tf := filepath.Join(dir, name+".yaml")
		os.WriteFile(tf, []byte(fmt.Sprintf("name: %s\ngoal: Wait.\nimage: %s\ndocs:\n  entrypoint: %s/docs/\nreplay: ['%s']\nsuccess:\n  script: 'true'\n", name, image, docs.URL, replay)), 0o644)
		return tf
	}
	qs := func(tf string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(binary, "qs", "run", tf, "--backend", "container", "--out", filepath.Join(dir, "out-"+filepath.Base(tf)))
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp) // the sandboxes' folders are made here
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		return cmd, &out
	}
	events := containerEvents(t, rt)
	cmd, out := qs(task("long", "sleep 600"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	id, workspace := awaitContainerUnder(t, rt, events, tmp, exited, out)
	base := filepath.Dir(workspace)
	cmd.Process.Kill()
	<-exited
	deadline := time.After(60 * time.Second)
	for gone := false; !gone; {
		select {
		case ev := <-events:
			gone = ev[0] == id && (ev[1] == "destroy" || ev[1] == "remove")
		case <-deadline:
			exec.Command(rt.Path, "rm", "-f", id).Run()
			t.Fatalf("60 s after the harness was killed, %s has not removed container %s", rt.Name, id)
		}
	}
	if left := containersMounting(t, rt, workspace); len(left) > 0 {
		t.Fatalf("%s still lists containers %v on the killed run's workspace", rt.Name, left)
	}
	if !mountedUnder(base) {
		t.Fatalf("the killed run's workspace was not a mount of its own (%s): nothing for the next run to clear", base)
	}
	next, out := qs(task("quick", "true"))
	if err := next.Run(); err != nil {
		t.Fatalf("the next run: %v\n%s", err, out)
	}
	if mountedUnder(base) {
		t.Errorf("the next run left the killed run's mounts under %s", base)
	}
	if _, err := os.Stat(base); err == nil {
		t.Errorf("the next run left the killed run's folder %s", base)
	}
}

// mountedUnder reports whether this process's mount table has a mount at
// or under dir.
func mountedUnder(dir string) bool {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			return true
		}
	}
	return false
}

// containerEvents streams the engine's container events as (id, status):
// Docker's "start" and "destroy", Podman's "start" and "remove".
func containerEvents(t *testing.T, rt *sandbox.Runtime) <-chan [2]string {
	t.Helper()
	cmd := exec.Command(rt.Path, "events", "--filter", "type=container", "--format", "{{.ID}} {{.Status}}")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s events: %v", rt.Name, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	events := make(chan [2]string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if id, status, ok := strings.Cut(strings.TrimSpace(sc.Text()), " "); ok {
				events <- [2]string{id, status}
			}
		}
	}()
	return events
}

// awaitContainerUnder waits for the engine to start a container that binds
// a workspace under root, and returns its id and that workspace.
func awaitContainerUnder(t *testing.T, rt *sandbox.Runtime, events <-chan [2]string, root string, exited <-chan struct{}, out *bytes.Buffer) (string, string) {
	t.Helper()
	for {
		select {
		case ev := <-events:
			if ev[1] != "start" {
				continue
			}
			for _, m := range mountSources(rt, ev[0]) {
				if strings.HasPrefix(m, root+"/") && filepath.Base(m) == "workspace" {
					return ev[0], m
				}
			}
		case <-exited:
			t.Fatalf("the run ended before its container started:\n%s", out)
		}
	}
}

// containersMounting lists the engine's tabwright containers (running or
// not) that bind dir.
func containersMounting(t *testing.T, rt *sandbox.Runtime, dir string) []string {
	t.Helper()
	ids, err := exec.Command(rt.Path, "ps", "-a", "-q", "--filter", "name=tabwright-qs-").Output()
	if err != nil {
		t.Fatalf("%s ps: %v", rt.Name, err)
	}
	var found []string
	for _, id := range strings.Fields(string(ids)) {
		if slices.Contains(mountSources(rt, id), dir) {
			found = append(found, id)
		}
	}
	return found
}

// mountSources lists the host paths container id binds (none once it is
// gone).
func mountSources(rt *sandbox.Runtime, id string) []string {
	mounts, _ := exec.Command(rt.Path, "inspect", "--format", "{{range .Mounts}}{{.Source}} {{end}}", id).Output()
	return strings.Fields(string(mounts))
}
