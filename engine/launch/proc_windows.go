package launch

import (
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procAttr starts the browser suspended, so that it is inside its Job
// Object before it can start a child of its own (startTree).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
}

// procTree is a Job Object holding the browser and every process it
// starts. Only this process holds the job's handle, and the job kills its
// processes when the last handle closes: when Close kills it, and when
// this process ends, however it ends.
type procTree struct{ job windows.Handle }

func startTree(cmd *exec.Cmd) (procTree, error) {
	job, err := killOnCloseJob()
	if err != nil {
		return procTree{}, err
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return procTree{}, err
	}
	pid := uint32(cmd.Process.Pid)
	if err := assignAndResume(job, pid); err != nil {
		cmd.Process.Kill()
		windows.CloseHandle(job)
		return procTree{}, err
	}
	return procTree{job: job}, nil
}

func killOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("creating a job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("setting the job object to kill on close: %w", err)
	}
	return job, nil
}

// assignAndResume puts the suspended process pid in job, then resumes its
// threads (a suspended process has only its first one).
func assignAndResume(job windows.Handle, pid uint32) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("opening the browser process: %w", err)
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(job, p); err != nil {
		return fmt.Errorf("putting the browser in its job object: %w", err)
	}
	return resumeThreads(pid)
}

func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing the browser's threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	var te windows.ThreadEntry32
	te.Size = uint32(unsafe.Sizeof(te))
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("opening the browser's thread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming the browser: %w", err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("the browser process %d has no thread to resume", pid)
	}
	return nil
}

// kill ends every process in the job, then lets the job go.
func (t procTree) kill() {
	if t.job != 0 {
		windows.TerminateJobObject(t.job, 1)
		windows.CloseHandle(t.job)
	}
}

// stillActive is GetExitCodeProcess's answer for a running process.
const stillActive = 259

func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err == windows.ERROR_ACCESS_DENIED // it runs, as someone we cannot query
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}
