//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Why bubblewrap may be refused its user namespace, and the exact fix. The
// sandbox backend always makes one, and a harness running as root starts
// bubblewrap as SandboxUID (bounds.go), so a host's restriction on
// unprivileged user namespaces binds root's runs too.

// DetectUsernsBlock reads the kernel's settings under root (the host's is
// "/"; tests pass a tree of their own) and says what forbids bubblewrap, at
// bwrap, its user namespace. ok is false when nothing there forbids it.
func DetectUsernsBlock(root, bwrap string) (UsernsBlock, bool) {
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	if read("proc/sys/user/max_user_namespaces") == "0" {
		return UsernsBlock{Setting: "user.max_user_namespaces = 0",
			Fix: "sudo sysctl -w user.max_user_namespaces=15000 (to keep it: echo user.max_user_namespaces=15000 | sudo tee /etc/sysctl.d/60-tabwright-userns.conf)"}, true
	}
	if read("proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return UsernsBlock{Setting: "kernel.unprivileged_userns_clone = 0",
			Fix: "sudo sysctl -w kernel.unprivileged_userns_clone=1 (to keep it: echo kernel.unprivileged_userns_clone=1 | sudo tee /etc/sysctl.d/60-tabwright-userns.conf)"}, true
	}
	if read("proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1" && !appArmorAllows(root, bwrap) {
		return UsernsBlock{Setting: "kernel.apparmor_restrict_unprivileged_userns = 1 (AppArmor, as on Ubuntu 23.10 and later), and no AppArmor profile for " + bwrap + " is loaded",
			Fix: appArmorFix(bwrap)}, true
	}
	return UsernsBlock{}, false
}

// appArmorFix gives both ways out: a profile that lets bubblewrap alone make
// user namespaces (the restriction stays for everything else), or lifting
// the restriction for the whole machine.
func appArmorFix(bwrap string) string {
	profile := fmt.Sprintf(`abi <abi/4.0>,\ninclude <tunables/global>\nprofile %s %s flags=(unconfined) {\n  userns,\n}\n`, AppArmorProfileName, bwrap)
	return fmt.Sprintf("let bubblewrap alone make user namespaces: printf '%s' | sudo tee /etc/apparmor.d/%s && sudo apparmor_parser -r /etc/apparmor.d/%s; or lift the restriction for the whole machine: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
		profile, AppArmorProfileName, AppArmorProfileName)
}

// appArmorAllows reports whether a profile that may cover bwrap is loaded:
// one named after its path, "bwrap" (Ubuntu's own), or ours.
func appArmorAllows(root, bwrap string) bool {
	f, err := os.Open(filepath.Join(root, "sys/kernel/security/apparmor/profiles"))
	if err != nil {
		return false
	}
	defer f.Close()
	names := map[string]bool{bwrap: true, "bwrap": true, AppArmorProfileName: true}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Each line: NAME (MODE)
		name := strings.TrimSpace(sc.Text())
		if i := strings.LastIndex(name, " ("); i >= 0 {
			name = name[:i]
		}
		if names[name] {
			return true
		}
	}
	return false
}

// BwrapPath is bubblewrap on PATH, or where distributions put it.
func BwrapPath() string {
	if p, err := exec.LookPath("bwrap"); err == nil {
		return p
	}
	return "/usr/bin/bwrap"
}

// UsernsHint is the next step when bubblewrap failed to make the sandbox.
func UsernsHint(root, bwrap string) string {
	if b, ok := DetectUsernsBlock(root, bwrap); ok {
		return fmt.Sprintf("unprivileged user namespaces are restricted here (%s)%s; fix: %s", b.Setting, asWhomNote(), b.Fix)
	}
	return "no kernel setting under /proc/sys forbids unprivileged user namespaces; a container may forbid them (seccomp or missing CAP_SYS_ADMIN): run on the host, or use --backend local --allow-unenforced"
}

// asWhomNote explains why root is bound by an unprivileged restriction.
func asWhomNote() string {
	if dropsPrivileges() {
		return fmt.Sprintf(", which binds root too, since the harness starts bubblewrap as uid %d", SandboxUID)
	}
	return ""
}
