// Package cputime reads the CPU time this process has used, for benchmarks that report
// CPU cost (cpu-ns/op) apart from wall time on a busy machine. Only tests import it;
// it is apart from package testkit, whose golden files define the -update flag that
// some packages define themselves.
package cputime
