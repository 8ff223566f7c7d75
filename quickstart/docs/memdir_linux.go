package docs

import "golang.org/x/sys/unix"

// memoryProfileDir is memoryDir when it is a writable tmpfs with
// memoryProfileRoom free, else "" (the system's temporary directory).
func memoryProfileDir() string {
	var st unix.Statfs_t
	if unix.Statfs(memoryDir, &st) != nil || st.Type != unix.TMPFS_MAGIC || st.Bavail*uint64(st.Bsize) < memoryProfileRoom {
		return ""
	}
	if unix.Access(memoryDir, unix.W_OK) != nil {
		return ""
	}
	return memoryDir
}
