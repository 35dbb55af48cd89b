package framework

import (
	"fmt"
	"time"
)

// Step prints one line of progress, with the time of day, the way every tool of the project does.
func Step(format string, args ...any) {
	fmt.Printf("%s ==> %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
