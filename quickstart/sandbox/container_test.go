//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/internal/testimage"
	"github.com/tabwright/tabwright/quickstart/egress"
)

// The container backend's tests fail, never skip, without a container
// engine: CI installs podman (.ci/run).
func requireRuntime(t testing.TB) (*Runtime, string) {
	t.Helper()
	rt, why := FindRuntime(context.Background())
	if rt == nil {
		t.Fatalf("the container backend cannot run here: %s", why)
	}
	return rt, testimage.Build(t, rt.Path)
}

// containerSandbox is a container sandbox with netSandbox's proxy: it
// allows registry.test, refuses docs.test, and resolves every *.test name
// to a loopback server of the harness.
func containerSandbox(t *testing.T) (*Sandbox, *events) {
	t.Helper()
	return containerSandboxSized(t, MinWorkspaceBytes*16)
}

// containerSandboxSized is containerSandbox with the workspace's bound (0:
// a folder on the host's disk).
func containerSandboxSized(t *testing.T, workspaceBytes int64) (*Sandbox, *events) {
	t.Helper()
	rt, image := requireRuntime(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served %s%s\n", r.Host, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	ev := &events{}
	p := &egress.Proxy{Policy: egress.Policy{Docs: []string{"docs.test"}, Allow: []string{"registry.test"}}, OnEvent: ev.add,
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if !strings.HasSuffix(strings.Split(addr, ":")[0], ".test") {
				return nil, fmt.Errorf("tests reach only *.test names, not %s", addr)
			}
			var d net.Dialer
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		}}
	s, err := NewContainer(context.Background(), rt, image, p, workspaceBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(false) })
	return s, ev
}

func runIn(t *testing.T, s *Sandbox, command string) CommandResult {
	t.Helper()
	return s.Run(context.Background(), command, Options{Timeout: time.Minute, MaxChars: 4000})
}

func TestQSContainerRunsInTheImage(t *testing.T) {
	s, _ := containerSandbox(t)
	if s.BackendName() != Container || !s.Enforced() {
		t.Fatalf("backend %s, enforced %v; want container, enforced", s.BackendName(), s.Enforced())
	}
	secret := filepath.Join(t.TempDir(), "host-secret")
	os.WriteFile(secret, []byte("x"), 0o644)
	// The working directory is /workspace, as under quickstarted's docker
	// backend; the workspace is at its host path too.
	r := runIn(t, s, fmt.Sprintf(`cat %s; echo "env=$%s home=$HOME tmp=$TMPDIR pwd=$(pwd)"; echo made > made.txt; cat %s/made.txt; test -e %s && echo HOST-VISIBLE; true`,
		testimage.MarkerFile, testimage.EnvVar, s.Workspace, secret))
	want := fmt.Sprintf("%s\nenv=%s home=%s tmp=%s pwd=%s\nmade\n", testimage.Marker, testimage.EnvValue, s.Home, s.Tmp, ContainerWorkspace)
	if r.ExitCode != 0 || r.Output != want {
		t.Fatalf("exit %d, output %q; want %q (the image's files and environment, the sandbox's folders)", r.ExitCode, r.Output, want)
	}
	if b, err := os.ReadFile(filepath.Join(s.Workspace, "made.txt")); err != nil || string(b) != "made\n" {
		t.Fatalf("the workspace on the host holds %q, %v; want what the command wrote", b, err)
	}
	// The control socket is gone once the keeper is connected: nothing in
	// the container can open a second control connection.
	if r := runIn(t, s, "ls -A "+keeperDir+"/control"); r.ExitCode != 0 || r.Output != "" {
		t.Fatalf("the control folder holds %q (exit %d); want it empty", r.Output, r.ExitCode)
	}
	// Timeouts kill the command's group, as on the sandbox backend.
	r = s.Run(context.Background(), "sleep 600", Options{Timeout: 300 * time.Millisecond})
	if r.ExitCode != 124 || !r.TimedOut {
		t.Fatalf("a command past its timeout: exit %d, timed out %v; want 124, true", r.ExitCode, r.TimedOut)
	}
}

