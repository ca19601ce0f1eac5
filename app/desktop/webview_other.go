//go:build desktop && !linux

package desktop

// QuietWebView has nothing to set outside Linux: WebView2 and WKWebView
// read no such switches from the environment.
func QuietWebView() (restore func()) { return func() {} }
