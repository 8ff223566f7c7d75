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
	"github.com/tabwright/tabwright/mcpserver"
)

// stateFlags are tabwright mcp's flags for the opt-in and state tools.
type stateFlags struct {
	allowEvaluate bool
	secretsFile   string
	downloadsDir  string
	maxPopups     int
	// Bounds of downloads, in MiB: one file, and all of them together.
	maxDownloadMB, maxDownloadsMB int
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.allowEvaluate, "allow-evaluate", false, "list browser_evaluate, which runs any JavaScript the agent writes in a claimed page")
	fs.StringVar(&f.downloadsDir, "downloads-dir", "", "save the managed browser's downloads here (default: a temporary folder removed at exit); each is reported in browser_logs as kind download")
	fs.IntVar(&f.maxDownloadMB, "max-download-mb", tabs.DefaultMaxDownloadBytes>>20, "the largest download kept, in MiB; a larger one is cancelled, removed and reported in browser_logs")
	fs.IntVar(&f.maxDownloadsMB, "max-downloads-mb", tabs.DefaultMaxDownloadsBytes>>20, "what all downloads together may take, in MiB; one that would pass it is cancelled, removed and reported in browser_logs")
	fs.IntVar(&f.maxPopups, "max-popups", tabs.DefaultMaxPopups, fmt.Sprintf("live popups one claimed tab may keep, 0 to %d (0: none); the server closes the others at once and logs them in browser_logs (kind navigation, type popup_closed, with a count)", tabs.MaxPopupsLimit))
	fs.StringVar(&f.secretsFile, "secrets-file", "", "a file of secrets (one a line: the whole line, or the value of NAME=value when NAME is [A-Z_][A-Z0-9_]*; # comments), each replaced by [redacted] in every tool result, raw, JSON-escaped, percent-encoded or base64")
}

// apply puts the flags into the manager's and the server's options.
func (f *stateFlags) apply(opt *tabs.Options, serverOpt *mcpserver.Options) error {
	opt.DownloadsDir = f.downloadsDir
	for _, b := range []struct {
		flag string
		mb   int
		to   *int64
	}{{"--max-download-mb", f.maxDownloadMB, &opt.MaxDownloadBytes}, {"--max-downloads-mb", f.maxDownloadsMB, &opt.MaxDownloadsBytes}} {
		if b.mb < 0 || b.mb > 1<<20 {
			return errs.Input(b.flag, "must be between 1 and %d MiB; got %d", 1<<20, b.mb).WithHint("leave it out for the default")
		}
		*b.to = int64(b.mb) << 20 // 0: the default
	}
	if f.maxPopups < 0 || f.maxPopups > tabs.MaxPopupsLimit {
		return errs.Input("--max-popups", "must be between 0 and %d; got %d", tabs.MaxPopupsLimit, f.maxPopups).
			WithHint("leave it out for %d, or give 0 to close every popup", tabs.DefaultMaxPopups)
	}
	opt.MaxPopups = f.maxPopups
	if f.maxPopups == 0 {
		opt.MaxPopups = tabs.NoPopups
	}
	serverOpt.AllowEvaluate = f.allowEvaluate
	if f.secretsFile == "" {
		return nil
	}
	secrets, err := readSecrets(f.secretsFile)
	if err != nil {
		return err
	}
	serverOpt.Secrets = secrets
	return nil
}

// readSecrets reads a secrets file (see parseSecrets).
func readSecrets(path string) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, errs.Input("--secrets-file", "cannot read %s: %v", path, err)
	}
	defer file.Close()
	return parseSecrets(path, file)
}

// parseSecrets reads one secret a line; blank lines and lines starting
// with # are skipped, spaces around a line are dropped. A line is NAME=value
// (the value is the secret) only when NAME is an environment-style name,
// [A-Z_][A-Z0-9_]*, and the value has a character other than '='; any
// other line is the secret whole, so "pa=ssword" stays one secret and so
// does padded base64 ("QUJDRA==").
func parseSecrets(path string, r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if _, value, ok := envAssignment(line); ok {
			line = value
		}
		if len(line) < mcpserver.MinSecretLength {
			return nil, errs.Input("--secrets-file", "%s line %d: a secret shorter than %d characters would blank out ordinary text", path, n, mcpserver.MinSecretLength).
				WithHint("use a longer secret, or remove the line")
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, errs.Input("--secrets-file", "reading %s: %v", path, err)
	}
	return out, nil
}

// envAssignment splits NAME=value when NAME is [A-Z_][A-Z0-9_]* and value
// is not empty and not only '=' (base64 padding).
func envAssignment(line string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(line, "=")
	if !ok || name == "" || strings.Trim(value, "=") == "" {
		return "", "", false
	}
	for i, c := range name {
		if !(c == '_' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return "", "", false
		}
	}
	return name, value, true
}
