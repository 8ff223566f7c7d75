package tabs

import (
	"context"
	"encoding/json"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// StorageState is a browser's cookies and one origin's localStorage, in the
// shape Playwright's storage state files have.
type StorageState struct {
	Cookies []*network.Cookie `json:"cookies"`
	Origins []OriginStorage   `json:"origins"`
}

// OriginStorage is the localStorage of one origin.
type OriginStorage struct {
	Origin       string     `json:"origin"`
	LocalStorage []KeyValue `json:"localStorage"`
}

// KeyValue is one localStorage item.
type KeyValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Imported says what an import applied.
type Imported struct {
	Cookies int      `json:"cookies"`
	Items   int      `json:"local_storage_items"`
	Skipped []string `json:"skipped_origins,omitempty"` // not the tab's origin: open a tab there and import again
}

// managedOnly refuses storage access to a browser the user runs: its
// cookies are the user's.
func (t *Tab) managedOnly() error {
	if t.profile.kind != KindManaged {
		return errs.New(errs.Unsupported, "storage state is read and written only in the managed browser, not in %s", t.profile.id).
			WithHint("open the tab in the managed browser").WithFact(FactManagedOnly)
	}
	return nil
}

// ExportStorage returns every cookie of the managed browser and the
// localStorage of the tab's origin.
func (t *Tab) ExportStorage(ctx context.Context) (*StorageState, error) {
	if err := t.managedOnly(); err != nil {
		return nil, err
	}
	var cookies storage.GetCookiesResult
	var local struct {
		Origin string     `json:"origin"`
		Items  [][]string `json:"items"`
	}
	err := parallel(
		func() (err error) {
			cookies, err = cdproto.Call(ctx, t.sess.Conn().Browser(), storage.GetCookies, storage.GetCookiesParams{})
			return err
		},
		func() error {
			return t.Eval(ctx, "(() => { try { return {origin: location.origin, items: Object.entries(localStorage)}; } catch (e) { return {origin: 'null', items: []}; } })()", &local)
		},
	)
	if err != nil {
		return nil, err
	}
	st := &StorageState{Cookies: cookies.Cookies, Origins: []OriginStorage{}}
	if st.Cookies == nil {
		st.Cookies = []*network.Cookie{}
	}
	if local.Origin != "null" && len(local.Items) > 0 {
		o := OriginStorage{Origin: local.Origin}
		for _, kv := range local.Items {
			if len(kv) == 2 {
				o.LocalStorage = append(o.LocalStorage, KeyValue{Name: kv[0], Value: kv[1]})
			}
		}
		st.Origins = append(st.Origins, o)
	}
	return st, nil
}

// ImportStorage sets the state's cookies in the managed browser and the
// localStorage of the origin the tab shows; other origins are skipped.
func (t *Tab) ImportStorage(ctx context.Context, st *StorageState) (*Imported, error) {
	if err := t.managedOnly(); err != nil {
		return nil, err
	}
	out := &Imported{}
	n, err := setCookies(ctx, t.sess.Conn().Browser(), st.Cookies)
	if err != nil {
		return nil, err
	}
	out.Cookies = n
	var origin string
	if err := t.Eval(ctx, "location.origin", &origin); err != nil {
		return nil, err
	}
	for _, o := range st.Origins {
		if o.Origin != origin {
			out.Skipped = append(out.Skipped, o.Origin)
			continue
		}
		var n int
		if err := t.Eval(ctx, setItemsJS(o.LocalStorage), &n); err != nil {
			return nil, err
		}
		out.Items += n
	}
	return out, nil
}

// setCookies sets cookies in the browser of session b and says how many.
func setCookies(ctx context.Context, b *cdp.Session, cookies []*network.Cookie) (int, error) {
	params := make([]*network.CookieParam, 0, len(cookies))
	for _, c := range cookies {
		if c == nil || c.Name == "" {
			continue
		}
		p := &network.CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly,
			SameSite: c.SameSite, Priority: c.Priority, SourceScheme: c.SourceScheme, PartitionKey: c.PartitionKey}
		if !c.Session && c.Expires > 0 {
			p.Expires = cdproto.TimeSinceEpoch(c.Expires)
		}
		params = append(params, p)
	}
	if len(params) == 0 {
		return 0, nil
	}
	_, err := cdproto.Call(ctx, b, storage.SetCookies, storage.SetCookiesParams{Cookies: params})
	return len(params), err
}

// setItemsJS is an expression that puts items into the page's
// localStorage and returns how many.
func setItemsJS(items []KeyValue) string {
	raw, _ := json.Marshal(items)
	return "(() => { let n = 0; for (const kv of " + string(raw) + ") { localStorage.setItem(kv.name, kv.value); n++; } return n; })()"
}
