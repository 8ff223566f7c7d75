// Package scripts holds the shell scripts the Makefile, CI and the GitHub
// Action run; its tests run them against fake package tools on PATH.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTools writes dpkg-query (which knows the packages in installed),
// apt-get (which logs its arguments to log) and id (which says uid) into a
// directory that is put first on PATH, with the system's sh, sed and grep
// kept reachable.
func fakeTools(t *testing.T, installed []string, uid string) (path, log string) {
	dir := t.TempDir()
	log = filepath.Join(dir, "apt.log")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("dpkg-query", `for a; do p=$a; done
case " `+strings.Join(installed, " ")+` " in *" $p "*) printf 'install ok installed' ;; *) exit 1 ;; esac
`)
	write("apt-get", `echo "$@" >>`+log+"\n")
	write("id", "echo "+uid+"\n")
	return dir + string(os.PathListSeparator) + "/usr/bin:/bin", log
}

func runEnsure(t *testing.T, path string, env ...string) (string, error) {
	cmd := exec.Command("/bin/sh", "ensure-test-deps.sh")
	cmd.Env = append([]string{"PATH=" + path, "HOME=" + t.TempDir()}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func listed(t *testing.T) []string {
	out, err := exec.Command("/bin/sh", "ensure-test-deps.sh", "--list").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}

// Nothing missing: silent success. Missing as a user: the exact sudo
// line and a failure. Missing as root: apt-get installs just those.
// TABWRIGHT_CHROME stands in for the browsers when it is executable.
func TestEnsureTestDeps(t *testing.T) {
	all := listed(t)
	if len(all) < 6 {
		t.Fatalf("--list gives %v", all)
	}
	path, log := fakeTools(t, all, "1000")
	if out, err := runEnsure(t, path); err != nil || out != "" {
		t.Errorf("all installed: %v %q", err, out)
	}

	without := func(drop ...string) []string {
		var keep []string
		for _, p := range all {
			if !strings.Contains(" "+strings.Join(drop, " ")+" ", " "+p+" ") {
				keep = append(keep, p)
			}
		}
		return keep
	}
	path, log = fakeTools(t, without("podman", "runc"), "1000")
	out, err := runEnsure(t, path)
	if err == nil || !strings.Contains(out, "sudo apt-get install -y podman runc\n") {
		t.Errorf("podman and runc missing, as a user: %v %q", err, out)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("apt-get ran for a user who is not root")
	}

	path, log = fakeTools(t, without("bubblewrap"), "0")
	if out, err := runEnsure(t, path); err != nil {
		t.Errorf("as root: %v %q", err, out)
	}
	if b, _ := os.ReadFile(log); string(b) != "update -qq\ninstall -y -qq bubblewrap\n" {
		t.Errorf("as root, apt-get ran with %q", b)
	}

	path, _ = fakeTools(t, without("chromium", "chromium-headless-shell"), "1000")
	chrome := filepath.Join(t.TempDir(), "chrome")
	os.WriteFile(chrome, []byte("#!/bin/sh\n"), 0o755)
	if out, err := runEnsure(t, path, "TABWRIGHT_CHROME="+chrome); err != nil {
		t.Errorf("TABWRIGHT_CHROME given: %v %q", err, out)
	}
	out, err = runEnsure(t, path, "TABWRIGHT_CHROME="+chrome+".missing")
	if err == nil || !strings.Contains(out, "is not an executable file") {
		t.Errorf("TABWRIGHT_CHROME not executable: %v %q", err, out)
	}
}

// CI installs exactly the list the script checks, so the two cannot drift.
func TestCIInstallsTheList(t *testing.T) {
	b, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "apt-get install -y $(sh scripts/ensure-test-deps.sh --list)") {
		t.Errorf(".ci/run does not install the script's list:\n%s", b)
	}
}
