//go:build !linux || (!desktop && !webkit2_41)

package update

// No WebKitGTK: a headless build, or another OS's (WebView2, WKWebView).
const buildFlavour = ""
