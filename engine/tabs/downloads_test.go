package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// Downloads a page starts are bounded, one by one and all together: one
// past its bound, or past what the folder may still take, is cancelled,
// its part removed, and the log says why (issue 44, item 7).
func TestDownloadsAreBounded(t *testing.T) {
	t.Parallel()
	const kib = 1 << 10
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size := map[string]int{"/big.bin": 3 << 20, "/one.bin": 700 * kib, "/two.bin": 700 * kib}[r.URL.Path]
		if size == 0 {
			fmt.Fprint(w, `<title>Files</title><a id="big" href="/big.bin" download>big</a> <a id="one" href="/one.bin" download>one</a> <a id="two" href="/two.bin" download>two</a>`)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", fmt.Sprint(size))
		w.Write(make([]byte, size))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	m, err := New(Options{DownloadsDir: dir, MaxDownloadBytes: 1 << 20, MaxDownloadsBytes: 1 << 20})
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
	// One at a time, each waited for, so the order of the log is theirs.
	for i, c := range []struct{ link, err string }{
		{"big", "larger than 1 MiB, the bound of one download"},
		{"one", ""},
		{"two", "would pass 1 MiB in all"},
	} {
		if err := tab.Eval(ctx, fmt.Sprintf(`document.getElementById(%q).click(), true`, c.link), nil); err != nil {
			t.Fatal(err)
		}
		e := waitDownloads(t, tab, i+1)
		if c.err == "" && (e.Error != "" || e.Bytes != 700*kib) || c.err != "" && (!strings.Contains(e.Error, c.err) || e.Path != "") {
			t.Fatalf("%s: %+v, want error %q", c.link, e, c.err)
		}
	}
	// A refused download's entry is logged once its part is removed
	// (finish), so the folder is as it stays.
	files, _ := os.ReadDir(dir)
	if len(files) != 1 || files[0].Name() != "one.bin" {
		t.Fatalf("the folder holds %v, want one.bin alone", files)
	}
}

// waitDownloads waits for the tab's nth download entry and returns it,
// woken by each entry the tab's log gains.
func waitDownloads(t *testing.T, tab *Tab, n int) LogEntry {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		grew := tab.LogGrew()
		if p := tab.Logs(LogQuery{Kinds: []string{LogDownload}}); len(p.Entries) >= n {
			return p.Entries[n-1]
		}
		select {
		case <-grew:
		case <-timeout:
			t.Fatalf("no download entry %d", n)
		}
	}
}
