package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tabwright/tabwright/engine/errs"
)

// folder is one folder the user named for the file tools (--output-dir,
// --upload-root): a tool reads or writes a path only when it resolves,
// links followed, inside it. Pages are untrusted and a model may be steered
// by one, so a path from a tool call is never trusted to stay put.
type folder struct {
	dir  string // absolute, links resolved
	flag string // how the user names it, for hints
}

// openFolder makes dir (0700 when new) and resolves it once.
func openFolder(dir, flag string) (*folder, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errs.Input(flag, "cannot make %s: %v", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, errs.Input(flag, "cannot resolve %s: %v", dir, err)
	}
	return &folder{dir: abs, flag: flag}, nil
}

// outside is the one error of a path that leaves the folder.
func (f *folder) outside(field, p string) error {
	return errs.Input(field, "%s is outside %s, the folder file tools may use", p, f.dir).
		WithHint("give a path inside %s (relative paths are taken from it), or start the server with %s naming another folder", f.dir, f.flag)
}

// rel turns p (absolute, or relative to the folder) into a path relative to
// the folder, its parent's links resolved, or says it leaves the folder.
func (f *folder) rel(field, p string) (string, error) {
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(f.dir, full)
	}
	full = filepath.Clean(full)
	parent, err := filepath.EvalSymlinks(filepath.Dir(full))
	if err != nil {
		return "", errs.Input(field, "the folder of %s does not exist", p).
			WithHint("give a path in an existing folder inside %s", f.dir)
	}
	r, err := filepath.Rel(f.dir, filepath.Join(parent, filepath.Base(full)))
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", f.outside(field, p)
	}
	return r, nil
}

// write stores data at p inside the folder and returns its absolute path.
// It writes a new file beside the target and renames it over: a link at
// the target is replaced, never followed, and os.Root refuses any step out
// of the folder between the check and the write.
func (f *folder) write(field, p string, data []byte, mode os.FileMode) (string, error) {
	r, err := f.rel(field, p)
	if err != nil {
		return "", err
	}
	root, err := os.OpenRoot(f.dir)
	if err != nil {
		return "", errs.Input(field, "cannot open %s: %v", f.dir, err)
	}
	defer root.Close()
	var nonce [6]byte
	_, _ = rand.Read(nonce[:])
	tmp := filepath.Join(filepath.Dir(r), ".tabwright-"+hex.EncodeToString(nonce[:]))
	if err := writeNew(root, tmp, data, mode); err != nil {
		_ = root.Remove(tmp)
		return "", writeErr(f, field, p, err)
	}
	if err := root.Rename(tmp, r); err != nil {
		_ = root.Remove(tmp)
		return "", writeErr(f, field, p, err)
	}
	return filepath.Join(f.dir, r), nil
}

func writeNew(root *os.Root, name string, data []byte, mode os.FileMode) error {
	w, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func writeErr(f *folder, field, p string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return f.outside(field, p)
	}
	return errs.Input(field, "cannot write %s: %v", p, unwrapPath(err)).
		WithHint("give a writable path inside %s", f.dir)
}

// unwrapPath keeps the OS's reason without repeating the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// read returns the regular file at p inside the folder, at most max bytes;
// its content never appears in an error.
func (f *folder) read(field, p string, max int64) ([]byte, error) {
	r, err := f.rel(field, p)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(f.dir)
	if err != nil {
		return nil, errs.Input(field, "cannot open %s: %v", f.dir, err)
	}
	defer root.Close()
	file, err := root.Open(r)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return nil, f.outside(field, p)
		}
		return nil, errs.Input(field, "cannot read %s: %v", p, unwrapPath(err))
	}
	defer file.Close()
	if st, err := file.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errs.Input(field, "%s is not a regular file", p)
	}
	data, err := io.ReadAll(io.LimitReader(file, max+1))
	if err != nil {
		return nil, errs.Input(field, "cannot read %s: %v", p, unwrapPath(err))
	}
	if int64(len(data)) > max {
		return nil, errs.Input(field, "%s is larger than %d bytes", p, max)
	}
	return data, nil
}

// resolve returns the absolute path, links resolved, of an existing regular
// file inside the folder (an upload: the browser reads the file itself).
func (f *folder) resolve(field, p string) (string, error) {
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(f.dir, full)
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "", errs.Input(field, "%s is not a readable file", p).WithHint("give a file inside %s", f.dir)
	}
	r, err := filepath.Rel(f.dir, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", f.outside(field, p)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", errs.Input(field, "%s is not a regular file", p)
	}
	return real, nil
}

// DefaultOutputDir is the output folder of a server started without
// --output-dir: a folder of its own under the OS's temp folder.
func DefaultOutputDir() string { return filepath.Join(os.TempDir(), "tabwright-output") }

// folders opens the output and upload folders on first use, so a server
// that never writes a file makes none.
func folders(opt Options) (outputs, uploads func() (*folder, error)) {
	out := opt.OutputDir
	if out == "" {
		out = DefaultOutputDir()
	}
	outputs = sync.OnceValues(func() (*folder, error) { return openFolder(out, "--output-dir") })
	uploads = outputs
	if opt.UploadRoot != "" {
		uploads = sync.OnceValues(func() (*folder, error) { return openFolder(opt.UploadRoot, "--upload-root") })
	}
	return outputs, uploads
}

// folders gives the server's output and upload folders, each opened on
// its first use.
func (s *server) folders() (outputs, uploads func() (*folder, error)) {
	s.files.Do(func() { s.outputs, s.uploads = folders(s.opt) })
	return s.outputs, s.uploads
}

func (s *server) writeOutput(ctx context.Context, field, p string, data []byte, mode os.FileMode) (string, error) {
	f, err := s.fileFolder(ctx, field, p, false)
	if err != nil {
		return "", err
	}
	return f.write(field, p, data, mode)
}

func (s *server) readOutput(ctx context.Context, field, p string, max int64) ([]byte, error) {
	f, err := s.fileFolder(ctx, field, p, false)
	if err != nil {
		return nil, err
	}
	return f.read(field, p, max)
}

// fileFolder is the folder a file tool uses for p: one of the client's
// roots when it offers some, else the output (or upload) folder.
func (s *server) fileFolder(ctx context.Context, field, p string, upload bool) (*folder, error) {
	if roots := s.rootFolders(ctx); len(roots) > 0 {
		return pickFolder(field, p, roots)
	}
	outputs, uploads := s.folders()
	if upload {
		return uploads()
	}
	return outputs()
}

// uploadFiles resolves every file of an upload inside the upload folder.
func (s *server) uploadFiles(ctx context.Context, files []string) error {
	for i, p := range files {
		field := fmt.Sprintf("files[%d]", i)
		f, err := s.fileFolder(ctx, field, p, true)
		if err != nil {
			return err
		}
		real, err := f.resolve(field, p)
		if err != nil {
			return err
		}
		files[i] = real
	}
	return nil
}
