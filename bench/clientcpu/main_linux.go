//go:build linux

// Command clientcpu runs a command and prints the CPU time (user + system, in
// microseconds) and the peak RSS (KiB) of that process alone, not of the children it
// started and reaped (a stdio client's server): it waits for the process to end without
// reaping it (waitid WNOWAIT) and reads its own times from /proc/PID/stat, in clock
// ticks (10 ms), while a sampler reads VmHWM from /proc/PID/status every millisecond.
// Linux only.
//
//	clientcpu OUT CMD ARGS...   appends "cpu_us rss_kib" to the file OUT; the command's
//	                            stdin, stdout and stderr pass through; its exit status is ours
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: clientcpu OUT CMD ARGS...")
		os.Exit(2)
	}
	out := os.Args[1]
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "clientcpu:", err)
		os.Exit(2)
	}
	pid := cmd.Process.Pid
	var hwm atomic.Int64
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if k := vmHWM(pid); k > hwm.Load() {
				hwm.Store(k)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		fmt.Fprintln(os.Stderr, "clientcpu: waitid:", err)
		os.Exit(2)
	}
	close(stop)
	cpu, err := ownCPU(pid)
	status := 0
	if werr := cmd.Wait(); werr != nil {
		status = 1
		if ee, ok := werr.(*exec.ExitError); ok {
			status = ee.ExitCode()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clientcpu:", err)
		os.Exit(2)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = fmt.Fprintf(f, "%d %d\n", cpu.Microseconds(), hwm.Load())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clientcpu:", err)
		os.Exit(2)
	}
	os.Exit(status)
}

// ownCPU reads utime + stime of the (zombie) process pid: its own threads, not the
// children it reaped (cutime, cstime).
func ownCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: fields count from its closing paren.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unreadable times in /proc/%d/stat", pid)
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(utime+stime) * tick, nil
}

// vmHWM is the peak RSS of pid in KiB (0 once it is gone).
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			k, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return k
		}
	}
	return 0
}
