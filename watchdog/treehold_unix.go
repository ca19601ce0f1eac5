//go:build unix

package watchdog

// treeHold is what the shim's hooks hand each other (containTree,
// startChild, runShimLoop). On unix it is empty: the subreaper bit, the
// process group and wait4(-1) are the process's own, so the hooks share
// nothing (shim_windows.go's holds the job and the backend's process).
type treeHold struct{}
