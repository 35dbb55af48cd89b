package main

import (
	"runtime/debug"
	"testing"
)

func TestSetMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("MEMORY_LIMIT", "268435456") // 256Mi
	if got, want := setMemoryLimit(), int64(241591905); got != want {
		t.Errorf("limit %d, want %d (90%% of 256Mi)", got, want)
	}
	if got := debug.SetMemoryLimit(-1); got != 241591905 {
		t.Errorf("the runtime's limit is %d", got)
	}
	t.Setenv("GOMEMLIMIT", "100MiB")
	if got := setMemoryLimit(); got != 0 {
		t.Errorf("GOMEMLIMIT set: want it left alone, got %d", got)
	}
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("MEMORY_LIMIT", "")
	if got := setMemoryLimit(); got != 0 {
		t.Errorf("no limit: want none set, got %d", got)
	}
}
