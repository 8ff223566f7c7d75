package run

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/tabwright/tabwright/quickstart/docs"
)

// PagesDir is the folder of a results directory that keeps every docs page
// exactly as read_docs returned it, so a docs writer sees what the agent
// read. Each page is named by the SHA-256 of its text (its content_hash):
// a page read twice, by any run, is kept once.
const PagesDir = "pages"

// PageFile is where the page with content hash hash is kept, relative to
// the results directory (a slash path, as the trace and links write it).
func PageFile(hash string) string { return PagesDir + "/" + hash + ".md" }

// writePages writes the text of each page r read into dir's pages folder,
// skipping those already there (same name, same content).
func writePages(dir string, r *AttemptResult) error {
	for _, read := range r.DocsReads {
		if !keptPage(read) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(PageFile(read.ContentHash)))
		if _, err := os.Stat(p); err == nil {
			continue
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := atomicWrite(p, []byte(read.Text)); err != nil {
			return err
		}
	}
	return nil
}

// keptPage reports whether a read returned a page the results keep.
func keptPage(r *docs.Read) bool { return r.Blocked == "" && r.Err == "" && r.ContentHash != "" }

// PageRead is one page a run read and the file that keeps it.
type PageRead struct {
	URL  string
	File string // PageFile of its text; "" in results from before pages were kept
}

// PagesRead lists the pages r read, in the order read, each with its file.
// Results written before the pages were kept list the URLs alone.
func (r *AttemptResult) PagesRead() []PageRead {
	var out []PageRead
	for _, read := range r.DocsReads {
		if keptPage(read) {
			out = append(out, PageRead{URL: read.URL, File: PageFile(read.ContentHash)})
		}
	}
	if len(out) == 0 {
		for _, u := range r.DocsPagesRead {
			out = append(out, PageRead{URL: u})
		}
	}
	return out
}
