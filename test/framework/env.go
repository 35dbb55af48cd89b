package framework

import (
	"fmt"
	"os"
	"time"
)

// EnvOr returns the environment variable key, or def when it is unset or empty.
func EnvOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// MustEnv returns the environment variable key, or a value that names it as missing, so that a suite
// can report every missing variable at once (see Missing) instead of failing at package init.
func MustEnv(key string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return missingPrefix + key
}

const missingPrefix = "MISSING-"

// Missing returns the names of the values that MustEnv could not find.
func Missing(values ...string) []string {
	var out []string
	for _, v := range values {
		if len(v) > len(missingPrefix) && v[:len(missingPrefix)] == missingPrefix {
			out = append(out, v[len(missingPrefix):])
		}
	}
	return out
}

// DurationEnv parses the environment variable key as a duration, or returns def.
func DurationEnv(key string, def time.Duration) time.Duration {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		panic(fmt.Sprintf("%s=%q: %v", key, v, err))
	}
	return d
}
