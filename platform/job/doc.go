// Package job holds a process tree in a Windows kill-on-close job object
// (Job), the Windows counterpart of a subreaper and a cgroup; on other
// systems it is empty.
package job
