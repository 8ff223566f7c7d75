// Package egresstest is a local stand-in for the public registries, for the
// tests and benchmarks of the egress proxy's cache: one server that answers
// as registry.npmjs.org, pypi.org, files.pythonhosted.org and
// proxy.golang.org over HTTPS (a certificate of its own for those names)
// and as any host over plain HTTP, and counts what it served.
package egresstest

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"hash/fnv"
	"math/big"
	mrand "math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Hosts are the names the HTTPS server's certificate covers.
var Hosts = []string{"registry.npmjs.org", "pypi.org", "files.pythonhosted.org", "proxy.golang.org"}

// Registry serves:
//
//	/NAME                          an npm packument naming https://registry.npmjs.org/NAME/-/NAME-1.0.0.tgz
//	/NAME/-/NAME-1.0.0.tgz         an artifact of ArtifactSize bytes
//	/simple/NAME/                  a PyPI simple page linking https://files.pythonhosted.org/packages/...
//	/packages/...                  an artifact
//	/MOD/@v/list, @v/v1.0.0.info|.mod|.zip   a Go module proxy's files for module MOD
type Registry struct {
	TLS, Plain *httptest.Server
	// ClientTLS trusts the HTTPS server (for egress.Proxy.UpstreamTLS).
	ClientTLS *tls.Config
	// ArtifactSize is the size of every .tgz, .whl and other artifact.
	ArtifactSize int
	// Latency is waited before each response; BytesPerSecond, when not 0,
	// paces artifact bodies: a simulated link to a distant registry.
	Latency        time.Duration
	BytesPerSecond int

	mu   sync.Mutex
	hits map[string]int
}

// New starts both servers; Close stops them.
func New() (*Registry, error) {
	r := &Registry{ArtifactSize: 64 << 10, hits: map[string]int{}}
	cert, pool, err := certificate(Hosts)
	if err != nil {
		return nil, err
	}
	r.TLS = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.TLS.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	r.TLS.StartTLS()
	r.Plain = httptest.NewServer(http.HandlerFunc(r.serve))
	r.ClientTLS = &tls.Config{RootCAs: pool}
	return r, nil
}

// Close stops the servers.
func (r *Registry) Close() {
	r.TLS.Close()
	r.Plain.Close()
}

// Dial sends port 443 to the HTTPS server and every other port to the
// plain one, whatever the host: use it as egress.Proxy.Dial.
func (r *Registry) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	_, port, _ := net.SplitHostPort(addr)
	target := r.Plain.Listener.Addr().String()
	if port == "443" {
		target = r.TLS.Listener.Addr().String()
	}
	var d net.Dialer
	return d.DialContext(ctx, network, target)
}

// Hits is how many times host+path was served (path without the query).
func (r *Registry) Hits(hostPath string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[hostPath]
}

// Artifact is the body served for an artifact path.
func (r *Registry) Artifact(path string) []byte {
	b := make([]byte, r.ArtifactSize)
	h := fnv.New64a()
	h.Write([]byte(path))
	mrand.New(mrand.NewSource(int64(h.Sum64()))).Read(b)
	return b
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	host := req.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	r.mu.Lock()
	r.hits[host+req.URL.Path]++
	r.mu.Unlock()
	if r.Latency > 0 {
		time.Sleep(r.Latency)
	}
	p := req.URL.Path
	switch {
	case strings.Contains(p, "/-/") && strings.HasSuffix(p, ".tgz"), strings.HasPrefix(p, "/packages/"):
		r.artifact(w, p)
	case strings.HasPrefix(p, "/simple/"):
		name := strings.Trim(strings.TrimPrefix(p, "/simple/"), "/")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!DOCTYPE html><html><body><a href="https://files.pythonhosted.org/packages/ab/cd/%s-1.0-py3-none-any.whl#sha256=00">%s-1.0-py3-none-any.whl</a></body></html>`, name, name)
	case strings.Contains(p, "/@v/"):
		mod, file, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/@v/")
		switch file {
		case "list":
			fmt.Fprint(w, "v1.0.0\n")
		case "v1.0.0.info":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"Version":"v1.0.0","Time":"2024-01-02T03:04:05Z"}`)
		case "v1.0.0.mod":
			fmt.Fprintf(w, "module %s\n\ngo 1.21\n", mod)
		case "v1.0.0.zip":
			w.Header().Set("Content-Type", "application/zip")
			w.Write(r.moduleZip(mod))
		default:
			http.NotFound(w, req)
		}
	case p == "/" || strings.Count(p, "/") > 2:
		http.NotFound(w, req)
	default:
		name := strings.TrimPrefix(p, "/")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":%q,"dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":%q,"version":"1.0.0","dist":{"tarball":"https://registry.npmjs.org/%s/-/%s-1.0.0.tgz"}}}}`, name, name, name, name)
	}
}

func (r *Registry) artifact(w http.ResponseWriter, path string) {
	b := r.Artifact(path)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	if r.BytesPerSecond <= 0 {
		w.Write(b)
		return
	}
	const chunk = 32 << 10
	start := time.Now()
	for off := 0; off < len(b); off += chunk {
		end := min(off+chunk, len(b))
		if _, err := w.Write(b[off:end]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		due := start.Add(time.Duration(float64(end) / float64(r.BytesPerSecond) * float64(time.Second)))
		time.Sleep(time.Until(due))
	}
}

// moduleZip is a module zip for mod@v1.0.0: a go.mod and one package file,
// padded to about ArtifactSize with a data file.
func (r *Registry) moduleZip(mod string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	prefix := mod + "@v1.0.0/"
	add := func(name string, body []byte) {
		f, _ := z.CreateHeader(&zip.FileHeader{Name: prefix + name, Method: zip.Store})
		f.Write(body)
	}
	add("go.mod", []byte(fmt.Sprintf("module %s\n\ngo 1.21\n", mod)))
	add("hello.go", []byte("package hello\n\n// Hello greets.\nfunc Hello() string { return \"hello from the registry\" }\n"))
	add("data.bin", r.Artifact(mod))
	z.Close()
	return buf.Bytes()
}

// certificate makes a self-signed certificate for names, and a pool that
// trusts it.
func certificate(names []string) (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tabwright test registry"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), DNSNames: names,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool, nil
}
