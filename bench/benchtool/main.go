// Command benchtool prepares and runs the parts of `make bench` that are
// not plain load: it writes the cassettes and the peers' tapes, measures
// adkproxy's cold start and its first-SSE-event delay while recording, and
// turns the results into BENCHMARKS.md. scripts/bench.sh drives it.
//
//	benchtool fixtures  -dir DIR                 # request file, adkproxy cassette, proxay and talkback tapes
//	benchtool mix       -dir DIR -n N [-mix 10]  # a cassette of N interactions holding loadgen's mix
//	benchtool traffic   -dir DIR -n N [-files K] # N interactions built from the real Gemini fixtures
//	benchtool coldstart -bin ADKPROXY -dir DIR -reps 3 -tags ... -out FILE
//	benchtool ssedelay  -bin ADKPROXY -n 200 -out FILE
//	benchtool recordrss -bin ADKPROXY -sizes-mib 16,64 -reps 3 -out FILE
//	benchtool loadrss   -bin ADKPROXY -sizes-mib 1,64,512 -steps 200000 -reps 3 -out FILE
//	benchtool missrss   -bin ADKPROXY -mib 16 -c 8   # replay misses on large requests (not in make bench)
//	benchtool freeport                           # print a free loopback port
//	benchtool report    -results FILE -out BENCHMARKS.md [-gobench FILE] [-duration SECONDS]
package main

import (
	"fmt"
	"os"
)

var commands = map[string]func(args []string) error{
	"fixtures":  fixtures,
	"mix":       mixCassette,
	"traffic":   trafficCassette,
	"coldstart": coldStart,
	"ssedelay":  sseDelay,
	"recordrss": recordRSS,
	"loadrss":   loadRSS,
	"missrss":   missRSS,
	"freeport":  freePort,
	"report":    report,
}

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: benchtool fixtures|mix|traffic|coldstart|ssedelay|recordrss|loadrss|missrss|freeport|report [flags]")
		os.Exit(2)
	}
	if err := commands[os.Args[1]](os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "benchtool %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
