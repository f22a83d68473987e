// Command describe prints which Redis the test suite will use on this machine.
package main

import (
	"fmt"

	"github.com/printworker/printworker/internal/testredis"
)

func main() { fmt.Println(testredis.Describe()) }
