package leakguard

import (
	"fmt"
	"time"
)

// Config configures the tree sampler and what it does about leaks. Zero
// values take the defaults; WithDefaults fills them in, in one place.
type Config struct {
	// SampleInterval is how often each backend's tree is sampled; 0 means
	// five seconds, negative turns sampling (and every policy) off.
	SampleInterval time.Duration
	// DuplicateWarn warns when more than this many descendants share one
	// command line; 0 means 3.
	DuplicateWarn int
	// MaxDuplicateChildren, when positive, keeps the newest N descendants
	// per identical command line and stops the older ones (SIGTERM, grace,
	// SIGKILL). 0 means off.
	MaxDuplicateChildren int
	// RestartOnFDPressure restarts the backend when a process of its tree
	// passes 95% of its open-file limit, before it hits EMFILE.
	RestartOnFDPressure bool
	// RSSGrowthWarn warns when the tree's memory grows by more than this
	// many bytes within RSSWindow; 0 means 512 MiB in 10 minutes.
	RSSGrowthWarn int64
	RSSWindow     time.Duration
	// NofileSoftLimit is the floor for the backends' soft RLIMIT_NOFILE:
	// raised to it (never lowered, clamped to the hard limit) before the
	// first spawn. 0 means 4096, as Hermes does; negative turns it off.
	NofileSoftLimit int
}

// Defaults and thresholds.
const (
	// DefaultSampleInterval is the sampling period when none is given.
	DefaultSampleInterval = 5 * time.Second
	// DefaultNofileFloor is the backends' soft open-file limit floor when
	// none is given: 4096, as Hermes sets it.
	DefaultNofileFloor = 4096
	// MinSampleInterval is the shortest sampling period Validate accepts.
	MinSampleInterval = 100 * time.Millisecond

	defaultDuplicateWarn = 3
	defaultRSSGrowthWarn = 512 << 20
	defaultRSSWindow     = 10 * time.Minute
	fdWarnRatio          = 0.80
	fdRestartRatio       = 0.95
)

// Validate rejects settings no default can stand for.
func (c Config) Validate() error {
	if iv := c.SampleInterval; iv > 0 && iv < MinSampleInterval {
		return fmt.Errorf("leakguard: sample interval %v is below %v", iv, MinSampleInterval)
	}
	if c.MaxDuplicateChildren < 0 {
		return fmt.Errorf("leakguard: max duplicate children %d is negative", c.MaxDuplicateChildren)
	}
	return nil
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.SampleInterval == 0 {
		c.SampleInterval = DefaultSampleInterval
	}
	if c.DuplicateWarn == 0 {
		c.DuplicateWarn = defaultDuplicateWarn
	}
	if c.RSSGrowthWarn == 0 {
		c.RSSGrowthWarn = defaultRSSGrowthWarn
	}
	if c.RSSWindow == 0 {
		c.RSSWindow = defaultRSSWindow
	}
	if c.NofileSoftLimit == 0 {
		c.NofileSoftLimit = DefaultNofileFloor
	}
	return c
}
