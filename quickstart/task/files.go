package task

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxFileBytes bounds every file a task brings: the task file, its
// success.file and the repository config. A quickstart task is a page of
// YAML; past this size it is a mistake or an attack on the harness's memory.
const MaxFileBytes = 1 << 20

// readBounded reads path, refusing anything but a regular file and anything
// over MaxFileBytes. It never holds more than MaxFileBytes+1 bytes, whatever
// the file's size says.
func readBounded(path string) ([]byte, *Problem) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Problem{Rule: "file.missing", Message: "no such file"}
		}
		return nil, &Problem{Rule: "file.missing", Message: "cannot read: " + err.Error()}
	}
	defer f.Close()
	return readOpen(f)
}

func readOpen(f *os.File) ([]byte, *Problem) {
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, &Problem{Rule: "file.missing", Message: "cannot read: " + err.Error()}
	case !st.Mode().IsRegular():
		return nil, &Problem{Rule: "file.not_regular", Message: fmt.Sprintf("is %s, not a regular file", kindOfMode(st.Mode()))}
	case st.Size() > MaxFileBytes:
		return nil, tooLarge(st.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &Problem{Rule: "file.missing", Message: "cannot read: " + err.Error()}
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge(int64(len(data)))
	}
	return data, nil
}

func tooLarge(size int64) *Problem {
	what := fmt.Sprintf("%d bytes", size)
	if size > MaxFileBytes {
		what = fmt.Sprintf("over %d bytes", MaxFileBytes)
	}
	return &Problem{Rule: "file.too_large", Message: fmt.Sprintf("is %s; task files are at most %d bytes (1 MiB): split it, or move long scripts into a success.file", what, MaxFileBytes)}
}

// readInside reads ref, a path relative to the folder dir, when it resolves
// (symlinks followed) to a regular file inside that folder. A link out of
// the folder (to a host file, to /proc/self/environ) is refused before
// anything is read, so its content reaches no log, trace or report. The
// file is opened through an os.Root on the folder, so a link swapped in
// after the check cannot lead out either.
func readInside(dir, ref string) ([]byte, *Problem) {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, &Problem{Rule: "success.file", Message: fmt.Sprintf("the task's folder %s cannot be read: %v", dir, err)}
	}
	realDir, _ = filepath.Abs(realDir)
	full := filepath.Join(dir, ref)
	target, err := filepath.EvalSymlinks(full)
	if err != nil {
		return nil, &Problem{Rule: "success.file", Message: fmt.Sprintf("%q does not exist (looked for %s)", ref, full)}
	}
	target, _ = filepath.Abs(target)
	rel, err := filepath.Rel(realDir, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, &Problem{Rule: "success.file.outside", Message: fmt.Sprintf("%q resolves to %s, outside the task's folder %s; keep the check file in the folder of the task file (symlinks are followed)", ref, target, realDir)}
	}
	root, err := os.OpenRoot(realDir)
	if err != nil {
		return nil, &Problem{Rule: "success.file", Message: fmt.Sprintf("the task's folder %s cannot be read: %v", realDir, err)}
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, &Problem{Rule: "success.file.outside", Message: fmt.Sprintf("%q cannot be opened inside the task's folder %s: %v", ref, realDir, err)}
	}
	defer f.Close()
	data, p := readOpen(f)
	if p != nil && p.Rule == "file.missing" {
		p.Rule = "success.file"
	}
	return data, p
}

func kindOfMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
