// Package testnet finds free loopback ports for the servers tests start (redis-server,
// versitygw, Sentinel).
package testnet

import "net"

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
