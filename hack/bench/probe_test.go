package main

import "testing"

func TestToggled(t *testing.T) {
	for _, tc := range []struct{ in, want int32 }{{1, 2}, {2, 1}, {0, 2}, {3, 2}} {
		if got := toggled(tc.in); got != tc.want {
			t.Errorf("toggled(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
