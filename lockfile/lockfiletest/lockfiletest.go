// Package lockfiletest holds test helpers for code that keeps private state
// with lockfile: what "private" means on each OS, and symbolic links where
// the OS can make them. Tests only; nothing else imports it.
package lockfiletest
