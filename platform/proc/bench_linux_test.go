package proc

import (
	"os"
	"os/exec"
	"testing"
)

// A small tree under a shell: two plain and two setsid'd children.
func benchTree(b *testing.B) int {
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & setsid sleep 60 & setsid sleep 60 & wait")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if kids, err := DescendantsOf(cmd.Process.Pid); err == nil {
			for _, k := range kids {
				_ = Signal(k.Identity(), 9)
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for {
		if d, _ := DescendantsOf(cmd.Process.Pid); len(d) == 4 {
			return cmd.Process.Pid
		}
	}
}

func BenchmarkDescendantsOf(b *testing.B) {
	root := benchTree(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := DescendantsOf(root); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshotDescendants(b *testing.B) {
	root := benchTree(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, err := Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		_ = t.Descendants(root)
	}
}

func BenchmarkReadStat(b *testing.B) {
	pid := os.Getpid()
	for i := 0; i < b.N; i++ {
		if _, err := readStat(pid); err != nil {
			b.Fatal(err)
		}
	}
}
