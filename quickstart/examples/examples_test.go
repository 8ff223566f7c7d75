package examples

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestQSExamplesLoad(t *testing.T) {
	names := Names()
	if strings.Join(names, ",") != "hello,missing-step,web-page" {
		t.Fatalf("examples: %v", names)
	}
	srv := Server()
	defer srv.Close()
	for _, n := range names {
		tk, err := Load(n, srv.URL)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if tk.Mode() != "replay+agent" || len(tk.DocsAllow) != 1 || tk.DocsAllow[0] != "127.0.0.1" || tk.Source != "example:"+n {
			t.Errorf("%s: %+v", n, tk)
		}
		for _, page := range tk.Route {
			resp, err := http.Get(page)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), "<article>") {
				t.Errorf("%s: %s answered %d", n, page, resp.StatusCode)
			}
		}
		// As bundled, the file is a valid task on its own.
		if tk, err := Load(n, ""); err != nil || !strings.HasPrefix(tk.Entrypoint(), DocsOrigin+"/") {
			t.Errorf("%s as bundled: %v", n, err)
		}
	}
	if _, err := Load("nope", ""); err == nil || err.Error() != `no example named "nope"; available: hello, missing-step, web-page` {
		t.Errorf("%v", err)
	}
}
