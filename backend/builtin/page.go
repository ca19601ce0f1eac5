package builtin

import (
	"bytes"
	"html/template"
	"net/http"

	"hermes-desktop/contract/hermes"
)

// pageTemplate is the dashboard page: Hermes' dashboard injects its session
// token into the page it serves, and so does this one. html/template
// escapes the token for the script context it lands in (a quoted JS
// string), whatever $HERMES_DASHBOARD_SESSION_TOKEN holds; the global's name
// is a template.JS, written as is, since Hermes' clients find the token by
// it in the page's text.
//
// The page is self-contained (no external script, style or font) and
// idle at rest: it asks the backend once on load and again only when the
// button is pressed.
var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hermes</title>
<script>window.{{.Global}} = {{.Token}};</script>
<style>
  :root { color-scheme: light dark; --fg: #1d1d1f; --muted: #6e6e73; --bg: #f5f5f7; --card: #fff; --line: #d2d2d7; --accent: #0a66c2; --ok: #1a7f37; --bad: #c62828; }
  @media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --muted: #a1a1a6; --bg: #1c1c1e; --card: #2c2c2e; --line: #3a3a3c; --accent: #4ea1ff; --ok: #3fb950; --bad: #ff6b6b; } }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
  main { max-width: 46rem; margin: 0 auto; padding: 2rem 1rem; display: flex; flex-direction: column; gap: 1rem; min-height: 100vh; }
  h1 { font-size: 1.5rem; margin: 0; }
  p { margin: 0; color: var(--muted); }
  code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, monospace; }
  .log { flex: 1; display: flex; flex-direction: column; gap: 0.75rem; }
  .msg { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 0.75rem 1rem; max-width: 100%; }
  .msg h2 { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin: 0 0 0.5rem; }
  .check { display: grid; grid-template-columns: 8.5rem 4.5rem 1fr; gap: 0.5rem; align-items: baseline; }
  .check + .check { margin-top: 0.35rem; }
  .ok { color: var(--ok); } .bad { color: var(--bad); }
  pre { margin: 0; white-space: pre-wrap; word-break: break-all; font: 0.8rem/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--muted); }
  form { display: flex; gap: 0.5rem; }
  input { flex: 1; padding: 0.6rem 0.8rem; border: 1px solid var(--line); border-radius: 10px; background: var(--card); color: var(--fg); font: inherit; }
  button { padding: 0.6rem 1rem; border: 0; border-radius: 10px; background: var(--accent); color: #fff; font: inherit; cursor: pointer; }
  button:disabled { opacity: 0.5; cursor: default; }
</style>
</head>
<body>
<main>
  <h1>Hermes (built-in backend)</h1>
  <p>This is hermes-desktop's built-in stand-in for <code>hermes dashboard</code>. It speaks the Hermes
  backend contract (session token, ready line, health and status) so the desktop app runs, and can be
  tested, without Hermes installed. There is no agent behind it, so it cannot chat: install Hermes for that.</p>
  <section class="log" aria-live="polite">
    <div class="msg">
      <h2>Backend</h2>
      <div class="check"><code>{{.StatusPath}}</code><strong id="status-code">…</strong><pre id="status-body"></pre></div>
      <div class="check"><code>{{.HealthPath}}</code><strong id="health-code">…</strong><pre id="health-body"></pre></div>
    </div>
  </section>
  <form id="composer">
    <input placeholder="Chat needs Hermes; this backend only answers the checks above" disabled aria-label="Message">
    <button type="submit" id="check">Check again</button>
  </form>
</main>
<script>
(function () {
  "use strict";
  var token = window.{{.Global}};
  function show(name, code, ok, body) {
    var c = document.getElementById(name + "-code");
    c.textContent = code;
    c.className = ok ? "ok" : "bad";
    document.getElementById(name + "-body").textContent = body;
  }
  function check(name, path, headers) {
    return fetch(path, { headers: headers, cache: "no-store" })
      .then(function (r) { return r.text().then(function (t) { show(name, r.status, r.ok, t); }); })
      .catch(function (e) { show(name, "error", false, String(e)); });
  }
  function checkAll() {
    var button = document.getElementById("check");
    button.disabled = true;
    Promise.all([
      check("status", {{.StatusPath}}, {}),
      check("health", {{.HealthPath}}, { [{{.Header}}]: token })
    ]).then(function () { button.disabled = false; });
  }
  document.getElementById("composer").addEventListener("submit", function (e) { e.preventDefault(); checkAll(); });
  checkAll();
})();
</script>
</body>
</html>
`))

// pageCSP keeps the page, which holds the session token, from loading
// anything or talking to any origin but its own, and from being framed.
const pageCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// pageData fills pageTemplate: the contract's names, and the token.
type pageData struct {
	Global                                template.JS
	Token, StatusPath, HealthPath, Header string
}

// handlePage serves the dashboard page with the session token injected.
func (s *server) handlePage(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, pageData{
		Global: template.JS(hermes.PageTokenGlobal), Token: s.token,
		StatusPath: hermes.StatusPath, HealthPath: hermes.HealthPath, Header: hermes.SessionTokenHeader,
	}); err != nil {
		s.log.Error("render page", "err", err)
		writeJSONStatus(w, http.StatusInternalServerError, detail("Internal Server Error"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store") // the page holds the token
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(buf.Bytes())
}
