package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"hermes-desktop/backend/model"
)

// printStatus writes `status` for a person: the instance, a table of the
// backends, then a line for each remote backend's connection and each
// backend's last error. now is when the next reconnect attempt is counted
// from.
func printStatus(w io.Writer, st model.Status, now time.Time) {
	fmt.Fprintf(w, "hermes-desktop %s: pid %d (%s), state dir %s\n", st.Instance.Version, st.Instance.PID, st.Instance.UI, st.Instance.StateDir)
	if st.Instance.UpdateInstalled {
		fmt.Fprintln(w, "updated on disk: 'hermes-desktop handoff' applies it (the backends keep running)")
	}
	// The HOST column only when a backend runs elsewhere: a local-only
	// table reads as it always did.
	remote := false
	for _, b := range st.Backends {
		remote = remote || b.Host != ""
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	header := []string{"BACKEND", "KIND", "STATE", "PID", "PORT", "PAGE", "RESTARTS"}
	if remote {
		header = []string{"BACKEND", "KIND", "STATE", "HOST", "PID", "PORT", "PAGE", "RESTARTS"}
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, b := range st.Backends {
		pid := strconv.Itoa(b.PID)
		if b.Host != "" && b.PID > 0 {
			pid = "remote:" + pid // the host's PID: signalling it here would hit another process
		}
		row := []string{b.Name, string(b.Kind), string(b.State), pid, strconv.Itoa(b.Port), pageOf(b), strconv.Itoa(b.Restarts)}
		if remote {
			row = slices.Insert(row, 3, cmp.Or(b.Host, "-"))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	for _, b := range st.Backends {
		if b.Host != "" {
			fmt.Fprintf(w, "%s: %s\n", b.Name, remoteLine(b, now))
		}
	}
	for _, b := range st.Backends {
		if b.LastError != "" {
			fmt.Fprintf(w, "%s: %s\n", b.Name, b.LastError)
		}
	}
}

// pageOf is the PAGE column: the page to open, else the API's address.
func pageOf(b model.BackendStatus) string {
	switch {
	case b.PageURL != "":
		return b.PageURL
	case b.URL != "":
		return "API only: " + b.URL
	}
	return "-"
}

// remoteLine says where a remote backend runs and how its connection is:
// "on me@box, connected (linux/amd64), remote pid 1234, remote port 8642
// forwarded to 43901, latency 12ms". Its PID column is the host's PID.
func remoteLine(b model.BackendStatus, now time.Time) string {
	parts := []string{"on " + b.Host}
	r := b.Remote
	if r == nil {
		return parts[0] + ", not connected"
	}
	conn := cmp.Or(r.Connection, "unknown")
	switch {
	case r.Connection == "reconnecting" && r.NextAttempt != nil && r.NextAttempt.After(now):
		conn = fmt.Sprintf("reconnecting (attempt %d, next in %s)", r.Attempt, r.NextAttempt.Sub(now).Round(time.Second))
	case r.Connection == "reconnecting" && r.Attempt > 0:
		conn = fmt.Sprintf("reconnecting (attempt %d)", r.Attempt)
	}
	if r.Platform != "" {
		conn += " (" + r.Platform + ")"
	}
	if r.Error != "" {
		conn += ": " + r.Error
	}
	parts = append(parts, conn)
	if b.PID > 0 {
		parts = append(parts, fmt.Sprintf("remote pid %d", b.PID))
	}
	switch {
	case r.Port > 0 && b.Port > 0:
		parts = append(parts, fmt.Sprintf("remote port %d forwarded to %d", r.Port, b.Port))
	case r.Port > 0:
		parts = append(parts, fmt.Sprintf("remote port %d, not forwarded", r.Port))
	}
	if r.Connection == "connected" && r.LatencyMS > 0 {
		parts = append(parts, "latency "+latency(r.LatencyMS))
	}
	return strings.Join(parts, ", ")
}

// latency is a heartbeat's round trip as Go says a duration, to the
// millisecond from 10 ms on ("12ms", "2.5ms").
func latency(ms float64) string {
	d := time.Duration(ms * float64(time.Millisecond))
	if d >= 10*time.Millisecond {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Microsecond).String()
}
