// What the report says about the machine a run measured: cores, CPU,
// memory, Node.js and kernel.

package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// machine is what the report says about the computer the run measured.
type machine struct {
	cpus                      int
	cpu, memory, node, kernel string
}

func thisMachine() machine {
	return machine{cpus: runtime.NumCPU(), cpu: cpuModel(), memory: memTotal(), node: nodeVersion(),
		kernel: readTrim("/proc/sys/kernel/osrelease")}
}

func readTrim(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(data))
}

func cpuModel() string {
	for _, line := range strings.Split(readTrim("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func memTotal() string {
	for _, line := range strings.Split(readTrim("/proc/meminfo"), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err == nil {
				return fmt.Sprintf("%.1f GiB", kb/(1<<20))
			}
		}
	}
	return "?"
}

func nodeVersion() string {
	out, err := execOutput("node", "--version")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(out)
}

// execOutput runs a command and returns its standard output.
func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return string(out), err
}