// TestQSContainerNetwork: the proxy is the only way out, with the sandbox
// backend's records; the host's loopback services and its other addresses
// cannot be dialled directly.
func TestQSContainerNetwork(t *testing.T) {
	s, ev := containerSandbox(t)
	r := runIn(t, s, "wget -q -O - http://registry.test/pkg")
	if r.ExitCode != 0 || r.Output != "served registry.test/pkg\n" {
		t.Fatalf("an allowed host through the proxy: exit %d, %q", r.ExitCode, r.Output)
	}
	r = runIn(t, s, "wget -q -O - http://docs.test/page")
	if r.ExitCode == 0 || !ev.has("egress_blocked docs.test docs_host_requires_read_docs") {
		t.Fatalf("a docs host from the shell: exit %d, %q, events %v; want a recorded refusal", r.ExitCode, r.Output, ev.evs)
	}
	if !ev.has("egress_allowed registry.test allowlisted") {
		t.Fatalf("the allowed request was not recorded: %v", ev.evs)
	}

	// A service on the host's loopback, and one on every host address.
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HOST-SERVICE\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	targets := []string{"127.0.0.1"}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ip, ok := a.(*net.IPNet); ok && !ip.IP.IsLoopback() && ip.IP.To4() != nil {
				targets = append(targets, ip.IP.String())
			}
		}
	}
	for _, host := range targets {
		r := runIn(t, s, fmt.Sprintf("exec 3<>/dev/tcp/%s/%d && cat <&3", host, port))
		if r.ExitCode == 0 || strings.Contains(r.Output, "HOST-SERVICE") {
			t.Fatalf("the container reached the host's %s:%d directly: exit %d, %q", host, port, r.ExitCode, r.Output)
		}
	}
	// Nor the internet, by address, without the proxy.
	r = runIn(t, s, "exec 3<>/dev/tcp/1.1.1.1/80 && echo CONNECTED")
	if r.ExitCode == 0 || strings.Contains(r.Output, "CONNECTED") {
		t.Fatalf("the container dialled out directly: exit %d, %q", r.ExitCode, r.Output)
	}
}

// TestQSContainerLearnsStartFixes replays the refusals a VM without
// CAP_SYS_RESOURCE and with hybrid cgroups gives Podman 4.3 (crun first,
// then runc), and the fixes each one earns.
func TestQSContainerLearnsStartFixes(t *testing.T) {
	podman := &Runtime{Name: "podman"}
	f, ok := startFix{}.learn("Error: crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted: OCI permission denied", podman)
	if !ok || !f.LimitsRequired || f.Nofile == 0 || f.Nproc == 0 {
		t.Fatalf("a refused limit: %+v %v; want the harness's own limits", f, ok)
	}
	own := f.Nproc
	if f, ok = f.learn("Error: crun: setrlimit `RLIMIT_NPROC`: Operation not permitted: OCI permission denied", podman); !ok || f.Nproc != own/2 {
		t.Fatalf("nproc refused again: %+v %v; want it halved from %d", f, ok, own)
	}
	if f, ok = f.learn("Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2", podman); !ok || f.Runtime != "runc" {
		t.Fatalf("crun on hybrid cgroups: %+v %v; want runc (installed here)", f, ok)
	}
	n := f.Nproc
	if f, ok = f.learn("Error: runc: runc create failed: unable to start container process: error during container init: error setting rlimits for ready process: error setting rlimit type 6: operation not permitted: OCI permission denied", podman); !ok || f.Nproc != n/2 {
		t.Fatalf("runc refusing nproc: %+v %v; want it halved from %d", f, ok, n)
	}
	want := fmt.Sprintf("--runtime runc --pids-limit 4096 --ulimit nofile=%d:%d --ulimit nproc=%d:%d", f.Nofile, f.Nofile, n/2, n/2)
	if got := strings.Join(f.flags(), " "); got != want {
		t.Fatalf("flags %q, want %q", got, want)
	}
	if _, ok := f.learn("Error: short-name resolution enforced but cannot prompt without a TTY", podman); ok {
		t.Fatal("an unrelated refusal was taken for one this package can work around")
	}
	for f.Nproc/2 >= minLimit {
		f, _ = f.learn("error setting rlimit type 6: operation not permitted", podman)
	}
	if _, ok := f.learn("error setting rlimit type 6: operation not permitted", podman); ok {
		t.Fatalf("nproc lowered below %d", minLimit)
	}
}

