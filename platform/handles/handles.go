// Package handles is what a process does with the files and handles (fds
// on Unix) passed between our processes: it takes one passed down as its
// own, so that no child it starts later inherits it again (Take, Private),
// and interrupts a blocking read on one (InterruptRead). The shim's
// lifeline and report, a handoff's pipes and jobs and an instance's output
// pipes all go through it.
package handles
