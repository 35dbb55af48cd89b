package main

import (
	"os"
	"testing"
)

func TestReadProcSelf(t *testing.T) {
	s, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSS == 0 || s.HWM < s.RSS {
		t.Fatalf("implausible sample %+v", s)
	}
}
