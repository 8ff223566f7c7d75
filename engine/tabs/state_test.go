package tabs

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fileBytes is what the download fixture serves.
var fileBytes = bytes.Repeat([]byte("tabwright download\n"), 1000)

func stateSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/report.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
		w.Header().Set("Content-Type", "text/csv")
		w.Write(fileBytes)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>State</title><style>@media print { h1 { color: black } }</style><h1>Printable</h1><a id="dl" href="/report.csv">Get</a>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestPDFEmulationStorageDownloads(t *testing.T) {
	t.Parallel()
	srv := stateSite(t)
	dir := t.TempDir()
	m, err := New(Options{DownloadsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: srv.URL + "/", Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	if _, err := tab.Navigate(ctx, Navigation{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}

	pdf, err := tab.PrintPDF(ctx, PDF{Landscape: true, PrintBackground: true})
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("pdf: %d bytes %q, %v", len(pdf), pdf[:min(len(pdf), 8)], err)
	}
	if _, err := tab.PrintPDF(ctx, PDF{PageRanges: "9-2"}); err == nil {
		t.Fatal("a backwards page range printed")
	}

	// Emulation the page sees; a later call keeps what it does not change.
	if _, err := tab.Emulate(ctx, Emulation{Width: 400, Height: 700, DeviceScale: 2, ColorScheme: "dark"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Emulate(ctx, Emulation{Media: "print"}); err != nil {
		t.Fatal(err)
	}
	var seen struct {
		W, H, DPR   float64
		Dark, Print bool
	}
	if err := tab.Eval(ctx, `({W: innerWidth, H: innerHeight, DPR: devicePixelRatio, Dark: matchMedia('(prefers-color-scheme: dark)').matches, Print: matchMedia('print').matches})`, &seen); err != nil {
		t.Fatal(err)
	}
	if seen.W != 400 || seen.H != 700 || seen.DPR != 2 || !seen.Dark || !seen.Print {
		t.Fatalf("the page sees %+v", seen)
	}
	if now, err := tab.Emulate(ctx, Emulation{Reset: true}); err != nil || now != (Emulation{}) {
		t.Fatalf("reset: %+v %v", now, err)
	}
	// The browser resizes the view after the override is gone: wait for it.
	reset := `new Promise((done) => { const read = () => ({W: innerWidth, DPR: devicePixelRatio, Dark: matchMedia('(prefers-color-scheme: dark)').matches, Print: matchMedia('print').matches});
  const t0 = performance.now(); const poll = () => (innerWidth !== 400 || performance.now() - t0 > 3000) ? done(read()) : requestAnimationFrame(poll); poll(); })`
	if err := tab.Eval(ctx, reset, &seen); err != nil || seen.W == 400 || seen.DPR != 1 || seen.Dark || seen.Print {
		t.Fatalf("after reset the page sees %+v (%v)", seen, err)
	}

	// Storage: export, clear, import, read back.
	if err := tab.Eval(ctx, `document.cookie = "sid=abc123; path=/"; localStorage.setItem("theme", "dark"); true`, nil); err != nil {
		t.Fatal(err)
	}
	st, err := tab.ExportStorage(ctx)
	if err != nil || len(st.Origins) != 1 || st.Origins[0].LocalStorage[0] != (KeyValue{"theme", "dark"}) || !hasCookie(st, "sid", "abc123") {
		t.Fatalf("export: %+v %v", st, err)
	}
	if err := tab.Eval(ctx, `document.cookie = "sid=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/"; localStorage.clear(); document.cookie`, nil); err != nil {
		t.Fatal(err)
	}
	st.Origins = append(st.Origins, OriginStorage{Origin: "https://elsewhere.test", LocalStorage: []KeyValue{{"a", "b"}}})
	imp, err := tab.ImportStorage(ctx, st)
	if err != nil || imp.Cookies == 0 || imp.Items != 1 || len(imp.Skipped) != 1 {
		t.Fatalf("import: %+v %v", imp, err)
	}
	var back string
	if err := tab.Eval(ctx, `document.cookie + "|" + localStorage.getItem("theme")`, &back); err != nil || back != "sid=abc123|dark" {
		t.Fatalf("after import: %q %v", back, err)
	}

	// A download lands in the folder, named as the server suggested, and
	// is reported in the tab's log.
	if err := tab.Eval(ctx, `document.getElementById('dl').click(), true`, nil); err != nil {
		t.Fatal(err)
	}
	var got LogEntry
	// A poll, not a stand-in for a signal: the entry is logged by a
	// goroutine after the file is renamed on disk, and nothing announces it.
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if p := tab.Logs(LogQuery{Kinds: []string{LogDownload}}); len(p.Entries) == 1 {
			got = p.Entries[0]
			break
		}
		if time.Now().After(end) {
			t.Fatal("no download entry")
		}
	}
	disk, err := os.ReadFile(got.Path)
	if err != nil || !bytes.Equal(disk, fileBytes) || got.Path != filepath.Join(dir, "report.csv") || got.Bytes != int64(len(fileBytes)) || !strings.HasSuffix(got.URL, "/report.csv") {
		t.Fatalf("download %+v: %d bytes on disk, %v", got, len(disk), err)
	}
}

func hasCookie(st *StorageState, name, value string) bool {
	for _, c := range st.Cookies {
		if c.Name == name && c.Value == value {
			return true
		}
	}
	return false
}
