//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// What the sandbox backend bounds beyond the network: who the commands run
// as, and how much they may write.
//
// A harness running as root (CI, containers) starts bubblewrap as an
// unprivileged user, so the user namespace bubblewrap makes maps that user,
// not root: the host's root-owned files are "nobody's" inside, and
// /etc/shadow or a 0700 directory stays unreadable even where it is bound.
// Under any other user, bubblewrap runs as that user, as before.
//
// The workspace, with its $HOME and $TMPDIR, is a tmpfs of a fixed size that
// the harness mounts (which needs root): a command that fills it gets ENOSPC,
// the host's disk is never written, and the attempt stops with
// workspace_full. The sandbox's private /tmp, /run and /var/tmp are folders
// on the same tmpfs: one bound for everything an attempt can write. Without root there is no mount to make: the workspace is
// a folder on the host's disk, unbounded (the private folders with it), and
// WorkspaceBound says 0.

// fullSlack: a bounded workspace with less free than this is full (a write
// that failed for want of space left less than its own size).
const fullSlack = 1 << 20

// dropsPrivileges reports whether bubblewrap runs as SandboxUID.
func dropsPrivileges() bool { return os.Geteuid() == 0 }

// sandboxCredential is who bubblewrap runs as: nil keeps the harness's user.
func sandboxCredential() *syscall.Credential {
	if !dropsPrivileges() {
		return nil
	}
	return &syscall.Credential{Uid: SandboxUID, Gid: SandboxUID, Groups: []uint32{}}
}

// handOver makes paths the sandbox user's (when there is one), so its
// commands may write there; each path's own tree when tree is set. Links
// are not followed.
func handOver(tree bool, paths ...string) error {
	if !dropsPrivileges() {
		return nil
	}
	for _, p := range paths {
		if !tree {
			if err := os.Lchown(p, SandboxUID, SandboxUID); err != nil {
				return fmt.Errorf("sandbox.chown: %v", err)
			}
			continue
		}
		err := filepath.WalkDir(p, func(q string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(q, SandboxUID, SandboxUID)
		})
		if err != nil {
			return fmt.Errorf("sandbox.chown: cannot give %s to the sandbox's user (uid %d): %v", p, SandboxUID, err)
		}
	}
	return nil
}

// newBounded makes a sandbox whose directories live on a tmpfs of size
// bytes mounted at its base; without root (or with size 0) it is New's
// folder on disk, and the bound is 0. With handOver the directories are the
// sandbox user's (bubblewrap); without, the harness's own (a container,
// whose root is the harness's user or root itself).
func newBounded(size int64, handOver bool) (*Sandbox, error) {
	if size <= 0 || !dropsPrivileges() {
		s, err := New()
		if err != nil {
			return nil, err
		}
		if handOver {
			if err := s.handOverDirs(); err != nil {
				os.RemoveAll(s.Base)
				return nil, err
			}
		}
		return s, nil
	}
	sweepStale()
	base, err := makeBase()
	if err != nil {
		return nil, err
	}
	owner := os.Geteuid()
	if handOver {
		owner = SandboxUID
	}
	opts := fmt.Sprintf("size=%d,mode=0755,uid=%d,gid=%d", size, owner, owner)
	if err := syscall.Mount("tmpfs", base, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		os.Remove(base)
		return nil, fmt.Errorf("sandbox.workspace_mount: cannot mount the workspace's %s tmpfs at %s: %v; give --workspace-size 0 to work on the host's disk, unbounded", HumanBytes(size), base, err)
	}
	s := layout(base)
	s.bound = size
	if err := writeOwner(base); err != nil {
		s.unmount()
		os.Remove(base)
		return nil, err
	}
	for _, d := range []string{s.Workspace, s.Home, s.Tmp, s.outputDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			s.unmount()
			os.Remove(base)
			return nil, err
		}
	}
	if err := makePrivateDirs(s.supportDir()); err != nil {
		s.unmount()
		os.Remove(base)
		return nil, err
	}
	if err := syscall.Mount("tmpfs", s.outputDir(), "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, fmt.Sprintf("size=%d,mode=0700", OutputBytes)); err != nil {
		s.unmount()
		os.Remove(base)
		return nil, fmt.Errorf("sandbox.workspace_mount: cannot mount the output folder's tmpfs: %v", err)
	}
	if !handOver {
		return s, nil
	}
	if err := s.handOverDirs(); err != nil {
		s.unmount()
		os.Remove(base)
		return nil, err
	}
	return s, nil
}

