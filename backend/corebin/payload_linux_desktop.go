//go:build linux && desktop

package corebin

import (
	"embed"
	"io/fs"
)

// embedded holds what scripts/core-payload.sh put in payload/ before the
// desktop build: the plain build gzip'd and its SHA-256. A desktop build
// made without that step embeds only payload/README.md, and Locate says
// ErrNoPayload.
//
//go:embed all:payload
var embedded embed.FS

func payload() fs.FS {
	sub, err := fs.Sub(embedded, "payload")
	if err != nil {
		return nil
	}
	return sub
}
