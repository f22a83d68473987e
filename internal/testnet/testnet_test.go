package testnet

import (
	"net"
	"strconv"
	"testing"
)

func TestFreePortCanBeListenedOn(t *testing.T) {
	p, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if p <= 0 || p > 65535 {
		t.Fatalf("port %d", p)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		t.Fatalf("port %d not free: %v", p, err)
	}
	l.Close()
}
