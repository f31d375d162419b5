// gogen: a Go program whose time goes where the runtime switches stacks, for
// the tests of Go's stacks: `gogen MODE MILLISECONDS`, MODE one of
//
//	systemstack  runtime.ReadMemStats in a loop (its work on the g0 stack)
//	mcall        two goroutines passing a value back and forth (each park
//	             goes through runtime.mcall to the scheduler on g0)
//	signal       a busy loop sent SIGURG by another thread as fast as it
//	             can, and by itself every turn (the runtime's handler runs
//	             on the gsignal stack; the loop's own signals keep the
//	             handler's share of its time whatever CPU the other
//	             thread gets on a busy machine)
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

var stats runtime.MemStats

//go:noinline
func readStats(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		runtime.ReadMemStats(&stats)
	}
}

//go:noinline
func pingPong(d time.Duration) {
	a, b := make(chan int), make(chan int)
	go func() {
		for v := range a {
			b <- v + 1
		}
	}()
	for end, n := time.Now().Add(d), 0; time.Now().Before(end); n++ {
		a <- n
		<-b
	}
	close(a)
}

var spun uint64

//go:noinline
func spin(d time.Duration) {
	runtime.LockOSThread()
	tid := syscall.Gettid()
	done := make(chan bool)
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				syscall.Tgkill(os.Getpid(), tid, syscall.SIGURG)
			}
		}
	}()
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			spun += uint64(i) * spun
		}
		syscall.Tgkill(os.Getpid(), tid, syscall.SIGURG)
	}
	close(done)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gogen systemstack|mcall|signal MILLISECONDS")
		os.Exit(2)
	}
	ms, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gogen: not a number of milliseconds:", os.Args[2])
		os.Exit(2)
	}
	d := time.Duration(ms) * time.Millisecond
	switch os.Args[1] {
	case "systemstack":
		readStats(d)
	case "mcall":
		pingPong(d)
	case "signal":
		spin(d)
	default:
		fmt.Fprintln(os.Stderr, "gogen: no mode", os.Args[1])
		os.Exit(2)
	}
}