// FuzzContainerStartParsers: what an engine or a loader prints never
// panics the parsers, a library is always a bare name at an absolute path,
// and learning from one refusal ends.
func FuzzContainerStartParsers(f *testing.F) {
	f.Add("\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f8fa6034000)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f8fa622a000)\n")
	f.Add("Error: crun: setrlimit `RLIMIT_NPROC`: Operation not permitted: OCI permission denied")
	f.Add("error setting rlimit type 7: operation not permitted; cgroups in hybrid mode not supported; pids-limit")
	f.Fuzz(func(t *testing.T, text string) {
		for _, lib := range listedLibraries(text) {
			if strings.ContainsRune(lib[0], '/') || !strings.HasPrefix(lib[1], "/") {
				t.Fatalf("library %q at %q", lib[0], lib[1])
			}
		}
		fix, rt := startFix{}, &Runtime{Name: "podman"}
		for i := 0; ; i++ {
			next, ok := fix.learn(text, rt)
			if !ok {
				break
			}
			if i > 64 {
				t.Fatalf("learning from %q does not end: %+v", text, next)
			}
			fix = next
		}
	})
}

// An image: from an untrusted task file never reaches the engine's command
// line as a flag.
func TestQSContainerRefusesAnImageThatReadsAsAFlag(t *testing.T) {
	rt := &Runtime{Name: "podman", Path: "/nonexistent/podman"}
	for _, image := range []string{"--privileged", "-v=/:/host", "node 22", "node:22\n--privileged", ":tag"} {
		if _, err := NewContainer(context.Background(), rt, image, nil, 0); err == nil || !strings.Contains(err.Error(), "sandbox.bad_image") {
			t.Errorf("image %q: %v; want sandbox.bad_image", image, err)
		}
	}
}

// A workspace whose path has a colon, which the engine's --volume would
// split, is refused before the engine is asked, saying why.
func TestQSContainerRefusesAPathWithAColon(t *testing.T) {
	rt, image := requireRuntime(t)
	dir := filepath.Join(t.TempDir(), "ws:1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := AdoptContainer(context.Background(), rt, image, dir, nil)
	if err == nil {
		s.Close(false)
	}
	if err == nil || !strings.Contains(err.Error(), "sandbox.unbindable_path") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("a workspace at %s: %v; want sandbox.unbindable_path naming it", dir, err)
	}
}

// A command running as the container's root cannot leave a set-user-ID
// program in the workspace that the host would honour.
func TestQSContainerWorkspaceIgnoresSetUID(t *testing.T) {
	s, _ := containerSandboxSized(t, 0) // on the host's disk: no tmpfs of ours to make it nosuid
	r := runIn(t, s, "cp /bin/busybox ./suid && chmod 4755 ./suid && grep -q nosuid /proc/self/mountinfo && grep \" $(pwd) \" /proc/self/mountinfo")
	if r.ExitCode != 0 || !strings.Contains(r.Output, "nosuid") {
		t.Fatalf("the workspace's mount inside: exit %d, %q; want it nosuid", r.ExitCode, r.Output)
	}
	// Whatever the harness mounted for it (Docker: binds of the folders on
	// themselves) goes at Close.
	if err := s.Close(false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(b), s.Base) {
		t.Errorf("mounts under %s outlive Close:\n%s", s.Base, b)
	}
}

// BenchmarkQSContainerStart measures what a container sandbox costs once
// (the engine's start, this binary as its first process, the close and
// removal) and then per command, beside the sandbox backend's numbers
// (BenchmarkQSSandboxStart, BenchmarkQSCommandOverhead).
func BenchmarkQSContainerStart(b *testing.B) {
	rt, image := requireRuntime(b)
	ctx := context.Background()
	var starts, cmds []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s, err := NewContainer(ctx, rt, image, &egress.Proxy{}, 0)
		if err != nil {
			b.Fatal(err)
		}
		starts = append(starts, time.Since(t0))
		for j := 0; j < 5; j++ {
			t1 := time.Now()
			if r := s.Run(ctx, "true", Options{}); r.ExitCode != 0 {
				b.Fatalf("%+v", r)
			}
			cmds = append(cmds, time.Since(t1))
		}
		s.Close(false)
	}
	b.ReportMetric(medianMS(starts), "start-ms")
	b.ReportMetric(medianMS(cmds), "command-ms")
}
