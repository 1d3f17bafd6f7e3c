//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "clientcpu: Linux only (it reads /proc)")
	os.Exit(2)
}
