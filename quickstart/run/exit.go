package run

// ExitCode is a tabwright process's exit code: qs run's is its suite's
// verdict (Suite.Exit), and every other command uses the same table
// (cmd/tabwright prints it). Usage is 3, because 2 means "no evidence".
type ExitCode int

const (
	ExitOK          ExitCode = 0   // done; for qs run, every task with evidence passed
	ExitFailed      ExitCode = 1   // what the command checked failed: a docs gap, an invalid task in validate, a failing check, a regression, a browser error
	ExitNoEvidence  ExitCode = 2   // qs run: no gap was seen, but some task gave no evidence, or every task was skipped
	ExitUsage       ExitCode = 3   // bad usage or input, a refused backend, a write that failed
	ExitInterrupted ExitCode = 130 // interrupted (Ctrl-C, SIGTERM), or stopped at the cost cap
)