// handOverDirs gives the sandbox user its directories, and lets it reach
// them through the base.
func (s *Sandbox) handOverDirs() error {
	if !dropsPrivileges() {
		return nil
	}
	if !s.adopted {
		if err := os.Chmod(s.Base, 0o755); err != nil {
			return err
		}
		if err := reachable(s.Workspace, "or set "+SandboxDirEnv+" to a folder it can reach"); err != nil {
			return err
		}
		return handOver(false, s.Base, s.Workspace, filepath.Dir(s.Home), s.Home, s.Tmp)
	}
	if err := reachable(s.Workspace, "or check a workspace kept by qs run --keep-sandbox"); err != nil {
		return err
	}
	if err := handOver(true, s.Workspace); err != nil {
		return err
	}
	return handOver(false, filepath.Dir(s.Home), s.Home, s.Tmp)
}

// WorkspaceBound is the size the workspace, $HOME and $TMPDIR share, or 0
// when they are an unbounded folder on the host's disk.
func (s *Sandbox) WorkspaceBound() int64 { return s.bound }

// full reports whether a bounded workspace has (almost) no room left.
func (s *Sandbox) full() bool {
	if s.bound == 0 {
		return false
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(s.Base, &st); err != nil {
		return false
	}
	return int64(st.Bavail)*int64(st.Bsize) < fullSlack
}

// fullNote is what a command's output ends with when it filled the
// workspace.
func (s *Sandbox) fullNote() string {
	return fmt.Sprintf("%s: the workspace, $HOME and $TMPDIR share a bound of %s and it is reached; the attempt stops here. Nothing was written to the host's disk. Raise the bound with `tabwright qs run --workspace-size SIZE`", WorkspaceFull, HumanBytes(s.bound))
}

// unmount takes the tmpfs away (its contents go with it), the output
// folder's first.
func (s *Sandbox) unmount() {
	if s.bound > 0 {
		syscall.Unmount(s.outputDir(), syscall.MNT_DETACH)
		syscall.Unmount(s.Base, syscall.MNT_DETACH)
	}
}

// closeBounded ends the tmpfs; a kept sandbox is first copied to the
// host's disk at the same path, so --keep-sandbox still prints a folder
// that exists after the run.
func (s *Sandbox) closeBounded(keep bool) error {
	if !keep {
		s.unmount()
		return os.RemoveAll(s.Base)
	}
	kept := s.Base + ".kept"
	syscall.Unmount(s.outputDir(), syscall.MNT_DETACH)
	if out, err := exec.Command("cp", "-a", "--", s.Base+"/.", kept).CombinedOutput(); err != nil {
		return fmt.Errorf("sandbox.keep: cannot copy the workspace out of its tmpfs (%v: %s); it stays mounted at %s", err, strings.TrimSpace(string(out)), s.Base)
	}
	s.unmount()
	if err := os.Remove(s.Base); err != nil {
		return fmt.Errorf("sandbox.keep: %v; the workspace was copied to %s", err, kept)
	}
	return os.Rename(kept, s.Base)
}

// keeperCopy puts this binary where the sandbox user can reach it (the
// harness's own path may be under a 0700 folder such as /root): a hard link
// in a fresh folder, or a copy when the link cannot be made. It returns the
// new path and the folder to remove when the sandbox closes.
func keeperCopy(self string) (string, string, error) {
	root, err := sandboxRoot()
	if err != nil {
		return "", "", err
	}
	dir, err := os.MkdirTemp(root, "tabwright-keeper-")
	if err != nil {
		return "", "", fmt.Errorf("sandbox.self: %v", err)
	}
	os.Chmod(dir, 0o755)
	dst := filepath.Join(dir, "tabwright")
	if st, err := os.Stat(self); err == nil && st.Mode().Perm()&0o005 == 0o005 && os.Link(self, dst) == nil {
		return dst, dir, nil
	}
	if err := copyFile(self, dst, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("sandbox.self: cannot copy this program where the sandbox's user can run it: %v", err)
	}
	return dst, dir, nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// reachable says which folder above an adopted workspace the sandbox's
// user cannot pass through: bubblewrap, running as that user, could not
// bind the workspace, and the folders above are the user's own to open.
func reachable(workspace, orElse string) error {
	for dir := filepath.Dir(workspace); ; dir = filepath.Dir(dir) {
		// A file in the way is no folder to pass through: making the
		// folder fails, and says so.
		if st, err := os.Stat(dir); err == nil && st.IsDir() && st.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("sandbox.unreachable: the sandbox runs as uid %d, which cannot pass through %s (mode %v) to reach %s; make it searchable (chmod o+x %s) %s", SandboxUID, dir, st.Mode().Perm(), workspace, dir, orElse)
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}
