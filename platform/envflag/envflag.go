// Package envflag reads the environment variables that stand behind the
// command-line flags (every option has both, as in tini): the value of a
// variable becomes a flag's default, so an explicit flag still wins.
package envflag

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// String returns $key, or def when it is unset or empty.
func String(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// Bool reports whether $key is 1, true, yes or on (any case).
func Bool(key string) bool {
	switch strings.ToLower(os.Getenv(key)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Int returns $key as an integer, or def when it is unset or not a number.
func Int(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return n
	}
	return def
}

// Duration returns $key as a duration ("5s", "3m"), or def when it is
// unset, unreadable or negative: no option here means anything below zero.
func Duration(key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(key)); err == nil && d >= 0 {
		return d
	}
	return def
}
