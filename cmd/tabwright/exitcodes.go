package main

import (
	"strings"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// exitCode is the exit code type of every tabwright command, the one qs
// run's suite computes its verdict in (qsrun.Suite.Exit). Usage is 3
// everywhere, as quickstarted's qs has it, because 2 means "no evidence".
type exitCode = qsrun.ExitCode

const (
	exitOK         = qsrun.ExitOK
	exitFailed     = qsrun.ExitFailed
	exitNoEvidence = qsrun.ExitNoEvidence
	exitUsage      = qsrun.ExitUsage
	exitInterrupt  = qsrun.ExitInterrupted
)

// exitTable is the table as the usage texts and README show it.
const exitTable = `Exit codes (every command):
  0    success; for qs run, every task that gave evidence passed
  1    the command ran and what it checked failed: a documentation gap, an invalid file (qs validate),
       a failing check (qs check), a regression (qs diff --fail-on-regression), a browser error
  2    qs run and qs report --merge: no gap was seen, but some task gave no evidence, or every task was skipped
  3    usage or bad input: unknown command or flag, invalid argument, a task file run refuses,
       a refused backend, a write that failed
  130  interrupted, or qs run stopped at --max-cost-usd; qs keeps and writes the runs that finished
`

// isFlagError reports the errors the flag package returns for bad usage
// (it has no error type for them; these are its messages).
func isFlagError(err error) bool {
	for _, p := range []string{"flag provided but not defined", "invalid value", "invalid boolean value", "bad flag syntax", "flag needs an argument"} {
		if strings.HasPrefix(err.Error(), p) {
			return true
		}
	}
	return false
}
