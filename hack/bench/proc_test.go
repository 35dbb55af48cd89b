package main

import (
	"os"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     time.Duration
		wantErr  bool
	}{
		{"plain", "1234 (manager) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 12 0 5000 0 0",
			2800 * time.Millisecond, false},
		{"name with spaces and parens", "77 (a (b) c) R 1 77 77 0 -1 0 0 0 0 0 7 3 0 0", 100 * time.Millisecond, false},
		{"no paren", "77 manager R 1", 0, true},
		{"short", "77 (m) R 1 2 3", 0, true},
		{"not a number", "77 (m) R 1 77 77 0 -1 0 0 0 0 0 x 3 0 0", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStatCPU(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("parseStatCPU = %v, %v; want %v, err %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestParseStatusMemory(t *testing.T) {
	rss, hwm, err := parseStatusMemory("Name:\tmanager\nVmHWM:\t  81234 kB\nVmRSS:\t   70000 kB\nThreads:\t12\n")
	if err != nil || rss != 70000*1024 || hwm != 81234*1024 {
		t.Fatalf("got %d %d %v", rss, hwm, err)
	}
	for _, bad := range []string{
		"Name: x\n", "VmRSS: 1 kB\n", "VmRSS: 1 MB\nVmHWM: 2 kB\n", "VmRSS: x kB\nVmHWM: 2 kB\n",
	} {
		if _, _, err := parseStatusMemory(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestReadProcSelf(t *testing.T) {
	s, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSS == 0 || s.HWM < s.RSS {
		t.Fatalf("implausible sample %+v", s)
	}
}
