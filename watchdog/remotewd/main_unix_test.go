//go:build unix

package remotewd

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/watchdog/netns"
)

// The test binary is also the core these tests run: with childEnv set it
// is the remote watchdog, its held start, the namespace's relay, or a test
// backend, by its first argument (go-plugin's helper-process pattern).
const (
	childEnv = "HD_REMOTEWD_TEST_CHILD"
	// probeFailEnv makes the watchdog's namespace probe fail with its
	// value: the host that refuses namespaces, simulated.
	probeFailEnv = "HD_REMOTEWD_TEST_PROBE_FAIL"
	// holdFailEnv makes the held start in a namespace fail with its value,
	// as HoldPrepare says a failure: on the control, before it exits.
	holdFailEnv = "HD_REMOTEWD_TEST_HOLD_FAIL"
	testBackend = "test-backend"
)

// TestMain runs the child the test binary was started as, or the tests
// (testbin.Main removes the hermes-desktop binary the claim tests build).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" && len(os.Args) > 1 {
		os.Exit(runChild(os.Args[1], os.Args[2:]))
	}
	os.Exit(testbin.Main(m))
}

func runChild(cmd string, args []string) int {
	switch cmd {
	case RemoteSubcommand:
		probe := netns.Probe
		if why := os.Getenv(probeFailEnv); why != "" {
			probe = func() error { return errors.New(why) }
		}
		return remoteMain("test", args, os.Stdin, os.Stdout, os.Stderr, probe)
	case RemoteHoldSubcommand:
		if why := os.Getenv(holdFailEnv); why != "" && len(args) > 0 && strings.HasPrefix(args[0], netns.HoldFlag) {
			fmt.Fprintf(os.NewFile(4, "control"), "error %s\n", why)
			return 1
		}
		return HoldMain(args)
	case netns.Subcommand:
		return netns.Main(args, os.Stderr)
	case testBackend:
		return serveTestBackend()
	}
	fmt.Fprintf(os.Stderr, "test child: unknown command %q\n", cmd)
	return 2
}

// serveTestBackend is a backend on 127.0.0.1:0 that says "listening on N"
// and answers:
//
//	/           "hello from <pid>"
//	/fetch?url  the body of url, fetched through the proxy its environment
//	            names (HTTP_PROXY for http, HTTPS_PROXY for https: always,
//	            even for a loopback address, which Go's own rule skips)
//	/direct?addr  "connected" when a plain TCP connection to addr works
//	/env?k      the value of k in its environment
//	/exit       exits 3 at once
func serveTestBackend() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("listening on %d\n", ln.Addr().(*net.TCPAddr).Port)
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, "hello from %d", os.Getpid()) })
	mux.HandleFunc("/env", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, os.Getenv(r.URL.Query().Get("k"))) })
	mux.HandleFunc("/direct", func(w http.ResponseWriter, r *http.Request) {
		c, err := net.DialTimeout("tcp", r.URL.Query().Get("addr"), 5*time.Second)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		c.Close()
		io.WriteString(w, "connected")
	})
	mux.HandleFunc("/fetch", fetchThroughProxy)
	mux.HandleFunc("/exit", func(http.ResponseWriter, *http.Request) { os.Exit(3) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return 1
}

func fetchThroughProxy(w http.ResponseWriter, r *http.Request) {
	target := r.URL.Query().Get("url")
	proxy := os.Getenv("HTTP_PROXY")
	if u, err := url.Parse(target); err == nil && u.Scheme == "https" {
		proxy = os.Getenv("HTTPS_PROXY")
	}
	pu, err := url.Parse(proxy)
	if err != nil || proxy == "" {
		http.Error(w, "no proxy in the environment", http.StatusBadGateway)
		return
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy:           http.ProxyURL(pu),
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test's own server's certificate
	}}
	resp, err := c.Get(target)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(w, resp.Body)
}
