//go:build unix

package netns

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// startProxy serves the egress proxy on a unix socket of the test's.
func startProxy(t *testing.T) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	p := serveEgress(ln, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(p.close)
	return sock
}

// ask sends one raw request to the proxy and returns the response.
func ask(t *testing.T, sock, raw string) (*http.Response, net.Conn) {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp, bufferedConn{Conn: c, r: br}
}

// The proxy forwards an absolute http:// request (hop-by-hop headers
// dropped), tunnels a CONNECT, says why a destination cannot be reached,
// and refuses what is not a proxy request.
func TestEgressProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hi "+r.URL.Path+" proxy-authorization="+r.Header.Get("Proxy-Authorization"))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	sock := startProxy(t)

	resp, _ := ask(t, sock, "GET "+srv.URL+"/x HTTP/1.1\r\nHost: "+host+"\r\nProxy-Authorization: secret\r\nConnection: close\r\n\r\n")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "hi /x proxy-authorization=" {
		t.Errorf("plain http: got %d %q, want 200 and the hop-by-hop header dropped", resp.StatusCode, body)
	}

	resp, tunnel := ask(t, sock, "CONNECT "+host+" HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT: got %d, want 200", resp.StatusCode)
	}
	io.WriteString(tunnel, "GET /y HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
	inner, err := http.ReadResponse(bufio.NewReader(tunnel), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(inner.Body)
	if string(body) != "hi /y proxy-authorization=" {
		t.Errorf("through the tunnel: got %q", body)
	}

	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	gone := closed.Addr().String()
	closed.Close()
	if resp, _ := ask(t, sock, "CONNECT "+gone+" HTTP/1.1\r\nHost: "+gone+"\r\n\r\n"); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("CONNECT to a closed port: got %d, want 502", resp.StatusCode)
	}
	if resp, _ := ask(t, sock, "GET /z HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a request that is not a proxy's: got %d, want 400", resp.StatusCode)
	}
}
