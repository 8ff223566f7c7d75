package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// stateFlags are tabwright mcp's flags for the opt-in and state tools.
type stateFlags struct {
	allowEvaluate bool
	secretsFile   string
	downloadsDir  string
	maxPopups     int
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.allowEvaluate, "allow-evaluate", false, "list browser_evaluate, which runs any JavaScript the agent writes in a claimed page")
	fs.StringVar(&f.downloadsDir, "downloads-dir", "", "save the managed browser's downloads here (default: a temporary folder removed at exit); each is reported in browser_logs as kind download")
	fs.IntVar(&f.maxPopups, "max-popups", tabs.DefaultMaxPopups, fmt.Sprintf("live popups one claimed tab may keep, 0 to %d (0: none); the server closes the others at once and logs them in browser_logs (kind navigation, type popup_closed, with a count)", tabs.MaxPopupsLimit))
	fs.StringVar(&f.secretsFile, "secrets-file", "", "a file of secret values (one per line, or NAME=value; # comments) replaced by [redacted] in logs and evaluation results")
}

// apply puts the flags into the manager's options.
func (f *stateFlags) apply(opt *tabs.Options) error {
	opt.DownloadsDir = f.downloadsDir
	if f.maxPopups < 0 || f.maxPopups > tabs.MaxPopupsLimit {
		return errs.Input("--max-popups", "must be between 0 and %d; got %d", tabs.MaxPopupsLimit, f.maxPopups).
			WithHint("leave it out for %d, or give 0 to close every popup", tabs.DefaultMaxPopups)
	}
	opt.MaxPopups = f.maxPopups
	if f.maxPopups == 0 {
		opt.MaxPopups = tabs.NoPopups
	}
	if f.secretsFile == "" {
		return nil
	}
	secrets, err := readSecrets(f.secretsFile)
	if err != nil {
		return err
	}
	opt.Secrets = secrets
	return nil
}

// readSecrets reads a secrets file: each non-blank line that is not a
// comment is a value, or NAME=value.
func readSecrets(path string) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, errs.Input("--secrets-file", "cannot read %s: %v", path, err)
	}
	defer file.Close()
	return parseSecrets(path, file)
}

func parseSecrets(path string, r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if name, value, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(name, " \t") {
			line = value
		}
		if len(line) < tabs.MinSecretLength {
			return nil, errs.Input("--secrets-file", "%s line %d: a secret shorter than %d characters would blank out ordinary text", path, n, tabs.MinSecretLength)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, errs.Input("--secrets-file", "reading %s: %v", path, err)
	}
	return out, nil
}
