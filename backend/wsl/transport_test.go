package wsl_test

import (
	"hermes-desktop/backend/remote"
	"hermes-desktop/backend/wsl"
)

// A WSL distribution is a remote runner's host like an ssh one.
var _ remote.Transport = (*wsl.Transport)(nil)
