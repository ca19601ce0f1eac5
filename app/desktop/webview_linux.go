//go:build desktop

package desktop

import "os"

// webKitNoMemoryMonitor turns off WebKitGTK's memory-pressure machinery: the
// UI process's monitor, which reads /proc/meminfo every few seconds, and
// the handler in every web process, which reads all of /proc/self/smaps
// every 30 s. Both exist so that a browser full of heavy pages trims its
// caches (and kills a runaway page) when the system runs low on memory; the
// window shows one small page of our own. Measured with the app at rest
// under Xvfb, that polling was its largest cost: 15 to 20 ms of CPU per
// smaps read in the page's web process, and 9 ms a minute in the monitor.
const webKitNoMemoryMonitor = "WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR"

// QuietWebView sets up the environment WebKitGTK reads when it starts, for
// a window that polls nothing at rest. Call it before the first web view
// exists; call the function it returns once the page has loaded, which
// gives the environment back, so that what the app starts later (a
// browser opening Hermes, say) does not inherit the setting. A value the
// user set is left alone.
func QuietWebView() (restore func()) {
	if _, set := os.LookupEnv(webKitNoMemoryMonitor); set {
		return func() {}
	}
	if err := os.Setenv(webKitNoMemoryMonitor, "1"); err != nil {
		return func() {}
	}
	return func() { _ = os.Unsetenv(webKitNoMemoryMonitor) }
}
