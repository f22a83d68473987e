// Package testnet finds free loopback ports for the servers tests start (redis-server,
// versitygw, Sentinel, printworker's own listeners) and waits for them to answer.
package testnet

import (
	"net"
	"net/http"
	"testing"
	"time"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago. Callers that
// start a server on it retry on a clash (another process may take it meanwhile).
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FreeAddr is "127.0.0.1:PORT" for a port FreePort found; it fails t otherwise.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// WaitHTTP waits until url answers, failing t at once if done says the server (or
// process) serving it ended, and after about 5 s of no answer.
func WaitHTTP(t testing.TB, url string, done <-chan error) {
	t.Helper()
	for range 200 {
		select {
		case err := <-done:
			t.Fatalf("the server of %s ended: %v", url, err)
		default:
		}
		if r, err := http.Get(url); err == nil {
			r.Body.Close()
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s never answered", url)
}
