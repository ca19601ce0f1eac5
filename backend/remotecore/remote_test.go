package remotecore

import "hermes-desktop/backend/ssh"

// backend/ssh's Host is the Remote remote backends install through. The
// assertion lives here, in a test, so that neither package imports the
// other for it.
var _ Remote = (*ssh.Host)(nil)
