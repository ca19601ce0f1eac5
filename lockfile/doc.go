// Package lockfile keeps the launcher's ownership state on disk: the
// single-instance lock, per-instance owner locks, backend records, and the
// parsers for the ownership files other Hermes components write. Its
// WriteAtomic (temp file, fsync, rename, fsync of the directory) is the one
// atomic write of the module: the tools and corebin use it too.
//
// Everything here fails closed. A file that is a symlink, too large, owned by
// someone else, writable by others or not the JSON we expect is reported (and
// a record of ours is moved aside as ".corrupt"), never trusted and never
// deleted. Lock files are never removed: the kernel drops a lock when its
// holder dies, and that is the only proof of death we rely on.
package lockfile
